//! Decoded messages that own their input and arena, so they can be queued,
//! sent to another thread or task, and read later.
//!
//! A view borrows its arena and input, which ties it to the request that
//! decoded it. [`Owned`] keeps the three together (input as
//! [`bytes::Bytes`], the arena boxed or checked out of a pool, the root view
//! with its lifetime erased) and gives views out on demand, borrowing
//! `&self`. Format crates wrap it (`quarry_wa::OwnedStanza`,
//! `quarry_nostr::OwnedMessage`).
//!
//! All `unsafe` code of owned messages is in this module: the lifetime
//! erasure in [`Owned::try_new`] and the `MaybeUninit` wrapper that keeps
//! the compiler from assuming the arena and the root are unaliased.

use std::fmt;
use std::mem::MaybeUninit;

use bytes::Bytes;

use crate::{Arena, PooledArena};

/// A family of view types, one per arena lifetime: the root type an
/// [`Owned`] holds. Implemented by a zero-sized marker per view type.
///
/// Views covariant in their lifetime (most are) also implement
/// [`Covariant`], which gives [`Owned::get`]; any family can be read
/// through [`Owned::with`].
///
/// ```
/// use quarry_core::{Covariant, ViewFamily};
///
/// /// Views of a decoded text.
/// struct Text;
/// impl ViewFamily for Text {
///     type View<'a> = &'a str;
/// }
/// impl Covariant for Text {
///     fn shorten<'long: 'short, 'short>(view: &'long str) -> &'short str {
///         view
///     }
/// }
/// ```
pub trait ViewFamily: 'static {
    /// The view for arena and input lifetime `'a`. `Copy`, so it has no
    /// drop code that could run after the arena is gone.
    type View<'a>: Copy;
}

/// A [`ViewFamily`] whose views are covariant in their lifetime, so a view
/// of a long-lived arena may be handed out for a shorter borrow.
///
/// [`shorten`](Self::shorten) must be the identity; writing it as `view`
/// only compiles when the view is covariant, which is what lets
/// [`Owned::get`] hand a view out for the borrow of `&self`. A family whose
/// views are invariant (they hold `&'a mut` to something with `'a` in it)
/// cannot implement this and is read through [`Owned::with`] instead.
pub trait Covariant: ViewFamily {
    /// The same view for a shorter lifetime (the identity).
    fn shorten<'long: 'short, 'short>(view: Self::View<'long>) -> Self::View<'short>;
}

/// Where an [`Owned`] message's arena comes from: a box of its own or a
/// pool (then dropping the message returns the arena).
///
/// ```
/// use quarry_core::{Arena, ArenaPool, MessageArena};
///
/// let own: MessageArena = Arena::new().into();
/// let pool = ArenaPool::new();
/// let pooled: MessageArena = pool.get().into();
/// assert_eq!(own.stats().allocated_bytes, 0);
/// assert_eq!(pooled.stats().allocated_bytes, 0);
/// ```
#[derive(Debug)]
pub enum MessageArena {
    /// An arena of the message's own, freed with it.
    Boxed(Box<Arena>),
    /// An arena checked out of an [`ArenaPool`](crate::ArenaPool), returned
    /// to it with the message.
    Pooled(PooledArena),
}

impl MessageArena {
    /// A new, empty arena of the message's own (one allocation, the box).
    ///
    /// ```
    /// assert_eq!(quarry_core::MessageArena::new().stats().allocated_bytes, 0);
    /// ```
    pub fn new() -> Self {
        Self::Boxed(Box::default())
    }
}

impl Default for MessageArena {
    fn default() -> Self {
        Self::new()
    }
}

impl std::ops::Deref for MessageArena {
    type Target = Arena;

    fn deref(&self) -> &Arena {
        match self {
            Self::Boxed(arena) => arena,
            Self::Pooled(arena) => arena,
        }
    }
}

impl From<Arena> for MessageArena {
    fn from(arena: Arena) -> Self {
        Self::Boxed(Box::new(arena))
    }
}

impl From<Box<Arena>> for MessageArena {
    fn from(arena: Box<Arena>) -> Self {
        Self::Boxed(arena)
    }
}

impl From<PooledArena> for MessageArena {
    fn from(arena: PooledArena) -> Self {
        Self::Pooled(arena)
    }
}

/// A decoded message with its input and arena: `'static`, and `Send` when
/// the view type is (all of quarry's are), so it can outlive the request
/// that decoded it.
///
/// ```
/// use bytes::Bytes;
/// use quarry_core::{Covariant, MessageArena, Owned, ViewFamily};
///
/// struct Words;
/// impl ViewFamily for Words {
///     type View<'a> = &'a [&'a str];
/// }
/// impl Covariant for Words {
///     fn shorten<'long: 'short, 'short>(v: &'long [&'long str]) -> &'short [&'short str] {
///         v
///     }
/// }
///
/// let input = Bytes::from_static(b"owned views travel");
/// let msg = Owned::<Words>::try_new(input, MessageArena::new(), |arena, input| {
///     let text = std::str::from_utf8(input).map_err(|_| "not UTF-8")?;
///     let words: Vec<&str> = text.split(' ').collect();
///     Ok::<_, &str>(&*arena.bump().alloc_slice_copy(&words))
/// })
/// .unwrap();
/// let msg = std::thread::spawn(move || msg).join().unwrap();
/// assert_eq!(msg.get(), &["owned", "views", "travel"]);
/// ```
pub struct Owned<F: ViewFamily> {
    // Dropped in this order: the view (no drop code, it is `Copy`), then
    // the arena, then the input.
    root: Unaliased<F::View<'static>>,
    arena: Unaliased<MessageArena>,
    input: Bytes,
}

/// A value the compiler makes no aliasing assumptions about when it is
/// moved (what `yoke` calls `KindaSortaDangling`).
///
/// Moving a `Box` or a reference asserts, for the compiler, that nothing
/// else points into it (the box) or that what it points to stays valid for
/// the call (a reference argument). Both are false inside `Owned`: views
/// point into the boxed arena, and dropping `Owned` by value frees what the
/// root view points to. Miri's Stacked Borrows reports both when the fields
/// are plain. Behind `MaybeUninit` (a union) nothing is asserted.
struct Unaliased<T>(MaybeUninit<T>);

impl<T> Unaliased<T> {
    fn new(value: T) -> Self {
        Self(MaybeUninit::new(value))
    }

    fn get(&self) -> &T {
        // SAFETY: initialized by `new`; dropped only by `Drop`, after which
        // `self` is gone.
        unsafe { self.0.assume_init_ref() }
    }
}

impl<T> Drop for Unaliased<T> {
    fn drop(&mut self) {
        // SAFETY: initialized by `new` and dropped exactly once, here.
        unsafe { self.0.assume_init_drop() }
    }
}

impl<F: ViewFamily> Owned<F> {
    /// Decode `input` into `arena` with `decode` and keep all three.
    ///
    /// `decode` must work for any lifetime of its arguments (a format's
    /// decode function does), so it cannot stash a borrow anywhere but in
    /// the view it returns. On an error the arena is dropped (returned to
    /// its pool, if pooled) and the error passed through.
    ///
    /// **Memory held.** A message in an arena of its own
    /// ([`MessageArena::Boxed`]) holds at most 1.5 times the arena bytes its
    /// decode wrote, or bumpalo's smallest chunk for that many
    /// ([`Arena::chunk_bytes_for`]) when that is more (below 8 KiB, where
    /// chunks are powers of two): when the arena the decode ran in holds
    /// more (decoders reserve an estimate before they know what the input
    /// writes), `decode` runs a second time into a new arena of the size
    /// the first run used, and the first arena is freed. A pooled arena is
    /// kept as it is: it goes back to its pool with the message.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use quarry_core::{Arena, MessageArena, Owned, ViewFamily};
    ///
    /// struct Text;
    /// impl ViewFamily for Text {
    ///     type View<'a> = &'a str;
    /// }
    ///
    /// let bad = Owned::<Text>::try_new(Bytes::from_static(b"\xff"), MessageArena::new(), |_, b| {
    ///     std::str::from_utf8(b)
    /// });
    /// assert!(bad.is_err());
    ///
    /// // Decoded in a 1 MiB arena, kept in one of what the decode wrote.
    /// let text = "x".repeat(20_000);
    /// let msg = Owned::<Text>::try_new(Bytes::from(text), Arena::with_capacity(1 << 20), |a, b| {
    ///     Ok::<_, ()>(&*a.bump().alloc_str(std::str::from_utf8(b).unwrap()))
    /// })
    /// .unwrap();
    /// assert!(msg.arena().stats().allocated_bytes <= 30_000);
    /// ```
    pub fn try_new<E>(
        input: Bytes,
        arena: impl Into<MessageArena>,
        decode: impl for<'a> Fn(&'a Arena, &'a [u8]) -> Result<F::View<'a>, E>,
    ) -> Result<Self, E> {
        // Wrapped before a reference into the box is taken, so moving the
        // box later asserts nothing about it.
        let arena = Unaliased::new(arena.into());
        // SAFETY: see `erase`; the root is stored next to the arena and
        // input it borrows.
        let root = Unaliased::new(decode(unsafe { erase(&arena) }, unsafe {
            erase_input(&input)
        })?);
        let stats = arena.get().stats();
        let used = stats.used_bytes();
        let fits = used
            .saturating_add(used / 2)
            .max(Arena::chunk_bytes_for(used));
        if !matches!(arena.get(), MessageArena::Boxed(_)) || stats.allocated_bytes <= fits {
            return Ok(Self { root, arena, input });
        }
        // Decode again into an arena of the size the first run used, then
        // free the first (the first root, which points into it, is a `Copy`
        // value dropped unused).
        drop(root);
        let small = Unaliased::new(MessageArena::from(Arena::with_capacity(used)));
        // SAFETY: as above, for the new arena.
        let root = Unaliased::new(decode(unsafe { erase(&small) }, unsafe {
            erase_input(&input)
        })?);
        drop(arena);
        Ok(Self {
            root,
            arena: small,
            input,
        })
    }

    /// Call `f` with the root view. Works for every family, including
    /// views invariant in their lifetime: `f` must accept a view of any
    /// lifetime, so the view cannot leave it (the result does not depend
    /// on the view's lifetime).
    ///
    /// ```
    /// use std::cell::Cell;
    /// use bytes::Bytes;
    /// use quarry_core::{MessageArena, Owned, ViewFamily};
    ///
    /// /// Invariant in `'a`: `&'a mut` to something holding `'a`.
    /// struct Slots;
    /// impl ViewFamily for Slots {
    ///     type View<'a> = &'a [Cell<&'a str>];
    /// }
    ///
    /// let msg = Owned::<Slots>::try_new(Bytes::from_static(b"a b"), MessageArena::new(), |arena, b| {
    ///     let text = std::str::from_utf8(b).map_err(|_| ())?;
    ///     let cells: Vec<Cell<&str>> = text.split(' ').map(Cell::new).collect();
    ///     Ok::<_, ()>(&*arena.bump().alloc_slice_fill_iter(cells))
    /// })
    /// .unwrap();
    /// assert_eq!(msg.with(|cells| cells.len()), 2);
    /// assert_eq!(msg.with(|cells| cells[1].get().to_owned()), "b");
    /// ```
    pub fn with<R>(&self, f: impl for<'a> FnOnce(F::View<'a>) -> R) -> R {
        // `f` is generic over the view's lifetime, so handing it the stored
        // view (lifetime erased) lets nothing out: see `try_new`.
        f(*self.root.get())
    }

    /// The input bytes the message was decoded from (cloning the returned
    /// `Bytes` shares them, no copy): forward a message without
    /// re-encoding it.
    pub fn backing_bytes(&self) -> &Bytes {
        &self.input
    }

    /// `part` (a byte slice of one of this message's views) as `Bytes`: a
    /// zero-copy sub-slice of the input when `part` lies inside it, a copy
    /// otherwise (text or bytes the decoder wrote into the arena, such as an
    /// inflated frame or an unescaped string).
    ///
    /// ```
    /// use bytes::Bytes;
    /// use quarry_core::{Covariant, MessageArena, Owned, ViewFamily};
    ///
    /// struct Raw;
    /// impl ViewFamily for Raw {
    ///     type View<'a> = (&'a [u8], &'a [u8]);
    /// }
    /// impl Covariant for Raw {
    ///     fn shorten<'long: 'short, 'short>(v: (&'long [u8], &'long [u8])) -> (&'short [u8], &'short [u8]) { v }
    /// }
    ///
    /// let msg = Owned::<Raw>::try_new(Bytes::from_static(b"head:body"), MessageArena::new(), |arena, b| {
    ///     let upper = arena.bump().alloc_slice_copy(&b[..4]);
    ///     upper.make_ascii_uppercase();
    ///     Ok::<_, ()>((&b[5..], &*upper))
    /// })
    /// .unwrap();
    /// let (body, head) = msg.get();
    /// let shared = msg.slice_bytes(body); // points into the input
    /// assert_eq!(shared.as_ptr(), msg.backing_bytes()[5..].as_ptr());
    /// let copied = msg.slice_bytes(head); // lives in the arena: copied
    /// assert_eq!(copied, &b"HEAD"[..]);
    /// ```
    pub fn slice_bytes(&self, part: &[u8]) -> Bytes {
        let start = self.input.as_ptr() as usize;
        let end = start + self.input.len();
        let at = part.as_ptr() as usize;
        if !part.is_empty() && at >= start && at + part.len() <= end {
            self.input.slice(at - start..at - start + part.len())
        } else {
            Bytes::copy_from_slice(part)
        }
    }

    /// The arena the message lives in (for its statistics; allocating more
    /// in it is harmless but only freed with the message).
    pub fn arena(&self) -> &Arena {
        self.arena.get()
    }

    /// Drop the views and give back the input (the arena is freed or
    /// returned to its pool).
    pub fn into_bytes(self) -> Bytes {
        self.input
    }
}

/// The arena behind `arena` with its lifetime erased.
///
/// # Safety
/// The caller stores the result (and every view built from it) in the
/// same [`Owned`] as `arena`, or drops them before `arena`. This is sound
/// because what the reference points to stays put, unchanged, for as long
/// as that `Owned` lives, and no view built from it is reachable after:
/// - The `Arena` sits in a `Box` (either `MessageArena` variant), so its
///   address survives moves of `arena` into `Owned` and of `Owned`
///   anywhere; its chunks are separate heap blocks that a move does not
///   touch either. `Owned` never hands out `&mut Arena` (so no reset) and
///   drops the arena only when it is dropped itself.
/// - The decode closure is generic over `'a`, so the only place a borrow
///   can leave it is the returned view (the error type does not depend on
///   `'a`). That view is stored in `root` and leaves `Owned` only through
///   `get`, shortened to the borrow of `&self` (covariant views only), or
///   through `with`, into a closure generic over the view's lifetime that
///   cannot keep it.
/// - `F::View` is `Copy`, so dropping `root` runs no code.
/// - The arena and the root sit in `Unaliased`, so moving `Owned` (or
///   dropping it by value) asserts nothing about the memory these
///   references point to.
unsafe fn erase(arena: &Unaliased<MessageArena>) -> &'static Arena {
    // SAFETY: see above.
    unsafe { &*(&**arena.get() as *const Arena) }
}

/// The bytes of `input` with their lifetime erased.
///
/// # Safety
/// As for [`erase`]: `Bytes` never moves or mutates its contents while any
/// handle to them is alive, and `Owned` keeps `input` for its whole life.
unsafe fn erase_input(input: &Bytes) -> &'static [u8] {
    // SAFETY: see above.
    unsafe { std::slice::from_raw_parts(input.as_ptr(), input.len()) }
}

impl<F: Covariant> Owned<F> {
    /// The root view, borrowing `self`.
    pub fn get(&self) -> F::View<'_> {
        F::shorten(*self.root.get())
    }
}

/// Equal when the root views are (quarry's views compare by value); the
/// inputs and arenas do not count, so a message decoded from other bytes
/// that mean the same, or into a pooled arena, is equal.
///
/// ```
/// use bytes::Bytes;
/// use quarry_core::{Covariant, MessageArena, Owned, ViewFamily};
///
/// struct Trimmed;
/// impl ViewFamily for Trimmed {
///     type View<'a> = &'a str;
/// }
/// impl Covariant for Trimmed {
///     fn shorten<'long: 'short, 'short>(view: &'long str) -> &'short str {
///         view
///     }
/// }
/// let trim = |input: &'static [u8]| {
///     Owned::<Trimmed>::try_new(Bytes::from_static(input), MessageArena::new(), |_, b| {
///         std::str::from_utf8(b).map(str::trim)
///     })
///     .unwrap()
/// };
/// assert_eq!(trim(b" same "), trim(b"same"));
/// assert_ne!(trim(b"same"), trim(b"other"));
/// ```
impl<F: Covariant> PartialEq for Owned<F>
where
    for<'a> F::View<'a>: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = roots(self, other);
        a == b
    }
}

/// The root views of two messages, for one borrow of both.
fn roots<'s, F: Covariant>(a: &'s Owned<F>, b: &'s Owned<F>) -> (F::View<'s>, F::View<'s>) {
    (a.get(), b.get())
}

impl<F: Covariant> fmt::Debug for Owned<F>
where
    for<'a> F::View<'a>: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Owned")
            .field("root", &self.get())
            .field("input_len", &self.input.len())
            .field("arena", &self.arena.get().stats())
            .finish()
    }
}
