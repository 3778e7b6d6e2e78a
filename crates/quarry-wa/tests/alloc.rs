//! The allocation contract, counted exactly: decoding a stanza into a fresh
//! arena costs one heap allocation, into a reset (warmed) arena none.
//!
//! This binary installs a counting global allocator. Counting is per thread
//! (a thread-local switch and counter), so the test harness running other
//! tests on other threads cannot disturb a measurement; the measured
//! sections still run one after another inside a single test.

mod common;

use quarry_core::Arena;

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

#[test]
fn the_counter_is_live() {
    let (n, v) = quarry_testkit::count_allocs(|| std::hint::black_box(vec![1u8; 100]));
    assert_eq!(n, 1);
    drop(v);
    let (n, _) = quarry_testkit::count_allocs(|| {
        let mut v: Vec<u64> = Vec::with_capacity(1);
        v.extend(0..1000);
        std::hint::black_box(v)
    });
    assert!(n >= 2, "a growing Vec reallocates, counted {n}");
    let (n, _) = quarry_testkit::count_allocs(|| std::hint::black_box(3 + 4));
    assert_eq!(n, 0);
}

/// Decode `input` into `arena` and walk the result (so a lazy path would be
/// counted too); returns the number of nodes seen.
fn decode_and_walk(arena: &Arena, input: &[u8]) -> usize {
    let node = quarry_wa::decode(arena, input).expect("fixture decodes");
    walk(node)
}

fn walk(node: quarry_wa::Node<'_>) -> usize {
    let mut n = 1;
    for (key, value) in node.attrs().iter() {
        std::hint::black_box((key, value));
    }
    for child in node.children() {
        n += walk(child);
    }
    n
}

#[test]
fn one_allocation_fresh_zero_warm_for_every_fixture() {
    let fixtures = common::fixtures();
    let compressed = common::compressed_fanout_frame();
    let mut failures = Vec::new();

    for fixture in &fixtures {
        let input = fixture.node_bytes();
        // Fresh arena: exactly one allocation (the reservation sized from
        // the input length). Constructing the arena is not counted: it
        // allocates nothing anyway (checked next).
        let mut arena = Arena::new();
        let (fresh, nodes) = quarry_testkit::count_allocs(|| decode_and_walk(&arena, input));
        assert!(nodes > 0);
        if fresh != 1 {
            failures.push(format!(
                "{}: fresh arena made {fresh} allocations, want 1",
                fixture.name
            ));
        }
        // Warmed arena after reset: nothing.
        arena.reset();
        let (warm, _) = quarry_testkit::count_allocs(|| decode_and_walk(&arena, input));
        if warm != 0 {
            failures.push(format!(
                "{}: warmed arena made {warm} allocations, want 0",
                fixture.name
            ));
        }
        // And again, to show it stays at zero message after message.
        arena.reset();
        let (again, _) = quarry_testkit::count_allocs(|| decode_and_walk(&arena, input));
        if again != 0 {
            failures.push(format!(
                "{}: third decode made {again} allocations, want 0",
                fixture.name
            ));
        }
    }

    // Compressed fanout frame: the inflated size is not on the wire, so a
    // fresh arena may need a second chunk; a warmed one needs nothing.
    let mut arena = Arena::new();
    let (fresh, tag) = quarry_testkit::count_allocs(|| {
        let node = quarry_wa::decode_frame(&arena, &compressed).expect("frame decodes");
        walk(node);
        node.tag().len()
    });
    assert_eq!(tag, "message".len());
    if fresh > 2 {
        failures.push(format!(
            "compressed fanout: fresh arena made {fresh} allocations, want <= 2"
        ));
    }
    arena.reset();
    let (warm, _) = quarry_testkit::count_allocs(|| {
        walk(quarry_wa::decode_frame(&arena, &compressed).unwrap())
    });
    if warm != 0 {
        failures.push(format!(
            "compressed fanout: warmed arena made {warm} allocations, want 0"
        ));
    }

    assert!(
        failures.is_empty(),
        "allocation contract broken:\n{}",
        failures.join("\n")
    );
}

#[test]
fn arena_for_allocates_once_and_the_decode_never() {
    for fixture in &common::fixtures() {
        let input = fixture.node_bytes();
        let (made, arena) = quarry_testkit::count_allocs(|| quarry_wa::arena_for(input));
        assert_eq!(made, 1, "{}: arena_for", fixture.name);
        let held = arena.stats().allocated_bytes;
        assert!(
            held >= quarry_wa::estimate_arena_bytes(input),
            "{}",
            fixture.name
        );
        let (during, nodes) = quarry_testkit::count_allocs(|| decode_and_walk(&arena, input));
        assert!(nodes > 0);
        assert_eq!(during, 0, "{}: decode into arena_for", fixture.name);
        assert_eq!(arena.stats().allocated_bytes, held, "{}", fixture.name);
    }
}

/// `arena_for_frame`: a plain frame's arena is made with one allocation
/// and the decode adds none; a compressed frame's is empty, and the decode
/// makes the one allocation (the fanout inflates within the guess).
#[test]
fn arena_for_frame_allocates_once_per_decode() {
    for fixture in &common::fixtures() {
        let mut frame = vec![0x00];
        frame.extend_from_slice(fixture.node_bytes());
        let (made, arena) = quarry_testkit::count_allocs(|| quarry_wa::arena_for_frame(&frame));
        assert_eq!(made, 1, "{}: arena_for_frame", fixture.name);
        let (during, nodes) = quarry_testkit::count_allocs(|| {
            walk(quarry_wa::decode_frame(&arena, &frame).expect("frame decodes"))
        });
        assert!(nodes > 0);
        assert_eq!(during, 0, "{}: decode into arena_for_frame", fixture.name);
    }
    let compressed = common::compressed_fanout_frame();
    let (made, arena) = quarry_testkit::count_allocs(|| quarry_wa::arena_for_frame(&compressed));
    assert_eq!(made, 0, "compressed: arena_for_frame");
    let (during, _) = quarry_testkit::count_allocs(|| {
        walk(quarry_wa::decode_frame(&arena, &compressed).expect("frame decodes"))
    });
    assert_eq!(during, 1, "compressed: decode into arena_for_frame");
}

#[test]
fn a_new_arena_allocates_nothing() {
    let (n, arena) = quarry_testkit::count_allocs(Arena::new);
    assert_eq!(n, 0);
    assert_eq!(arena.stats().allocated_bytes, 0);
}

#[test]
fn a_failed_decode_into_a_warmed_arena_allocates_nothing() {
    let fixture = common::fixture("fanout");
    let mut arena = Arena::new();
    quarry_wa::decode(&arena, fixture.node_bytes()).unwrap();
    arena.reset();
    let truncated = &fixture.node_bytes()[..fixture.node_bytes().len() - 1];
    let (n, result) =
        quarry_testkit::count_allocs(|| quarry_wa::decode(&arena, truncated).map(|_| ()));
    assert!(result.is_err());
    assert_eq!(
        n, 0,
        "an error must not allocate (no String in DecodeError)"
    );
}

/// A fresh decode's one chunk is at most 4 times what the decode wrote, on
/// every benchmark shape (the fixtures are the benches' inputs, built by
/// the peer), into `Arena::new()` and into `arena_for`; the estimate covers
/// what each writes.
#[test]
fn a_fresh_chunk_is_at_most_four_times_what_the_decode_wrote() {
    let mut failures = Vec::new();
    for fixture in &common::fixtures() {
        let input = fixture.node_bytes();
        for (how, arena) in [
            ("new", Arena::new()),
            ("arena_for", quarry_wa::arena_for(input)),
        ] {
            let (n, nodes) = quarry_testkit::count_allocs(|| decode_and_walk(&arena, input));
            assert!(nodes > 0);
            let stats = arena.stats();
            let (held, used) = (stats.allocated_bytes, stats.used_bytes());
            if held > 4 * used || (how == "new" && n != 1) || (how == "arena_for" && n != 0) {
                failures.push(format!(
                    "{} ({how}): {n} allocations, holds {held} for {used} written",
                    fixture.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn list_header(count: usize, out: &mut Vec<u8>) {
    match u8::try_from(count) {
        Ok(n) => out.extend_from_slice(&[0xF8, n]),
        Err(_) => {
            out.push(0xF9);
            out.extend_from_slice(&u16::try_from(count).unwrap().to_be_bytes());
        }
    }
}

/// A `message` node whose content is `n` copies of `child`.
fn parent_of(child: &[u8], n: usize) -> Vec<u8> {
    let mut out = vec![0xF8, 0x02, 19];
    list_header(n, &mut out);
    for _ in 0..n {
        out.extend_from_slice(child);
    }
    out
}

/// A `message` node with `k` attributes of `attr`'s bytes each.
fn with_attrs(attr: &[u8], k: usize) -> Vec<u8> {
    let mut out = vec![0xF8, u8::try_from(2 * k + 1).unwrap(), 19];
    for _ in 0..k {
        out.extend_from_slice(attr);
    }
    out
}

/// The densest encodings (the rows of the bound's table in
/// `src/decode.rs`) write more than their estimate: their fresh decode
/// takes more chunks, and holds at most 3 times what it wrote plus 8 KiB
/// (bumpalo doubles each chunk), at every size tried.
#[test]
fn dense_inputs_past_the_estimate_hold_at_most_three_times_what_they_wrote() {
    // Key "id" and value "type", both tokens; the key a JID pair of tokens
    // (`id@s.whatsapp.net`); a tag an AD_JID with a token user.
    let token_attr = [8u8, 4];
    let jid_key_attr = [0xFA, 8, 3, 4];
    let ad_jid_child = [0xF8, 0x01, 0xF7, 0, 0, 8];
    let mut inputs = Vec::new();
    for n in [1, 3, 10, 30, 100, 300, 1000, 3000] {
        for k in [1, 4, 16, 127] {
            inputs.push(parent_of(&with_attrs(&token_attr, k), n));
            inputs.push(parent_of(&with_attrs(&jid_key_attr, k), n));
        }
        inputs.push(parent_of(&ad_jid_child, n));
    }
    for levels in [2, 5, 10, 30, 60, 127] {
        inputs.push(common::nested_messages(levels));
    }
    let mut past_estimate = 0;
    let mut failures = Vec::new();
    for input in &inputs {
        let arena = Arena::new();
        let (allocs, _) = quarry_testkit::count_allocs(|| decode_and_walk(&arena, input));
        let stats = arena.stats();
        let (held, used) = (stats.allocated_bytes, stats.used_bytes());
        if used > quarry_wa::estimate_arena_bytes(input) {
            past_estimate += 1;
        } else if allocs != 1 {
            failures.push(format!(
                "{} bytes: {allocs} allocations within the estimate",
                input.len()
            ));
        }
        if held > 3 * used + 8192 {
            failures.push(format!(
                "{} bytes: holds {held} for {used} written",
                input.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The test is about inputs past the estimate: most of these are.
    assert!(
        past_estimate > inputs.len() / 2,
        "{past_estimate} of {}",
        inputs.len()
    );
}

/// An `OwnedStanza` holds at most 1.5 times the arena bytes its decode
/// wrote (for a small one, bumpalo's chunk granularity: at most 4 KiB
/// more), on every benchmark shape and on the dense inputs, plus its input.
#[test]
fn an_owned_stanza_holds_at_most_one_and_a_half_times_what_it_wrote() {
    let mut inputs: Vec<(String, Vec<u8>)> = common::fixtures()
        .iter()
        .map(|f| (f.name.to_string(), f.node_bytes().to_vec()))
        .collect();
    inputs.push((
        "token attrs".into(),
        parent_of(&with_attrs(&[8, 4], 127), 300),
    ));
    inputs.push(("nested".into(), common::nested_messages(127)));
    let mut failures = Vec::new();
    for (name, input) in inputs {
        // What the decode writes, measured in an arena with room to spare.
        let probe = Arena::with_capacity(64 << 20);
        quarry_wa::decode(&probe, &input).unwrap();
        let used = probe.stats().used_bytes();
        let bound = if used >= 8192 {
            used + used / 2
        } else {
            used + 4096
        };
        let bytes = quarry_core::bytes::Bytes::from(input);
        let stanza = quarry_wa::OwnedStanza::decode(bytes.clone()).unwrap();
        let held = stanza.arena().stats().allocated_bytes;
        if held > bound {
            failures.push(format!("{name}: holds {held}, wrote {used}"));
        }
        assert_eq!(stanza.backing_bytes(), &bytes);
        let fresh = Arena::new();
        let again = quarry_wa::decode(&fresh, &bytes).unwrap();
        assert_eq!(stanza.get().to_string(), again.to_string(), "{name}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
