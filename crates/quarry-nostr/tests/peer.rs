//! Agreement with rust-nostr (`nostr` 0.45) on generated events signed
//! with real keys: same fields, same id, and JSON that rust-nostr parses
//! back to an equal event. Wire variations (key order, whitespace, other
//! valid escapes) must not change the decoded values or the id.

mod common;

use nostr::event::Event as NEvent;
use proptest::prelude::*;
use quarry_core::Arena;
use quarry_nostr::{Decoder, Event, RelayMessage};

fn same_fields(ours: Event<'_>, theirs: &NEvent) {
    assert_eq!(ours.id(), theirs.id.as_bytes());
    assert_eq!(ours.pubkey(), theirs.pubkey.as_bytes());
    assert_eq!(ours.sig(), theirs.sig.as_bytes());
    assert_eq!(ours.created_at(), theirs.created_at.as_secs());
    assert_eq!(ours.kind(), theirs.kind.as_u16());
    assert_eq!(ours.content(), theirs.content);
    assert_eq!(ours.tags().len(), theirs.tags.len());
    for (a, b) in ours.tags().iter().zip(theirs.tags.iter()) {
        assert_eq!(a.len(), b.len());
        assert_eq!(a.name(), b.kind());
        assert_eq!(a.value(), b.content());
        assert!(a.iter().eq(b.as_slice().iter().map(String::as_str)));
    }
}

/// JSON string with every non-ASCII character and `/` escaped, upper-case
/// hex digits, astral characters as surrogate pairs.
fn escape_everything(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            c if (c as u32) < 0x20 || (c as u32) >= 0x7F => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{:04X}", u));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The event re-written with other escapes, members in another order and
/// whitespace between every token.
fn rewritten(ev: &NEvent) -> String {
    let tags: Vec<String> = ev
        .tags
        .iter()
        .map(|t| {
            let items: Vec<String> = t.as_slice().iter().map(|s| escape_everything(s)).collect();
            format!("[ {} ]", items.join(" ,\n "))
        })
        .collect();
    format!(
        "{{\n \"sig\" : \"{}\" ,\t\"tags\" : [ {} ] ,\r\n \"content\" : {} , \"kind\" : {} , \"created_at\" : {} , \"pubkey\" : \"{}\" , \"extra\" : {{\"id\":[1,{{\"kind\":2}}]}} , \"id\" : \"{}\" \n}}",
        ev.sig,
        tags.join(" , "),
        escape_everything(&ev.content),
        ev.kind.as_u16(),
        ev.created_at.as_secs(),
        ev.pubkey,
        ev.id
    )
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9 ]{0,20}",
        any::<String>(),
        "[\\x00-\\x1f\"\\\\/\\x7f]{0,8}",
        "[\u{e9}\u{1F980}\u{2028}\u{FEFF}a\n]{0,8}",
    ]
}

fn tags() -> impl Strategy<Value = Vec<Vec<String>>> {
    prop::collection::vec(prop::collection::vec(text(), 1..5), 0..8)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn quarry_agrees_with_rust_nostr(
        seed in 1u8..=255,
        created_at in any::<u64>(),
        kind in any::<u16>(),
        tags in tags(),
        content in text(),
    ) {
        let ev = common::sign(&common::keys(seed), created_at, kind, &tags, &content);
        let json = ev.as_json();
        let arena = Arena::new();

        // Default decoder: the id must match (checked during decode).
        let ours = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
        prop_assert_eq!(ours.id_valid(), Some(true));
        same_fields(ours, &ev);
        prop_assert_eq!(ours.compute_id(quarry_nostr::ControlChars::Escape), ev.id.to_bytes());
        prop_assert!(ours.verify_signature());

        // Our JSON parses back in rust-nostr to an equal event, and is in
        // fact byte-identical to its serialization.
        let mut out = Vec::new();
        ours.encode_into(&mut out);
        let back = NEvent::from_json(&out).unwrap();
        prop_assert_eq!(&back, &ev);
        prop_assert_eq!(String::from_utf8(out).unwrap(), json.clone());
        prop_assert_eq!(ours.to_nostr(), ev.clone());

        // Inside a relay message.
        let msg = common::relay_event(&ev);
        let RelayMessage::Event { sub_id, event } =
            Decoder::new().decode_relay_message(&arena, &msg).unwrap() else { panic!() };
        prop_assert_eq!(sub_id, "sub1");
        same_fields(event, &ev);
        prop_assert_eq!(event.raw(), json.as_bytes());

        // Another wire form of the same event: same values, same id.
        let other = rewritten(&ev);
        prop_assert!(NEvent::from_json(&other).unwrap() == ev);
        let ours = quarry_nostr::decode_event(&arena, other.as_bytes()).unwrap();
        prop_assert_eq!(ours.id_valid(), Some(true));
        same_fields(ours, &ev);

        // Compacted and converted views read the same.
        let kept = Arena::new();
        same_fields(ours.compact_into(&kept), &ev);
        same_fields(Event::from_nostr(&kept, &ev).unwrap(), &ev);
    }
}

#[test]
fn every_shape_agrees() {
    let arena = Arena::new();
    for i in 0..common::SHAPES.len() {
        let ev = common::shape(i, 3);
        let json = ev.as_json();
        let ours = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
        same_fields(ours, &ev);
        assert!(ev.verify().is_ok());
        assert!(ours.verify());
    }
}

/// Every message kind, built and serialized by rust-nostr: quarry decodes
/// it and writes JSON (`encode_into`, what `quarry nostr decode --json`
/// prints) that is the same JSON value as rust-nostr's `as_json()`.
/// rust-nostr writes filter lists as sorted sets, so its own output is
/// already in the one order both write.
#[test]
fn every_message_kind_writes_the_peers_json() {
    use nostr::message::{ClientMessage as NClient, RelayMessage as NRelay};
    use nostr::prelude::{Filter, Kind, SingleLetterTag, SubscriptionId, Timestamp};

    /// Decode rust-nostr's `json` with `decode`, which writes quarry's JSON
    /// of it, and compare the two as JSON values.
    fn writes_the_same(
        json: &str,
        decode: impl Fn(&Arena, &[u8], &mut Vec<u8>) -> Result<(), quarry_core::DecodeError>,
    ) {
        let arena = Arena::new();
        let mut out = Vec::new();
        decode(&arena, json.as_bytes(), &mut out).unwrap_or_else(|e| panic!("{json}: {e}"));
        let ours: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(ours, theirs, "{json}");
    }

    let ev = common::shape(3, 3);
    let sub = SubscriptionId::new("sub-1");
    let wide = Filter::new()
        .ids([ev.id])
        .authors([ev.pubkey])
        .kinds([Kind::from(30023u16), Kind::from(1u16)])
        .since(Timestamp::from(1_700_000_000))
        .until(Timestamp::from(1_800_000_000))
        .limit(20)
        .hashtags(["rust", "nostr"])
        .custom_tag(SingleLetterTag::from_char('p').unwrap(), ev.pubkey.to_hex())
        .search("best \"nostr\" apps");
    let narrow = Filter::new().event(ev.id);

    let relay = [
        NRelay::event(sub.clone(), ev.clone()),
        NRelay::ok(ev.id, true, ""),
        NRelay::ok(ev.id, false, "blocked: \"spam\"\n\u{1F600}"),
        NRelay::eose(sub.clone()),
        NRelay::closed(sub.clone(), "error: shutting down"),
        NRelay::notice("hello\tworld"),
        NRelay::auth("challenge-\u{e9}"),
        NRelay::count(sub.clone(), 42),
    ];
    for msg in relay {
        writes_the_same(&msg.as_json(), |arena, json, out| {
            Decoder::new()
                .decode_relay_message(arena, json)
                .map(|m| m.encode_into(out))
        });
    }

    let client = [
        NClient::event(ev.clone()),
        NClient::req(sub.clone(), vec![wide.clone(), narrow]),
        NClient::count(sub.clone(), wide),
        NClient::close(sub),
        NClient::auth(ev),
    ];
    for msg in client {
        writes_the_same(&msg.as_json(), |arena, json, out| {
            Decoder::new()
                .decode_client_message(arena, json)
                .map(|m| m.encode_into(out))
        });
    }
}

/// One generated filter: its members as JSON text, in the order given.
fn filter_members() -> impl Strategy<Value = Vec<String>> {
    // Small pools, so lists repeat values and come out of order.
    let keys = [
        "ff00000000000000000000000000000000000000000000000000000000000001",
        "0000000000000000000000000000000000000000000000000000000000000002",
        "7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e",
        "00000000000000000000000000000000000000000000000000000000000000ff",
    ];
    let values = [
        "b",
        "a",
        "\u{e9}t\u{e9}",
        "Z",
        "a\"b\\c",
        "tab\there",
        "\u{1}",
        "",
        "\u{1F600}",
    ];
    let hex_list = move || {
        proptest::collection::vec(0..keys.len(), 0..6).prop_map(move |ix| {
            let items: Vec<String> = ix.iter().map(|&i| format!("\"{}\"", keys[i])).collect();
            format!("[{}]", items.join(","))
        })
    };
    let value_list = proptest::collection::vec(0..values.len(), 0..6).prop_map(move |ix| {
        let items: Vec<String> = ix
            .iter()
            .map(|&i| serde_json::to_string(values[i]).unwrap())
            .collect();
        format!("[{}]", items.join(","))
    });
    let kinds =
        proptest::collection::vec(prop::sample::select(vec![0u16, 1, 7, 30023, 65535]), 0..6)
            .prop_map(|k| format!("{k:?}").replace(' ', ""));
    let letters = proptest::sample::subsequence(vec!['e', 'E', 'p', 't', 'a', 'Z'], 0..4);
    (
        proptest::option::of(hex_list()),
        proptest::option::of(hex_list()),
        proptest::option::of(kinds),
        (letters, proptest::collection::vec(value_list, 4)),
        proptest::option::of(0u64..2_000_000_000),
        proptest::option::of(0u64..2_000_000_000),
        proptest::option::of(0u64..1000),
        proptest::option::of(prop::sample::select(values.to_vec())),
    )
        .prop_flat_map(
            |(ids, authors, kinds, (letters, lists), since, until, limit, search)| {
                let mut members = Vec::new();
                let mut put = |name: &str, v: Option<String>| {
                    if let Some(v) = v {
                        members.push(format!("\"{name}\":{v}"));
                    }
                };
                put("ids", ids);
                put("authors", authors);
                put("kinds", kinds);
                put("since", since.map(|v| v.to_string()));
                put("until", until.map(|v| v.to_string()));
                put("limit", limit.map(|v| v.to_string()));
                put("search", search.map(|s| serde_json::to_string(s).unwrap()));
                for (letter, list) in letters.iter().zip(lists) {
                    put(&format!("#{letter}"), Some(list));
                }
                Just(members).prop_shuffle()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Hand-written filters (members in any order, lists unsorted and with
    /// repeats): written with `FilterLists::Sets`, quarry's JSON is byte
    /// for byte what rust-nostr's `as_json()` writes for the same message;
    /// written as received, it is the input's value, and rust-nostr's own
    /// JSON of it comes back byte for byte.
    #[test]
    fn filter_lists_as_sets_are_the_peers_json(
        filters in proptest::collection::vec(filter_members(), 1..3),
        count in any::<bool>(),
    ) {
        use nostr::message::ClientMessage as NClient;
        use quarry_nostr::FilterLists;

        let objects: Vec<String> = filters.iter().map(|m| format!("{{{}}}", m.join(","))).collect();
        // rust-nostr's COUNT holds one filter.
        let (label, objects) = if count { ("COUNT", &objects[..1]) } else { ("REQ", &objects[..]) };
        let json = format!("[\"{label}\",\"sub\",{}]", objects.join(","));

        let theirs = NClient::from_json(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
        let arena = Arena::new();
        let ours = quarry_nostr::decode_client_message(&arena, json.as_bytes())
            .unwrap_or_else(|e| panic!("{json}: {e}"));

        let mut sets = Vec::new();
        ours.encode_into_as(&mut sets, FilterLists::Sets, None);
        prop_assert_eq!(String::from_utf8(sets).unwrap(), theirs.as_json(), "{}", json);

        let mut received = Vec::new();
        ours.encode_into(&mut received);
        let received = String::from_utf8(received).unwrap();
        // Members in any order come out in rust-nostr's: compare values.
        let a: serde_json::Value = serde_json::from_str(&received).unwrap();
        let b: serde_json::Value = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(a, b, "{}", json);

        // What rust-nostr writes comes back as it was, byte for byte.
        let peer_json = theirs.as_json();
        let again = quarry_nostr::decode_client_message(&arena, peer_json.as_bytes())
            .unwrap_or_else(|e| panic!("{peer_json}: {e}"));
        let mut received = Vec::new();
        again.encode_into(&mut received);
        prop_assert_eq!(String::from_utf8(received).unwrap(), peer_json);
    }
}
