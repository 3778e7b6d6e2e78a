//! The strings and attribute list of an [`OwnedNode`](crate::OwnedNode),
//! kept inline when small so that building a typical node allocates
//! nothing: a tag, key or value of up to [`SmallStr::INLINE`] bytes lives
//! in the node itself, and so do the first [`AttrList::INLINE`] attributes.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use crate::owned::OwnedValue;

/// An owned string stored inline up to [`INLINE`](Self::INLINE) bytes and
/// on the heap beyond. Reads as a `str` (through `Deref`), compares,
/// orders and hashes as one.
///
/// ```
/// use quarry_wa::SmallStr;
/// let short = SmallStr::from("msg");
/// assert_eq!(short, "msg");
/// assert!(short.is_inline());
/// assert!(!SmallStr::from("x".repeat(31)).is_inline());
/// ```
#[derive(Clone)]
pub struct SmallStr(Repr);

#[derive(Clone)]
enum Repr {
    Inline {
        len: u8,
        bytes: [u8; SmallStr::INLINE],
    },
    Heap(String),
}

impl SmallStr {
    /// The longest string kept inline, in bytes.
    pub const INLINE: usize = 30;

    /// The empty string (inline; allocates nothing).
    pub const fn new() -> Self {
        SmallStr(Repr::Inline {
            len: 0,
            bytes: [0; Self::INLINE],
        })
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let text = bytes.get(..usize::from(*len)).unwrap_or_default();
                // SAFETY: `Repr` is private, and an `Inline` is made only by
                // `From<&str>` (one whole `&str` copied) and `display` (whole
                // `&str` pieces appended; the heap form when they overflow),
                // so `text` is complete UTF-8 strings end to end. Checking
                // it again on every read cost the encoder of built trees
                // 10-33% of its instructions (iai gate, wa_iai quarry_encode).
                unsafe { std::str::from_utf8_unchecked(text) }
            }
            Repr::Heap(s) => s,
        }
    }

    /// True when the text is stored inline (no heap allocation).
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }

    /// The text as a `String` (allocates unless already on the heap).
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Heap(s) => s,
            Repr::Inline { .. } => self.as_str().to_owned(),
        }
    }
}

impl SmallStr {
    /// The `Display` text of `value`, written inline when it fits (any
    /// integer does), so nothing is allocated for it.
    ///
    /// ```
    /// let t = quarry_wa::SmallStr::display(1_700_000_000u64);
    /// assert_eq!(t, "1700000000");
    /// assert!(t.is_inline());
    /// ```
    pub fn display(value: impl fmt::Display) -> Self {
        struct Inline {
            len: usize,
            bytes: [u8; SmallStr::INLINE],
        }
        impl fmt::Write for Inline {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
                self.bytes
                    .get_mut(self.len..end)
                    .ok_or(fmt::Error)?
                    .copy_from_slice(s.as_bytes());
                self.len = end;
                Ok(())
            }
        }
        let mut out = Inline {
            len: 0,
            bytes: [0; Self::INLINE],
        };
        match (
            fmt::write(&mut out, format_args!("{value}")),
            u8::try_from(out.len),
        ) {
            (Ok(()), Ok(len)) => SmallStr(Repr::Inline {
                len,
                bytes: out.bytes,
            }),
            _ => SmallStr(Repr::Heap(value.to_string())),
        }
    }
}

impl Default for SmallStr {
    fn default() -> Self {
        Self::new()
    }
}

impl From<&str> for SmallStr {
    fn from(text: &str) -> Self {
        let mut bytes = [0u8; Self::INLINE];
        match (bytes.get_mut(..text.len()), u8::try_from(text.len())) {
            (Some(slot), Ok(len)) => {
                slot.copy_from_slice(text.as_bytes());
                SmallStr(Repr::Inline { len, bytes })
            }
            _ => SmallStr(Repr::Heap(text.to_owned())),
        }
    }
}

impl From<&String> for SmallStr {
    fn from(text: &String) -> Self {
        SmallStr::from(text.as_str())
    }
}

/// Keeps the `String`'s allocation when it has one to keep; a short
/// string goes inline.
impl From<String> for SmallStr {
    fn from(text: String) -> Self {
        if text.len() <= Self::INLINE {
            SmallStr::from(text.as_str())
        } else {
            SmallStr(Repr::Heap(text))
        }
    }
}

impl From<std::borrow::Cow<'_, str>> for SmallStr {
    fn from(text: std::borrow::Cow<'_, str>) -> Self {
        match text {
            std::borrow::Cow::Borrowed(s) => SmallStr::from(s),
            std::borrow::Cow::Owned(s) => SmallStr::from(s),
        }
    }
}

impl From<SmallStr> for String {
    fn from(text: SmallStr) -> Self {
        text.into_string()
    }
}

impl Deref for SmallStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SmallStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for SmallStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for SmallStr {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SmallStr {}

impl PartialOrd for SmallStr {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SmallStr {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for SmallStr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for SmallStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SmallStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SmallStr {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<SmallStr> for str {
    fn eq(&self, other: &SmallStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SmallStr> for &str {
    fn eq(&self, other: &SmallStr) -> bool {
        *self == other.as_str()
    }
}

impl fmt::Debug for SmallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SmallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One attribute of an [`OwnedNode`](crate::OwnedNode).
pub type Attr = (SmallStr, OwnedValue);

/// An [`OwnedNode`](crate::OwnedNode)'s attributes in wire order: the first
/// [`INLINE`](Self::INLINE) inside the node, more on the heap. Reads as a
/// slice of `(key, value)` pairs (through `Deref`).
///
/// ```
/// use quarry_wa::{AttrList, OwnedValue};
/// let mut attrs = AttrList::new();
/// attrs.push(("v".into(), "2".into()));
/// attrs.push(("type".into(), "msg".into()));
/// assert_eq!(attrs.len(), 2);
/// assert_eq!(attrs[1].0, "type");
/// assert_eq!(attrs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["v", "type"]);
/// ```
#[derive(Clone)]
pub struct AttrList(List);

#[derive(Clone)]
enum List {
    Inline {
        len: u8,
        items: [Attr; AttrList::INLINE],
    },
    Heap(Vec<Attr>),
}

const EMPTY_ATTR: Attr = (SmallStr::new(), OwnedValue::Str(SmallStr::new()));

impl AttrList {
    /// Attributes kept inside the node before the list moves to the heap.
    pub const INLINE: usize = 3;

    /// An empty list (allocates nothing).
    pub const fn new() -> Self {
        AttrList(List::Inline {
            len: 0,
            items: [EMPTY_ATTR; Self::INLINE],
        })
    }

    /// An empty list with room for `n` attributes (on the heap when `n`
    /// is more than [`INLINE`](Self::INLINE)).
    pub fn with_capacity(n: usize) -> Self {
        if n <= Self::INLINE {
            Self::new()
        } else {
            AttrList(List::Heap(Vec::with_capacity(n)))
        }
    }

    /// Append an attribute.
    pub fn push(&mut self, attr: Attr) {
        match &mut self.0 {
            List::Inline { len, items } => {
                if let Some(slot) = items.get_mut(usize::from(*len)) {
                    *slot = attr;
                    *len = len.saturating_add(1);
                } else {
                    let mut heap = Vec::with_capacity(2 * Self::INLINE);
                    heap.extend(items.iter_mut().map(|a| std::mem::replace(a, EMPTY_ATTR)));
                    heap.push(attr);
                    self.0 = List::Heap(heap);
                }
            }
            List::Heap(v) => v.push(attr),
        }
    }

    /// True when the attributes are stored inside the node.
    pub fn is_inline(&self) -> bool {
        matches!(self.0, List::Inline { .. })
    }
}

impl Default for AttrList {
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for AttrList {
    type Target = [Attr];
    fn deref(&self) -> &[Attr] {
        match &self.0 {
            List::Inline { len, items } => items.get(..usize::from(*len)).unwrap_or_default(),
            List::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for AttrList {
    fn deref_mut(&mut self) -> &mut [Attr] {
        match &mut self.0 {
            List::Inline { len, items } => items.get_mut(..usize::from(*len)).unwrap_or_default(),
            List::Heap(v) => v,
        }
    }
}

impl PartialEq for AttrList {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for AttrList {}

impl fmt::Debug for AttrList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<K: Into<SmallStr>, V: Into<OwnedValue>> FromIterator<(K, V)> for AttrList {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut list = AttrList::with_capacity(iter.size_hint().0);
        for (key, value) in iter {
            list.push((key.into(), value.into()));
        }
        list
    }
}

impl<K: Into<SmallStr>, V: Into<OwnedValue>> From<Vec<(K, V)>> for AttrList {
    fn from(v: Vec<(K, V)>) -> Self {
        v.into_iter().collect()
    }
}

impl<'l> IntoIterator for &'l AttrList {
    type Item = &'l Attr;
    type IntoIter = std::slice::Iter<'l, Attr>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for AttrList {
    type Item = Attr;
    type IntoIter = std::vec::IntoIter<Attr>;
    fn into_iter(self) -> Self::IntoIter {
        match self.0 {
            List::Heap(v) => v.into_iter(),
            List::Inline { len, items } => {
                let mut v = Vec::from(items);
                v.truncate(usize::from(len));
                v.into_iter()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SmallStr;

    /// Every way an inline string is made reads back as the text it was
    /// made from (the reads skip the UTF-8 check: run under Miri).
    #[test]
    fn inline_text_reads_back_as_written() {
        for text in [
            "",
            "a",
            "msg",
            "é",
            "ação",
            "日本語のテキスト",
            "🙂🙂🙂🙂🙂🙂🙂",
        ] {
            let small = SmallStr::from(text);
            assert_eq!(small.len() <= SmallStr::INLINE, small.is_inline());
            assert_eq!(small.as_str(), text);
            assert_eq!(SmallStr::from(text.to_owned()).as_str(), text);
        }
        // 30 bytes fit; 31 go to the heap. "é" is 2 bytes: 15 fill it.
        let full = "é".repeat(15);
        assert!(SmallStr::from(full.as_str()).is_inline());
        assert_eq!(SmallStr::from(full.as_str()).as_str(), full);
        let over = format!("{full}a");
        assert!(!SmallStr::from(over.as_str()).is_inline());
        assert_eq!(SmallStr::from(over.as_str()).as_str(), over);
    }

    #[test]
    fn displayed_values_read_back_inline_or_on_the_heap() {
        assert_eq!(SmallStr::display(1_700_000_000u64).as_str(), "1700000000");
        assert!(SmallStr::display(u64::MAX).is_inline());
        assert_eq!(SmallStr::display(format_args!("{}ü", "ä")).as_str(), "äü");
        // Pieces that overflow the inline bytes mid-way: the heap form,
        // never a cut character.
        let long = "ü".repeat(16);
        let shown = SmallStr::display(&long);
        assert!(!shown.is_inline());
        assert_eq!(shown.as_str(), long);
    }
}
