//! The WhatsApp frame endpoint: answers per frame (tag and id, or an error
//! with its offset) for frames written by wacore-binary, compressed and
//! plain; bad frames keep the connection, an oversized length ends it;
//! disconnects and byte-by-byte writers leave the server serving and the
//! pool with nothing checked out.

mod common;

use std::time::Duration;

use quarry_server::{Config, DecoderKind};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wacore_binary::builder::NodeBuilder;

fn prefixed(body: &[u8]) -> Vec<u8> {
    let len = (body.len() as u32).to_be_bytes();
    let mut out = len[1..].to_vec();
    out.extend_from_slice(body);
    out
}

async fn read_answer(tcp: &mut TcpStream) -> Option<Value> {
    let mut prefix = [0u8; 3];
    tokio::time::timeout(common::ANSWER, tcp.read_exact(&mut prefix))
        .await
        .expect("an answer in time")
        .ok()?;
    let n = u32::from_be_bytes([0, prefix[0], prefix[1], prefix[2]]) as usize;
    let mut body = vec![0; n];
    tcp.read_exact(&mut body).await.ok()?;
    Some(serde_json::from_slice(&body).expect("answers are JSON"))
}

async fn ask(tcp: &mut TcpStream, body: &[u8]) -> Value {
    tcp.write_all(&prefixed(body)).await.unwrap();
    read_answer(tcp).await.expect("an answer")
}

fn iq(id: &str) -> Vec<u8> {
    let node = NodeBuilder::new("iq")
        .attr("id", id)
        .attr("xmlns", "w:p")
        .attr("type", "get")
        .children(vec![NodeBuilder::new("ping").build()])
        .build();
    wacore_binary::marshal::marshal(&node).expect("the peer encodes it")
}

async fn wa(config: Config) -> (quarry_server::Server, TcpStream) {
    let server = common::start(config).await;
    let tcp = TcpStream::connect(server.wa_addr().unwrap()).await.unwrap();
    (server, tcp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_tag_and_id() {
    let (server, mut tcp) = wa(common::config(DecoderKind::Quarry)).await;
    assert_eq!(
        ask(&mut tcp, &iq("ping-1")).await,
        json!({"tag": "iq", "id": "ping-1"})
    );

    // No id attribute.
    let node = NodeBuilder::new("presence")
        .attr("type", "available")
        .build();
    let body = wacore_binary::marshal::marshal(&node).unwrap();
    assert_eq!(
        ask(&mut tcp, &body).await,
        json!({"tag": "presence", "id": null})
    );

    // The same stanza zlib-compressed (flags 0x02).
    let plain = iq("zipped");
    let mut zipped = vec![0x02];
    zipped.extend(miniz_oxide::deflate::compress_to_vec_zlib(&plain[1..], 6));
    assert_eq!(
        ask(&mut tcp, &zipped).await,
        json!({"tag": "iq", "id": "zipped"})
    );

    // A hex id that the peer packs (HEX_8) comes back as text.
    let packed = iq("3EB0A1B2C3D4E5F6");
    assert_eq!(ask(&mut tcp, &packed).await["id"], "3EB0A1B2C3D4E5F6");
    drop(tcp);
    common::assert_settled(&server).await;
    assert_eq!(server.stats().wa_frames, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_frames_get_errors_and_keep_the_connection() {
    let config = Config {
        max_frame: 200_000,
        ..common::config(DecoderKind::Quarry)
    };
    let (server, mut tcp) = wa(config).await;
    let good = iq("after");
    let mut bomb = vec![0x00, 0xF8, 0x01];
    bomb.extend(std::iter::repeat_n(0xFA, 100_000));
    let truncated = &good[..good.len() - 2];
    let mut trailing = good.clone();
    trailing.push(0x00);
    let cases: [(&str, &[u8], Option<u64>); 6] = [
        // Offsets count from the start of the body (the flags byte is 0).
        ("empty body", &[], Some(0)),
        ("flags only", &[0x00], Some(1)),
        ("truncated node", truncated, None),
        ("trailing byte", &trailing, Some(good.len() as u64)),
        // Not a list header where the root must be one.
        ("bad root", &[0x00, 0x03], Some(1)),
        ("JID recursion bomb", &bomb, None),
    ];
    for (what, body, offset) in cases {
        let answer = ask(&mut tcp, body).await;
        assert!(answer["error"].is_string(), "{what}: {answer}");
        let at = answer["offset"].as_u64().expect("an offset");
        if let Some(offset) = offset {
            assert_eq!(at, offset, "{what}: {answer}");
        }
        assert!(at <= body.len() as u64, "{what}: {answer}");
        // The connection still answers.
        assert_eq!(ask(&mut tcp, &good).await["id"], "after", "{what}");
    }
    // A bad zlib stream.
    let answer = ask(&mut tcp, &[0x02, 0x78, 0x9C, 0xFF, 0xFF]).await;
    assert!(answer["error"].is_string(), "{answer}");
    drop(tcp);
    common::assert_settled(&server).await;
    assert_eq!(server.stats().wa_errors, 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_length_is_refused_and_closed() {
    let config = Config {
        max_frame: 1000,
        ..common::config(DecoderKind::Quarry)
    };
    let (server, mut tcp) = wa(config).await;
    // At the limit: decoded (the peer's stanza padded with a 1000-byte body
    // would not fit, so a 1000-byte garbage body: an error answer, not a
    // refusal).
    let answer = ask(&mut tcp, &[0xFF; 1000]).await;
    assert!(
        answer["error"].as_str().unwrap().contains("byte"),
        "{answer}"
    );
    // Over: the length alone is refused, then the connection ends.
    tcp.write_all(&[0x00, 0x03, 0xE9]).await.unwrap(); // 1001
    let answer = read_answer(&mut tcp).await.expect("an error answer");
    assert_eq!(
        answer,
        json!({"error": "frame larger than the limit of 1000 bytes", "offset": 0})
    );
    let mut rest = [0u8; 1];
    let end = tokio::time::timeout(common::ANSWER, tcp.read(&mut rest))
        .await
        .unwrap();
    assert!(matches!(end, Ok(0) | Err(_)), "{end:?}");
    common::assert_settled(&server).await;
    assert_eq!(server.stats().oversized, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnects_and_slow_writers() {
    let (server, mut first) = wa(common::config(DecoderKind::Quarry)).await;
    let addr = server.wa_addr().unwrap();
    // Length sent, half the body, gone.
    let frame = prefixed(&iq("gone"));
    first.write_all(&frame[..frame.len() / 2]).await.unwrap();
    drop(first);
    // Half a length prefix, gone.
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(&[0x00]).await.unwrap();
    drop(tcp);

    // One byte at a time, with another client served in the middle.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    let frame = prefixed(&iq("slow"));
    let half = frame.len() / 2;
    for b in &frame[..half] {
        slow.write_all(&[*b]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let mut other = TcpStream::connect(addr).await.unwrap();
    assert_eq!(ask(&mut other, &iq("other")).await["id"], "other");
    for b in &frame[half..] {
        slow.write_all(&[*b]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert_eq!(read_answer(&mut slow).await.unwrap()["id"], "slow");
    drop((slow, other));
    common::assert_settled(&server).await;
}

#[test]
fn answer_format_without_a_socket() {
    let relay = quarry_server::Relay::new(Config::default());
    let mut out = Vec::new();
    relay.answer_wa_frame(&iq("x\"y"), &mut out);
    let body = br#"{"tag":"iq","id":"x\"y"}"#;
    let mut want = vec![0, 0, body.len() as u8];
    want.extend_from_slice(body);
    assert_eq!(out, want);
    assert_eq!(relay.pool_stats().checked_out, 0);
}
