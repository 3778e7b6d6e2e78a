// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]
use std::cell::Cell;
use std::mem::size_of;

use bumpalo::Bump;

use crate::{Arena, DecodeError, DecodeOptions};

/// Allocation from an [`Arena`] under a byte budget: the one door through
/// which a decoder writes into the arena.
///
/// Every request is charged against
/// [`DecodeOptions::max_arena_bytes`] *before* the arena is asked for
/// memory, so a hostile length on the wire becomes
/// [`DecodeError::ArenaLimit`] instead of a huge allocation. Callers pass
/// the input offset the request is for; it ends up in the error.
///
/// ```
/// use quarry_core::{Arena, BoundedAlloc, DecodeError, DecodeOptions};
///
/// let arena = Arena::new();
/// let opts = DecodeOptions { max_arena_bytes: 16, ..Default::default() };
/// let alloc = BoundedAlloc::new(&arena, &opts);
/// assert!(alloc.alloc_slice_fill_copy(4, 0u32, 0).is_ok());
/// assert_eq!(
///     alloc.alloc_slice_fill_copy(1, 0u8, 9),
///     Err(DecodeError::ArenaLimit { offset: 9, limit: 16 })
/// );
/// ```
pub struct BoundedAlloc<'a> {
    bump: &'a Bump,
    used: Cell<usize>,
    limit: usize,
}

impl<'a> BoundedAlloc<'a> {
    /// A budget of `options.max_arena_bytes` over `arena`.
    pub fn new(arena: &'a Arena, options: &DecodeOptions) -> Self {
        Self {
            bump: arena.bump(),
            used: Cell::new(0),
            limit: options.max_arena_bytes,
        }
    }

    /// Bytes charged so far.
    ///
    /// ```
    /// # use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
    /// let arena = Arena::new();
    /// let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    /// alloc.alloc_str("abc", 0).unwrap();
    /// assert_eq!(alloc.used(), 3);
    /// ```
    pub fn used(&self) -> usize {
        self.used.get()
    }

    /// The budget in force.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// A budget over the same arena that starts where this one stands and
    /// ends `extra` bytes further (or at this one's limit, if that comes
    /// first): for work a decoder gives up when it costs more than
    /// `extra`. What it charges is this budget's too only once
    /// [`absorb`](Self::absorb) says so.
    ///
    /// ```
    /// # use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
    /// let arena = Arena::new();
    /// let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    /// alloc.charge(8, 0).unwrap();
    /// let part = alloc.capped(16);
    /// assert!(part.charge(16, 0).is_ok());
    /// assert!(part.charge(1, 0).is_err());
    /// alloc.absorb(&part);
    /// assert_eq!(alloc.used(), 24);
    /// ```
    pub fn capped(&self, extra: usize) -> BoundedAlloc<'a> {
        let used = self.used.get();
        BoundedAlloc {
            bump: self.bump,
            used: Cell::new(used),
            limit: used.saturating_add(extra).min(self.limit),
        }
    }

    /// Charge what `part` (from [`capped`](Self::capped), on this budget
    /// as it stands) charged.
    pub fn absorb(&self, part: &BoundedAlloc<'a>) {
        // `part` never passes this budget's limit.
        self.used.set(self.used.get().max(part.used.get()));
    }

    /// Charge `bytes` against the budget without allocating (for memory a
    /// decoder obtains from [`bump`](Self::bump) directly).
    ///
    /// ```
    /// # use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
    /// let arena = Arena::new();
    /// let opts = DecodeOptions { max_arena_bytes: 10, ..Default::default() };
    /// let alloc = BoundedAlloc::new(&arena, &opts);
    /// assert!(alloc.charge(10, 0).is_ok());
    /// assert!(alloc.charge(1, 0).is_err());
    /// ```
    #[inline]
    pub fn charge(&self, bytes: usize, offset: usize) -> Result<(), DecodeError> {
        match self.used.get().checked_add(bytes) {
            Some(total) if total <= self.limit => {
                self.used.set(total);
                Ok(())
            }
            _ => Err(DecodeError::ArenaLimit {
                offset,
                limit: self.limit,
            }),
        }
    }

    /// Charge the size of `len` values of `T` (for slices a decoder fills
    /// itself through [`bump`](Self::bump)).
    ///
    /// ```
    /// # use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
    /// let arena = Arena::new();
    /// let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    /// alloc.charge_slice::<u64>(4, 0).unwrap();
    /// assert_eq!(alloc.used(), 32);
    /// ```
    #[inline]
    pub fn charge_slice<T>(&self, len: usize, offset: usize) -> Result<(), DecodeError> {
        self.charge_items::<T>(len, offset)
    }

    #[inline]
    fn charge_items<T>(&self, len: usize, offset: usize) -> Result<(), DecodeError> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or(DecodeError::ArenaLimit {
                offset,
                limit: self.limit,
            })?;
        self.charge(bytes, offset)
    }

    /// Move `value` into the arena.
    ///
    /// ```
    /// # use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
    /// let arena = Arena::new();
    /// let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    /// assert_eq!(*alloc.alloc(5u64, 0).unwrap(), 5);
    /// ```
    #[inline]
    pub fn alloc<T>(&self, value: T, offset: usize) -> Result<&'a mut T, DecodeError> {
        self.charge_items::<T>(1, offset)?;
        Ok(self.bump.alloc(value))
    }

    /// A slice of `len` copies of `value`.
    #[inline]
    pub fn alloc_slice_fill_copy<T: Copy>(
        &self,
        len: usize,
        value: T,
        offset: usize,
    ) -> Result<&'a mut [T], DecodeError> {
        self.charge_items::<T>(len, offset)?;
        Ok(self.bump.alloc_slice_fill_copy(len, value))
    }

    /// A slice of `len` items produced by `fill(i)` in order.
    ///
    /// ```
    /// # use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
    /// let arena = Arena::new();
    /// let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    /// assert_eq!(alloc.alloc_slice_fill_with(3, 0, |i| i as u8).unwrap(), &[0, 1, 2]);
    /// ```
    #[inline]
    pub fn alloc_slice_fill_with<T, F>(
        &self,
        len: usize,
        offset: usize,
        fill: F,
    ) -> Result<&'a mut [T], DecodeError>
    where
        F: FnMut(usize) -> T,
    {
        self.charge_items::<T>(len, offset)?;
        Ok(self.bump.alloc_slice_fill_with(len, fill))
    }

    /// A slice of `len` items produced by `fill(i)` in order; the first
    /// error from `fill` is returned (what was written stays in the arena
    /// until it is reset).
    ///
    /// ```
    /// # use quarry_core::{Arena, BoundedAlloc, DecodeError, DecodeOptions};
    /// let arena = Arena::new();
    /// let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    /// let squares = alloc
    ///     .alloc_slice_try_fill_with(4, 0, |i| Ok::<_, DecodeError>(i * i))
    ///     .unwrap();
    /// assert_eq!(squares, &[0, 1, 4, 9]);
    /// ```
    #[inline]
    pub fn alloc_slice_try_fill_with<T, F>(
        &self,
        len: usize,
        offset: usize,
        fill: F,
    ) -> Result<&'a mut [T], DecodeError>
    where
        F: FnMut(usize) -> Result<T, DecodeError>,
    {
        self.charge_items::<T>(len, offset)?;
        self.bump.alloc_slice_try_fill_with(len, fill)
    }

    /// Copy `items` into the arena.
    ///
    /// ```
    /// use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
    /// let arena = Arena::new();
    /// let opts = DecodeOptions { max_arena_bytes: 16, ..Default::default() };
    /// let alloc = BoundedAlloc::new(&arena, &opts);
    /// assert_eq!(alloc.alloc_slice_copy(&[1u32, 2, 3], 0).unwrap(), &[1, 2, 3]);
    /// assert!(alloc.alloc_slice_copy(&[1u32, 2], 0).is_err()); // 12 + 8 > 16
    /// ```
    #[inline]
    pub fn alloc_slice_copy<T: Copy>(
        &self,
        items: &[T],
        offset: usize,
    ) -> Result<&'a mut [T], DecodeError> {
        self.charge_items::<T>(items.len(), offset)?;
        Ok(self.bump.alloc_slice_copy(items))
    }

    /// Copy `text` into the arena.
    #[inline]
    pub fn alloc_str(&self, text: &str, offset: usize) -> Result<&'a str, DecodeError> {
        self.charge(text.len(), offset)?;
        Ok(self.bump.alloc_str(text))
    }

    /// Copy `bytes` into the arena.
    #[inline]
    pub fn alloc_bytes(&self, bytes: &[u8], offset: usize) -> Result<&'a mut [u8], DecodeError> {
        self.charge(bytes.len(), offset)?;
        Ok(self.bump.alloc_slice_copy(bytes))
    }

    /// The arena's allocator, for collections that grow in place (charge
    /// what you take with [`charge`](Self::charge)).
    pub fn bump(&self) -> &'a Bump {
        self.bump
    }
}
