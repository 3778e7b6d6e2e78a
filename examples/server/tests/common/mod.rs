//! What every test file shares: a server on loopback port 0, a WebSocket
//! client written with tokio-tungstenite, hand-built frames, and signed
//! events from rust-nostr (through nostr-sdk's re-export), a peer whose ids
//! and signatures quarry did not compute.

#![allow(dead_code)] // each test file uses a different part

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use nostr_sdk::prelude::{EventBuilder, JsonUtil, Keys, Tag};
use quarry_server::{Config, DecoderKind, Server, Stats};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

/// How long a test waits for any one answer before it fails.
pub const ANSWER: Duration = Duration::from_secs(5);

pub type Ws = WebSocketStream<TcpStream>;

/// Settings for tests: loopback port 0, short timeouts.
pub fn config(decoder: DecoderKind) -> Config {
    Config {
        decoder,
        idle_timeout: Duration::from_secs(5),
        write_timeout: Duration::from_secs(2),
        ..Config::loopback_any_port()
    }
}

pub async fn start(config: Config) -> Server {
    quarry_server::start(config)
        .await
        .expect("binds loopback port 0")
}

pub async fn connect(addr: SocketAddr) -> Ws {
    let tcp = TcpStream::connect(addr).await.expect("connects");
    let (ws, _) = tokio_tungstenite::client_async(format!("ws://{addr}/"), tcp)
        .await
        .expect("WebSocket handshake");
    ws
}

pub async fn send(ws: &mut Ws, text: &str) {
    ws.send(Message::text(text)).await.expect("sends");
}

/// The next text message, parsed as JSON.
pub async fn recv(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(ANSWER, ws.next())
            .await
            .expect("an answer in time")
            .expect("connection open")
            .expect("a message");
        match msg {
            Message::Text(t) => return serde_json::from_str(t.as_str()).expect("answers are JSON"),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("expected text, got {other:?}"),
        }
    }
}

/// Send `text` and collect the answers up to one whose verb is in `last`.
pub async fn exchange(ws: &mut Ws, text: &str, last: &[&str]) -> Vec<Value> {
    send(ws, text).await;
    let mut got = Vec::new();
    loop {
        let v = recv(ws).await;
        let done = last.contains(&v[0].as_str().unwrap_or(""));
        got.push(v);
        if done {
            return got;
        }
    }
}

/// A kind-1 event signed by a fresh key, as rust-nostr serializes it.
pub fn signed_event(content: &str, hashtags: &[&str]) -> String {
    let keys = Keys::generate();
    EventBuilder::text_note(content)
        .tags(hashtags.iter().map(|t| Tag::hashtag(*t)))
        .sign_with_keys(&keys)
        .expect("signs")
        .as_json()
}

/// `["EVENT", <event>]`.
pub fn event_message(event_json: &str) -> String {
    format!(r#"["EVENT",{event_json}]"#)
}

/// The event's `id` member.
pub fn id_of(event_json: &str) -> String {
    let v: Value = serde_json::from_str(event_json).unwrap();
    v["id"].as_str().unwrap().to_owned()
}

/// Poll the server's statistics until `done` holds (connection tasks end
/// a moment after the client's side closes).
pub async fn wait_for(server: &Server, what: &str, done: impl Fn(&Stats) -> bool) -> Stats {
    let deadline = tokio::time::Instant::now() + ANSWER;
    loop {
        let stats = server.stats();
        if done(&stats) {
            return stats;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {stats:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// No arena is checked out and no WebSocket connection is open.
pub async fn assert_settled(server: &Server) {
    let stats = wait_for(server, "connections to end", |s| {
        s.ws_open == 0 && s.wa_open == 0
    })
    .await;
    assert_eq!(stats.pool.checked_out, 0, "an arena leaked: {stats:?}");
}

/// A masked client text frame (RFC 6455 §5.2) with an all-zero mask key,
/// so the payload goes out as it is.
pub fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => f.push(0x80 | n as u8),
        n if n <= 0xFFFF => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(0x80 | 127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    f.extend_from_slice(&[0, 0, 0, 0]);
    f.extend_from_slice(payload);
    f
}

/// A WebSocket connection after the handshake, as a raw TCP stream for
/// writing hand-made frames.
pub async fn raw_ws(addr: SocketAddr) -> Ws {
    connect(addr).await
}
