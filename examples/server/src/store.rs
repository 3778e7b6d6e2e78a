//! The relay's event store: in memory, bounded by count and bytes, oldest
//! dropped first. Enough to answer REQs with what was ingested; not a
//! database.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The most filters one REQ may carry, whatever the configuration says (the
/// per-filter `limit` countdown lives in an array of this size).
pub const MAX_FILTERS: usize = 64;

/// A single-letter tag's indexed value: where it sits in
/// [`StoredEvent::data`].
#[derive(Clone, Copy, Debug)]
struct TagRef {
    letter: u8,
    start: u32,
    len: u32,
}

/// One stored event: what filters look at, and its JSON as it will be sent
/// back.
#[derive(Debug)]
pub struct StoredEvent {
    id: [u8; 32],
    pubkey: [u8; 32],
    created_at: u64,
    kind: u16,
    /// Bit per single-letter tag name present (`a`-`z` bits 0-25, `A`-`Z`
    /// 26-51), so most `#x` conditions fail without a scan.
    letters: u64,
    json_len: usize,
    /// The event's JSON, then the indexed tag values back to back: one
    /// allocation per event for all of its text.
    data: Box<[u8]>,
    tags: Box<[TagRef]>,
}

/// The bit of a tag-name letter.
pub(crate) fn letter_bit(letter: u8) -> u64 {
    match letter {
        b'a'..=b'z' => 1 << (letter - b'a'),
        b'A'..=b'Z' => 1 << (26 + (letter - b'A')),
        _ => 0,
    }
}

impl StoredEvent {
    /// Build a stored event from its fields, its JSON and the tags as
    /// `(name, value)` pairs (only single-letter names with a value are
    /// indexed, as NIP-01 filters only those).
    pub(crate) fn new<'t, T>(
        id: [u8; 32],
        pubkey: [u8; 32],
        created_at: u64,
        kind: u16,
        json: &[u8],
        tags: T,
    ) -> Self
    where
        T: Iterator<Item = (&'t str, Option<&'t str>)> + Clone,
    {
        let indexed = tags.filter_map(|(name, value)| match (name.as_bytes(), value) {
            (&[letter], Some(value)) if letter.is_ascii_alphabetic() => Some((letter, value)),
            _ => None,
        });
        // Two passes so both boxes are allocated at their exact size.
        let (count, text) = indexed
            .clone()
            .fold((0, 0), |(n, len), (_, v)| (n + 1, len + v.len()));
        let mut data = Vec::with_capacity(json.len() + text);
        data.extend_from_slice(json);
        let mut refs = Vec::with_capacity(count);
        let mut letters = 0;
        for (letter, value) in indexed {
            letters |= letter_bit(letter);
            refs.push(TagRef {
                letter,
                start: data.len() as u32,
                len: value.len() as u32,
            });
            data.extend_from_slice(value.as_bytes());
        }
        Self {
            id,
            pubkey,
            created_at,
            kind,
            letters,
            json_len: json.len(),
            data: data.into_boxed_slice(),
            tags: refs.into_boxed_slice(),
        }
    }

    /// The event id.
    pub fn id(&self) -> &[u8; 32] {
        &self.id
    }

    /// The author.
    pub fn pubkey(&self) -> &[u8; 32] {
        &self.pubkey
    }

    /// Unix seconds.
    pub fn created_at(&self) -> u64 {
        self.created_at
    }

    /// The kind.
    pub fn kind(&self) -> u16 {
        self.kind
    }

    /// The event as JSON, ready to send.
    pub fn json(&self) -> &[u8] {
        &self.data[..self.json_len]
    }

    /// Whether a tag named `letter` is present.
    pub fn has_letter(&self, letter: u8) -> bool {
        self.letters & letter_bit(letter) != 0
    }

    /// The indexed values (element 1) of the tags named `letter`.
    pub fn letter_values(&self, letter: u8) -> impl Iterator<Item = &[u8]> {
        let wanted = self.has_letter(letter);
        self.tags
            .iter()
            .filter(move |t| wanted && t.letter == letter)
            .map(|t| &self.data[t.start as usize..(t.start + t.len) as usize])
    }

    fn bytes(&self) -> usize {
        self.data.len()
    }
}

/// What [`Store::insert`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// Stored.
    New,
    /// An event with this id is already stored.
    Duplicate,
}

/// The bounded store, shared by every connection (one lock, held for a
/// lookup, an insert or the copy of a REQ's answers).
#[derive(Debug)]
pub struct Store {
    max_events: usize,
    max_bytes: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    events: VecDeque<StoredEvent>,
    ids: HashSet<[u8; 32]>,
    bytes: usize,
}

impl Store {
    /// A store for at most `max_events` events and `max_bytes` bytes of
    /// event text; room for `max_events` is reserved now, so the steady
    /// state does not grow it.
    pub fn new(max_events: usize, max_bytes: usize) -> Self {
        Self {
            max_events,
            max_bytes,
            inner: Mutex::new(Inner {
                events: VecDeque::with_capacity(max_events),
                ids: HashSet::with_capacity(max_events + 1),
                bytes: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every update leaves the store consistent, so a panic elsewhere
        // does not make it unusable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Events stored now.
    pub fn len(&self) -> usize {
        self.lock().events.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether an event with this id is stored (checked before building a
    /// [`StoredEvent`], so duplicates cost no allocation).
    pub fn contains(&self, id: &[u8; 32]) -> bool {
        self.lock().ids.contains(id)
    }

    /// Store `event`, dropping the oldest events until both bounds hold.
    pub fn insert(&self, event: StoredEvent) -> Inserted {
        if self.max_events == 0 {
            return Inserted::New;
        }
        let mut inner = self.lock();
        if inner.ids.contains(&event.id) {
            return Inserted::Duplicate;
        }
        while inner.events.len() >= self.max_events
            || (!inner.events.is_empty() && inner.bytes + event.bytes() > self.max_bytes)
        {
            let old = inner.events.pop_front().expect("not empty");
            inner.bytes -= old.bytes();
            inner.ids.remove(&old.id);
        }
        inner.bytes += event.bytes();
        inner.ids.insert(event.id);
        inner.events.push_back(event);
        Inserted::New
    }

    /// Newest first, call `emit` with each event that matches one of the
    /// filters whose `limit` is not used up, at most `max` events in all.
    /// `limits[i]` is filter `i`'s limit (`u64::MAX` for none) and
    /// `matches(i, event)` its test. Returns the number of events emitted.
    pub fn query(
        &self,
        limits: &[u64],
        matches: impl Fn(usize, &StoredEvent) -> bool,
        max: usize,
        mut emit: impl FnMut(&StoredEvent),
    ) -> usize {
        let n = limits.len().min(MAX_FILTERS);
        let mut left = [0u64; MAX_FILTERS];
        left[..n].copy_from_slice(&limits[..n]);
        let mut sent = 0;
        let inner = self.lock();
        for event in inner.events.iter().rev() {
            if sent >= max || left[..n].iter().all(|&l| l == 0) {
                break;
            }
            let mut hit = false;
            for (i, l) in left[..n].iter_mut().enumerate() {
                if *l > 0 && matches(i, event) {
                    *l -= 1;
                    hit = true;
                }
            }
            if hit {
                emit(event);
                sent += 1;
            }
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(n: u8, kind: u16, tags: &[(&str, &str)]) -> StoredEvent {
        let json = format!("{{\"n\":{n}}}");
        StoredEvent::new(
            [n; 32],
            [0; 32],
            u64::from(n),
            kind,
            json.as_bytes(),
            tags.iter().map(|(a, b)| (*a, Some(*b))),
        )
    }

    #[test]
    fn indexes_single_letter_tags_only() {
        let e = event(
            1,
            1,
            &[("e", "x"), ("t", "nostr"), ("title", "no"), ("t", "rust")],
        );
        assert_eq!(e.json(), b"{\"n\":1}");
        assert!(e.has_letter(b't') && e.has_letter(b'e') && !e.has_letter(b'p'));
        let t: Vec<&[u8]> = e.letter_values(b't').collect();
        assert_eq!(t, [&b"nostr"[..], b"rust"]);
    }

    #[test]
    fn bounded_by_count_oldest_first() {
        let store = Store::new(2, 1 << 20);
        assert_eq!(store.insert(event(1, 1, &[])), Inserted::New);
        assert_eq!(store.insert(event(1, 1, &[])), Inserted::Duplicate);
        store.insert(event(2, 1, &[]));
        store.insert(event(3, 1, &[]));
        assert_eq!(store.len(), 2);
        assert!(!store.contains(&[1; 32]));
        assert!(store.contains(&[3; 32]));
    }

    #[test]
    fn bounded_by_bytes() {
        // Each event's JSON is 7 bytes: room for two.
        let store = Store::new(100, 15);
        for n in 1..=5 {
            store.insert(event(n, 1, &[]));
        }
        assert_eq!(store.len(), 2);
        assert!(store.contains(&[5; 32]) && store.contains(&[4; 32]));
    }

    #[test]
    fn query_newest_first_with_limits() {
        let store = Store::new(10, 1 << 20);
        for n in 1..=6 {
            store.insert(event(n, if n % 2 == 0 { 1 } else { 7 }, &[]));
        }
        let mut got = Vec::new();
        // Filter 0: kind 1, limit 2; filter 1: kind 7, no limit.
        let sent = store.query(
            &[2, u64::MAX],
            |i, e| e.kind() == [1, 7][i],
            100,
            |e| got.push(e.created_at()),
        );
        assert_eq!(sent, 5);
        assert_eq!(got, [6, 5, 4, 3, 1]);
        got.clear();
        store.query(&[u64::MAX], |_, _| true, 3, |e| got.push(e.created_at()));
        assert_eq!(got, [6, 5, 4]);
    }
}
