use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroU32;

/// A lifetime-free handle to a record of kind `T`: a non-zero `u32`, so
/// `Option<Id<T>>` is four bytes.
///
/// Views borrow the arena; an `Id` does not, so it can be stored in
/// long-lived structures and turned back into a view by whoever owns the
/// decoded message. The format crate decides what the number means (an
/// index into a table, an input offset).
///
/// ```
/// use quarry_core::Id;
///
/// struct Node;
/// let id: Id<Node> = Id::from_index(0);
/// assert_eq!(id.index(), 0);
/// assert_eq!(std::mem::size_of::<Option<Id<Node>>>(), 4);
/// ```
pub struct Id<T> {
    raw: NonZeroU32,
    kind: PhantomData<fn() -> T>,
}

impl<T> Id<T> {
    /// The handle for zero-based `index`. Panics on `u32::MAX`, which no
    /// decoder produces (item counts are far below).
    pub fn from_index(index: u32) -> Self {
        let raw = index
            .checked_add(1)
            .and_then(NonZeroU32::new)
            .expect("Id index below u32::MAX");
        Self {
            raw,
            kind: PhantomData,
        }
    }

    /// The zero-based index this handle names.
    pub fn index(self) -> u32 {
        self.raw.get() - 1
    }
}

impl<T> Clone for Id<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Id<T> {}
impl<T> PartialEq for Id<T> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}
impl<T> Eq for Id<T> {}
impl<T> std::hash::Hash for Id<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.raw.hash(state);
    }
}
impl<T> PartialOrd for Id<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Id<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.raw.cmp(&other.raw)
    }
}
impl<T> fmt::Debug for Id<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.index())
    }
}
