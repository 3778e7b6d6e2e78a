//! `ArenaPool`: zero allocations in the steady state, memory returned after
//! a burst, bounds, statistics, and use across threads.

use quarry_core::{Arena, ArenaPool, PoolStats, PooledArena};

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

/// Sizes: small under Miri, which runs every allocation through its
/// interpreter.
const REQUEST: usize = if cfg!(miri) { 512 } else { 8 << 10 };
const ROUNDS: usize = if cfg!(miri) { 8 } else { 1000 };
const CAP: usize = if cfg!(miri) { 16 << 10 } else { 1 << 20 };
const BURST: usize = if cfg!(miri) { 256 << 10 } else { 8 << 20 };

/// One request's work: the arena sized for the request, then filled.
fn serve(arena: &Arena, request: &[u8]) -> usize {
    arena.reserve(request.len() * 2);
    let copy = arena.bump().alloc_slice_copy(request);
    let words = arena.bump().alloc_slice_fill_copy(request.len() / 8, 0u64);
    copy.len() + words.len()
}

#[test]
fn steady_state_makes_no_allocation() {
    let pool = ArenaPool::new();
    let request = vec![7u8; REQUEST];
    // Warm-up: the pool creates its arena, the arena its chunk.
    serve(&pool.get(), &request);
    for _ in 0..ROUNDS {
        let (n, ()) = quarry_testkit::count_allocs(|| {
            let arena = pool.get();
            assert!(serve(&arena, &request) > 0);
            drop(arena);
        });
        assert_eq!(n, 0, "get + fill + drop of a warmed pool allocated");
    }
    let stats = pool.stats();
    assert_eq!(stats.created, 1);
    assert_eq!((stats.checked_out, stats.pooled), (0, 1));
}

#[test]
fn a_fresh_pool_allocates_the_arena_and_its_chunk_once() {
    let pool = ArenaPool::new();
    let request = vec![1u8; REQUEST];
    // The box of the arena, then its one chunk.
    let (first, ()) = quarry_testkit::count_allocs(|| {
        serve(&pool.get(), &request);
    });
    assert_eq!(first, 2);
}

#[test]
fn memory_returns_under_the_cap_after_a_burst() {
    let pool = ArenaPool::builder().retention_cap(CAP).build();
    let request = vec![0u8; REQUEST];
    serve(&pool.get(), &request);
    let steady = pool.stats().retained_bytes;
    assert!(steady > 0 && steady <= CAP, "steady {steady}");

    {
        // The burst arrives while another request is being served.
        let other = pool.get();
        let big = pool.get();
        serve(&other, &request);
        big.reserve(BURST);
        assert!(big.stats().allocated_bytes >= BURST);
        assert_eq!(pool.stats().checked_out, 2);
    }

    let stats = pool.stats();
    assert_eq!(stats.dropped_for_size, 1);
    assert_eq!(stats.checked_out, 0);
    assert!(
        stats.retained_bytes <= CAP,
        "retained {}",
        stats.retained_bytes
    );
    assert_eq!(stats.retained_bytes, steady);
    assert_eq!(stats.high_water, 2);
}

#[test]
fn an_arena_under_the_cap_keeps_its_chunk() {
    let pool = ArenaPool::builder().retention_cap(CAP).build();
    let arena = pool.get();
    arena.reserve(CAP / 2);
    let held = arena.stats().allocated_bytes;
    drop(arena);
    let stats = pool.stats();
    assert_eq!((stats.pooled, stats.dropped_for_size), (1, 0));
    assert_eq!(stats.retained_bytes, held);
    // The next checkout gets it back reset, with its chunk.
    let again = pool.get();
    assert_eq!(again.stats().allocated_bytes, held);
    assert_eq!(pool.stats().retained_bytes, 0);
}

#[test]
fn pooled_arenas_are_bounded() {
    let pool = ArenaPool::builder().max_pooled(2).build();
    let guards: Vec<PooledArena> = (0..5).map(|_| pool.get()).collect();
    assert_eq!(pool.stats().checked_out, 5);
    drop(guards);
    let stats = pool.stats();
    assert_eq!(
        stats,
        PoolStats {
            checked_out: 0,
            pooled: 2,
            high_water: 5,
            created: 5,
            dropped_for_size: 0,
            dropped_for_count: 3,
            retained_bytes: 0,
        }
    );
}

#[test]
fn a_returned_arena_is_reset() {
    let pool = ArenaPool::new();
    let mut arena = pool.get();
    let first = arena.bump().alloc(1u64) as *const u64;
    arena.reset();
    let after_reset = arena.bump().alloc(2u64) as *const u64;
    drop(arena);
    let arena = pool.get();
    // Bumpalo allocates downwards from the chunk's end: a reset arena hands
    // out the same first address again.
    let next = arena.bump().alloc(3u64) as *const u64;
    assert_eq!(first, after_reset);
    assert_eq!(first, next);
}

#[test]
fn shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send + 'static>() {}
    send_sync::<ArenaPool>();
    send::<PooledArena>();

    const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
    let pool = ArenaPool::builder().max_pooled(THREADS).build();
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let pool = pool.clone();
            std::thread::spawn(move || {
                let request = vec![t as u8; REQUEST];
                for _ in 0..ROUNDS / 10 + 1 {
                    let arena = pool.get();
                    assert_eq!(serve(&arena, &request), REQUEST + REQUEST / 8);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let stats = pool.stats();
    assert_eq!(stats.checked_out, 0);
    assert!(stats.high_water >= 1 && stats.high_water <= THREADS);
    assert_eq!(stats.created, stats.pooled as u64 + stats.dropped_for_count);
    assert_eq!(stats.dropped_for_size, 0);
}

#[test]
fn a_guard_dropped_on_another_thread_returns_to_the_pool() {
    let pool = ArenaPool::new();
    let arena = pool.get();
    arena.reserve(REQUEST);
    std::thread::spawn(move || drop(arena)).join().unwrap();
    let stats = pool.stats();
    assert_eq!((stats.checked_out, stats.pooled), (0, 1));
    assert!(stats.retained_bytes >= REQUEST);
}

#[test]
fn clear_frees_pooled_arenas_only() {
    let pool = ArenaPool::new();
    let kept = pool.get();
    pool.get().reserve(REQUEST);
    assert_eq!(pool.stats().pooled, 1);
    pool.clear();
    assert_eq!((pool.stats().pooled, pool.stats().retained_bytes), (0, 0));
    drop(kept);
    assert_eq!(pool.stats().pooled, 1);
}

/// The retention cap is in reservation terms: an arena whose reservation
/// was the cap is kept, one a byte over (whose chunk bumpalo rounds past
/// the cap's) is freed.
#[test]
fn an_arena_reserved_at_the_cap_is_kept_and_one_past_it_freed() {
    let cap = 64 << 10;
    let pool = ArenaPool::builder().retention_cap(cap).build();
    pool.get().reserve(cap);
    assert_eq!((pool.stats().pooled, pool.stats().dropped_for_size), (1, 0));
    pool.clear();
    // The next chunk size after the cap's: a whole page more.
    pool.get().reserve(Arena::chunk_bytes_for(cap) + 1);
    assert_eq!((pool.stats().pooled, pool.stats().dropped_for_size), (0, 1));
}
