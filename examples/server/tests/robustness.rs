//! The relay survives what clients do wrong: malformed and oversized
//! frames, abrupt disconnects, clients that write one byte at a time or
//! never read, idlers. After each, it still serves another client and its
//! pool has no arena checked out.

mod common;

use std::time::Duration;

use common::{client_frame, connect, event_message, exchange, recv, send, signed_event, start};
use futures_util::{SinkExt, StreamExt};
use quarry_server::{Config, DecoderKind};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// A second client gets an answer: the server still serves.
async fn still_serves(addr: std::net::SocketAddr) {
    let mut ws = connect(addr).await;
    let got = exchange(&mut ws, r#"["REQ","alive",{"kinds":[7]}]"#, &["EOSE"]).await;
    assert_eq!(got, [json!(["EOSE", "alive"])]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_frames_close_only_their_connection() {
    let server = start(common::config(DecoderKind::Quarry)).await;
    let addr = server.relay_addr();
    let bad_frames: [Vec<u8>; 4] = [
        // A text frame that is not UTF-8.
        client_frame(0x1, &[b'[', 0xFF, 0xFE, b']']),
        // An unmasked frame from a client (RFC 6455 forbids it).
        vec![0x81, 0x02, b'[', b']'],
        // A reserved opcode.
        client_frame(0x3, b"x"),
        // A fragmented control frame (FIN clear on a ping).
        vec![0x09, 0x80, 0, 0, 0, 0],
    ];
    for frame in bad_frames {
        let mut ws = connect(addr).await;
        ws.get_mut().write_all(&frame).await.unwrap();
        // The server ends the connection; it may or may not say goodbye.
        let mut buf = [0u8; 256];
        let end = tokio::time::timeout(common::ANSWER, async {
            loop {
                match ws.get_mut().read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        });
        end.await.expect("the server closes the connection");
        still_serves(addr).await;
    }
    // Text that is not a NIP-01 message keeps the connection.
    let mut ws = connect(addr).await;
    for text in [
        "[",
        "]",
        "\"EVENT\"",
        "[\"EVENT\",{}]",
        "[1,2,3]",
        "null",
        "[\"REQ\"]",
    ] {
        send(&mut ws, text).await;
        assert_eq!(recv(&mut ws).await[0], "NOTICE", "{text}");
    }
    drop(ws);
    common::assert_settled(&server).await;
    assert!(server.stats().decode_errors >= 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_message_gets_notice_and_close_1009() {
    let config = Config {
        max_frame: 4096,
        ..common::config(DecoderKind::Quarry)
    };
    let server = start(config).await;
    let addr = server.relay_addr();
    let other = tokio::spawn(async move {
        let mut ws = connect(addr).await;
        for i in 0..20 {
            let sub = format!("o{i}");
            let got = exchange(&mut ws, &format!(r#"["REQ","{sub}",{{}}]"#), &["EOSE"]).await;
            assert_eq!(got.last().unwrap(), &json!(["EOSE", sub]));
        }
    });

    // Exactly at the limit: accepted (JSON allows the padding).
    let mut ws = connect(addr).await;
    let head = r#"["REQ","edge",{}"#;
    let at_limit = format!("{head}{}]", " ".repeat(4096 - head.len() - 1));
    assert_eq!(at_limit.len(), 4096);
    let got = exchange(&mut ws, &at_limit, &["EOSE"]).await;
    assert_eq!(got, [json!(["EOSE", "edge"])]);

    // One byte over: NOTICE, then a close frame with 1009.
    let over = format!("{head}{}]", " ".repeat(4096 - head.len()));
    send(&mut ws, &over).await;
    let notice = recv(&mut ws).await;
    assert_eq!(notice[0], "NOTICE");
    assert!(notice[1].as_str().unwrap().contains("4096"), "{notice}");
    let close = tokio::time::timeout(common::ANSWER, ws.next())
        .await
        .unwrap();
    match close {
        Some(Ok(Message::Close(Some(frame)))) => assert_eq!(frame.code, CloseCode::Size),
        other => panic!("expected a close frame, got {other:?}"),
    }
    drop(ws);

    // A frame header announcing 1 MiB, with the body never sent: refused
    // from the header alone.
    let mut ws = connect(addr).await;
    let mut header = client_frame(0x1, &[]);
    header.truncate(1);
    header.push(0x80 | 127);
    header.extend_from_slice(&(1u64 << 20).to_be_bytes());
    header.extend_from_slice(&[0, 0, 0, 0]);
    ws.get_mut().write_all(&header).await.unwrap();
    let notice = recv(&mut ws).await;
    assert_eq!(notice[0], "NOTICE");
    drop(ws);

    other.await.unwrap();
    common::assert_settled(&server).await;
    assert_eq!(server.stats().oversized, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abrupt_disconnects() {
    let server = start(common::config(DecoderKind::Quarry)).await;
    let addr = server.relay_addr();

    // In the middle of a frame: header for 1000 bytes, 10 sent.
    let mut ws = connect(addr).await;
    let frame = client_frame(0x1, &[b' '; 1000]);
    ws.get_mut().write_all(&frame[..18]).await.unwrap();
    drop(ws);

    // In the middle of a message: first fragment sent, no continuation.
    let mut ws = connect(addr).await;
    let mut first = client_frame(0x1, br#"["REQ","#);
    first[0] &= 0x7F; // FIN clear
    ws.get_mut().write_all(&first).await.unwrap();
    drop(ws);

    // In the middle of the HTTP handshake.
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n")
        .await
        .unwrap();
    drop(tcp);

    // After sending a request, without reading the answer.
    let mut ws = connect(addr).await;
    let event = signed_event("sent and gone", &[]);
    send(&mut ws, &event_message(&event)).await;
    drop(ws);

    still_serves(addr).await;
    common::assert_settled(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn byte_by_byte_writer_is_served_and_others_meanwhile() {
    let server = start(common::config(DecoderKind::Quarry)).await;
    let addr = server.relay_addr();
    let mut slow = connect(addr).await;
    let frame = client_frame(0x1, br#"["REQ","slow",{"kinds":[1],"limit":5}]"#);
    let half = frame.len() / 2;
    for b in &frame[..half] {
        slow.get_mut().write_all(&[*b]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // Half a message in, another client is served.
    still_serves(addr).await;
    for b in &frame[half..] {
        slow.get_mut().write_all(&[*b]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert_eq!(recv(&mut slow).await, json!(["EOSE", "slow"]));
    drop(slow);
    common::assert_settled(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_that_does_not_read_is_dropped_others_served() {
    let config = Config {
        write_timeout: Duration::from_millis(300),
        ..common::config(DecoderKind::Quarry)
    };
    let server = start(config).await;
    let addr = server.relay_addr();
    // 40 stored events of ~3.5 KB: each REQ answers ~140 KB.
    let mut ws = connect(addr).await;
    for i in 0..40 {
        let event = signed_event(&format!("{i} {}", "z".repeat(3500)), &[]);
        let got = exchange(&mut ws, &event_message(&event), &["OK"]).await;
        assert_eq!(got[0][2], json!(true));
    }
    drop(ws);

    // 300 REQs (~42 MB of answers), never read.
    let mut deaf = connect(addr).await;
    for i in 0..300 {
        let sent = tokio::time::timeout(
            common::ANSWER,
            deaf.send(Message::text(format!(r#"["REQ","d{i}",{{}}]"#))),
        )
        .await;
        if !matches!(sent, Ok(Ok(()))) {
            break; // the server stopped reading (or already dropped us)
        }
    }
    let stats = common::wait_for(&server, "the deaf client to be dropped", |s| {
        s.timeouts >= 1
    })
    .await;
    assert_eq!(stats.pool.checked_out, 0);
    still_serves(addr).await;
    drop(deaf);
    common::assert_settled(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connection_is_closed() {
    let config = Config {
        idle_timeout: Duration::from_millis(200),
        ..common::config(DecoderKind::Quarry)
    };
    let server = start(config).await;
    let mut ws = connect(server.relay_addr()).await;
    let close = tokio::time::timeout(common::ANSWER, ws.next())
        .await
        .unwrap();
    match close {
        Some(Ok(Message::Close(Some(frame)))) => assert_eq!(frame.code, CloseCode::Away),
        other => panic!("expected a close frame, got {other:?}"),
    }
    common::assert_settled(&server).await;
    assert_eq!(server.stats().timeouts, 1);
}
