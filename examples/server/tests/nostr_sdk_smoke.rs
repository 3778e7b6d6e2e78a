//! A client quarry did not write, nostr-sdk, publishes to the relay and
//! reads back, with either decoder.

mod common;

use std::time::Duration;

use nostr_sdk::prelude::*;
use quarry_server::DecoderKind;

async fn publish_and_fetch(decoder: DecoderKind) {
    let server = common::start(common::config(decoder)).await;
    let url = RelayUrl::parse(&format!("ws://{}", server.relay_addr())).unwrap();
    let keys = Keys::generate();
    let client = Client::new(keys.clone());
    client.add_relay(url.clone()).await.unwrap();
    client.connect().await;
    client.wait_for_connection(Duration::from_secs(5)).await;

    let event = EventBuilder::text_note("published by nostr-sdk")
        .tag(Tag::hashtag("quarry"))
        .sign_with_keys(&keys)
        .unwrap();
    let sent = client.send_event(&event).await.unwrap();
    assert!(sent.success.contains(&url), "{:?}", sent.failed);

    // The relay says why it refuses an event whose content was changed
    // after signing.
    let mut forged = event.clone();
    forged.content = "changed after signing".into();
    let refused = client.send_event(&forged).await;
    let message = match refused {
        Ok(output) => output.failed.get(&url).cloned().unwrap_or_default(),
        Err(e) => e.to_string(),
    };
    assert!(message.contains("invalid"), "{message}");

    let filter = Filter::new()
        .author(keys.public_key())
        .kind(Kind::TextNote)
        .hashtag("quarry");
    let events = client
        .fetch_events(filter, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events.first().unwrap(), &event);
    client.shutdown().await;
    common::assert_settled(&server).await;
    assert_eq!(server.stats().events_accepted, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nostr_sdk_with_quarry_decoder() {
    publish_and_fetch(DecoderKind::Quarry).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nostr_sdk_with_nostr_decoder() {
    publish_and_fetch(DecoderKind::Nostr).await;
}
