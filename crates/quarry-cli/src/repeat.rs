//! The `--repeat N` loop: decode the same bytes N times and print nothing,
//! so instructions and allocations per decode can be counted from outside
//! the process (valgrind's callgrind and DHAT).
//!
//! The input is read once, before the loop; an iteration does nothing but
//! the decode (plus creating and dropping the arena, or resetting it), so
//! whatever a tool counts per iteration is the decode's own cost. One
//! decode before the loop, whatever the count (zero included), pays the
//! process's one-off costs, so they fall in the fixed cost that
//! `--repeat 0` measures (see [`run`]).

use quarry_core::Arena;

use crate::args::Parsed;
use crate::exit::Failure;

/// Where each decode of the loop goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArenaMode {
    /// A new arena before each decode, dropped after it: the cost of a
    /// one-shot decode (one heap allocation for the arena's chunk, made by
    /// the format's `arena_for` at the size its decoder reserves, as the
    /// crates' docs advise for a one-shot decode).
    Fresh,
    /// One arena for the whole loop (`Arena::new()`, sized by the first
    /// decode), `reset()` after each decode: the steady-state cost of a
    /// server that reuses its arena.
    Reused,
}

/// Run `decode_once` `count` times, each into a new arena from
/// `new_arena` (fresh), or into one arena reset in between (reused).
/// `decode_once` must pass its result through [`std::hint::black_box`] so
/// the work is not optimised away. Stops at the first error (a malformed
/// input fails on the first iteration).
///
/// Before the loop, even for a count of 0, one decode goes the same way
/// (its result, error or not, is dropped). It pays what a process pays
/// once: glibc's malloc sorts the small blocks freed before at the first
/// request of more than 1 KiB (the `.proto` compiler of `quarry proto
/// decode` frees thousands: about 8.8 million instructions once), and a
/// reused arena gets its chunk. Without it the first decode paid that and
/// `--repeat 0` did not, so `(count at N - count at 0) / N` read 9,790
/// instructions per decode of a 427-byte protobuf message at N = 1000
/// where a decode takes about 880 (callgrind).
pub fn run<E>(
    count: u64,
    mode: ArenaMode,
    new_arena: impl Fn() -> Arena,
    mut decode_once: impl FnMut(&Arena) -> Result<(), E>,
) -> Result<(), E> {
    match mode {
        ArenaMode::Fresh => {
            {
                let arena = new_arena();
                let _ = decode_once(std::hint::black_box(&arena));
            }
            for _ in 0..count {
                let arena = new_arena();
                decode_once(std::hint::black_box(&arena))?;
                drop(arena);
            }
            Ok(())
        }
        ArenaMode::Reused => run_in(count, &mut Arena::new(), decode_once),
    }
}

/// [`run`]'s reused mode into the caller's arena, reset after each decode
/// (the warm-up decode included).
pub fn run_in<E>(
    count: u64,
    arena: &mut Arena,
    mut decode_once: impl FnMut(&Arena) -> Result<(), E>,
) -> Result<(), E> {
    let _ = decode_once(std::hint::black_box(arena));
    arena.reset();
    for _ in 0..count {
        decode_once(std::hint::black_box(arena))?;
        arena.reset();
    }
    Ok(())
}

/// The `--repeat N` and `--reuse-arena` options every `decode` command
/// takes: the count (none without `--repeat`) and where each decode goes.
/// A count that is not a number, and `--reuse-arena` without `--repeat`,
/// are usage errors printed with `usage`.
pub fn options(parsed: &Parsed, usage: &'static str) -> Result<(Option<u64>, ArenaMode), Failure> {
    let repeat = match parsed.option("--repeat") {
        Some(text) => Some(parse_count(text).ok_or_else(|| {
            Failure::usage(format!("--repeat needs a count, not {text:?}"), usage)
        })?),
        None => None,
    };
    let mode = if parsed.flag("--reuse-arena") {
        if repeat.is_none() {
            return Err(Failure::usage("--reuse-arena needs --repeat", usage));
        }
        ArenaMode::Reused
    } else {
        ArenaMode::Fresh
    };
    Ok((repeat, mode))
}

/// Parse the value of `--repeat`: a decimal count, 0 allowed (0 decodes
/// nothing: a baseline for subtracting the process's own start-up cost).
pub fn parse_count(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_one_warm_up_then_count_times_and_stops_at_the_first_error() {
        for mode in [ArenaMode::Fresh, ArenaMode::Reused] {
            let mut calls = 0;
            run(5, mode, Arena::new, |_| {
                calls += 1;
                Ok::<(), ()>(())
            })
            .unwrap();
            assert_eq!(calls, 1 + 5, "{mode:?}");
            // The warm-up's error is dropped; the loop stops at its first.
            let mut calls = 0;
            let result = run(5, mode, Arena::new, |_| {
                calls += 1;
                Err(calls)
            });
            assert_eq!((result, calls), (Err(2), 2), "{mode:?}");
        }
    }

    #[test]
    fn a_count_of_zero_runs_only_the_warm_up_and_succeeds_whatever_it_returns() {
        for mode in [ArenaMode::Fresh, ArenaMode::Reused] {
            let mut calls = 0;
            let result = run(0, mode, Arena::new, |_| {
                calls += 1;
                Err(())
            });
            assert_eq!((result, calls), (Ok(()), 1), "{mode:?}");
        }
    }

    #[test]
    fn reused_arena_is_reset_between_decodes() {
        let mut used = Vec::new();
        let made = std::cell::Cell::new(0);
        let new_arena = || {
            made.set(made.get() + 1);
            Arena::with_capacity(64)
        };
        run(3, ArenaMode::Reused, new_arena, |arena| {
            used.push((
                arena.stats().allocated_bytes,
                arena.stats().free_in_current_chunk,
            ));
            arena.bump().alloc([0u8; 100]);
            Ok::<(), ()>(())
        })
        .unwrap();
        // One arena, not from `new_arena`: empty for the warm-up, whose
        // chunk is kept, reset, for each of the three decodes.
        assert_eq!(made.get(), 0);
        assert_eq!(used.len(), 4);
        assert_eq!(used[0].0, 0);
        assert!(used[1].0 > 0 && used[1].1 >= 100, "{used:?}");
        assert!(used[2..].iter().all(|&u| u == used[1]), "{used:?}");
    }

    #[test]
    fn fresh_mode_makes_an_arena_per_decode() {
        let made = std::cell::Cell::new(0);
        let new_arena = || {
            made.set(made.get() + 1);
            Arena::with_capacity(64)
        };
        let mut reserved = Vec::new();
        run(4, ArenaMode::Fresh, new_arena, |arena| {
            reserved.push(arena.stats().allocated_bytes);
            Ok::<(), ()>(())
        })
        .unwrap();
        // The warm-up's, then one per decode.
        assert_eq!(made.get(), 1 + 4);
        // Each arena is the one `new_arena` made, its chunk already there.
        assert!(reserved.iter().all(|&bytes| bytes >= 64), "{reserved:?}");
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("1000"), Some(1000));
        for bad in ["", "-1", "+1", "1e3", "x", "99999999999999999999999"] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }
}
