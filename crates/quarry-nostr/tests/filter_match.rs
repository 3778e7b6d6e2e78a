//! `Filter::matches` and the kind classes where quarry and rust-nostr 0.45
//! could differ (docs/nostr.md, deliberate differences): NIP-50 `search`,
//! empty lists, and kinds NIP-01 puts in no class. Expectations are
//! written from NIP-01 and NIP-50, and from rust-nostr's documented
//! behaviour where quarry follows it.

use quarry_core::Arena;
use quarry_nostr::{ClientMessage, Decoder, Event, IdCheck};

fn decoder() -> Decoder {
    Decoder {
        id_check: IdCheck::Skip,
        ..Decoder::new()
    }
}

/// An event (id unchecked) of `kind` with `content` and one `t` tag.
fn event_json(kind: u16, content: &str) -> String {
    format!(
        r#"{{"id":"{}","pubkey":"{}","created_at":10,"kind":{kind},"tags":[["t","x"]],"content":{},"sig":"{}"}}"#,
        "1".repeat(64),
        "2".repeat(64),
        serde_json::to_string(content).unwrap(),
        "3".repeat(128)
    )
}

/// Whether the one filter `filter` (a JSON object) matches the event.
fn matches(filter: &str, event: Event<'_>) -> bool {
    let arena = Arena::new();
    let req = format!(r#"["REQ","s",{filter}]"#);
    let Ok(ClientMessage::Req { filters, .. }) =
        decoder().decode_client_message(&arena, req.as_bytes())
    else {
        panic!("not a REQ: {req}");
    };
    filters.get(0).unwrap().matches(event)
}

/// NIP-50 leaves `search` to the relay; quarry matches it as rust-nostr
/// does: a substring of the content, ASCII letters compared without case,
/// and an empty query matching every event.
#[test]
fn search_is_a_substring_of_the_content_without_ascii_case() {
    let json = event_json(1, "Say Hello, World \u{c9}lan");
    let arena = Arena::new();
    let event = decoder().decode_event(&arena, json.as_bytes()).unwrap();
    for (query, expected) in [
        ("hello", true),
        ("HELLO, w", true),
        ("say hello, world", true),
        ("", true),
        ("\u{c9}lan", true),
        // Only ASCII letters fold: É is not é.
        ("\u{e9}lan", false),
        ("bye", false),
        ("hello  world", false),
        ("Say Hello, World \u{c9}lan!", false),
    ] {
        let filter = format!(r#"{{"search":{}}}"#, serde_json::to_string(query).unwrap());
        assert_eq!(matches(&filter, event), expected, "search {query:?}");
        // With other conditions, search is one more AND.
        let with_kind = format!(
            r#"{{"kinds":[1],"search":{}}}"#,
            serde_json::to_string(query).unwrap()
        );
        assert_eq!(
            matches(&with_kind, event),
            expected,
            "kinds + search {query:?}"
        );
        let other_kind = format!(
            r#"{{"kinds":[2],"search":{}}}"#,
            serde_json::to_string(query).unwrap()
        );
        assert!(!matches(&other_kind, event), "kind 2 + search {query:?}");
    }
}

/// NIP-01: list attributes "are JSON arrays with one or more values. At
/// least one of the arrays' values must match": an empty list has none
/// to match, so it matches no event (rust-nostr: every event).
#[test]
fn an_empty_list_matches_no_event() {
    let json = event_json(1, "hi");
    let arena = Arena::new();
    let event = decoder().decode_event(&arena, json.as_bytes()).unwrap();
    assert!(matches("{}", event));
    assert!(matches(r##"{"kinds":[1],"#t":["x"]}"##, event));
    for empty in [
        r#"{"ids":[]}"#,
        r#"{"authors":[]}"#,
        r#"{"kinds":[]}"#,
        r##"{"#t":[]}"##,
    ] {
        assert!(!matches(empty, event), "{empty}");
    }
}

/// NIP-01 names four classes by kind range (regular: 1000..10000, 4..45, 1,
/// 2); kinds 45 to 999 are in none of them (rust-nostr calls them regular).
#[test]
fn kinds_45_to_999_are_in_no_class() {
    let arena = Arena::new();
    for kind in [45u16, 46, 500, 998, 999] {
        let json = event_json(kind, "");
        let event = decoder().decode_event(&arena, json.as_bytes()).unwrap();
        assert!(
            !event.is_regular()
                && !event.is_replaceable()
                && !event.is_ephemeral()
                && !event.is_addressable(),
            "kind {kind}"
        );
    }
    for (kind, regular) in [
        (1u16, true),
        (2, true),
        (4, true),
        (44, true),
        (1000, true),
        (9999, true),
        (0, false),
        (3, false),
    ] {
        let json = event_json(kind, "");
        let event = decoder().decode_event(&arena, json.as_bytes()).unwrap();
        assert_eq!(event.is_regular(), regular, "kind {kind}");
    }
}
