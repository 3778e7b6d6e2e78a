//! The allocation contract, counted exactly by a counting global allocator
//! (its own test binary): decoding each of the spec's samples into a fresh
//! arena makes one heap allocation (the arena's chunk, sized by the
//! decoder's estimate), into a reset arena none.

use quarry_core::Arena;
use quarry_proto::{Decoder, MessageRef, Reserve};
use quarry_proto_tests::samples::{self, Root};
use quarry_proto_tests::wa;

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

fn table(root: Root) -> MessageRef {
    match root {
        Root::SyncActionData => wa::SyncActionDataView::TABLE,
        Root::Message => wa::MessageView::TABLE,
        Root::HistorySync => wa::HistorySyncView::TABLE,
    }
}

#[test]
fn the_counter_is_live() {
    assert_eq!(
        quarry_testkit::count_allocs(|| {
            std::hint::black_box(vec![1u8; 100]);
        })
        .0,
        1
    );
    assert_eq!(
        quarry_testkit::count_allocs(|| {
            let mut v: Vec<u64> = Vec::with_capacity(1);
            v.extend([1, 2, 3]);
            std::hint::black_box(v);
        })
        .0,
        2
    );
}

fn check(decoder: Decoder) {
    for s in samples::all() {
        let mut arena = Arena::new();
        let fresh = quarry_testkit::count_allocs(|| {
            decoder.decode(table(s.root), &arena, &s.bytes).unwrap();
        })
        .0;
        assert_eq!(fresh, 1, "{} fresh ({:?})", s.name, decoder.reserve);
        arena.reset();
        let reused = quarry_testkit::count_allocs(|| {
            decoder.decode(table(s.root), &arena, &s.bytes).unwrap();
        })
        .0;
        assert_eq!(reused, 0, "{} reused ({:?})", s.name, decoder.reserve);
        let stats = arena.stats();
        println!(
            "{:>20} {:>7} B input: arena holds {:>8} B, uses {:>8} B ({:?})",
            s.name,
            s.bytes.len(),
            stats.allocated_bytes,
            stats.allocated_bytes - stats.free_in_current_chunk,
            decoder.reserve
        );
    }
}

#[test]
fn one_allocation_fresh_none_reused() {
    check(Decoder::new());
    check(Decoder {
        reserve: Reserve::WorstCase,
        ..Decoder::new()
    });
}

#[test]
fn generated_decode_costs_the_same() {
    let bytes = samples::text_reply_quoted();
    let bytes = prost::Message::encode_to_vec(&bytes);
    let mut arena = Arena::new();
    assert_eq!(
        quarry_testkit::count_allocs(|| {
            wa::MessageView::decode(&arena, &bytes).unwrap();
        })
        .0,
        1
    );
    arena.reset();
    assert_eq!(
        quarry_testkit::count_allocs(|| {
            let m = wa::MessageView::decode(&arena, &bytes).unwrap();
            // Reading allocates nothing either.
            let ctx = m.extended_text_message().unwrap().context_info().unwrap();
            assert_eq!(
                ctx.quoted_message().unwrap().conversation(),
                "Dinner at eight? Booked the usual."
            );
        })
        .0,
        0
    );
}

#[test]
fn arena_for_allocates_once_and_the_decode_never() {
    for s in samples::all() {
        let (made, arena) = quarry_testkit::count_allocs(|| quarry_proto::arena_for(&s.bytes));
        assert_eq!(made, 1, "{}: arena_for", s.name);
        let held = arena.stats().allocated_bytes;
        assert!(held >= quarry_proto::estimate_arena_bytes(&s.bytes));
        let during = quarry_testkit::count_allocs(|| {
            quarry_proto::decode(table(s.root), &arena, &s.bytes).unwrap();
        })
        .0;
        assert_eq!(during, 0, "{}: decode into arena_for", s.name);
        assert_eq!(arena.stats().allocated_bytes, held, "{}", s.name);
    }
}

/// Encoding makes one allocation, the output of exactly its size, and gives
/// back the input's bytes (the samples are prost's canonical encodings).
#[test]
fn encoding_allocates_the_output_only() {
    for s in samples::all() {
        let arena = Arena::new();
        let record = quarry_proto::decode(table(s.root), &arena, &s.bytes).unwrap();
        let (made, out) =
            quarry_testkit::count_allocs(|| quarry_proto::encode(table(s.root), record).unwrap());
        assert_eq!(made, 1, "{}: encode", s.name);
        assert_eq!(out.capacity(), s.bytes.len(), "{}", s.name);
        assert!(out == s.bytes, "{}: bytes differ", s.name);
    }
}

/// A record nested past the walk's inline levels (the root and 31 below
/// it) costs the encoder its stack besides: one allocation for one level
/// more, and a `Vec`'s doublings for 200 levels (168 frames: capacity 4,
/// 8, .. 256).
#[test]
fn encoding_a_record_deeper_than_31_levels_allocates_the_walks_stack() {
    for (levels, allocations) in [(1usize, 1), (31, 1), (32, 2), (35, 2), (36, 3), (200, 8)] {
        let mut input = Vec::new();
        for _ in 0..levels {
            let mut outer = vec![0x1A];
            prost::encoding::encode_varint(input.len() as u64, &mut outer);
            outer.extend(input);
            input = outer;
        }
        let decoder = Decoder {
            options: quarry_core::DecodeOptions {
                max_depth: 1000,
                ..quarry_proto::DEFAULT_OPTIONS
            },
            ..Decoder::new()
        };
        let arena = Arena::new();
        let table = quarry_proto_tests::views::quarry::test3::InnerView::TABLE;
        let record = decoder.decode(table, &arena, &input).unwrap();
        let (made, out) = quarry_testkit::count_allocs(|| {
            quarry_proto::encode_with(&decoder, table, record).unwrap()
        });
        assert_eq!(made, allocations, "{levels} levels");
        assert_eq!(out, input, "{levels} levels");
    }
}

/// `bytes` followed by unknown field 1000 (length-delimited) holding `pad`
/// bytes: the encoder writes unknown fields after the known ones, so the
/// padding is what it writes first, back to front.
fn padded(bytes: &[u8], pad: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.extend_from_slice(&[0xC2, 0x3E]); // field 1000, wire type 2
    prost::encoding::encode_varint(pad as u64, &mut out);
    out.resize(out.len() + pad, b'p');
    out
}

/// Encode `input` (canonical) as `table` with the padding set so that the
/// encoder's first buffer runs out at every byte of the rest in turn, and
/// past it: the output is the input and one allocation of exactly its
/// size every time.
fn sweep_the_scratch_boundary(name: &str, table: MessageRef, input: &[u8]) {
    // The encoder's stack buffer holds 1,024 bytes (`SCRATCH` in
    // quarry-proto's encode/mod.rs); the padding's tag and length take 4.
    let rest = input.len();
    assert!(rest < 900, "{name}: the rest must leave room for padding");
    for pad in (1024 - rest - 8)..(1024 + 8) {
        let bytes = padded(input, pad);
        let arena = Arena::new();
        let record = quarry_proto::decode(table, &arena, &bytes).unwrap();
        let (made, out) =
            quarry_testkit::count_allocs(|| quarry_proto::encode(table, record).unwrap());
        assert!(
            out == bytes,
            "{name}, {} bytes: output differs",
            bytes.len()
        );
        assert_eq!(made, 1, "{name}, {} bytes: allocations", bytes.len());
        assert_eq!(out.capacity(), bytes.len(), "{name}, {} bytes", bytes.len());
        assert_eq!(quarry_proto::encoded_len(table, record), bytes.len());
        let mut framed = b"prefix".to_vec();
        quarry_proto::encode_into(table, record, &mut framed).unwrap();
        assert!(
            framed[6..] == bytes[..],
            "{name}, {} bytes: encode_into",
            bytes.len()
        );
        assert_eq!(&framed[..6], b"prefix");
    }
}

#[test]
fn encodings_around_the_first_buffers_size_come_back_whole_in_one_allocation() {
    use prost::Message as _;
    use quarry_proto_tests::{pb, views};

    let inner = |text: &str, n: i32| pb::test3::Inner {
        text: text.to_string(),
        n,
        next: Some(Box::new(pb::test3::Inner {
            text: "deeper".to_string(),
            n: -1,
            next: None,
        })),
    };
    let all3 = pb::test3::All3 {
        f_double: 1.5,
        f_int64: -3,
        f_int32: -70_000,
        f_string: "héllo".to_string(),
        f_sint64: -1 << 40,
        f_inner: Some(inner("in", 300)),
        o_string: Some(String::new()),
        r_double: vec![0.25, -2.0],
        r_int32: vec![1, -1, 1 << 20],
        r_unpacked: vec![7, 8],
        r_string: vec!["a".to_string(), String::new(), "ccc".to_string()],
        r_inner: vec![inner("x", 1), pb::test3::Inner::default()],
        m_str: [("k".to_string(), "v".to_string())].into(),
        child: Some(Box::new(pb::test3::All3 {
            f_bool: true,
            f_inner: Some(inner("child", 2)),
            ..Default::default()
        })),
        list: vec![
            pb::test3::All3 {
                f_uint32: 5,
                ..Default::default()
            },
            pb::test3::All3::default(),
        ],
        kind: Some(pb::test3::all3::Kind::KInner(inner("oneof", 9))),
        ..Default::default()
    };
    sweep_the_scratch_boundary(
        "All3",
        views::quarry::test3::All3View::TABLE,
        &all3.encode_to_vec(),
    );

    // Groups (start and end tags around a body), packed and unpacked
    // repeats, a required field.
    let all2 = pb::test2::All2 {
        f_required: 1,
        f_string: Some("s".to_string()),
        f_nested: Some(pb::test2::Nested {
            id: Some(3),
            name: Some("nested".to_string()),
            colors: vec![1, 3],
            ..Default::default()
        }),
        fgroup: Some(pb::test2::all2::FGroup {
            a: Some(5),
            b: Some("group".to_string()),
        }),
        r_int32: vec![1, 2, 300],
        r_int32_packed: vec![4, 5, 600],
        rgroup: vec![
            pb::test2::all2::RGroup { x: Some(1) },
            pb::test2::all2::RGroup { x: None },
        ],
        ..Default::default()
    };
    sweep_the_scratch_boundary(
        "All2",
        views::quarry::test2::All2View::TABLE,
        &all2.encode_to_vec(),
    );
}

/// `encode_into` appends what `encode_to_vec` returns: one allocation into
/// an empty buffer, none into a buffer cleared after an encode, on the
/// samples that fit the first buffer and on HistorySync, which does not;
/// bytes already in the buffer stay in front.
#[test]
fn encoding_into_a_buffer_with_room_allocates_nothing() {
    let mut reused = Vec::new();
    for s in samples::all() {
        let arena = Arena::new();
        let record = quarry_proto::decode(table(s.root), &arena, &s.bytes).unwrap();
        let (made, ()) = quarry_testkit::count_allocs(|| {
            quarry_proto::encode_into(table(s.root), record, &mut Vec::new()).unwrap()
        });
        assert_eq!(made, 1, "{}: into an empty buffer", s.name);

        reused.clear();
        quarry_proto::encode_into(table(s.root), record, &mut reused).unwrap();
        assert!(reused == s.bytes, "{}: bytes differ", s.name);
        reused.clear();
        let (made, ()) = quarry_testkit::count_allocs(|| {
            quarry_proto::encode_into(table(s.root), record, &mut reused).unwrap()
        });
        assert_eq!(made, 0, "{}: into a cleared buffer", s.name);
        assert!(reused == s.bytes, "{}: bytes differ after reuse", s.name);

        let mut framed = b"prefix".to_vec();
        quarry_proto::encode_into(table(s.root), record, &mut framed).unwrap();
        assert_eq!(&framed[..6], b"prefix", "{}", s.name);
        assert!(framed[6..] == s.bytes, "{}: appended bytes differ", s.name);

        // The generated views' method is the same call.
        if s.root == Root::Message {
            let mut out = Vec::new();
            wa::MessageView::decode(&arena, &s.bytes)
                .unwrap()
                .encode_into(&mut out)
                .unwrap();
            assert!(out == s.bytes, "{}: MessageView::encode_into", s.name);
        }
    }
}

/// A map of more than 1,024 entries with repeated keys takes its key table
/// from the arena: a warmed, reset arena allocates nothing, and the arena
/// stays within `max_arena_bytes`. The map's entries are written one
/// message at a time (protobuf appends the entries of concatenated
/// messages), 3,000 entries over more than 1,024 keys in a scrambled
/// order.
#[test]
fn a_large_map_with_repeated_keys_allocates_nothing_in_a_reset_arena() {
    use quarry_proto_tests::pb::test2;
    use quarry_proto_tests::views::quarry::test2::All2View;
    let key = |i: usize| (i.wrapping_mul(7919) ^ (i >> 3)) % 1200;
    let keys = (0..3000)
        .map(key)
        .collect::<std::collections::HashSet<_>>()
        .len();
    assert!(keys > 1024, "{keys} keys");
    let bytes: Vec<u8> = (0..3000usize)
        .flat_map(|i| {
            let k = key(i);
            prost::Message::encode_to_vec(&test2::All2 {
                m_str_int: std::collections::HashMap::from([(format!("key{k:05}"), i as i32)]),
                ..Default::default()
            })
        })
        .collect();
    let mut arena = Arena::new();
    let first = All2View::decode(&arena, &bytes).unwrap();
    assert_eq!(first.m_str_int().len(), keys);
    // This input writes more than its estimate, so the fresh decode spread
    // it over chunks and the reset kept the largest; one more decode grows
    // that to hold all of it.
    assert!(
        arena.stats().allocated_bytes
            > quarry_core::Arena::chunk_bytes_for(quarry_proto::estimate_arena_bytes(&bytes))
    );
    arena.reset();
    All2View::decode(&arena, &bytes).unwrap();
    arena.reset();
    let (made, len) = quarry_testkit::count_allocs(|| {
        All2View::decode(&arena, &bytes).unwrap().m_str_int().len()
    });
    assert_eq!((made, len), (0, keys));
    let stats = arena.stats();
    let used = stats.allocated_bytes - stats.free_in_current_chunk;
    assert!(
        used <= quarry_proto::max_arena_bytes(bytes.len()),
        "{used} B for {} input bytes",
        bytes.len()
    );
}

/// A fresh decode's one chunk is at most 4 times what the decode wrote on
/// every sample of the benchmarks, into `Arena::new()` (one allocation)
/// and into `arena_for` (none).
#[test]
fn a_fresh_chunk_is_at_most_four_times_what_the_decode_wrote() {
    let mut failures = Vec::new();
    for s in samples::all() {
        for (how, arena) in [
            ("new", Arena::new()),
            ("arena_for", quarry_proto::arena_for(&s.bytes)),
        ] {
            let n = quarry_testkit::count_allocs(|| {
                quarry_proto::decode(table(s.root), &arena, &s.bytes).unwrap();
            })
            .0;
            let stats = arena.stats();
            let (held, used) = (stats.allocated_bytes, stats.used_bytes());
            if held > 4 * used || n != usize::from(how == "new") {
                failures.push(format!(
                    "{} ({how}): {n} allocations, holds {held} for {used}",
                    s.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An `OwnedRecord` holds at most 1.5 times the arena bytes its decode
/// wrote (for a small one, bumpalo's chunk granularity: at most 4 KiB
/// more), plus its input.
#[test]
fn an_owned_record_holds_at_most_one_and_a_half_times_what_it_wrote() {
    let mut failures = Vec::new();
    for s in samples::all() {
        let probe = Arena::with_capacity(64 << 20);
        quarry_proto::decode(table(s.root), &probe, &s.bytes).unwrap();
        let used = probe.stats().used_bytes();
        let bound = if used >= 8192 {
            used + used / 2
        } else {
            used + 4096
        };
        let bytes = quarry_core::bytes::Bytes::from(s.bytes.clone());
        let owned = quarry_proto::OwnedRecord::decode(table(s.root), bytes).unwrap();
        let held = owned.arena().stats().allocated_bytes;
        if held > bound {
            failures.push(format!("{}: holds {held}, wrote {used}", s.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn building_and_encoding_a_sample_allocates_the_output_only() {
    use quarry_proto_tests::sends::{self, Source};
    let src = Source::new(50, 20);
    for (name, _) in sends::NAMES {
        let mut arena = Arena::new();
        // The first build sizes the arena: then one chunk holds a build.
        let want = sends::quarry_encode(name, &arena, &src);
        let held = arena.stats().allocated_bytes;
        arena.reset();
        arena.reserve(held);
        let (allocs, bytes) = quarry_testkit::count_allocs(|| {
            std::hint::black_box(sends::quarry_encode(name, &arena, &src))
        });
        assert_eq!(allocs, 1, "{name}: build and encode into a reused arena");
        assert_eq!(bytes, want);
        // Into a caller's buffer with room: none.
        let mut out = Vec::with_capacity(want.len());
        arena.reset();
        let view_allocs = quarry_testkit::count_allocs(|| match name {
            "contact" => sends::quarry_contact(&arena).encode_into(&mut out).unwrap(),
            "star" => sends::quarry_star(&arena).encode_into(&mut out).unwrap(),
            "text_reply" => sends::quarry_text_reply(&arena, false)
                .encode_into(&mut out)
                .unwrap(),
            "text_reply_quoted" => sends::quarry_text_reply(&arena, true)
                .encode_into(&mut out)
                .unwrap(),
            "group_skdm" => sends::quarry_group_skdm(&arena, &src)
                .encode_into(&mut out)
                .unwrap(),
            _ => sends::quarry_history(&arena, &src)
                .encode_into(&mut out)
                .unwrap(),
        })
        .0;
        assert_eq!(view_allocs, 0, "{name}: into a buffer with room");
        assert_eq!(out, want);
    }
}
