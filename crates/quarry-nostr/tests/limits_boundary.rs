//! Every limit exactly at its boundary: an input at the limit decodes, one
//! past it fails with the limit's own variant naming the limit in force;
//! and the arena bounds hold: `8 x len + 512` (`max_event_arena_bytes`)
//! for events and every message without filters, `150 x len + 1024`
//! (`max_arena_bytes`) for any input, messages that carry filters (REQ,
//! COUNT, NEG-OPEN) included (docs/SECURITY.md).

mod common;

use proptest::prelude::*;
use quarry_core::{Arena, DecodeError, DecodeOptions};
use quarry_nostr::{Decoder, IdCheck};

/// The filter bound of docs/SECURITY.md: a filter record is 112 bytes for
/// as few as 3 input bytes (`{},`) and the record table grows by doubling
/// with every growth charged whole (under 4 records' worth per filter):
/// 4 x 112 / 3 < 150. The constant covers the first capacity (4 entries)
/// of each of the five filter tables and the table of tables.
const FILTER_K: usize = 150;
const FILTER_C: usize = 1024;

fn filter_bound(len: usize) -> usize {
    FILTER_K * len + FILTER_C
}

fn with(f: impl FnOnce(&mut DecodeOptions)) -> Decoder {
    let mut options = DecodeOptions::default();
    f(&mut options);
    Decoder {
        options,
        id_check: IdCheck::Skip,
        ..Decoder::new()
    }
}

// ---------------------------------------------------------------------------
// Depth.

/// An event with an unknown member holding `levels` nested arrays.
fn event_with_nesting(levels: usize) -> (String, usize) {
    let json = common::valid_event();
    let bomb = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
    let bad = json.replacen("\"kind\":1,", &format!("\"x\":{bomb},\"kind\":1,"), 1);
    let at = bad.find("\"x\":").unwrap() + 4;
    (bad, at)
}

#[test]
fn depth_at_the_limit_decodes_and_one_past_fails() {
    // The event object is depth 1 (serde_json's count) and the member's
    // value depth 2, so a bare event holds max_depth - 2 nested arrays;
    // the array at depth max_depth is refused at its bracket. The event's
    // tags (depth 3) need at least 4.
    for max_depth in [4u32, 5, 10, 128, 1000, 1024] {
        let d = with(|o| o.max_depth = max_depth);
        let arena = Arena::new();
        let levels = max_depth as usize - 2;
        let (ok, _) = event_with_nesting(levels);
        assert!(
            d.decode_event(&arena, ok.as_bytes()).is_ok(),
            "max_depth {max_depth}"
        );
        let (bad, at) = event_with_nesting(levels + 1);
        let err = d.decode_event(&arena, bad.as_bytes()).unwrap_err();
        assert_eq!(
            err,
            DecodeError::DepthLimit {
                offset: at + levels,
                limit: max_depth
            },
            "max_depth {max_depth}"
        );
        assert!(err.is_limit());
    }
}

#[test]
fn skipped_values_nest_at_most_1024_levels_whatever_the_limit() {
    // The skipper keeps one bit per open container in a fixed 1024-bit
    // array (no allocation, no recursion): a larger max_depth still
    // refuses the container at depth 1024, and the error names the limit
    // that applied (1024), not the larger one configured.
    let d = with(|o| o.max_depth = 5000);
    let arena = Arena::new();
    let (ok, _) = event_with_nesting(1022);
    assert!(d.decode_event(&arena, ok.as_bytes()).is_ok());
    let (bad, at) = event_with_nesting(1023);
    assert_eq!(
        d.decode_event(&arena, bad.as_bytes()).unwrap_err(),
        DecodeError::DepthLimit {
            offset: at + 1022,
            limit: 1024
        }
    );
}

#[test]
fn depth_inside_a_message_starts_one_level_down() {
    // `["EVENT","s",{...,"x":[...]}]`: the message's array is depth 1,
    // the event depth 2, its member's value depth 3; its tags (depth 4)
    // need at least 5.
    let arena = Arena::new();
    for max_depth in [5u32, 6, 128] {
        let d = with(|o| o.max_depth = max_depth);
        let levels = max_depth as usize - 3;
        let (ok, _) = event_with_nesting(levels);
        let msg = format!(r#"["EVENT","s",{ok}]"#);
        assert!(d.decode_relay_message(&arena, msg.as_bytes()).is_ok());
        let (bad, at) = event_with_nesting(levels + 1);
        let msg = format!(r#"["EVENT","s",{bad}]"#);
        let err = d.decode_relay_message(&arena, msg.as_bytes()).unwrap_err();
        assert_eq!(
            err,
            DecodeError::DepthLimit {
                offset: "[\"EVENT\",\"s\",".len() + at + levels,
                limit: max_depth
            }
        );
    }
}

// ---------------------------------------------------------------------------
// Items in filters: one per filter and one per list entry.

#[test]
fn filter_items_at_the_limit_decode_and_one_past_fails() {
    // Filter 1: kinds [1, 2] (2 entries) + itself; filter 2: #t ["a"]
    // (1 entry) + itself: 5 items. Entries count as they are read,
    // filters after their closing brace.
    let json = r##"["REQ","s",{"kinds":[1,2]},{"#t":["a"]}]"##;
    let arena = Arena::new();
    assert!(
        with(|o| o.max_items = 5)
            .decode_client_message(&arena, json.as_bytes())
            .is_ok()
    );
    let err = with(|o| o.max_items = 4)
        .decode_client_message(&arena, json.as_bytes())
        .unwrap_err();
    let second = json.find(r##"{"#t""##).unwrap();
    assert_eq!(
        err,
        DecodeError::ItemLimit {
            offset: second,
            limit: 4
        }
    );
    // With 3, the entry "a" (the fourth item) is refused at its quote.
    let err = with(|o| o.max_items = 3)
        .decode_client_message(&arena, json.as_bytes())
        .unwrap_err();
    assert_eq!(
        err,
        DecodeError::ItemLimit {
            offset: json.find(r#""a""#).unwrap(),
            limit: 3
        }
    );
    assert_eq!(
        err.to_string(),
        format!("item limit 3 exceeded at byte {}", err.offset())
    );
}

#[test]
fn tag_items_at_the_limit_for_every_shape() {
    // Tags plus their elements, counted on rust-nostr's own event.
    for (i, (name, _, _)) in common::SHAPES.iter().enumerate() {
        let event = common::shape(i, 0);
        let items: usize = event.tags.iter().map(|t| 1 + t.as_slice().len()).sum();
        let json = event.as_json();
        let arena = Arena::new();
        let items = items as u32;
        assert!(
            with(|o| o.max_items = items)
                .decode_event(&arena, json.as_bytes())
                .is_ok(),
            "{name}"
        );
        if items > 0 {
            let err = with(|o| o.max_items = items - 1)
                .decode_event(&arena, json.as_bytes())
                .unwrap_err();
            assert!(
                matches!(err, DecodeError::ItemLimit { limit, .. } if limit == items - 1),
                "{name}: {err:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Arena bytes.

fn least_arena_budget(input: &[u8], client: bool) -> usize {
    let ok = |limit| {
        let arena = Arena::new();
        let d = with(|o| o.max_arena_bytes = limit);
        if client {
            d.decode_client_message(&arena, input).is_ok()
        } else {
            d.decode_relay_message(&arena, input).is_ok()
        }
    };
    let (mut lo, mut hi) = (0, filter_bound(input.len()) * 2);
    assert!(ok(hi), "decodes under a generous budget");
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

fn tiny_filters(n: usize) -> String {
    format!(r#"["REQ","s"{}]"#, ",{}".repeat(n))
}

#[test]
fn arena_budget_at_the_limit_decodes_and_one_less_fails() {
    let mut inputs: Vec<(String, Vec<u8>, bool)> = (0..common::SHAPES.len())
        .map(|i| {
            (
                format!("shape {i}"),
                common::relay_event(&common::shape(i, 0)),
                false,
            )
        })
        .collect();
    inputs.push((
        "REQ".into(),
        br##"["REQ","s",{"kinds":[1,2],"#t":["a","b\n"],"search":"x\ty"},{"limit":5}]"##.to_vec(),
        true,
    ));
    inputs.push((
        "65 tiny filters".into(),
        tiny_filters(65).into_bytes(),
        true,
    ));
    for (name, input, client) in &inputs {
        let least = least_arena_budget(input, *client);
        let bound = if *client {
            filter_bound(input.len())
        } else {
            quarry_nostr::max_event_arena_bytes(input.len())
        };
        assert!(least <= bound, "{name}: needs {least}, bound {bound}");
        let arena = Arena::new();
        let at = with(|o| o.max_arena_bytes = least);
        let less = with(|o| o.max_arena_bytes = least - 1);
        let (ok, err) = if *client {
            (
                at.decode_client_message(&arena, input).map(|_| ()),
                less.decode_client_message(&arena, input).map(|_| ()),
            )
        } else {
            (
                at.decode_relay_message(&arena, input).map(|_| ()),
                less.decode_relay_message(&arena, input).map(|_| ()),
            )
        };
        assert_eq!(ok, Ok(()), "{name}");
        let err = err.unwrap_err();
        assert!(
            matches!(err, DecodeError::ArenaLimit { limit, .. } if limit == least - 1),
            "{name}: {err:?}"
        );
        assert!(err.offset() <= input.len());
    }
}

/// Arena bytes a decode writes (drop in free space of one big chunk).
fn written(input: &[u8], client: bool) -> Result<usize, DecodeError> {
    let arena = Arena::with_capacity(filter_bound(input.len()) + 4096);
    let before = arena.stats();
    let d = Decoder {
        id_check: IdCheck::Report,
        ..Decoder::new()
    };
    let result = if client {
        d.decode_client_message(&arena, input).map(|_| ())
    } else {
        d.decode_relay_message(&arena, input).map(|_| ())
    };
    let after = arena.stats();
    assert_eq!(
        after.allocated_bytes, before.allocated_bytes,
        "no second chunk"
    );
    result.map(|()| before.free_in_current_chunk - after.free_in_current_chunk)
}

#[test]
fn the_densest_filter_messages_stay_within_the_filter_bound() {
    // Many empty filters, just past a doubling of the record table (its
    // worst case: the most capacity per filter), and the same with an
    // escaped search string after each doubling point so that the table is
    // not the arena's last allocation when it grows (every growth then
    // takes a new buffer).
    let mut worst = 0.0f64;
    for n in [1usize, 4, 5, 8, 9, 17, 33, 65, 129, 1025, 4097] {
        let plain = tiny_filters(n);
        let used = written(plain.as_bytes(), true).unwrap();
        assert!(used <= filter_bound(plain.len()), "{n} filters: {used}");
        // Plain relay-message bound exceeded: this is why filters have
        // their own.
        worst = worst.max(used as f64 / plain.len() as f64);
        let mut parts = Vec::new();
        for i in 1..=n {
            parts.push(if (i - 1).is_power_of_two() && i > 4 {
                r#"{"search":"\n"}"#
            } else {
                "{}"
            });
        }
        let mixed = format!(r#"["REQ","s",{}]"#, parts.join(","));
        let used = written(mixed.as_bytes(), true).unwrap();
        assert!(
            used <= filter_bound(mixed.len()),
            "{n} mixed filters: {used}"
        );
        worst = worst.max(used as f64 / mixed.len() as f64);
    }
    assert!(
        worst > 8.0,
        "filters need their own bound (worst {worst:.1} B per input byte)"
    );
    assert!(worst < FILTER_K as f64);
}

/// A JSON string literal of `s` (escaped by serde_json).
fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,12}",
        "[\\x00-\\x7f]{0,12}",
        ".{0,8}",
        Just(String::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Events with any tags and content (escapes, controls, unicode), as
    /// relay messages: at most `8 x len + 512` arena bytes.
    #[test]
    fn event_messages_stay_within_the_bound(
        tags in prop::collection::vec(prop::collection::vec(text(), 1..5), 0..40),
        content in text(),
        sub in "[a-z0-9]{1,64}",
    ) {
        let tags: Vec<String> = tags
            .iter()
            .map(|t| format!("[{}]", t.iter().map(|s| lit(s)).collect::<Vec<_>>().join(",")))
            .collect();
        let zeros = "0".repeat(64);
        let json = format!(
            r#"["EVENT",{},{{"id":"{zeros}","pubkey":"{zeros}","created_at":1,"kind":1,"tags":[{}],"content":{},"sig":"{zeros}{zeros}"}}]"#,
            lit(&sub),
            tags.join(","),
            lit(&content)
        );
        let used = written(json.as_bytes(), false);
        prop_assert!(used.is_ok(), "{:?}", used);
        let used = used.unwrap();
        prop_assert!(used <= quarry_nostr::max_event_arena_bytes(json.len()), "{} for {}", used, json.len());
        // Charged bytes too: the decode succeeds with the bound as budget.
        let arena = Arena::new();
        let tight = with(|o| o.max_arena_bytes = quarry_nostr::max_event_arena_bytes(json.len()));
        prop_assert!(tight.decode_relay_message(&arena, json.as_bytes()).is_ok());
    }

    /// REQ messages with any mix of filters: at most `150 x len + 1024`.
    #[test]
    fn filter_messages_stay_within_the_filter_bound(
        filters in prop::collection::vec(
            (
                prop::option::of(prop::collection::vec(0u16..40000, 0..6)),
                prop::option::of(prop::collection::vec(text(), 0..4)),
                prop::option::of(text()),
                prop::option::of(0u64..1_000_000),
                0usize..3,
            ),
            // A REQ carries one filter at least.
            1..40,
        ),
    ) {
        let parts: Vec<String> = filters
            .iter()
            .map(|(kinds, tvals, search, limit, ids)| {
                let mut m = Vec::new();
                if let Some(k) = kinds {
                    m.push(format!(r#""kinds":[{}]"#, k.iter().map(u16::to_string).collect::<Vec<_>>().join(",")));
                }
                if let Some(v) = tvals {
                    m.push(format!(r##""#t":[{}]"##, v.iter().map(|s| lit(s)).collect::<Vec<_>>().join(",")));
                }
                if let Some(s) = search {
                    m.push(format!(r#""search":{}"#, lit(s)));
                }
                if let Some(l) = limit {
                    m.push(format!(r#""limit":{l}"#));
                }
                if *ids > 0 {
                    let id = format!("\"{}\"", "ab".repeat(32));
                    m.push(format!(r#""ids":[{}]"#, vec![id; *ids].join(",")));
                }
                format!("{{{}}}", m.join(","))
            })
            .collect();
        let json = format!(r#"["REQ","sub",{}]"#, parts.join(","));
        let json = json.replace(",]", "]");
        let used = written(json.as_bytes(), true);
        prop_assert!(used.is_ok(), "{:?} for {}", used, json);
        let used = used.unwrap();
        prop_assert!(used <= filter_bound(json.len()), "{} for {}", used, json.len());
    }
}

// ---------------------------------------------------------------------------
// Depth at the smallest limits: every array and object counts, the
// outermost at depth 1, and one at depth `max_depth` is refused at its
// bracket (serde_json's count).

/// A bare event (ids unchecked) whose tags are `tags`.
fn event_with_tags(tags: &str) -> String {
    format!(
        r#"{{"id":"{}","pubkey":"{}","created_at":1,"kind":1,"tags":{tags},"content":"","sig":"{}"}}"#,
        "0".repeat(64),
        "0".repeat(64),
        "0".repeat(128)
    )
}

/// What decoding `json` (a bare event when it starts with `{`, a message
/// otherwise) under `max_depth` gives: `Ok` or the depth error's offset.
fn depth_outcome(max_depth: u32, json: &str) -> Result<(), usize> {
    let d = with(|o| o.max_depth = max_depth);
    let arena = Arena::new();
    let result = if json.starts_with('{') {
        d.decode_event(&arena, json.as_bytes()).map(|_| ())
    } else {
        d.decode_message(&arena, json.as_bytes()).map(|_| ())
    };
    match result {
        Ok(()) => Ok(()),
        Err(DecodeError::DepthLimit { offset, limit }) => {
            assert_eq!(limit, max_depth, "{json}");
            Err(offset)
        }
        Err(other) => panic!("max_depth {max_depth}, {json}: {other:?}"),
    }
}

/// Where the `nth` occurrence (0-based) of `needle` starts in `json`.
fn at(json: &str, needle: &str, nth: usize) -> usize {
    json.match_indices(needle).nth(nth).unwrap().0
}

#[test]
fn depth_boundary_at_zero_one_and_two_and_beyond() {
    let eose = r#"["EOSE","s"]"#;
    let bare = event_with_tags("[]");
    let tagged = event_with_tags(r#"[["t","x"]]"#);
    let req_empty = r#"["REQ","s",{}]"#;
    let req_kinds = r#"["REQ","s",{"kinds":[1]}]"#;
    let req_tag = r##"["REQ","s",{"#t":["a"]}]"##;
    let count = r#"["COUNT","s",{"count":1}]"#;
    let in_msg = format!(r#"["EVENT","s",{bare}]"#);
    let tagged_in_msg = format!(r#"["EVENT","s",{tagged}]"#);
    let tags_at = |json: &str| at(json, r#""tags":"#, 0) + 7;
    // The outermost array or object is depth 1: 0 and 1 refuse it.
    for max_depth in [0, 1] {
        for json in [eose, &bare, req_empty, count, &in_msg] {
            assert_eq!(depth_outcome(max_depth, json), Err(0), "{json}");
        }
    }
    // 2: containers at depth 1 only.
    assert_eq!(depth_outcome(2, eose), Ok(()));
    assert_eq!(depth_outcome(2, &bare), Err(tags_at(&bare)));
    assert_eq!(depth_outcome(2, req_empty), Err(at(req_empty, "{", 0)));
    assert_eq!(depth_outcome(2, count), Err(at(count, "{", 0)));
    assert_eq!(depth_outcome(2, &in_msg), Err(at(&in_msg, "{", 0)));
    // 3: the event's tags array and a filter object are at depth 2; a tag,
    // a filter's list and an event's tags in a message at depth 3.
    assert_eq!(depth_outcome(3, &bare), Ok(()));
    assert_eq!(depth_outcome(3, &tagged), Err(tags_at(&tagged) + 1));
    assert_eq!(depth_outcome(3, req_empty), Ok(()));
    assert_eq!(depth_outcome(3, count), Ok(()));
    assert_eq!(depth_outcome(3, req_kinds), Err(at(req_kinds, "[", 1)));
    assert_eq!(depth_outcome(3, req_tag), Err(at(req_tag, "[", 1)));
    assert_eq!(depth_outcome(3, &in_msg), Err(tags_at(&in_msg)));
    // 4: everything here but a tag inside an event inside a message.
    assert_eq!(depth_outcome(4, &tagged), Ok(()));
    assert_eq!(depth_outcome(4, req_kinds), Ok(()));
    assert_eq!(depth_outcome(4, req_tag), Ok(()));
    assert_eq!(depth_outcome(4, &in_msg), Ok(()));
    assert_eq!(
        depth_outcome(4, &tagged_in_msg),
        Err(tags_at(&tagged_in_msg) + 1)
    );
    assert_eq!(depth_outcome(5, &tagged_in_msg), Ok(()));
}

/// Adversarial filters: many of the shortest entries each list allows
/// (one-digit kinds, empty tag values, ids and authors), many one-entry
/// filters, every tag letter: `quarry_nostr::max_arena_bytes`, the bound
/// the crate exports for any input, holds for each, as the filter bound
/// of docs/SECURITY.md does.
#[test]
fn the_exported_bound_holds_for_adversarial_filters() {
    let id = "ab".repeat(32);
    let letters: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
    let mut inputs = Vec::new();
    for n in [1usize, 5, 9, 65, 1025, 4097] {
        inputs.push(format!(
            r#"["REQ","s",{{"kinds":[{}]}}]"#,
            vec!["0"; n].join(",")
        ));
        inputs.push(format!(
            r##"["REQ","s",{{"#t":[{}]}}]"##,
            vec![r#""""#; n].join(",")
        ));
        inputs.push(format!(
            r#"["REQ","s",{{"ids":[{}]}}]"#,
            vec![format!(r#""{id}""#); n].join(",")
        ));
        inputs.push(format!(
            r#"["COUNT","s",{{"authors":[{}]}}]"#,
            vec![format!(r#""{id}""#); n].join(",")
        ));
        inputs.push(format!(r#"["REQ","s"{}]"#, r#",{"kinds":[0]}"#.repeat(n)));
        inputs.push(format!(r##"["REQ","s"{}]"##, r##",{"#e":[""]}"##.repeat(n)));
        inputs.push(format!(r#"["REQ","s"{}]"#, r#",{"limit":0}"#.repeat(n)));
        inputs.push(tiny_filters(n));
    }
    let every_letter: Vec<String> = letters
        .iter()
        .map(|c| format!(r##""#{c}":[""]"##))
        .collect();
    let one = format!("{{{}}}", every_letter.join(","));
    for n in [1usize, 5, 65, 257] {
        inputs.push(format!(r#"["REQ","s"{}]"#, format!(",{one}").repeat(n)));
    }
    for input in &inputs {
        let used = written(input.as_bytes(), true).unwrap();
        let bound = quarry_nostr::max_arena_bytes(input.len());
        assert!(
            used <= bound,
            "{used} > {bound} for {} bytes: {}",
            input.len(),
            &input[..input.len().min(60)]
        );
        assert!(used <= filter_bound(input.len()));
    }
}
