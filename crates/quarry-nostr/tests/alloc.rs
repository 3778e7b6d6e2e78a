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
