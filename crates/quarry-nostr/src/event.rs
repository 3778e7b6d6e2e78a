//! Event, tag list and tag views: `Copy` handles into the arena.

use std::fmt;

use crate::hex;
use crate::kind::Kind;

/// The elements of tag `i` are `elems[start..start + len]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TagSpan {
    pub start: u32,
    pub len: u32,
}

/// How a tag list is stored.
#[derive(Clone, Copy)]
pub(crate) enum TagsRepr<'a> {
    /// Straight from a decode: one table of every element of every tag
    /// (each borrowed from the input or, when it had escapes, from the
    /// arena) and one span per tag.
    Flat {
        elems: &'a [&'a str],
        spans: &'a [TagSpan],
    },
    /// The compacted form: all element text back to back in `text`;
    /// `idx[..ntags]` holds, per tag, the end of its elements in the
    /// element list, and `idx[ntags..]` the end offset of each element in
    /// `text`.
    Packed {
        text: &'a str,
        idx: &'a [u32],
        ntags: u32,
    },
}

/// Whether the id was checked during decode, and how it went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdState {
    Unchecked,
    Valid,
    Invalid,
}

/// What the arena stores per event.
pub(crate) struct EventRec<'a> {
    pub id: [u8; 32],
    pub pubkey: [u8; 32],
    pub sig: [u8; 64],
    pub created_at: u64,
    pub kind: u16,
    pub id_state: IdState,
    pub content: &'a str,
    pub tags: TagsRepr<'a>,
    /// Bit per single-letter tag name present: `a`-`z` are bits 0-25,
    /// `A`-`Z` bits 26-51.
    pub letters: u64,
    pub raw: &'a [u8],
}

/// The bit of single-letter tag name `name`, if it is one.
#[inline]
pub(crate) fn letter_bit(name: &str) -> u64 {
    match name.as_bytes() {
        [c @ b'a'..=b'z'] => 1 << (c - b'a'),
        [c @ b'A'..=b'Z'] => 1 << (26 + (c - b'A')),
        _ => 0,
    }
}

/// A decoded Nostr event (NIP-01): a `Copy` handle into the arena.
///
/// ```
/// use quarry_core::Arena;
///
/// let json = quarry_nostr::SAMPLE_EVENT.as_bytes();
/// let arena = Arena::new();
/// let event = quarry_nostr::decode_event(&arena, json)?;
/// assert_eq!(event.kind(), 1);
/// assert_eq!(event.created_at(), 1673347337);
/// assert_eq!(event.tags().len(), 2);
/// assert_eq!(event.tags().get(0).unwrap().name(), "e");
/// assert_eq!(event.raw(), json);
/// assert_eq!(event.id()[..2], [0x10, 0xa8]);
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Event<'a> {
    pub(crate) rec: &'a EventRec<'a>,
}

impl<'a> Event<'a> {
    pub(crate) fn from_rec(rec: &'a EventRec<'a>) -> Self {
        Self { rec }
    }

    /// The id: 32 bytes (the SHA-256 of the canonical serialization).
    #[inline]
    pub fn id(self) -> &'a [u8; 32] {
        &self.rec.id
    }

    /// The author's x-only public key.
    #[inline]
    pub fn pubkey(self) -> &'a [u8; 32] {
        &self.rec.pubkey
    }

    /// The BIP-340 signature over the id.
    #[inline]
    pub fn sig(self) -> &'a [u8; 64] {
        &self.rec.sig
    }

    /// Unix seconds.
    #[inline]
    pub fn created_at(self) -> u64 {
        self.rec.created_at
    }

    /// The kind, 0..=65535.
    #[inline]
    pub fn kind(self) -> u16 {
        self.rec.kind
    }

    /// The content, unescaped.
    #[inline]
    pub fn content(self) -> &'a str {
        self.rec.content
    }

    /// The tags.
    #[inline]
    pub fn tags(self) -> Tags<'a> {
        Tags {
            repr: self.rec.tags,
            letters: self.rec.letters,
        }
    }

    /// The event's bytes exactly as they were on the wire (from `{` to
    /// `}`), for a relay that measures or forwards events without
    /// re-serializing. Empty for events that did not come from a decode
    /// (compacted or converted ones).
    #[inline]
    pub fn raw(self) -> &'a [u8] {
        self.rec.raw
    }

    /// `Some(true)` when the id was checked during decode and matches,
    /// `Some(false)` when it was checked and does not
    /// ([`IdCheck::Report`](crate::IdCheck::Report)), `None` when it was not
    /// checked ([`IdCheck::Skip`](crate::IdCheck::Skip)).
    #[inline]
    pub fn id_valid(self) -> Option<bool> {
        match self.rec.id_state {
            IdState::Unchecked => None,
            IdState::Valid => Some(true),
            IdState::Invalid => Some(false),
        }
    }

    /// The id as lower-case hex, on the stack.
    ///
    /// ```
    /// # let arena = quarry_core::Arena::new();
    /// # let json = quarry_nostr::SAMPLE_EVENT;
    /// # let event = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    /// assert_eq!(&event.id_hex()[..8], b"10a841dc");
    /// ```
    #[inline]
    pub fn id_hex(self) -> [u8; 64] {
        hex::encode(&self.rec.id)
    }

    /// The public key as lower-case hex.
    #[inline]
    pub fn pubkey_hex(self) -> [u8; 64] {
        hex::encode(&self.rec.pubkey)
    }

    /// The signature as lower-case hex.
    #[inline]
    pub fn sig_hex(self) -> [u8; 128] {
        hex::encode(&self.rec.sig)
    }

    /// NIP-01 regular kind ([`Kind::is_regular`]).
    pub fn is_regular(self) -> bool {
        Kind(self.kind()).is_regular()
    }

    /// NIP-01 replaceable kind ([`Kind::is_replaceable`]).
    pub fn is_replaceable(self) -> bool {
        Kind(self.kind()).is_replaceable()
    }

    /// NIP-01 ephemeral kind ([`Kind::is_ephemeral`]).
    pub fn is_ephemeral(self) -> bool {
        Kind(self.kind()).is_ephemeral()
    }

    /// NIP-01 addressable kind ([`Kind::is_addressable`]), keyed by kind,
    /// pubkey and the `d` tag.
    pub fn is_addressable(self) -> bool {
        Kind(self.kind()).is_addressable()
    }
}

/// Value equality of what the event says: id, pubkey, signature,
/// `created_at`, kind, tags and content. How it was written (whitespace,
/// member order, escapes, hex case: [`raw`](Event::raw)) and what the
/// decoder found about it ([`id_valid`](Event::id_valid)) do not count.
///
/// ```
/// let (one, two) = (quarry_core::Arena::new(), quarry_core::Arena::new());
/// let json = quarry_nostr::SAMPLE_EVENT;
/// let a = quarry_nostr::decode_event(&one, json.as_bytes())?;
/// let spaced = json.replace(",\"kind\"", ", \"kind\"");
/// let b = quarry_nostr::decode_event(&two, spaced.as_bytes())?;
/// assert_eq!(a, b);
/// assert_ne!(a.raw(), b.raw());
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
impl PartialEq for Event<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
            && self.pubkey() == other.pubkey()
            && self.sig() == other.sig()
            && self.created_at() == other.created_at()
            && self.kind() == other.kind()
            && self.content() == other.content()
            && self.tags() == other.tags()
    }
}

impl fmt::Debug for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hexs = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        f.debug_struct("Event")
            .field("id", &hexs(self.id()))
            .field("pubkey", &hexs(self.pubkey()))
            .field("created_at", &self.created_at())
            .field("kind", &self.kind())
            .field("tags", &self.tags())
            .field("content", &self.content())
            .field("sig", &hexs(self.sig()))
            .finish()
    }
}

/// The tags of an event. Equal when they hold equal tags in the same
/// order.
///
/// ```
/// # let arena = quarry_core::Arena::new();
/// # let json = quarry_nostr::SAMPLE_EVENT;
/// let event = quarry_nostr::decode_event(&arena, json.as_bytes())?;
/// let tags = event.tags();
/// assert_eq!(tags.len(), 2);
/// assert_eq!(tags.by_name("p").count(), 1);
/// assert!(tags.has_letter(b'e'));
/// assert_eq!(tags.letter_values(b'p').next().unwrap().len(), 64);
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Tags<'a> {
    repr: TagsRepr<'a>,
    letters: u64,
}

impl<'a> Tags<'a> {
    pub(crate) fn new(repr: TagsRepr<'a>, letters: u64) -> Self {
        Self { repr, letters }
    }

    /// Number of tags.
    #[inline]
    pub fn len(self) -> usize {
        match self.repr {
            TagsRepr::Flat { spans, .. } => spans.len(),
            TagsRepr::Packed { ntags, .. } => ntags as usize,
        }
    }

    /// True when there are no tags.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Total number of elements over all tags.
    #[inline]
    pub fn element_count(self) -> usize {
        match self.repr {
            TagsRepr::Flat { elems, .. } => elems.len(),
            TagsRepr::Packed { idx, ntags, .. } => idx.len() - ntags as usize,
        }
    }

    /// Bytes of element text over all tags (unescaped): what a compacted
    /// copy stores and what a writer reserves for an event without wire
    /// bytes.
    pub(crate) fn text_len(self) -> usize {
        match self.repr {
            TagsRepr::Flat { elems, .. } => elems.iter().map(|e| e.len()).sum(),
            TagsRepr::Packed { text, .. } => text.len(),
        }
    }

    /// Tag `i`, in wire order.
    #[inline]
    pub fn get(self, i: usize) -> Option<Tag<'a>> {
        match self.repr {
            TagsRepr::Flat { elems, spans } => {
                let s = spans.get(i)?;
                let start = s.start as usize;
                elems
                    .get(start..start + s.len as usize)
                    .map(|e| Tag(TagRepr::Flat(e)))
            }
            TagsRepr::Packed { text, idx, ntags } => {
                let n = ntags as usize;
                if i >= n {
                    return None;
                }
                let first = if i == 0 { 0 } else { idx[i - 1] as usize };
                let last = idx[i] as usize;
                let ends = idx.get(n + first..n + last)?;
                let start = if first == 0 { 0 } else { idx[n + first - 1] };
                Some(Tag(TagRepr::Packed { text, start, ends }))
            }
        }
    }

    /// All tags, in wire order.
    #[inline]
    pub fn iter(self) -> TagsIter<'a> {
        TagsIter {
            tags: self,
            next: 0,
            len: self.len(),
        }
    }

    /// The tags whose name (first element) is `name`.
    #[inline]
    pub fn by_name(self, name: &str) -> impl Iterator<Item = Tag<'a>> + use<'a, '_> {
        self.iter().filter(move |t| t.name() == name)
    }

    /// The first tag named `name` (`d` for an addressable event's
    /// identifier, `expiration`, `challenge`, …).
    ///
    /// ```
    /// # let arena = quarry_core::Arena::new();
    /// # let json = quarry_nostr::SAMPLE_EVENT;
    /// # let event = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    /// assert_eq!(event.tags().first("e").unwrap().len(), 2);
    /// assert!(event.tags().first("d").is_none());
    /// ```
    #[inline]
    pub fn first(self, name: &str) -> Option<Tag<'a>> {
        self.by_name(name).next()
    }

    /// Whether a tag with single-letter name `letter` (`a`-`z`, `A`-`Z`)
    /// is present: one bit test, the index filters (`#e`, `#p`, `#t`…)
    /// consult before scanning.
    #[inline]
    pub fn has_letter(self, letter: u8) -> bool {
        let bit = match letter {
            b'a'..=b'z' => 1u64 << (letter - b'a'),
            b'A'..=b'Z' => 1u64 << (26 + letter - b'A'),
            _ => return false,
        };
        self.letters & bit != 0
    }

    /// The indexed values of single-letter tag `letter`: the value (index
    /// 1) of every tag so named, which is what a `#x` filter matches.
    #[inline]
    pub fn letter_values(self, letter: u8) -> impl Iterator<Item = &'a str> {
        let present = self.has_letter(letter);
        let name = [letter];
        let iter = present.then(|| self.iter());
        iter.into_iter().flatten().filter_map(move |t| {
            if t.name().as_bytes() == name {
                t.value()
            } else {
                None
            }
        })
    }

    /// Whether some `letter` tag has `value` as its indexed value.
    #[inline]
    pub fn has_letter_value(self, letter: u8, value: &str) -> bool {
        self.letter_values(letter).any(|v| v == value)
    }
}

impl PartialEq for Tags<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Tags<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Tags<'a> {
    type Item = Tag<'a>;
    type IntoIter = TagsIter<'a>;
    fn into_iter(self) -> TagsIter<'a> {
        self.iter()
    }
}

/// Iterator over [`Tags`].
#[derive(Clone)]
pub struct TagsIter<'a> {
    tags: Tags<'a>,
    next: usize,
    len: usize,
}

impl<'a> Iterator for TagsIter<'a> {
    type Item = Tag<'a>;
    #[inline]
    fn next(&mut self) -> Option<Tag<'a>> {
        if self.next >= self.len {
            return None;
        }
        let t = self.tags.get(self.next);
        self.next += 1;
        t
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for TagsIter<'_> {}

#[derive(Clone, Copy)]
enum TagRepr<'a> {
    Flat(&'a [&'a str]),
    Packed {
        text: &'a str,
        start: u32,
        ends: &'a [u32],
    },
}

/// One tag: a non-empty list of strings.
///
/// ```
/// # let arena = quarry_core::Arena::new();
/// # let json = quarry_nostr::SAMPLE_EVENT;
/// # let event = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
/// let p = event.tags().first("p").unwrap();
/// assert_eq!(p.name(), "p");
/// assert_eq!(p.len(), 2);
/// assert_eq!(p.get(1), p.value());
/// assert_eq!(p.as_id(1).unwrap()[0], 0xbf);
/// assert!(p.as_id(0).is_none());
/// assert_eq!(p.iter().collect::<Vec<_>>()[0], "p");
/// ```
#[derive(Clone, Copy)]
pub struct Tag<'a>(TagRepr<'a>);

impl<'a> Tag<'a> {
    /// Number of elements (at least 1 for decoded events).
    #[inline]
    pub fn len(self) -> usize {
        match self.0 {
            TagRepr::Flat(e) => e.len(),
            TagRepr::Packed { ends, .. } => ends.len(),
        }
    }

    /// True for a tag with no element (never produced by a decode).
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    #[inline]
    pub fn get(self, i: usize) -> Option<&'a str> {
        match self.0 {
            TagRepr::Flat(e) => e.get(i).copied(),
            TagRepr::Packed { text, start, ends } => {
                let end = *ends.get(i)? as usize;
                let start = if i == 0 { start } else { ends[i - 1] } as usize;
                text.get(start..end)
            }
        }
    }

    /// The name (element 0).
    #[inline]
    pub fn name(self) -> &'a str {
        self.get(0).unwrap_or("")
    }

    /// The value (element 1), if present.
    #[inline]
    pub fn value(self) -> Option<&'a str> {
        self.get(1)
    }

    /// The elements.
    #[inline]
    pub fn iter(self) -> TagIter<'a> {
        TagIter {
            tag: self,
            next: 0,
            len: self.len(),
        }
    }

    /// Element `i` decoded as a 32-byte id or key, when it is exactly 64
    /// hex digits (either case).
    #[inline]
    pub fn as_id(self, i: usize) -> Option<[u8; 32]> {
        hex::decode::<32>(self.get(i)?.as_bytes())
    }
}

impl PartialEq for Tag<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Tag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Tag<'a> {
    type Item = &'a str;
    type IntoIter = TagIter<'a>;
    fn into_iter(self) -> TagIter<'a> {
        self.iter()
    }
}

/// Iterator over a [`Tag`]'s elements.
#[derive(Clone)]
pub struct TagIter<'a> {
    tag: Tag<'a>,
    next: usize,
    len: usize,
}

impl<'a> Iterator for TagIter<'a> {
    type Item = &'a str;
    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        if self.next >= self.len {
            return None;
        }
        let e = self.tag.get(self.next);
        self.next += 1;
        e
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for TagIter<'_> {}
