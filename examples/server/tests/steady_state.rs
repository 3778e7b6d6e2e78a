//! After warm-up, the decode path of every request (arena checkout from the
//! pool plus decode, id check included) makes no heap allocation: counted
//! exactly with the counting allocator, through the real server on
//! loopback. The nostr decoder, counted the same way, does allocate: the
//! counter is live.

mod common;

use common::{connect, event_message, exchange, send, signed_event, start};
use quarry_server::DecoderKind;
use quarry_server::alloc_count::{self, CountingAlloc};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Events of a few shapes (0 to 3 hashtags, short to long content), each
/// signed by its own key.
fn events(n: usize, salt: &str) -> Vec<String> {
    (0..n)
        .map(|i| {
            let tags = ["nostr", "quarry", "rust"];
            let content = format!("{salt} note {i}: {}", "x".repeat(20 * (i % 4)));
            signed_event(&content, &tags[..i % 4])
        })
        .collect()
}

/// One round of requests: every EVENT, two REQs, a CLOSE, a malformed one.
async fn round(ws: &mut common::Ws, events: &[String]) -> usize {
    let mut requests = 0;
    for event in events {
        exchange(ws, &event_message(event), &["OK"]).await;
        requests += 1;
    }
    exchange(
        ws,
        r##"["REQ","a",{"kinds":[1],"#t":["quarry"],"limit":3}]"##,
        &["EOSE"],
    )
    .await;
    exchange(ws, r#"["REQ","b",{"kinds":[7]},{"since":1}]"#, &["EOSE"]).await;
    send(ws, r#"["CLOSE","a"]"#).await;
    exchange(ws, r#"["EVENT",{"id":1}]"#, &["NOTICE"]).await;
    requests + 4
}

async fn relay_decode_allocations(decoder: DecoderKind) -> (u64, usize) {
    assert!(alloc_count::is_installed());
    let server = start(common::config(decoder)).await;
    let mut ws = connect(server.relay_addr()).await;
    // Warm-up: a longer event first, so the arena's chunk fits them all.
    let big = signed_event(&"w".repeat(400), &["nostr", "quarry", "rust"]);
    exchange(&mut ws, &event_message(&big), &["OK"]).await;
    round(&mut ws, &events(8, "warm")).await;
    // Measured: new events (stored, the store was presized) and repeats.
    let fresh = events(40, "fresh");
    let before = server.stats();
    let mut requests = round(&mut ws, &fresh).await;
    requests += round(&mut ws, &fresh).await;
    let after = server.stats();
    assert_eq!(after.messages - before.messages, requests as u64);
    drop(ws);
    common::assert_settled(&server).await;
    (after.decode_allocs - before.decode_allocs, requests)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_steady_state_decodes_without_allocating() {
    let (allocs, requests) = relay_decode_allocations(DecoderKind::Quarry).await;
    assert!(requests >= 80);
    assert_eq!(allocs, 0, "{allocs} allocations in {requests} requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nostr_decoder_allocates_in_the_same_path() {
    let (allocs, requests) = relay_decode_allocations(DecoderKind::Nostr).await;
    // rust-nostr: at least the content, the three hex strings and the tag
    // list per event (shared/specs/nostr.md §8): 80 events here.
    assert!(
        allocs >= 80 * 4,
        "{allocs} allocations in {requests} requests"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pool_serves_one_connection_with_one_arena() {
    let server = start(common::config(DecoderKind::Quarry)).await;
    let mut ws = connect(server.relay_addr()).await;
    round(&mut ws, &events(6, "one")).await;
    drop(ws);
    common::assert_settled(&server).await;
    let pool = server.stats().pool;
    assert_eq!(
        (pool.created, pool.high_water, pool.pooled),
        (1, 1, 1),
        "{pool:?}"
    );
}

/// A `<message id=… to=…>` stanza with an `<enc>` child, marshalled by
/// wacore-binary (flags byte included).
fn stanza(id: &str, payload: usize) -> Vec<u8> {
    use wacore_binary::builder::NodeBuilder;
    let node = NodeBuilder::new("message")
        .attr("id", id)
        .attr("to", "5511999990000@s.whatsapp.net")
        .attr("type", "text")
        .children(vec![
            NodeBuilder::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(vec![0xAB; payload])
                .build(),
        ])
        .build();
    wacore_binary::marshal::marshal(&node).expect("the peer encodes it")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wa_steady_state_decodes_without_allocating() {
    assert!(alloc_count::is_installed());
    let server = start(common::config(DecoderKind::Quarry)).await;
    let mut tcp = tokio::net::TcpStream::connect(server.wa_addr().unwrap())
        .await
        .unwrap();
    async fn ask(tcp: &mut tokio::net::TcpStream, body: &[u8]) -> serde_json::Value {
        let len = (body.len() as u32).to_be_bytes();
        tcp.write_all(&len[1..]).await.unwrap();
        tcp.write_all(body).await.unwrap();
        let mut prefix = [0u8; 3];
        tcp.read_exact(&mut prefix).await.unwrap();
        let n = u32::from_be_bytes([0, prefix[0], prefix[1], prefix[2]]) as usize;
        let mut answer = vec![0; n];
        tcp.read_exact(&mut answer).await.unwrap();
        serde_json::from_slice(&answer).unwrap()
    }
    ask(&mut tcp, &stanza("WARM", 4096)).await;
    let before = server.stats();
    for i in 0..50 {
        let id = format!("3EB0{i:016X}");
        let answer = ask(&mut tcp, &stanza(&id, 64 * (i % 8))).await;
        assert_eq!(answer, serde_json::json!({"tag": "message", "id": id}));
    }
    let after = server.stats();
    assert_eq!(after.wa_frames - before.wa_frames, 50);
    assert_eq!(after.wa_decode_allocs - before.wa_decode_allocs, 0);
}
