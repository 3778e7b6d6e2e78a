//! Item and arena limits: a huge tag list or a tight arena budget is a
//! limit error at the offending value, not an allocation.

mod common;

use quarry_core::{Arena, DecodeError, DecodeOptions};
use quarry_nostr::{Decoder, IdCheck};

#[test]
fn item_limit_counts_tags_and_elements() {
    let json = common::shape(4, 0).as_json(); // 12 tags, 30 elements
    let arena = Arena::new();
    let d = |max_items| Decoder {
        options: DecodeOptions {
            max_items,
            ..Default::default()
        },
        ..Decoder::new()
    };
    assert!(d(42).decode_event(&arena, json.as_bytes()).is_ok());
    let e = d(41).decode_event(&arena, json.as_bytes()).unwrap_err();
    let last_tag = json.rfind("[\"t\",").unwrap();
    assert_eq!(
        e,
        DecodeError::ItemLimit {
            offset: last_tag,
            limit: 41
        }
    );
}

#[test]
fn arena_limit_is_enforced_before_allocating() {
    let json = common::shape(5, 0).as_json();
    let arena = Arena::new();
    let d = Decoder {
        options: DecodeOptions {
            max_arena_bytes: 1000,
            ..Default::default()
        },
        id_check: IdCheck::Skip,
        ..Decoder::new()
    };
    let e = d.decode_event(&arena, json.as_bytes()).unwrap_err();
    assert!(
        matches!(e, DecodeError::ArenaLimit { limit: 1000, .. }),
        "{e}"
    );
    // The budget is charged before the arena is asked; what was written is
    // within it (bumpalo rounds the chunk itself up to a power of two).
    let st = arena.stats();
    assert!(
        st.allocated_bytes - st.free_in_current_chunk <= 1000,
        "{st:?}"
    );
}

#[test]
fn arena_use_stays_within_the_documented_bound() {
    let arena = Arena::new();
    let many_tiny_tags = format!(
        r#"{{"id":"{0}","pubkey":"{0}","created_at":1,"kind":1,"tags":[{1}[""]],"content":"","sig":"{0}{0}"}}"#,
        "ab".repeat(32),
        "[\"\"],".repeat(10_000)
    );
    for input in [common::shape(5, 0).as_json(), many_tiny_tags] {
        let mut arena = Arena::new();
        let d = Decoder {
            id_check: IdCheck::Report,
            ..Decoder::new()
        };
        d.decode_event(&arena, input.as_bytes()).unwrap();
        let bound = quarry_nostr::max_event_arena_bytes(input.len());
        let st = arena.stats();
        let used = st.allocated_bytes - st.free_in_current_chunk;
        assert!(used <= bound, "{used} > {bound}");
        arena.reset();
    }
    let _ = &arena;
}
