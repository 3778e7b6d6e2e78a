//! Every input class on which quarry and rust-nostr (`nostr` 0.45) give
//! different verdicts, each held to both decoders: if the peer changes,
//! these fail and docs/nostr.md ("Deliberate differences") is read again.
//! The differential fuzz targets (`fuzz/src/nostr_peer.rs`) found the
//! classes past the event-field ones; inputs outside this list must agree.
//! Also the two places quarry was brought to the peer's verdict.

mod common;

use nostr::message::{ClientMessage as PeerClient, RelayMessage as PeerRelay};
use quarry_core::{Arena, DecodeError};
use quarry_nostr::{ClientMessage, Decoder, IdCheck};

fn skip_ids() -> Decoder {
    Decoder {
        id_check: IdCheck::Skip,
        ..Decoder::new()
    }
}

/// A signed event's JSON with `extra` spliced in before its closing brace.
fn event_with(extra: &[u8]) -> Vec<u8> {
    let mut json = common::shape(1, 0).as_json().into_bytes();
    let close = json.pop();
    assert_eq!(close, Some(b'}'));
    json.extend_from_slice(extra);
    json.push(b'}');
    json
}

fn client(input: &str) -> Result<ClientMessage<'_>, DecodeError> {
    // The arena lives as long as the process: each test decodes a handful.
    let arena: &'static Arena = Box::leak(Box::new(Arena::new()));
    skip_ids().decode_client_message(arena, input.as_bytes())
}

#[test]
fn text_that_is_not_unicode_in_an_unknown_member() {
    // serde_json skips an ignored value without checking its text; quarry
    // checks every string (JSON text is UTF-8, RFC 8259 8.1).
    let arena = Arena::new();
    let bad_utf8 = event_with(b",\"x\":\"\xff\xfe\"");
    assert!(nostr::event::Event::from_json(&bad_utf8).is_ok());
    let e = skip_ids().decode_event(&arena, &bad_utf8).unwrap_err();
    // FF can never start a character; it is the first bad byte.
    let at = bad_utf8.iter().position(|&b| b == 0xFF).unwrap();
    match e {
        DecodeError::InvalidUtf8(v) => assert_eq!((v.offset, &v.bytes[..]), (at, &[0xFF][..])),
        other => panic!("{other:?}"),
    }

    let lone = event_with(br#","x":"\ud800""#);
    assert!(nostr::event::Event::from_json(&lone).is_ok());
    assert!(skip_ids().decode_event(&arena, &lone).is_err());
}

#[test]
fn filter_ids_and_authors_of_other_lengths() {
    // The peer truncates longer hex (of an even length), as it does for
    // an event's id.
    let long = format!(r#"["REQ","s",{{"ids":["{}"]}}]"#, "ab".repeat(33));
    assert!(PeerClient::from_json(&long).is_ok());
    let e = client(&long).unwrap_err();
    assert_eq!(
        e,
        DecodeError::invalid_value(
            19,
            "ids and authors must be 64 hex digits",
            format!("\"{}\"", "ab".repeat(33))
        )
    );
}

#[test]
fn a_positional_count_result() {
    // serde's derive reads `{"count": n}` from `[n]` as well.
    let input = br#"["COUNT","s",[3]]"#;
    assert!(matches!(
        PeerRelay::from_json(input),
        Ok(PeerRelay::Count { count: 3, .. })
    ));
    let arena = Arena::new();
    assert!(skip_ids().decode_relay_message(&arena, input).is_err());
}

#[test]
fn a_count_result_with_optional_members_of_other_types() {
    // NIP-45's `approximate` (a bool) and `hll` (a string): quarry reads
    // and checks them, the peer reads only `count`.
    let arena = Arena::new();
    for input in [
        r#"["COUNT","s",{"count":42,"approximate":"yes"}]"#,
        r#"["COUNT","s",{"count":42,"hll":7}]"#,
        r#"["COUNT","s",{"count":42,"approximate":true,"approximate":false}]"#,
    ] {
        assert!(
            matches!(
                PeerRelay::from_json(input),
                Ok(PeerRelay::Count { count: 42, .. })
            ),
            "{input}"
        );
        assert!(
            skip_ids()
                .decode_relay_message(&arena, input.as_bytes())
                .is_err(),
            "{input}"
        );
    }
}

#[test]
fn a_filter_that_repeats_a_tag_condition() {
    // The peer keeps the last list; quarry rejects a repeated member here
    // as both do for `kinds`, `ids` and the rest.
    let input = r##"["REQ","s",{"#e":["a"],"#e":["b"]}]"##;
    let Ok(PeerClient::Req { filters, .. }) = PeerClient::from_json(input) else {
        panic!("the peer accepts a repeated tag condition");
    };
    let last: Vec<_> = filters[0].generic_tags.values().flatten().collect();
    assert_eq!(last, ["b"]);
    assert_eq!(
        client(input).unwrap_err(),
        DecodeError::invalid_value(23, "duplicate member in filter", "\"#e\"")
    );
    assert!(PeerClient::from_json(r#"["REQ","s",{"kinds":[1],"kinds":[2]}]"#).is_err());
}

#[test]
fn a_count_with_more_than_one_filter() {
    // NIP-45: `["COUNT", <subscription_id>, <filters JSON>...]`. The peer
    // reads the first filter and skips the rest unread.
    let two = r#"["COUNT","s",{"kinds":[1]},{"kinds":[2]}]"#;
    let Ok(PeerClient::Count { filter, .. }) = PeerClient::from_json(two) else {
        panic!("the peer accepts two COUNT filters");
    };
    assert_eq!(filter.kinds.as_ref().map(|k| k.len()), Some(1));
    let Ok(ClientMessage::Count { filters, .. }) = client(two) else {
        panic!("quarry accepts two COUNT filters");
    };
    assert_eq!(filters.len(), 2);

    let not_a_filter = r#"["COUNT","s",{"kinds":[1]},7]"#;
    assert!(PeerClient::from_json(not_a_filter).is_ok());
    assert!(client(not_a_filter).is_err());
}

#[test]
fn a_number_past_f64_in_an_unknown_filter_member() {
    // The peer's filter buffers unknown members (serde's `flatten`) and
    // parses their numbers; everywhere else both skip such a number.
    let input = r#"["REQ","s",{"x":1e400,"kinds":[1]}]"#;
    assert!(PeerClient::from_json(input).is_err());
    assert!(client(input).is_ok());
    let arena = Arena::new();
    let in_event = event_with(br#","x":1e400"#);
    assert!(nostr::event::Event::from_json(&in_event).is_ok());
    assert!(skip_ids().decode_event(&arena, &in_event).is_ok());
}

#[test]
fn nesting_past_serde_jsons_limit_where_the_peer_skips() {
    // serde_json refuses the 128th nested array or object, the outermost
    // counted, and so does quarry, everywhere. The peer meets that limit
    // only in filters (serde's `flatten` buffers their members); members
    // and elements it ignores elsewhere are skipped with no limit at all.
    let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let arena = Arena::new();
    // Filters: the message's array, the filter and 125 arrays are 127
    // levels; both accept those and refuse one more.
    for (n, ok) in [(125, true), (126, false)] {
        for verb in ["REQ", "COUNT"] {
            let input = format!(r#"["{verb}","s",{{"x":{}}}]"#, nest(n));
            assert_eq!(PeerClient::from_json(&input).is_ok(), ok, "{verb} {n}");
            assert_eq!(client(&input).is_ok(), ok, "{verb} {n}");
        }
    }
    // A bare event's unknown member: 126 arrays inside the event object
    // are 127 levels.
    let event = event_with(format!(r#","x":{}"#, nest(126)).as_bytes());
    assert!(skip_ids().decode_event(&arena, &event).is_ok());
    let event = event_with(format!(r#","x":{}"#, nest(127)).as_bytes());
    assert!(nostr::event::Event::from_json(&event).is_ok());
    let e = skip_ids().decode_event(&arena, &event).unwrap_err();
    assert!(
        matches!(e, DecodeError::DepthLimit { limit: 128, .. }),
        "{e}"
    );
    assert!(serde_json::from_slice::<serde_json::Value>(&event).is_err());
    // A message's extra element, a megabyte deep.
    let deep = format!(r#"["EOSE","s",{}]"#, nest(1 << 20));
    assert!(PeerRelay::from_json(&deep).is_ok());
    assert!(matches!(
        skip_ids().decode_relay_message(&arena, deep.as_bytes()),
        Err(DecodeError::DepthLimit { limit: 128, .. })
    ));
}

#[test]
fn brought_to_the_peers_verdict() {
    // A REQ or COUNT with no filter, and a tag condition on `#` and one
    // character that is not an ASCII letter: both reject.
    for input in [
        r#"["REQ","s"]"#,
        r#"["COUNT","s"]"#,
        r##"["REQ","s",{"#~":["x"]}]"##,
        r##"["REQ","s",{"#1":[]}]"##,
        r###"["REQ","s",{"##":[]}]"###,
        r##"["REQ","s",{"#é":[]}]"##,
    ] {
        assert!(PeerClient::from_json(input).is_err(), "{input}");
        assert!(client(input).is_err(), "{input}");
    }
    // Other `#` keys are not tag conditions: both skip them.
    for input in [
        r##"["REQ","s",{"#ab":[1],"#":2}]"##,
        r##"["REQ","s",{"#~x":[],"#ee":null,"#e":["x"]}]"##,
    ] {
        assert!(PeerClient::from_json(input).is_ok(), "{input}");
        assert!(client(input).is_ok(), "{input}");
    }
}
