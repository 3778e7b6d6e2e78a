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
            held >= quarry_wa::max_arena_bytes(input.len()),
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
