//! Every limit of `DecodeOptions` exactly at its boundary: an input that
//! sits at the limit decodes, one past it fails with the limit's own
//! variant, naming the limit in force; and the documented arena bound
//! (`98 x len + 2048`, plus the stack spill past 16 levels of nesting) holds
//! for generated messages. Expectations are hand-computed from the wire
//! bytes and the documented counting rules, not taken from a decode.

mod common;

use proptest::prelude::*;
use prost::Message as _;
use quarry_core::{Arena, BoundedAlloc, DecodeError, DecodeOptions};
use quarry_proto::{Decoder, MessageRef, Record, Reserve};
use quarry_proto_tests::views::{quarry::test3::All3View, quarry::test3::InnerView};
use quarry_proto_tests::wa;

fn with(f: impl FnOnce(&mut DecodeOptions)) -> Decoder {
    let mut options = quarry_proto::DEFAULT_OPTIONS;
    f(&mut options);
    Decoder {
        options,
        reserve: Reserve::Estimate,
    }
}

fn run(decoder: &Decoder, message: MessageRef, input: &[u8]) -> Result<(), DecodeError> {
    let arena = Arena::new();
    decoder.decode(message, &arena, input).map(|_| ())
}

// ---------------------------------------------------------------------------
// Items: present fields, repeated elements and unknown fields.

/// `All3` with, in wire order:
/// - `f_int32` (5) = 5: 1 present field;
/// - `r_int32` (35), packed [1, 2, 3]: 1 present field + 3 elements;
/// - unknown field 101 (varint 1): 1 unknown field;
/// - `f_inner` (17) = `Inner { n: 1 }`: 1 present field, and inside it 1.
///
/// The root holds 7 items, the child 1: 8 in all.
fn items_8() -> Vec<u8> {
    vec![
        0x28, 0x05, // f_int32 = 5
        0x9A, 0x02, 0x03, 0x01, 0x02, 0x03, // r_int32 packed [1, 2, 3]
        0xA8, 0x06, 0x01, // field 101, varint 1
        0x8A, 0x01, 0x02, // f_inner, 2 bytes:
        0x10, 0x01, // Inner.n = 1
    ]
}

#[test]
fn items_at_the_limit_decode_and_one_past_fails() {
    let input = items_8();
    // prost agrees the bytes are an All3 with exactly these fields.
    let peer = quarry_proto_tests::pb::test3::All3::decode(&input[..]).unwrap();
    assert_eq!((peer.f_int32, peer.r_int32.len()), (5, 3));
    assert_eq!(peer.f_inner.as_ref().map(|i| i.n), Some(1));

    let item_limit = |max_items| run(&with(|o| o.max_items = max_items), All3View::TABLE, &input);
    assert_eq!(item_limit(8), Ok(()));
    // The counting order (docs/protobuf.md): a packed run counts its
    // values when it is read, at its tag (byte 2): 3 so far. A message
    // counts its fields when it ends, at its first byte: the child (byte
    // 14) 1, making 4, then the root (byte 0) its 4 fields, making 8.
    let expect = |limit, offset| DecodeError::ItemLimit { offset, limit };
    assert_eq!(item_limit(7), Err(expect(7, 0)));
    assert_eq!(item_limit(4), Err(expect(4, 0)));
    assert_eq!(item_limit(3), Err(expect(3, 14)));
    assert_eq!(item_limit(2), Err(expect(2, 2)));
    let err = item_limit(7).unwrap_err();
    assert!(err.is_limit());
    assert_eq!(err.to_string(), "item limit 7 exceeded at byte 0");
    // An empty message holds no item at all.
    assert_eq!(
        run(&with(|o| o.max_items = 0), All3View::TABLE, &[]),
        Ok(())
    );
}

// ---------------------------------------------------------------------------
// Depth: `max_depth` counts nested messages below the root.

#[test]
fn depth_at_the_limit_decodes_and_one_past_fails_for_every_small_limit() {
    for max_depth in [1u32, 2, 3, 15, 16, 17, 40] {
        let d = with(|o| o.max_depth = max_depth);
        let ok = common::deep_inner(max_depth as usize);
        assert_eq!(
            run(&d, InnerView::TABLE, &ok),
            Ok(()),
            "max_depth {max_depth}"
        );
        let deep = common::deep_inner(max_depth as usize + 1);
        let err = run(&d, InnerView::TABLE, &deep).unwrap_err();
        // `max_depth` two-byte headers precede the tag of the level that
        // is one too deep.
        assert_eq!(
            err,
            DecodeError::DepthLimit {
                offset: 2 * max_depth as usize,
                limit: max_depth
            },
            "max_depth {max_depth}"
        );
        assert!(err.is_limit());
    }
}

/// The smallest limits, 0 included, counted as prost counts: a root's
/// fields are at depth 0, each nested message (or group) one deeper, so
/// `max_depth` n accepts n nested levels (the innermost message value at
/// depth n - 1) and rejects the message value at depth n. 0 accepts only
/// messages without a nested one.
#[test]
fn depth_boundary_at_zero_one_and_two() {
    for max_depth in [0u32, 1, 2] {
        let d = with(|o| o.max_depth = max_depth);
        let n = max_depth as usize;
        assert_eq!(
            run(&d, InnerView::TABLE, &common::deep_inner(n)),
            Ok(()),
            "max_depth {max_depth}: {n} nested levels decode"
        );
        assert_eq!(
            run(&d, InnerView::TABLE, &common::deep_inner(n + 1)),
            Err(DecodeError::DepthLimit {
                offset: 2 * n,
                limit: max_depth
            }),
            "max_depth {max_depth}: the message value at depth {n} is rejected"
        );
        // Unknown groups (field 11: start 0x5B, end 0x5C) count the same:
        // n empty groups nest, n + 1 do not.
        let groups = |k: usize| {
            let mut bytes = vec![0x5B; k];
            bytes.extend(std::iter::repeat_n(0x5C, k));
            bytes
        };
        assert_eq!(
            run(&d, InnerView::TABLE, &groups(n)),
            Ok(()),
            "max_depth {max_depth}: {n} groups"
        );
        assert!(
            matches!(
                run(&d, InnerView::TABLE, &groups(n + 1)),
                Err(DecodeError::DepthLimit { limit, .. }) if limit == max_depth
            ),
            "max_depth {max_depth}: {} groups",
            n + 1
        );
    }
}

/// The decoder enters 100 levels by plain recursion; deeper input, when
/// `max_depth` allows it, goes on in stack segments it adds as it needs
/// them. Either way the record has every level, and a nesting bomb within
/// a huge `max_depth` neither overflows the stack nor fails, even on a
/// thread of 1 MiB (half a test thread's: the first 100 levels recurse
/// unchecked, and in a debug build they overflow 256 KiB).
#[test]
fn nesting_past_the_recursion_limit_decodes_every_level() {
    let decoder = with(|o| o.max_depth = u32::MAX);
    let check = |levels: usize| {
        let input = common::deep_inner(levels);
        let arena = Arena::new();
        let root = decoder
            .decode(InnerView::TABLE, &arena, &input)
            .unwrap_or_else(|e| panic!("{levels}: {e}"));
        let mut view = InnerView::from_record(root).unwrap();
        let mut depth = 0;
        while let Some(next) = view.next() {
            view = next;
            depth += 1;
        }
        assert_eq!(depth, levels);
    };
    for levels in [99usize, 100, 101, 102, 150, 20_000] {
        check(levels);
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn_scoped(scope, || check(20_000))
            .unwrap()
            .join()
            .unwrap();
    });
}

/// What the decoder accepts, the encoder and the text printer handle on
/// any stack: a record of 20,000 levels (decoded with `max_depth` raised)
/// encodes back to its input, and one of 2,000 prints, on a thread of
/// 64 KiB, which recursion once per level would overflow. (The decode
/// itself runs on the test's thread: the decoder recurses 100 levels
/// before it checks the stack, which debug builds' frames do not fit in
/// 64 KiB.)
#[test]
fn deep_records_encode_and_print_on_a_small_stack() {
    let decoder = with(|o| o.max_depth = u32::MAX);
    let on_small_stack = |levels: usize, check: fn(usize, Record<'_>, &[u8])| {
        let input = common::deep_inner(levels);
        let arena = Arena::new();
        let record = decoder.decode(InnerView::TABLE, &arena, &input).unwrap();
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn_scoped(scope, || check(levels, record, &input))
                .unwrap()
                .join()
                .unwrap();
        });
    };
    on_small_stack(20_000, |_, record, input| {
        assert_eq!(
            quarry_proto::encoded_len(InnerView::TABLE, record),
            input.len()
        );
        let unbounded = quarry_proto::Decoder {
            options: quarry_proto::DecodeOptions {
                max_depth: u32::MAX,
                ..quarry_proto::DEFAULT_OPTIONS
            },
            ..quarry_proto::Decoder::new()
        };
        assert!(quarry_proto::encode_with(&unbounded, InnerView::TABLE, record).unwrap() == input);
        // Under the default limit the record is refused, also on this stack.
        assert!(matches!(
            quarry_proto::encode(InnerView::TABLE, record),
            Err(quarry_proto::DecodeError::DepthLimit { limit: 100, .. })
        ));
    });
    on_small_stack(2_000, |levels, record, _| {
        // Each level opens `next {` one indent deeper and closes it after.
        let mut expected = String::new();
        for d in 0..levels {
            expected += &format!("{}next {{\n", "  ".repeat(d));
        }
        for d in (0..levels).rev() {
            expected += &format!("{}}}\n", "  ".repeat(d));
        }
        assert!(quarry_proto::text::to_text(InnerView::TABLE, record) == expected);
    });
}

// ---------------------------------------------------------------------------
// Arena bytes.

/// The smallest `max_arena_bytes` under which `input` decodes (the decode
/// is monotone in the budget: bisect).
fn least_arena_budget(message: MessageRef, input: &[u8]) -> usize {
    let ok = |limit| run(&with(|o| o.max_arena_bytes = limit), message, input).is_ok();
    let (mut lo, mut hi) = (0, quarry_proto::max_arena_bytes(input.len()) * 4 + 65_536);
    assert!(ok(hi), "decodes under a generous budget");
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

#[test]
fn arena_budget_at_the_limit_decodes_and_one_less_fails() {
    let mut inputs: Vec<(String, MessageRef, Vec<u8>)> = quarry_proto_tests::samples::all()
        .into_iter()
        .filter(|s| s.bytes.len() < 20_000)
        .map(|s| {
            let table = match s.root {
                quarry_proto_tests::samples::Root::Message => wa::MessageView::TABLE,
                quarry_proto_tests::samples::Root::SyncActionData => wa::SyncActionDataView::TABLE,
                quarry_proto_tests::samples::Root::HistorySync => wa::HistorySyncView::TABLE,
            };
            (s.name.to_owned(), table, s.bytes)
        })
        .collect();
    inputs.push(("items_8".into(), All3View::TABLE, items_8()));
    inputs.push((
        "deep_inner_40".into(),
        InnerView::TABLE,
        common::deep_inner(40),
    ));
    for (name, table, input) in &inputs {
        let least = least_arena_budget(*table, input);
        assert_eq!(
            run(&with(|o| o.max_arena_bytes = least), *table, input),
            Ok(()),
            "{name}"
        );
        let err = run(&with(|o| o.max_arena_bytes = least - 1), *table, input).unwrap_err();
        assert!(
            matches!(err, DecodeError::ArenaLimit { limit, .. } if limit == least - 1),
            "{name}: {err:?}"
        );
        assert!(err.is_limit());
        assert!(err.offset() <= input.len(), "{name}: {err:?}");
    }
}

/// Arena bytes a decode writes, measured as the drop in free space of one
/// chunk big enough for any of the inputs here; and the bytes charged to
/// the budget.
fn arena_bytes(message: MessageRef, input: &[u8]) -> Result<(usize, usize), DecodeError> {
    arena_bytes_with(message, input, &quarry_proto::DEFAULT_OPTIONS)
}

fn arena_bytes_with(
    message: MessageRef,
    input: &[u8],
    options: &DecodeOptions,
) -> Result<(usize, usize), DecodeError> {
    let arena = Arena::with_capacity(quarry_proto::max_arena_bytes(input.len()) * 2 + 65_536);
    let before = arena.stats();
    let alloc = BoundedAlloc::new(&arena, options);
    quarry_proto::decode_into(message, &alloc, input, options)?;
    let after = arena.stats();
    assert_eq!(
        after.allocated_bytes, before.allocated_bytes,
        "no second chunk"
    );
    Ok((
        before.free_in_current_chunk - after.free_in_current_chunk,
        alloc.used(),
    ))
}

/// Nesting costs the arena nothing past the records themselves: the
/// decoder's per-level state is on the thread's stack (and its segments
/// past 100 levels), so the plain bound holds at every depth, with the
/// budget set to it (every allocation charged) and with the default one.
#[test]
fn deep_nesting_stays_within_the_plain_bound() {
    for levels in [1usize, 16, 17, 40, 63, 100, 101, 150, 2_000] {
        let input = common::deep_inner(levels);
        let bound = quarry_proto::max_arena_bytes(input.len());
        let options = DecodeOptions {
            max_arena_bytes: bound,
            max_depth: u32::MAX,
            ..quarry_proto::DEFAULT_OPTIONS
        };
        let (written, charged) = arena_bytes_with(InnerView::TABLE, &input, &options).unwrap();
        assert!(charged <= bound, "{levels}: {charged} charged");
        assert!(written <= bound, "{levels}: {written} written");
        let options = DecodeOptions {
            max_depth: u32::MAX,
            ..quarry_proto::DEFAULT_OPTIONS
        };
        let (written, _) = arena_bytes_with(InnerView::TABLE, &input, &options).unwrap();
        assert!(written <= bound, "{levels}: {written} written");
    }
}

/// `Inner` (`text` 1, `n` 2, `next` 3) `levels` deep, its `next` written
/// twice at every level: first the rest of the chain, whose innermost
/// message holds `unknown` unknown fields 5 (varint 1); then a chain down
/// to that same innermost level holding one unknown field 6 (varint 1).
/// Merged as protobuf merges (the occurrences read as one message), the
/// chain is `levels` deep and its innermost message holds the `unknown`
/// fields 5 and then `levels` fields 6, in input order. Every merge at a
/// level copies the innermost message merged below it again, so the
/// merges at a message's end run past their budget and the rest is
/// merged when the root ends.
fn merged_chain(levels: usize, unknown: usize) -> Vec<u8> {
    let nest = |body: Vec<u8>| {
        let mut out = vec![0x1A];
        prost::encoding::encode_varint(body.len() as u64, &mut out);
        out.extend(body);
        out
    };
    let mut chain = [0x28, 0x01].repeat(unknown);
    let mut probe = vec![0x30, 0x01];
    for _ in 0..levels {
        let mut both = nest(chain);
        both.extend(nest(probe.clone()));
        chain = both;
        probe = nest(probe);
    }
    chain
}

#[test]
fn merges_past_their_budget_stay_within_the_bound_and_merge_as_protobuf_does() {
    for (levels, unknown) in [(1usize, 1usize), (3, 10), (40, 500)] {
        let input = merged_chain(levels, unknown);
        let bound = quarry_proto::max_arena_bytes(input.len());
        let options = DecodeOptions {
            max_arena_bytes: bound,
            ..quarry_proto::DEFAULT_OPTIONS
        };
        let (written, charged) = arena_bytes_with(InnerView::TABLE, &input, &options).unwrap();
        assert!(charged <= bound, "{levels}: {charged} charged of {bound}");
        assert!(written <= bound, "{levels}: {written} written of {bound}");

        let arena = Arena::new();
        let mut record = quarry_proto::decode(InnerView::TABLE, &arena, &input).unwrap();
        for level in 0..levels {
            assert_eq!(record.unknown_fields().count(), 0, "level {level}");
            record = record.message(2).expect("next");
        }
        assert!(record.message(2).is_none());
        let numbers: Vec<u32> = record
            .unknown_fields()
            .map(|u| match u {
                quarry_proto::UnknownField::Raw { tag, value } => {
                    assert_eq!(value, [1]);
                    tag >> 3
                }
                other => panic!("{other:?}"),
            })
            .collect();
        let mut expected = vec![5; unknown];
        expected.extend(std::iter::repeat_n(6, levels));
        assert_eq!(numbers, expected, "{levels} levels");
        // prost (which drops unknown fields) reads the same chain.
        let theirs = quarry_proto_tests::pb::test3::Inner::decode(&input[..]).unwrap();
        let mut depth = 0;
        let mut at = &theirs;
        while let Some(next) = at.next.as_deref() {
            depth += 1;
            at = next;
        }
        assert_eq!(depth, levels);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// Generated messages of the test schemas and of WhatsApp's: the
    /// arena bytes written and charged stay within
    /// `ARENA_BYTES_PER_INPUT_BYTE x len + ARENA_BYTES_CONST`.
    #[test]
    fn arena_use_stays_within_the_documented_bound(seed in any::<u64>(), which in 0usize..5) {
        let (descriptors, name, table) = match which {
            0 => (quarry_proto_tests::TEST_DESCRIPTORS, "quarry.test3.All3", All3View::TABLE),
            1 => (quarry_proto_tests::TEST_DESCRIPTORS, "quarry.test2.All2", quarry_proto_tests::views::quarry::test2::All2View::TABLE),
            // Dense roots with sparse children (the first takes the
            // decoder's scratch buffer as its record).
            2 => (quarry_proto_tests::TEST_DESCRIPTORS, "quarry.test2.Pair", quarry_proto_tests::views::quarry::test2::PairView::TABLE),
            3 => (quarry_proto_tests::WA_DESCRIPTORS, "whatsapp.SyncActionData", wa::SyncActionDataView::TABLE),
            _ => (quarry_proto_tests::WA_DESCRIPTORS, "whatsapp.Message", wa::MessageView::TABLE),
        };
        let pool = common::pool(descriptors);
        let desc = pool.get_message_by_name(name).unwrap();
        let input = common::Gen::new(seed).message(&desc).encode_to_vec();
        let (written, charged) = arena_bytes(table, &input).unwrap();
        let bound = quarry_proto::max_arena_bytes(input.len());
        prop_assert!(written <= bound, "{} written for {} input bytes", written, input.len());
        prop_assert!(charged <= bound, "{} charged for {} input bytes", charged, input.len());
    }

    /// Concatenations of two generated messages repeat singular message
    /// fields whenever both set one, which the decoder merges once the
    /// root ends: the bound covers the merge.
    #[test]
    fn arena_use_of_merged_input_stays_within_the_bound(seed in any::<u64>(), which in 0usize..2) {
        let (name, table) = match which {
            0 => ("quarry.test3.All3", All3View::TABLE),
            _ => ("quarry.test2.All2", quarry_proto_tests::views::quarry::test2::All2View::TABLE),
        };
        let pool = common::pool(quarry_proto_tests::TEST_DESCRIPTORS);
        let desc = pool.get_message_by_name(name).unwrap();
        let mut input = common::Gen::new(seed).message(&desc).encode_to_vec();
        input.extend(common::Gen::new(seed ^ 0x9E37_79B9_7F4A_7C15).message(&desc).encode_to_vec());
        let (written, charged) = arena_bytes(table, &input).unwrap();
        let bound = quarry_proto::max_arena_bytes(input.len());
        prop_assert!(written <= bound, "{} written for {} input bytes", written, input.len());
        prop_assert!(charged <= bound, "{} charged for {} input bytes", charged, input.len());
    }

    /// The same for arbitrary bytes, whether they decode or not: a failed
    /// decode writes no more than a successful one may.
    #[test]
    fn arena_use_of_any_bytes_stays_within_the_bound(input in proptest::collection::vec(any::<u8>(), 0..512)) {
        let table = All3View::TABLE;
        let arena = Arena::with_capacity(1 << 20);
        let before = arena.stats();
        let options = quarry_proto::DEFAULT_OPTIONS;
        let alloc = BoundedAlloc::new(&arena, &options);
        let _ = quarry_proto::decode_into(table, &alloc, &input, &options);
        let after = arena.stats();
        prop_assert_eq!(after.allocated_bytes, before.allocated_bytes);
        let written = before.free_in_current_chunk - after.free_in_current_chunk;
        prop_assert!(written <= quarry_proto::max_arena_bytes(input.len()));
    }
}

// ---------------------------------------------------------------------------
// The defaults: no fixed cap on items or arena bytes, as prost has none.

/// 1.2 million packed values (a 1.2 MB message, more items than the
/// default 1,000,000): refused by default at the run's tag, decoded as
/// prost reads them under `input_bounded_options`.
#[test]
fn more_items_than_the_default_need_input_bounded_options() {
    const N: usize = 1_200_000;
    // `r_int32` (35, tag 0x9A 0x02), packed, N values of 1 byte.
    let mut input = vec![0x9A, 0x02];
    prost::encoding::encode_varint(N as u64, &mut input);
    input.extend(std::iter::repeat_n(0x07, N));
    let arena = Arena::new();
    assert_eq!(
        All3View::decode(&arena, &input).map(|_| ()),
        Err(DecodeError::ItemLimit {
            offset: 0,
            limit: 1_000_000
        })
    );
    let bounded = Decoder {
        options: quarry_proto::input_bounded_options(input.len()),
        reserve: Reserve::Estimate,
    };
    let arena = Arena::new();
    let view =
        All3View::from_record(bounded.decode(All3View::TABLE, &arena, &input).unwrap()).unwrap();
    let theirs = quarry_proto_tests::pb::test3::All3::decode(&input[..]).unwrap();
    assert_eq!(view.r_int32().count(), N);
    assert_eq!(theirs.r_int32.len(), N);
    assert!(view.r_int32().all(|v| v == 7));
}

/// 1.5 million empty repeated messages (4.5 MB) need more than the
/// default 64 MiB of arena: refused by default, decoded as prost reads
/// them under `input_bounded_options`.
#[test]
fn more_arena_than_the_default_needs_input_bounded_options() {
    const N: usize = 1_500_000;
    // `r_inner` (48, tag 0x82 0x03), each an empty `Inner`.
    let input: Vec<u8> = std::iter::repeat_n([0x82, 0x03, 0x00], N)
        .flatten()
        .collect();
    let items = with(|o| o.max_items = u32::MAX);
    assert!(matches!(
        run(&items, All3View::TABLE, &input),
        Err(DecodeError::ArenaLimit { .. })
    ));
    let bounded = Decoder {
        options: quarry_proto::input_bounded_options(input.len()),
        reserve: Reserve::Estimate,
    };
    let arena = Arena::new();
    let view =
        All3View::from_record(bounded.decode(All3View::TABLE, &arena, &input).unwrap()).unwrap();
    assert_eq!(view.r_inner().count(), N);
    let held = arena.stats().allocated_bytes;
    assert!(held > 64 << 20, "{held}");
    let theirs = quarry_proto_tests::pb::test3::All3::decode(&input[..]).unwrap();
    assert_eq!(theirs.r_inner.len(), N);
}

/// The defaults are safe on an open port: items and arena bytes bounded
/// (the core's 1,000,000 and a multiple of MiB, not the input's length),
/// and high enough that inputs of the benchmark samples' sizes (up to 160
/// KiB) still take the decoder's unchecked path, which needs
/// `max_items >= len` and `max_arena_bytes(len) <= max_arena_bytes`:
/// 180 x 163,840 + 2,048 = 29,493,248 bytes, under 32 MiB.
#[test]
fn default_options_are_bounded_and_keep_the_unchecked_path_for_samples() {
    let d = quarry_proto::DEFAULT_OPTIONS;
    assert!(d.max_items <= 1_000_000, "{}", d.max_items);
    assert!(d.max_arena_bytes <= 1 << 30, "{}", d.max_arena_bytes);
    let sample = 160 * 1024;
    assert!(d.max_items as usize >= sample);
    assert!(quarry_proto::max_arena_bytes(sample) <= d.max_arena_bytes);
    assert!(d.max_arena_bytes >= 32 << 20);
}
