use bumpalo::Bump;

/// A per-message bump arena: every record a decoder builds lives here, and
/// views borrow it.
///
/// A fresh `Arena` owns no memory. The first decode into it reserves one
/// chunk sized from the input length (one heap allocation); after
/// [`reset`](Arena::reset) the arena keeps its largest chunk, so the next
/// message of a similar size decodes with no heap allocation at all.
///
/// Views borrow the arena, so resetting it while a view is alive does not
/// compile:
///
/// ```compile_fail
/// use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
///
/// let mut arena = Arena::new();
/// let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
/// let text: &str = alloc.alloc_str("still borrowed", 0).unwrap();
/// arena.reset(); // error: `arena` is borrowed by `text`
/// println!("{text}");
/// ```
#[derive(Default)]
pub struct Arena {
    bump: Bump,
    /// Made by [`Arena::with_capacity`] and not reset since: its chunk was
    /// sized for the message it is about to hold, so
    /// [`reserve`](crate::reserve) leaves it as it is.
    pub(crate) presized: std::cell::Cell<bool>,
}

/// A snapshot of an arena's memory, from [`Arena::stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArenaStats {
    /// Bytes the arena holds from the heap (all chunks, without bumpalo's
    /// per-chunk footers).
    pub allocated_bytes: usize,
    /// Bytes still free in the current chunk.
    pub free_in_current_chunk: usize,
}

impl ArenaStats {
    /// Bytes held but not free in the current chunk: what the decodes since
    /// the last reset wrote (with alignment padding), when the arena has one
    /// chunk; with several, the unused tails of the earlier chunks count too.
    ///
    /// ```
    /// let arena = quarry_core::Arena::with_capacity(1000);
    /// arena.bump().alloc([0u64; 4]);
    /// assert_eq!(arena.stats().used_bytes(), 32);
    /// ```
    pub const fn used_bytes(&self) -> usize {
        self.allocated_bytes
            .saturating_sub(self.free_in_current_chunk)
    }
}

/// bumpalo's chunk footer: six words (`ChunkFooter` in bumpalo's source).
const CHUNK_FOOTER: usize = 6 * std::mem::size_of::<usize>();
/// What bumpalo adds to a chunk before rounding its size: the footer and
/// 16 bytes for the system allocator's own header, rounded to 16.
const CHUNK_OVERHEAD: usize = (CHUNK_FOOTER + 16).next_multiple_of(16);
/// bumpalo's smallest chunk, without the footer (512 bytes with it).
const MIN_CHUNK: usize = 512 - CHUNK_OVERHEAD;
/// Above this, bumpalo rounds chunks to whole pages; below, to a power of
/// two.
const PAGE: usize = 4096;

impl Arena {
    /// An empty arena. Allocates nothing until the first decode.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// assert_eq!(arena.stats().allocated_bytes, 0);
    /// ```
    pub fn new() -> Self {
        Self {
            bump: Bump::new(),
            presized: std::cell::Cell::new(false),
        }
    }

    /// An arena whose first chunk holds at least `bytes` (one allocation now,
    /// none later for messages that fit). Decoders take its size as given
    /// for the first message ([`reserve`](crate::reserve) leaves it alone
    /// until a reset).
    ///
    /// ```
    /// let arena = quarry_core::Arena::with_capacity(4096);
    /// assert!(arena.stats().free_in_current_chunk >= 4096);
    /// ```
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            bump: Bump::with_capacity(bytes),
            presized: std::cell::Cell::new(bytes > 0),
        }
    }

    /// The bytes an arena holds after [`with_capacity(bytes)`](Self::with_capacity),
    /// or after a [`reserve(bytes)`](Self::reserve) into an arena with no
    /// chunk yet: bumpalo rounds a chunk so that, with its footer and the
    /// system allocator's header, it fills a power of two (under 4 KiB) or
    /// whole 4 KiB pages. So a chunk is under twice what was asked below
    /// 4 KiB, and under 4 KiB more than it above; never under 448 bytes.
    ///
    /// Pools compare arenas against this ([`ArenaPool`](crate::ArenaPool)'s
    /// retention cap), so a pool keeps exactly the arenas whose reservation
    /// was at most its cap.
    ///
    /// ```
    /// use quarry_core::Arena;
    ///
    /// for bytes in [1, 448, 449, 1000, 4032, 4033, 100_000] {
    ///     let held = Arena::with_capacity(bytes).stats().allocated_bytes;
    ///     assert_eq!(held, Arena::chunk_bytes_for(bytes));
    /// }
    /// assert_eq!(Arena::chunk_bytes_for(0), 0);
    /// ```
    pub const fn chunk_bytes_for(bytes: usize) -> usize {
        if bytes == 0 {
            return 0;
        }
        let want = if bytes < MIN_CHUNK { MIN_CHUNK } else { bytes };
        let with_overhead = match want.checked_next_multiple_of(16) {
            Some(w) => w.saturating_add(CHUNK_OVERHEAD),
            None => return usize::MAX,
        };
        let rounded = if with_overhead - CHUNK_OVERHEAD < PAGE {
            with_overhead.next_power_of_two()
        } else {
            match with_overhead.checked_next_multiple_of(PAGE) {
                Some(r) => r,
                None => return usize::MAX,
            }
        };
        rounded - CHUNK_OVERHEAD
    }

    /// Forget every record of the previous message and keep the largest chunk
    /// for the next one. Takes `&mut self`, so no view can outlive it.
    ///
    /// ```
    /// let mut arena = quarry_core::Arena::new();
    /// arena.reserve(10_000);
    /// let held = arena.stats().allocated_bytes;
    /// arena.reset();
    /// assert_eq!(arena.stats().allocated_bytes, held);
    /// ```
    #[inline]
    pub fn reset(&mut self) {
        self.presized.set(false);
        self.bump.reset();
    }

    /// Make sure the current chunk has at least `bytes` free, with at most
    /// one heap allocation (none when it already has).
    ///
    /// Decoders call this once per message with an estimate derived from the
    /// input length, which is what makes a decode into a fresh arena cost one
    /// allocation instead of a chain of doubling chunks.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// arena.reserve(1 << 16);
    /// assert!(arena.stats().free_in_current_chunk >= 1 << 16);
    /// ```
    #[inline]
    pub fn reserve(&self, bytes: usize) {
        // The common case (a reused arena, or one made for the input) is
        // one compare at the caller; growing is out of line.
        if self.bump.chunk_capacity() < bytes {
            self.grow(bytes);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&self, bytes: usize) {
        // Allocate a buffer of the wanted size and give it straight back:
        // bumpalo reclaims the most recent allocation, so what stays is a
        // current chunk with `bytes` free. A failed allocation leaves the
        // arena as it was; the decoder then meets its own limits.
        let mut probe = bumpalo::collections::Vec::<u8>::new_in(&self.bump);
        if probe.try_reserve_exact(bytes).is_err() {
            return;
        }
        drop(probe);
    }

    /// Memory held by this arena.
    ///
    /// ```
    /// let arena = quarry_core::Arena::with_capacity(1000);
    /// assert!(arena.stats().allocated_bytes >= 1000);
    /// ```
    pub fn stats(&self) -> ArenaStats {
        ArenaStats {
            allocated_bytes: self.bump.allocated_bytes(),
            free_in_current_chunk: self.bump.chunk_capacity(),
        }
    }

    /// The underlying bump allocator, for format crates that place their own
    /// collections in the arena. Prefer [`BoundedAlloc`](crate::BoundedAlloc),
    /// which also enforces the byte budget.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let n = arena.bump().alloc(7u32);
    /// assert_eq!(*n, 7);
    /// ```
    #[inline]
    pub fn bump(&self) -> &Bump {
        &self.bump
    }
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena")
            .field("stats", &self.stats())
            .finish()
    }
}
