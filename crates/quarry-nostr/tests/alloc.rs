//! The allocation contract, counted exactly: decoding an EVENT relay
//! message into a fresh arena costs one heap allocation (the arena's
//! chunk, sized from the input length), into a reset arena none, with the
//! id checked.

mod common;

use quarry::Arena;
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
        assert!(held >= quarry_nostr::max_arena_bytes(bytes.len()), "{name}");
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

        let (empty, roomy, out) = count_writes(|out| event.write_json(out));
        assert_eq!(out, json.as_bytes(), "{name}: the peer's bytes");
        assert_eq!((empty, roomy), (1, 0), "{name}: Event::write_json");

        let store = Arena::new();
        let compacted = event.compact_into(&store);
        let (empty, roomy, out) = count_writes(|out| compacted.write_json(out));
        assert_eq!(out, json.as_bytes(), "{name}: compacted");
        assert_eq!(
            (empty, roomy),
            (1, 0),
            "{name}: compacted Event::write_json"
        );

        let msg = RelayMessage::Event {
            sub_id: "sub1",
            event,
        };
        let (empty, roomy, out) = count_writes(|out| msg.write_json(out));
        assert_eq!(out, common::relay_event(&peer), "{name}: the peer's bytes");
        assert_eq!((empty, roomy), (1, 0), "{name}: RelayMessage::write_json");

        let msg = quarry_nostr::ClientMessage::Event(event);
        let (empty, roomy, _) = count_writes(|out| msg.write_json(out));
        assert_eq!((empty, roomy), (1, 0), "{name}: ClientMessage::write_json");

        let (empty, roomy, out) = count_writes(|out| {
            event.write_json_with(out, &mut |_, out| {
                out.extend_from_slice(b",\"id_valid\":false");
            })
        });
        assert!(out.ends_with(b",\"id_valid\":false}"));
        assert_eq!((empty, roomy), (1, 0), "{name}: write_json_with");
    }
}

#[test]
fn the_widest_numbers_and_escapes_within_a_sixteenth_still_cost_one_allocation() {
    // created_at at 20 digits and kind at 5, the widest the reservation
    // assumes; one escape per 16 bytes of content and of tag text, the
    // most it leaves room for.
    let keys = common::keys(3);
    let tags = vec![vec!["t".to_string(), "abcdefghijklmno\n".repeat(4)]];
    let content = "0123456789abcde\n".repeat(40);
    let peer = common::sign(&keys, u64::MAX, u16::MAX, &tags, &content);
    let json = peer.as_json();
    assert!(json.contains("\"created_at\":18446744073709551615,\"kind\":65535"));
    let arena = Arena::new();
    let event = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    let (empty, roomy, out) = count_writes(|out| event.write_json(out));
    assert_eq!(out, json.as_bytes());
    assert_eq!((empty, roomy), (1, 0));
}

#[test]
fn text_that_escapes_more_grows_the_buffer_once_more() {
    // Every byte of the content is a newline, written as two: past the
    // sixteenth the reservation leaves, so the buffer grows once (it
    // doubles, which covers the rest).
    let keys = common::keys(4);
    let peer = common::sign(&keys, 1, 1, &[], &"\n".repeat(600));
    let json = peer.as_json();
    let arena = Arena::new();
    let event = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    let (empty, roomy, out) = count_writes(|out| event.write_json(out));
    assert_eq!(out, json.as_bytes());
    assert_eq!((empty, roomy), (2, 0));
}
