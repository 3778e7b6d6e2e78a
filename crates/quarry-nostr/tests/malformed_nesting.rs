//! Nesting bombs (`[[[[…`, `{"a":{"a":…`) in every place a value is
//! skipped: a depth-limit error at the offending bracket, no recursion, no
//! stack overflow, even a megabyte deep.

mod common;

use quarry_core::{Arena, DecodeError, DecodeOptions};
use quarry_nostr::Decoder;

#[test]
fn bombs_as_unknown_members_hit_the_depth_limit() {
    let json = common::valid_event();
    let arena = Arena::new();
    for depth in [200usize, 1 << 20] {
        let bomb = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let bad = json.replacen("\"kind\":1,", &format!("\"x\":{bomb},\"kind\":1,"), 1);
        let at = bad.find("\"x\":").unwrap() + 4;
        let e = quarry_nostr::decode_event(&arena, bad.as_bytes()).unwrap_err();
        // The event object is depth 1 (serde_json's count), the member's
        // value depth 2: the array at depth 128, the 127th bracket, is the
        // first one refused.
        assert_eq!(
            e,
            DecodeError::DepthLimit {
                offset: at + 126,
                limit: 128
            }
        );
    }
    let bomb = "{\"a\":".repeat(300);
    let bad = json.replacen("\"kind\":1,", &format!("\"x\":{bomb}"), 1);
    let e = quarry_nostr::decode_event(&arena, bad.as_bytes()).unwrap_err();
    assert!(
        matches!(e, DecodeError::DepthLimit { limit: 128, .. }),
        "{e}"
    );
}

#[test]
fn bombs_as_messages_and_extra_elements() {
    let arena = Arena::new();
    let deep = "[".repeat(1 << 20);
    // A message must start with its verb.
    let e = quarry_nostr::decode_message(&arena, deep.as_bytes()).unwrap_err();
    assert_eq!(
        e,
        DecodeError::UnexpectedByte {
            offset: 1,
            byte: b'[',
            context: "expected a string"
        }
    );
    // As an extra element after a complete message (the message's array
    // is depth 1, the element depth 2).
    let bad = format!(r#"["EOSE","s",{deep}"#);
    let e = quarry_nostr::decode_relay_message(&arena, bad.as_bytes()).unwrap_err();
    assert_eq!(
        e,
        DecodeError::DepthLimit {
            offset: 12 + 126,
            limit: 128
        }
    );
    // Inside a filter.
    let bad = format!(r#"["REQ","s",{{"x":{deep}}}]"#);
    let e = quarry_nostr::decode_client_message(&arena, bad.as_bytes()).unwrap_err();
    assert!(matches!(e, DecodeError::DepthLimit { .. }), "{e}");
}

#[test]
fn the_depth_limit_is_an_option() {
    let json = common::valid_event();
    let bad = json.replacen("\"kind\":1,", "\"x\":[[[1]]],\"kind\":1,", 1);
    let arena = Arena::new();
    let shallow = Decoder {
        options: DecodeOptions {
            max_depth: 3,
            ..Default::default()
        },
        ..Decoder::new()
    };
    assert!(matches!(
        shallow.decode_event(&arena, bad.as_bytes()),
        Err(DecodeError::DepthLimit { limit: 3, .. })
    ));
    let enough = Decoder {
        options: DecodeOptions {
            max_depth: 5,
            ..Default::default()
        },
        ..Decoder::new()
    };
    assert!(enough.decode_event(&arena, bad.as_bytes()).is_ok());
    // An event inside a message is depth 2: max_depth 2 refuses it.
    let msg = common::relay_event(&common::shape(0, 0));
    let none = Decoder {
        options: DecodeOptions {
            max_depth: 2,
            ..Default::default()
        },
        ..Decoder::new()
    };
    assert!(matches!(
        none.decode_relay_message(&arena, &msg),
        Err(DecodeError::DepthLimit { offset: 16, .. })
    ));
}
