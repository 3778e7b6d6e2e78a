//! A pool of arenas for servers that decode one message per request.
//!
//! `bumpalo`'s reset keeps the arena's largest chunk, so a pool that simply
//! resets and keeps every arena would pin the memory of its largest request
//! forever. [`ArenaPool`] resets an arena when its guard drops and keeps it
//! only while the arena holds no more than a reservation of the retention
//! cap makes ([`Arena::chunk_bytes_for`]); a bigger one is freed, so memory
//! returns to the steady-state size after a burst.
//!
//! The pool is one `Mutex` around a `Vec` of boxed arenas: checking out and
//! returning an arena is a lock, a pop or push into capacity reserved when
//! the pool was built, and an `Arc` count change, so the steady state makes
//! no heap allocation. There is no thread-local fast path: the lock is held
//! for a few instructions per request, next to a decode that takes
//! thousands; add one only if a measurement shows contention.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::Arena;

/// How many pooled arenas the pool reserves room for up front (more are
/// kept when [`ArenaPoolBuilder::max_pooled`] allows, at the cost of the
/// `Vec` growing once).
const PRESIZE_LIMIT: usize = 1024;

/// A shared pool of [`Arena`]s: [`get`](Self::get) checks one out, and the
/// returned [`PooledArena`] resets it and gives it back when dropped.
///
/// `ArenaPool` is a cheap handle (an `Arc`): clone it into every worker
/// thread or task. It is `Send + Sync`; the guard is `Send`, so it may be
/// held across an `.await` or moved to another thread and dropped there.
///
/// ```
/// use quarry_core::ArenaPool;
///
/// let pool = ArenaPool::new();
/// for request in [&b"one"[..], b"two", b"three"] {
///     let arena = pool.get();
///     let copy = arena.bump().alloc_slice_copy(request);
///     assert_eq!(copy, request);
/// } // each arena is reset and back in the pool here
/// assert_eq!(pool.stats().checked_out, 0);
/// assert_eq!(pool.stats().pooled, 1); // one arena served all three
/// ```
#[derive(Clone)]
pub struct ArenaPool {
    shared: Arc<Shared>,
}

struct Shared {
    config: Config,
    state: Mutex<State>,
}

#[derive(Clone, Copy, Debug)]
struct Config {
    retention_cap: usize,
    max_pooled: usize,
    initial_capacity: usize,
}

struct State {
    // Boxed on purpose: an arena keeps its address from creation to free,
    // which owned messages (`Owned`) rely on, and moving a box in and out
    // of the pool moves one pointer.
    #[allow(clippy::vec_box)]
    free: Vec<Box<Arena>>,
    checked_out: usize,
    high_water: usize,
    created: u64,
    dropped_for_size: u64,
    dropped_for_count: u64,
    retained_bytes: usize,
}

/// Settings for an [`ArenaPool`], from [`ArenaPool::builder`].
///
/// ```
/// use quarry_core::ArenaPool;
///
/// let pool = ArenaPool::builder()
///     .retention_cap(256 << 10)
///     .max_pooled(8)
///     .initial_capacity(16 << 10)
///     .build();
/// assert_eq!(pool.retention_cap(), 256 << 10);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ArenaPoolBuilder {
    config: Config,
}

/// A snapshot of an [`ArenaPool`]'s counters, from [`ArenaPool::stats`].
///
/// ```
/// let pool = quarry_core::ArenaPool::new();
/// let a = pool.get();
/// let b = pool.get();
/// assert_eq!(pool.stats().checked_out, 2);
/// drop((a, b));
/// let stats = pool.stats();
/// assert_eq!((stats.checked_out, stats.pooled, stats.high_water), (0, 2, 2));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Arenas currently checked out (guards alive).
    pub checked_out: usize,
    /// Arenas waiting in the pool.
    pub pooled: usize,
    /// The most arenas ever checked out at once.
    pub high_water: usize,
    /// Arenas the pool created because none was pooled.
    pub created: u64,
    /// Arenas freed on return because they held more than a reservation of
    /// the retention cap makes.
    pub dropped_for_size: u64,
    /// Arenas freed on return because the pool already held `max_pooled`.
    pub dropped_for_count: u64,
    /// Heap bytes held by the pooled arenas (checked-out ones not counted).
    pub retained_bytes: usize,
}

/// An arena checked out of an [`ArenaPool`]. Dereferences to [`Arena`];
/// on drop the arena is reset and returned to the pool (or freed, if it grew
/// past the retention cap or the pool is full).
///
/// The arena lives in a `Box`, so its address does not change when the
/// guard moves.
///
/// ```
/// let pool = quarry_core::ArenaPool::new();
/// let mut arena = pool.get();
/// arena.reserve(4096);
/// arena.reset(); // `DerefMut`: the guard can reset between two messages
/// drop(arena);
/// assert_eq!(pool.stats().pooled, 1);
/// ```
pub struct PooledArena {
    // `None` only while dropping.
    arena: Option<Box<Arena>>,
    pool: Arc<Shared>,
}

impl ArenaPool {
    /// A pool with the default settings (see [`ArenaPoolBuilder`]).
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::new();
    /// assert_eq!(pool.stats(), quarry_core::PoolStats::default());
    /// ```
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// Settings to build a pool from, starting at the defaults.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::builder().max_pooled(2).build();
    /// assert_eq!(pool.max_pooled(), 2);
    /// ```
    pub fn builder() -> ArenaPoolBuilder {
        ArenaPoolBuilder::new()
    }

    /// Check an arena out: a pooled one if there is one (no allocation), a
    /// new one otherwise. The arena is empty (reset) either way.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::new();
    /// let arena = pool.get();
    /// assert_eq!(arena.stats().allocated_bytes, 0);
    /// ```
    pub fn get(&self) -> PooledArena {
        let pooled = {
            let mut state = self.lock();
            let arena = state.free.pop();
            if let Some(a) = &arena {
                state.retained_bytes -= a.stats().allocated_bytes;
            } else {
                state.created += 1;
            }
            state.checked_out += 1;
            state.high_water = state.high_water.max(state.checked_out);
            arena
        };
        // A new arena is built outside the lock.
        let arena = pooled.unwrap_or_else(|| match self.shared.config.initial_capacity {
            0 => Box::new(Arena::new()),
            n => Box::new(Arena::with_capacity(n)),
        });
        PooledArena {
            arena: Some(arena),
            pool: Arc::clone(&self.shared),
        }
    }

    /// The pool's counters right now.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::new();
    /// drop(pool.get());
    /// assert_eq!(pool.stats().created, 1);
    /// ```
    pub fn stats(&self) -> PoolStats {
        let state = self.lock();
        PoolStats {
            checked_out: state.checked_out,
            pooled: state.free.len(),
            high_water: state.high_water,
            created: state.created,
            dropped_for_size: state.dropped_for_size,
            dropped_for_count: state.dropped_for_count,
            retained_bytes: state.retained_bytes,
        }
    }

    /// The largest reservation whose arena is pooled again (see
    /// [`ArenaPoolBuilder::retention_cap`]).
    ///
    /// ```
    /// assert_eq!(quarry_core::ArenaPool::new().retention_cap(), 1 << 20);
    /// ```
    pub fn retention_cap(&self) -> usize {
        self.shared.config.retention_cap
    }

    /// The most arenas the pool keeps.
    ///
    /// ```
    /// assert_eq!(quarry_core::ArenaPool::new().max_pooled(), 64);
    /// ```
    pub fn max_pooled(&self) -> usize {
        self.shared.config.max_pooled
    }

    /// Free every pooled arena (checked-out ones are unaffected and return
    /// as usual).
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::new();
    /// pool.get().reserve(1000);
    /// assert!(pool.stats().retained_bytes >= 1000);
    /// pool.clear();
    /// assert_eq!(pool.stats().retained_bytes, 0);
    /// ```
    pub fn clear(&self) {
        // Rare, so the arenas are freed under the lock; the `Vec` keeps its
        // room for later returns.
        let mut state = self.lock();
        state.retained_bytes = 0;
        state.free.clear();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.lock()
    }
}

impl Default for ArenaPool {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ArenaPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArenaPool")
            .field("config", &self.shared.config)
            .field("stats", &self.stats())
            .finish()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The counters stay consistent under a panic (each update is a
        // single statement), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn give_back(&self, mut arena: Box<Arena>) {
        arena.reset();
        let held = arena.stats().allocated_bytes;
        let mut state = self.lock();
        state.checked_out -= 1;
        // Compared with the chunk a reservation of the cap makes, so an
        // arena is kept exactly when what it reserved was within the cap.
        if held > Arena::chunk_bytes_for(self.config.retention_cap) {
            state.dropped_for_size += 1;
        } else if state.free.len() >= self.config.max_pooled {
            state.dropped_for_count += 1;
        } else {
            state.retained_bytes += held;
            state.free.push(arena);
            return;
        }
        drop(state);
        // Freed outside the lock.
        drop(arena);
    }
}

impl ArenaPoolBuilder {
    /// The defaults: retention cap 1 MiB, at most 64 pooled arenas (so
    /// about 64 MiB retained at most), new arenas start empty.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPoolBuilder::new().build();
    /// assert_eq!((pool.retention_cap(), pool.max_pooled()), (1 << 20, 64));
    /// ```
    pub fn new() -> Self {
        Self {
            config: Config {
                retention_cap: 1 << 20,
                max_pooled: 64,
                initial_capacity: 0,
            },
        }
    }

    /// An arena is freed instead of pooled when, after its reset, it holds
    /// more than a reservation of `bytes` makes
    /// ([`Arena::chunk_bytes_for`]`(bytes)`): an arena whose decodes
    /// reserved at most `bytes` is kept. Set it at or above the estimate of
    /// the largest request that should reuse its arena, in the format's own
    /// terms: `quarry_wa::estimate_arena_bytes(stanza)` (and likewise
    /// `quarry_nostr`, `quarry_proto`). The default, 1 MiB, covers the
    /// estimate of a 100 KB WhatsApp stanza of any of the benchmark shapes.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::builder().retention_cap(4096).build();
    /// pool.get().reserve(1 << 16);
    /// assert_eq!(pool.stats().dropped_for_size, 1);
    /// assert_eq!(pool.stats().retained_bytes, 0);
    /// ```
    pub fn retention_cap(mut self, bytes: usize) -> Self {
        self.config.retention_cap = bytes;
        self
    }

    /// Keep at most `count` arenas; more returning at once are freed.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::builder().max_pooled(1).build();
    /// drop((pool.get(), pool.get()));
    /// assert_eq!(pool.stats().pooled, 1);
    /// assert_eq!(pool.stats().dropped_for_count, 1);
    /// ```
    pub fn max_pooled(mut self, count: usize) -> Self {
        self.config.max_pooled = count;
        self
    }

    /// Give each new arena a first chunk of `bytes` (0, the default: the
    /// first decode sizes it from its input). Keep it at or under the
    /// retention cap, or new arenas are freed on their first return.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::builder().initial_capacity(8192).build();
    /// assert!(pool.get().stats().free_in_current_chunk >= 8192);
    /// ```
    pub fn initial_capacity(mut self, bytes: usize) -> Self {
        self.config.initial_capacity = bytes;
        self
    }

    /// Build the pool (one allocation for the shared state and one for the
    /// room of up to `max_pooled` arenas; no arena yet).
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::builder().build();
    /// assert_eq!(pool.stats().created, 0);
    /// ```
    pub fn build(self) -> ArenaPool {
        let room = self.config.max_pooled.min(PRESIZE_LIMIT);
        ArenaPool {
            shared: Arc::new(Shared {
                config: self.config,
                state: Mutex::new(State {
                    free: Vec::with_capacity(room),
                    checked_out: 0,
                    high_water: 0,
                    created: 0,
                    dropped_for_size: 0,
                    dropped_for_count: 0,
                    retained_bytes: 0,
                }),
            }),
        }
    }
}

impl Default for ArenaPoolBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl PooledArena {
    /// The pool this arena returns to.
    ///
    /// ```
    /// let pool = quarry_core::ArenaPool::new();
    /// let arena = pool.get();
    /// assert_eq!(arena.pool().stats().checked_out, 1);
    /// ```
    pub fn pool(&self) -> ArenaPool {
        ArenaPool {
            shared: Arc::clone(&self.pool),
        }
    }

    fn arena(&self) -> &Arena {
        self.arena.as_deref().expect("arena present until drop")
    }
}

impl Deref for PooledArena {
    type Target = Arena;

    fn deref(&self) -> &Arena {
        self.arena()
    }
}

impl DerefMut for PooledArena {
    fn deref_mut(&mut self) -> &mut Arena {
        self.arena.as_deref_mut().expect("arena present until drop")
    }
}

impl Drop for PooledArena {
    fn drop(&mut self) {
        if let Some(arena) = self.arena.take() {
            self.pool.give_back(arena);
        }
    }
}

impl fmt::Debug for PooledArena {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PooledArena")
            .field("stats", &self.arena().stats())
            .finish()
    }
}
