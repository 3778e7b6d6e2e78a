//! The allocation contract, counted exactly: decoding an EVENT relay
//! message into a fresh arena costs one heap allocation (the arena's
//! chunk, sized from the input length), into a reset arena none, with the
//! id checked.

mod common;

use quarry_core::Arena;
use quarry_nostr::{Decoder, IdCheck, RelayMessage};

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

fn check_shape(decoder: &Decoder, i: usize) {
    let (name, ntags, nelems) = common::SHAPES[i];
    let bytes = common::relay_event(&common::shape(i, 1));
    let mut arena = Arena::new();
    let (fresh, ok) =
        quarry_testkit::count_allocs(|| match decoder.decode_relay_message(&arena, &bytes) {
            Ok(RelayMessage::Event { event, .. }) => {
                event.tags().len() == ntags
                    && event.tags().element_count() == nelems
                    && event.id_valid() != Some(false)
            }
            _ => false,
        });
    assert!(ok, "{name}: decode failed or wrong shape");
    assert_eq!(fresh, 1, "{name}: allocations into a fresh arena");
    for _ in 0..3 {
        arena.reset();
        let (reused, ok) =
            quarry_testkit::count_allocs(|| decoder.decode_relay_message(&arena, &bytes).is_ok());
        assert!(ok);
        assert_eq!(reused, 0, "{name}: allocations into a reset arena");
    }
}

#[test]
fn every_shape_costs_one_allocation_fresh_and_none_reused_with_id_check() {
    let decoder = Decoder::new();
    assert_eq!(decoder.id_check, IdCheck::Require);
    for i in 0..common::SHAPES.len() {
        check_shape(&decoder, i);
    }
}

#[test]
fn the_same_holds_without_the_id_check() {
    let decoder = Decoder {
        id_check: IdCheck::Skip,
        ..Decoder::new()
    };
    for i in 0..common::SHAPES.len() {
        check_shape(&decoder, i);
    }
}

#[test]
fn a_bare_event_with_escapes_also_costs_one_allocation() {
    // Escaped content and tag values are copied into the arena: still the
    // one reserved chunk.
    let keys = common::keys(9);
    let tags = vec![vec!["t".to_string(), "caf\u{e9}\n\"x\"".to_string()]];
    let ev = common::sign(&keys, 1, 1, &tags, "line one\nline \"two\"\t\u{1}");
    let json = ev.as_json();
    assert!(json.contains("\\n") && json.contains("\\u0001"));
    let mut arena = Arena::new();
    let (fresh, ok) = quarry_testkit::count_allocs(|| {
        quarry_nostr::decode_event(&arena, json.as_bytes()).is_ok()
    });
    assert!(ok);
    assert_eq!(fresh, 1);
    arena.reset();
    let (reused, ok) = quarry_testkit::count_allocs(|| {
        quarry_nostr::decode_event(&arena, json.as_bytes()).is_ok()
    });
    assert!(ok);
    assert_eq!(reused, 0);
}

#[test]
fn arena_for_allocates_once_and_the_decode_never() {
    let decoder = Decoder::new();
    for i in 0..common::SHAPES.len() {
        let (name, ntags, _) = common::SHAPES[i];
        let bytes = common::relay_event(&common::shape(i, 1));
        let (made, arena) = quarry_testkit::count_allocs(|| quarry_nostr::arena_for(&bytes));
        assert_eq!(made, 1, "{name}: arena_for");
        let held = arena.stats().allocated_bytes;
        assert!(
            held >= quarry_nostr::max_event_arena_bytes(bytes.len()),
            "{name}"
        );
        let (during, ok) =
            quarry_testkit::count_allocs(|| match decoder.decode_relay_message(&arena, &bytes) {
                Ok(RelayMessage::Event { event, .. }) => event.tags().len() == ntags,
                _ => false,
            });
        assert!(ok, "{name}: decode failed or wrong shape");
        assert_eq!(during, 0, "{name}: decode into arena_for");
        assert_eq!(arena.stats().allocated_bytes, held, "{name}");
    }
}

/// Run `write` into an empty buffer, then into a cleared buffer of the
/// capacity the first write left (what a writer reusing its buffer has),
/// returning the allocations of each and the bytes.
fn count_writes(write: impl Fn(&mut Vec<u8>)) -> (usize, usize, Vec<u8>) {
    let (into_empty, out) = quarry_testkit::count_allocs(|| {
        let mut out = Vec::new();
        write(&mut out);
        out
    });
    let mut roomy = Vec::with_capacity(out.capacity());
    let (into_roomy, ()) = quarry_testkit::count_allocs(|| write(&mut roomy));
    assert_eq!(roomy, out);
    (into_empty, into_roomy, out)
}

#[test]
fn writing_an_event_costs_one_allocation_into_an_empty_buffer_and_none_into_one_with_room() {
    for i in 0..common::SHAPES.len() {
        let name = common::SHAPES[i].0;
        let peer = common::shape(i, 1);
        let json = peer.as_json();
        let arena = Arena::new();
        let event = quarry_nostr::decode_event(&arena, json.as_bytes()).expect(name);

        let (empty, roomy, out) = count_writes(|out| event.encode_into(out));
        assert_eq!(out, json.as_bytes(), "{name}: the peer's bytes");
        assert_eq!((empty, roomy), (1, 0), "{name}: Event::encode_into");

        let store = Arena::new();
        let compacted = event.compact_into(&store);
        let (empty, roomy, out) = count_writes(|out| compacted.encode_into(out));
        assert_eq!(out, json.as_bytes(), "{name}: compacted");
        assert_eq!(
            (empty, roomy),
            (1, 0),
            "{name}: compacted Event::encode_into"
        );

        let msg = RelayMessage::Event {
            sub_id: "sub1",
            event,
        };
        let (empty, roomy, out) = count_writes(|out| msg.encode_into(out));
        assert_eq!(out, common::relay_event(&peer), "{name}: the peer's bytes");
        assert_eq!((empty, roomy), (1, 0), "{name}: RelayMessage::encode_into");

        let msg = quarry_nostr::ClientMessage::Event(event);
        let (empty, roomy, _) = count_writes(|out| msg.encode_into(out));
        assert_eq!((empty, roomy), (1, 0), "{name}: ClientMessage::encode_into");

        let (empty, roomy, out) = count_writes(|out| {
            event.encode_into_extra(out, &mut |_, out| {
                out.extend_from_slice(b",\"id_valid\":false");
            })
        });
        assert!(out.ends_with(b",\"id_valid\":false}"));
        assert_eq!((empty, roomy), (1, 0), "{name}: encode_into_extra");
    }
}

#[test]
fn the_widest_numbers_and_escapes_within_a_sixteenth_still_cost_one_allocation() {
    // created_at at 20 digits and kind at 5, the widest the reservation of
    // an event without wire bytes assumes; 705 bytes of text (content 640,
    // tag 65) with 44 newlines, the most escapes a sixteenth leaves room
    // for.
    let keys = common::keys(3);
    let tags = vec![vec!["t".to_string(), "abcdefghijklmno\n".repeat(4)]];
    let content = "0123456789abcde\n".repeat(40);
    let peer = common::sign(&keys, u64::MAX, u16::MAX, &tags, &content);
    let json = peer.as_json();
    assert!(json.contains("\"created_at\":18446744073709551615,\"kind\":65535"));
    let arena = Arena::new();
    let event = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    let store = Arena::new();
    let compacted = event.compact_into(&store);
    assert!(compacted.raw().is_empty());
    let (empty, roomy, out) = count_writes(|out| compacted.encode_into(out));
    assert_eq!(out, json.as_bytes());
    assert_eq!((empty, roomy), (1, 0));
}

#[test]
fn text_that_escapes_more_costs_a_compacted_event_one_more_allocation_only() {
    // Every byte of the content is a newline, written as two: a decoded
    // event reserves its wire length and writes it in one allocation; a
    // compacted one, past the sixteenth its reservation leaves, grows the
    // buffer once (it doubles, which covers the rest).
    let keys = common::keys(4);
    let peer = common::sign(&keys, 1, 1, &[], &"\n".repeat(600));
    let json = peer.as_json();
    let arena = Arena::new();
    let event = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    let (empty, roomy, out) = count_writes(|out| event.encode_into(out));
    assert_eq!(out, json.as_bytes());
    assert_eq!((empty, roomy), (1, 0), "decoded");
    assert_eq!(
        out.capacity(),
        out.len(),
        "decoded: the wire length exactly"
    );

    let store = Arena::new();
    let compacted = event.compact_into(&store);
    let (empty, roomy, out) = count_writes(|out| compacted.encode_into(out));
    assert_eq!(out, json.as_bytes());
    assert_eq!((empty, roomy), (2, 0), "compacted");
}

#[test]
fn a_non_canonical_input_writes_shorter_than_it_came_in_one_allocation() {
    // Whitespace, upper-case hex, long escapes (`\u0022`, `\u00e9`, a
    // surrogate pair, `\/`), members out of order and one NIP-01 does not
    // name: all of it shrinks when written canonically, so the wire length
    // covers the output.
    let keys = common::keys(5);
    let tags = vec![vec!["t".to_string(), "caf\u{e9} \"x\"/".to_string()]];
    let content = "q\"\u{1F980}\u{1}/\n";
    let peer = common::sign(&keys, 1_700_000_000, 1, &tags, content);
    let canonical = peer.as_json();
    let v: serde_json::Value = serde_json::from_str(&canonical).unwrap();
    let field = |k: &str| v[k].to_string();
    let loose = format!(
        "{{ \"content\" : \"q\\u0022\\ud83e\\udd80\\u0001\\/\\u000a\",\n  \"tags\": [ [\"t\", \"caf\\u00e9 \\\"x\\\"\\/\"] ],\n  \
         \"seen_on\": [\"wss://relay.example\"],\n  \"id\": {},\n  \"pubkey\": {},\n  \
         \"created_at\": {},\n  \"kind\": {},\n  \"sig\": {} }}",
        field("id").to_uppercase(),
        field("pubkey"),
        field("created_at"),
        field("kind"),
        field("sig").to_uppercase(),
    );
    let arena = Arena::new();
    let event = quarry_nostr::decode_event(&arena, loose.as_bytes()).unwrap();
    assert!(event.verify_id());
    let (empty, roomy, out) = count_writes(|out| event.encode_into(out));
    assert_eq!(String::from_utf8(out.clone()).unwrap(), canonical);
    assert!(out.len() < loose.len());
    assert_eq!((empty, roomy), (1, 0));
}

/// A filter message reserves its room before writing, as an event does:
/// one allocation into an empty buffer, none into one with room, its lists
/// as received or as sets, at the widest numbers and kinds.
#[test]
fn writing_a_filter_message_costs_one_allocation_into_an_empty_buffer() {
    use quarry_nostr::{ClientMessage, FilterLists};

    let key = |b: u8| format!("{b:02x}").repeat(32);
    let authors: Vec<String> = (10..60).map(|b| format!("\"{}\"", key(b))).collect();
    let max = u64::MAX;
    let messages = [
        format!(
            r#"["REQ","profile",{{"authors":["{}"],"kinds":[0,3,10002],"limit":3}}]"#,
            key(2)
        ),
        format!(
            r##"["REQ","thread",{{"ids":["{}"]}},{{"kinds":[1,6,7,9735],"limit":500,"#e":["{}"]}}]"##,
            key(1),
            key(1)
        ),
        format!(
            r#"["REQ","feed",{{"authors":[{}],"kinds":[1,6],"since":1700000000,"limit":200}}]"#,
            authors.join(",")
        ),
        format!(
            r##"["COUNT","widest",{{"kinds":[65535,65534],"search":"a\nb","since":{max},"until":{max},"limit":{max},"#t":["x\ty","z"],"#p":["{}"]}}]"##,
            key(3)
        ),
        format!(
            r#"["NEG-OPEN","neg",{{"kinds":[1],"limit":9}},"{}"]"#,
            "ab".repeat(40)
        ),
    ];
    for json in &messages {
        let arena = Arena::new();
        let msg = quarry_nostr::decode_client_message(&arena, json.as_bytes())
            .unwrap_or_else(|e| panic!("{json}: {e}"));
        assert!(!matches!(msg, ClientMessage::Event(_)), "{json}");
        for lists in [FilterLists::AsReceived, FilterLists::Sets] {
            let (empty, roomy, out) = count_writes(|out| msg.encode_into_as(out, lists, None));
            assert!(out.starts_with(&json.as_bytes()[..5]), "{json}");
            // Sets sort each list in a temporary vector.
            let sorted = if lists == FilterLists::Sets {
                let filters = match msg {
                    ClientMessage::Req { filters, .. } | ClientMessage::Count { filters, .. } => {
                        filters
                    }
                    ClientMessage::NegOpen { filter, .. } => filter,
                    _ => unreachable!("{json}"),
                };
                filters
                    .iter()
                    .map(|f| {
                        usize::from(f.ids().is_some())
                            + usize::from(f.authors().is_some())
                            + usize::from(f.kinds().is_some())
                            + f.tag_lists().count()
                            // and the `#x` lists themselves, to sort by letter
                            + usize::from(f.tag_lists().count() > 0)
                    })
                    .sum()
            } else {
                0
            };
            assert_eq!((empty, roomy), (1 + sorted, sorted), "{json}: {lists:?}");
        }
    }
}

/// REQs as a relay reads them: a profile lookup, a thread (two filters), a
/// feed of 50 authors.
fn reqs() -> Vec<(&'static str, String)> {
    let id = "ab".repeat(32);
    let authors: Vec<String> = (0..50).map(|i| format!("\"{i:064x}\"")).collect();
    vec![
        (
            "req_profile",
            format!(r#"["REQ","profile",{{"kinds":[0,3,10002],"authors":["{id}"],"limit":1}}]"#),
        ),
        (
            "req_thread",
            format!(
                r##"["REQ","thread",{{"ids":["{id}"]}},{{"kinds":[1,6,7,9735],"#e":["{id}"],"limit":500}}]"##
            ),
        ),
        (
            "req_feed",
            format!(
                r#"["REQ","feed",{{"kinds":[1,6],"authors":[{}],"since":1700000000,"limit":100}}]"#,
                authors.join(",")
            ),
        ),
    ]
}

/// A fresh decode's one chunk is at most 4 times what the decode wrote, on
/// every event shape of the benchmarks and on their REQs, into
/// `Arena::new()` (one allocation) and into `arena_for` (none).
#[test]
fn a_fresh_chunk_is_at_most_four_times_what_the_decode_wrote() {
    let mut inputs: Vec<(String, Vec<u8>)> = (0..common::SHAPES.len())
        .map(|i| {
            (
                common::SHAPES[i].0.to_string(),
                common::relay_event(&common::shape(i, 1)),
            )
        })
        .collect();
    inputs.extend(
        reqs()
            .into_iter()
            .map(|(n, r)| (n.to_string(), r.into_bytes())),
    );
    let mut failures = Vec::new();
    for (name, bytes) in &inputs {
        for (how, arena) in [
            ("new", Arena::new()),
            ("arena_for", quarry_nostr::arena_for(bytes)),
        ] {
            let (n, ok) = quarry_testkit::count_allocs(|| {
                quarry_nostr::decode_message(&arena, bytes).is_ok()
            });
            assert!(ok, "{name}");
            let stats = arena.stats();
            let (held, used) = (stats.allocated_bytes, stats.used_bytes());
            let want = usize::from(how == "new");
            if held > 4 * used || n != want {
                failures.push(format!(
                    "{name} ({how}): {n} allocations, holds {held} for {used}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An `OwnedMessage` holds at most 1.5 times the arena bytes its decode
/// wrote (for a small one, bumpalo's chunk granularity: at most 4 KiB
/// more), plus its input.
#[test]
fn an_owned_message_holds_at_most_one_and_a_half_times_what_it_wrote() {
    let mut failures = Vec::new();
    let events = (0..common::SHAPES.len()).map(|i| common::relay_event(&common::shape(i, 1)));
    let all = events.chain(reqs().into_iter().map(|(_, r)| r.into_bytes()));
    for bytes in all {
        let probe = Arena::with_capacity(1 << 20);
        quarry_nostr::decode_message(&probe, &bytes).unwrap();
        let used = probe.stats().used_bytes();
        let bound = if used >= 8192 {
            used + used / 2
        } else {
            used + 4096
        };
        let msg =
            quarry_nostr::OwnedMessage::decode(quarry_core::bytes::Bytes::from(bytes)).unwrap();
        let held = msg.arena().stats().allocated_bytes;
        if held > bound {
            failures.push(format!(
                "{} bytes: holds {held}, wrote {used}",
                msg.backing_bytes().len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
