//! The relay's answers over a real WebSocket, per NIP-01, for both
//! decoders: the same requests must get the same answers (NOTICE texts
//! aside, which come from each decoder's error message).

mod common;

use common::{connect, event_message, exchange, id_of, recv, send, signed_event, start};
use futures_util::SinkExt;
use quarry_server::DecoderKind;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// The first three elements of an answer (the fourth is free text).
fn head3(v: &Value) -> Value {
    Value::Array(v.as_array().unwrap()[..3].to_vec())
}

async fn ok_of(ws: &mut common::Ws, event: &str) -> Value {
    let got = exchange(ws, &event_message(event), &["OK", "NOTICE"]).await;
    assert_eq!(got.len(), 1, "{got:?}");
    got.into_iter().next().unwrap()
}

async fn nip01_answers(decoder: DecoderKind) {
    let server = start(common::config(decoder)).await;
    let mut ws = connect(server.relay_addr()).await;

    // A valid event: accepted; the same again: duplicate (still true).
    let a = signed_event("hello from rust-nostr", &["nostr", "quarry"]);
    let id_a = id_of(&a);
    assert_eq!(ok_of(&mut ws, &a).await, json!(["OK", id_a, true, ""]));
    let again = ok_of(&mut ws, &a).await;
    assert_eq!(head3(&again), json!(["OK", id_a, true]));
    assert!(
        again[3].as_str().unwrap().starts_with("duplicate:"),
        "{again}"
    );

    // Content changed after signing: the id no longer matches.
    let tampered = a.replace("hello from rust-nostr", "hello from someone else");
    let bad = ok_of(&mut ws, &tampered).await;
    assert_eq!(head3(&bad), json!(["OK", id_a, false]));
    assert!(bad[3].as_str().unwrap().starts_with("invalid:"), "{bad}");

    let b = signed_event("second note", &["rust"]);
    let id_b = id_of(&b);
    assert_eq!(ok_of(&mut ws, &b).await[2], json!(true));

    // REQ: matching stored events, newest first, then EOSE.
    let got = exchange(
        &mut ws,
        r#"["REQ","all",{"kinds":[1]}]"#,
        &["EOSE", "CLOSED"],
    )
    .await;
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0][0], "EVENT");
    assert_eq!(got[0][1], "all");
    assert_eq!(got[0][2]["id"], id_b.as_str());
    assert_eq!(got[1][2]["id"], id_a.as_str());
    // The stored event reads back as the one sent (compared as JSON).
    let sent_a: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(got[1][2], sent_a);
    assert_eq!(got[2], json!(["EOSE", "all"]));

    // Tag filter and limit.
    let got = exchange(&mut ws, r##"["REQ","t",{"#t":["quarry"]}]"##, &["EOSE"]).await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0][2]["id"], id_a.as_str());
    let got = exchange(&mut ws, r#"["REQ","one",{"limit":1}]"#, &["EOSE"]).await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0][2]["id"], id_b.as_str());
    let got = exchange(&mut ws, r#"["REQ","none",{"kinds":[7]}]"#, &["EOSE"]).await;
    assert_eq!(got, [json!(["EOSE", "none"])]);
    let authors = format!(
        r#"["REQ","by",{{"authors":["{}"]}}]"#,
        sent_a["pubkey"].as_str().unwrap()
    );
    let got = exchange(&mut ws, &authors, &["EOSE"]).await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0][2]["id"], id_a.as_str());

    // A subscription id over 64 characters is refused: quarry's decoder
    // rejects it while decoding (NOTICE), the nostr path after (CLOSED).
    let long = "s".repeat(65);
    let req = format!(r#"["REQ","{long}",{{}}]"#);
    let got = exchange(&mut ws, &req, &["EOSE", "CLOSED", "NOTICE"]).await;
    let refusal = match got[0][0].as_str() {
        Some("CLOSED") => &got[0][2],
        Some("NOTICE") => &got[0][1],
        _ => panic!("{got:?}"),
    };
    assert!(refusal.as_str().unwrap().starts_with("invalid:"), "{got:?}");

    // CLOSE gets no answer: the next answer is the next request's.
    send(&mut ws, r#"["CLOSE","all"]"#).await;
    let got = exchange(&mut ws, r#"["REQ","after",{"kinds":[7]}]"#, &["EOSE"]).await;
    assert_eq!(got, [json!(["EOSE", "after"])]);

    // Malformed JSON, unknown verbs, unsupported verbs, binary: NOTICE, and
    // the connection keeps serving.
    for text in [
        "not json",
        r#"["EVENT",{"id":"#,
        r#"["HELLO","x"]"#,
        r#"{"EVENT":1}"#,
        r#"["COUNT","c",{}]"#,
        "",
    ] {
        send(&mut ws, text).await;
        let v = recv(&mut ws).await;
        assert_eq!(v[0], "NOTICE", "{text:?} -> {v}");
    }
    ws.send(Message::binary(b"[\"REQ\"]".to_vec()))
        .await
        .unwrap();
    assert_eq!(recv(&mut ws).await[0], "NOTICE");
    let got = exchange(&mut ws, &event_message(&b), &["OK"]).await;
    assert!(got[0][3].as_str().unwrap().starts_with("duplicate:"));

    let stats = server.stats();
    assert_eq!(stats.events_accepted, 2);
    assert_eq!(stats.events_duplicate, 2);
    assert_eq!(stats.events_invalid, 1);
    assert_eq!(stats.closes, 1);
    drop(ws);
    common::assert_settled(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nip01_answers_quarry() {
    nip01_answers(DecoderKind::Quarry).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nip01_answers_nostr() {
    nip01_answers(DecoderKind::Nostr).await;
}

/// With `--verify-sig`, an event whose id is right but whose signature is
/// not is refused; without it, accepted.
async fn signature(decoder: DecoderKind) {
    let event = signed_event("signed", &[]);
    let mut v: Value = serde_json::from_str(&event).unwrap();
    // Another valid-looking signature: the one of a different event.
    let other: Value = serde_json::from_str(&signed_event("other", &[])).unwrap();
    v["sig"] = other["sig"].clone();
    let forged = v.to_string();

    let config = quarry_server::Config {
        verify_sig: true,
        ..common::config(decoder)
    };
    let server = start(config).await;
    let mut ws = connect(server.relay_addr()).await;
    let got = ok_of(&mut ws, &forged).await;
    assert_eq!(got[2], json!(false), "{got}");
    assert!(got[3].as_str().unwrap().starts_with("invalid:"));
    assert_eq!(ok_of(&mut ws, &event).await[2], json!(true));

    let server = start(common::config(decoder)).await;
    let mut ws = connect(server.relay_addr()).await;
    assert_eq!(ok_of(&mut ws, &forged).await[2], json!(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_quarry() {
    signature(DecoderKind::Quarry).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_nostr() {
    signature(DecoderKind::Nostr).await;
}
