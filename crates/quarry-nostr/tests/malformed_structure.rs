//! Object and message structure: duplicate and missing members, trailing
//! garbage, empty or non-string tags, positional arrays, unknown verbs,
//! bad subscription ids. Unknown members and extra trailing message
//! elements are skipped, and keys inside skipped or nested values are
//! never taken for members (nostrdb's bug with a tag value "id").

mod common;

use common::{edit, malformed, must_fail};
use quarry_core::{Arena, DecodeError};
use quarry_nostr::{ClientMessage, RelayMessage};

#[test]
fn duplicate_members_are_rejected_at_the_second_key() {
    let json = common::valid_event();
    for key in [
        "id",
        "pubkey",
        "created_at",
        "kind",
        "tags",
        "content",
        "sig",
    ] {
        let start = json.find(&format!("\"{key}\":")).unwrap();
        let member_end = json[start..]
            .find(",\"")
            .map_or(json.len() - 1, |i| start + i);
        let member = &json[start..member_end];
        let bad = format!("{},{member}}}", &json[..json.len() - 1]);
        let at = json.len();
        assert_eq!(
            malformed(&must_fail(bad.as_bytes())),
            ("duplicate member in event", at),
            "{key}"
        );
    }
}

#[test]
fn missing_members_are_rejected_at_the_closing_brace() {
    let json = common::valid_event();
    let kind = edit(&json, "\"kind\":1,", "");
    assert_eq!(
        malformed(&must_fail(kind.as_bytes())),
        ("event has no kind", kind.len() - 1)
    );
    assert_eq!(malformed(&must_fail(b"{}")), ("event has no id", 1));
}

#[test]
fn trailing_garbage_and_second_values_are_rejected() {
    let json = common::valid_event();
    for tail in ["x", "{}", ",", "]", "\u{0}"] {
        let bad = format!("{json} \n{tail}");
        assert_eq!(
            must_fail(bad.as_bytes()),
            DecodeError::TrailingBytes {
                offset: json.len() + 2,
                count: tail.len()
            },
            "{tail:?}"
        );
    }
    // Trailing whitespace is fine.
    let arena = Arena::new();
    assert!(quarry_nostr::decode_event(&arena, format!(" {json}\r\n\t ").as_bytes()).is_ok());
}

#[test]
fn tags_must_be_non_empty_arrays_of_strings() {
    let json = common::valid_event();
    let t = "[\"t\",\"nostr\"]";
    let at = json.find(t).unwrap();
    for (to, what) in [
        ("[]", Some("empty tag")),
        ("[ ]", Some("empty tag")),
        ("[\"t\",1]", None),
        ("[\"t\",null]", None),
        ("[\"t\",[\"x\"]]", None),
        ("\"t\"", None),
        ("{}", None),
    ] {
        let bad = edit(&json, t, to);
        let e = must_fail(bad.as_bytes());
        match what {
            Some(what) => assert_eq!(malformed(&e), (what, at), "{to}"),
            None => assert!(e.offset() >= at && e.offset() < at + to.len(), "{to}: {e}"),
        }
    }
    let tags_at = json.find("\"tags\":").unwrap() + 7;
    let end = json.find(",\"content\"").unwrap();
    for to in ["{}", "null", "\"[]\""] {
        let bad = format!("{}{to}{}", &json[..tags_at], &json[end..]);
        assert_eq!(must_fail(bad.as_bytes()).offset(), tags_at, "{to}");
    }
    // Empty strings are fine anywhere; [""] is a tag with an empty name.
    let ok = edit(&json, t, "[\"\",\"\"]");
    let arena = Arena::new();
    let d = quarry_nostr::Decoder {
        id_check: quarry_nostr::IdCheck::Report,
        ..Default::default()
    };
    assert_eq!(
        d.decode_event(&arena, ok.as_bytes())
            .unwrap()
            .tags()
            .first("")
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_positional_array_is_not_an_event() {
    // serde's derive accepts [id,pubkey,created_at,kind,tags,content,sig].
    let ev = common::shape(1, 0);
    let positional = format!(
        r#"["{}","{}",{},{},[["t","nostr"]],{:?},"{}"]"#,
        ev.id,
        ev.pubkey,
        ev.created_at.as_secs(),
        ev.kind.as_u16(),
        ev.content,
        ev.sig
    );
    assert!(nostr::event::Event::from_json(&positional).is_ok());
    let e = must_fail(positional.as_bytes());
    assert_eq!(
        e,
        DecodeError::UnexpectedByte {
            offset: 0,
            byte: b'[',
            context: "expected an event object"
        }
    );
}

#[test]
fn unknown_members_of_any_type_are_skipped_without_reading_their_keys() {
    let json = common::valid_event();
    let noisy = edit(
        &json,
        "\"kind\":1,",
        r#""x":{"id":"zz","kind":70000,"tags":[[]]},"y":[1,-2.5e-3,true,false,null,"\u00e9",{}],"kind":1,"z":"id","#,
    );
    let arena = Arena::new();
    let ev = quarry_nostr::decode_event(&arena, noisy.as_bytes()).unwrap();
    assert_eq!(ev.kind(), 1);
    assert_eq!(ev.id_valid(), Some(true));
    // A tag whose values look like member names (NIP-32 labels).
    let keys = common::keys(4);
    let tags = vec![
        vec!["l".to_string(), "id".to_string(), "kind".to_string()],
        vec!["created_at".to_string(), "sig".to_string()],
    ];
    let labelled = common::sign(&keys, 5, 1985, &tags, "id");
    let json = labelled.as_json();
    let ev = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    assert_eq!(ev.id(), labelled.id.as_bytes());
    assert_eq!(ev.tags().first("l").unwrap().get(1), Some("id"));
    // Skipped values are still checked.
    let bad = edit(&json, "\"kind\":1985,", r#""x":[1,],"kind":1985,"#);
    let at = bad.find("[1,]").unwrap() + 3;
    assert_eq!(must_fail(bad.as_bytes()).offset(), at);
}

#[test]
fn message_verbs_and_shapes() {
    let arena = Arena::new();
    fn relay<'a>(arena: &'a Arena, s: &'a str) -> Result<RelayMessage<'a>, DecodeError> {
        quarry_nostr::decode_relay_message(arena, s.as_bytes())
    }
    fn client<'a>(arena: &'a Arena, s: &'a str) -> Result<ClientMessage<'a>, DecodeError> {
        quarry_nostr::decode_client_message(arena, s.as_bytes())
    }
    // Verbs are case-sensitive.
    let e = relay(&arena, r#"["eose","s"]"#).unwrap_err();
    assert_eq!(malformed(&e), ("unknown relay message verb", 1));
    let e = client(&arena, r#"["req","s",{}]"#).unwrap_err();
    assert_eq!(malformed(&e), ("unknown client message verb", 1));
    // Too few elements.
    assert_eq!(
        relay(&arena, r#"["OK"]"#).unwrap_err(),
        DecodeError::UnexpectedByte {
            offset: 5,
            byte: b']',
            context: "expected ',' (message has too few elements)"
        }
    );
    assert!(relay(&arena, &format!(r#"["OK","{}",true]"#, "ab".repeat(32))).is_err());
    assert!(relay(&arena, r#"["EOSE"]"#).is_err());
    assert!(relay(&arena, "[]").is_err());
    assert!(relay(&arena, "{}").is_err());
    // Extra trailing elements are tolerated (forward compatibility).
    assert!(matches!(
        relay(&arena, r#"["EOSE","s",1,{"a":[]}]"#),
        Ok(RelayMessage::Eose { sub_id: "s" })
    ));
    assert!(matches!(
        client(&arena, r#"["CLOSE","s","extra"]"#),
        Ok(ClientMessage::Close { sub_id: "s" })
    ));
    // Subscription ids: 1 to 64 characters.
    let e = relay(&arena, r#"["EOSE",""]"#).unwrap_err();
    assert_eq!(
        malformed(&e),
        ("subscription id must have 1 to 64 characters", 8)
    );
    assert!(relay(&arena, &format!(r#"["EOSE","{}"]"#, "s".repeat(65))).is_err());
    assert!(relay(&arena, &format!(r#"["EOSE","{}"]"#, "\u{e9}".repeat(64))).is_ok());
    // REQ filter members.
    let e = client(&arena, r#"["REQ","s",{"kinds":[1],"kinds":[2]}]"#).unwrap_err();
    assert_eq!(malformed(&e), ("duplicate member in filter", 24));
    let e = client(&arena, r##"["REQ","s",{"#e":[],"#e":[]}]"##).unwrap_err();
    assert_eq!(malformed(&e), ("duplicate member in filter", 20));
    // A tag condition's key is '#' and one ASCII letter (NIP-01); '#' and
    // one other character is an error, as in rust-nostr (skipping it would
    // widen the subscription), and other keys are skipped.
    let e = client(&arena, r##"["REQ","s",{"kinds":[1],"#~":["x"]}]"##).unwrap_err();
    assert_eq!(
        malformed(&e),
        (
            "a tag condition's key must be '#' and one letter a-z or A-Z",
            24
        )
    );
    assert!(client(&arena, r##"["REQ","s",{"#\u00e9":[]}]"##).is_err());
    assert!(client(&arena, r##"["REQ","s",{"#é":[]}]"##).is_err());
    assert!(client(&arena, r##"["REQ","s",{"#1":[]}]"##).is_err());
    let Ok(ClientMessage::Req { filters, .. }) =
        client(&arena, r##"["REQ","s",{"#ab":[1],"#":2,"#e":["x"]}]"##)
    else {
        panic!("longer '#' keys and a bare '#' are not tag conditions: skipped");
    };
    let only: Vec<_> = filters.iter().flat_map(|f| f.tag_lists()).collect();
    assert_eq!(only, [(b'e', &["x"][..])]);
    assert!(client(&arena, r#"["REQ","s",{"kinds":[70000]}]"#).is_err());
    assert!(client(&arena, r#"["REQ","s",{"ids":["ab"]}]"#).is_err());
    assert!(client(&arena, r#"["REQ","s",[]]"#).is_err());
    // At least one filter (the closing bracket is byte 10, then 12).
    let e = client(&arena, r#"["REQ","s"]"#).unwrap_err();
    assert_eq!(
        malformed(&e),
        ("REQ and COUNT need at least one filter", 10)
    );
    let e = client(&arena, r#"["COUNT","s"]"#).unwrap_err();
    assert_eq!(
        malformed(&e),
        ("REQ and COUNT need at least one filter", 12)
    );
    // COUNT result.
    let e = relay(&arena, r#"["COUNT","s",{"approximate":true}]"#).unwrap_err();
    assert_eq!(malformed(&e), ("COUNT result has no count", 13));
    assert!(relay(&arena, r#"["COUNT","s",{"count":-1}]"#).is_err());
}
