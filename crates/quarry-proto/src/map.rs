//! Map fields: one entry per key, the last one read (protobuf's rule), and
//! the iterator generated map getters return.
//!
//! A map field is stored as a repeated field of entry records. When the
//! decoder builds a map field's array of two or more entries it calls
//! [`last_per_key`], which drops every entry a later entry with the same
//! key overrides and keeps the others in input order. Readers (generated
//! getters, the encoder, the JSON and text printers) then see each key
//! once; [`MapIter::get`] scans the entries for a key.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use std::marker::PhantomData;
use std::sync::OnceLock;

use quarry_core::{BoundedAlloc, DecodeError};

use crate::record::{Messages, Record, Slot, Val};
use crate::table::{Kind, MessageTable};

/// A map entry's key, as compared: integers normalized to 64 bits (as
/// [`Record::scalar`] holds them), `bool` as 0 or 1, strings and bytes as
/// bytes. An entry without a key has its type's default.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key<'a> {
    Int(u64),
    Bytes(&'a [u8]),
}

/// How to read the key of entries of one map type.
#[derive(Clone, Copy)]
struct KeyReader {
    /// The key field's index in the entry's table (`None`: every key is
    /// the default).
    field: Option<u32>,
    kind: Option<Kind>,
}

impl KeyReader {
    fn new(entry: &MessageTable) -> Self {
        let field = entry.field_index(1);
        let kind = field
            .and_then(|k| entry.fields.get(k as usize))
            .map(|f| f.kind);
        Self { field, kind }
    }

    /// The key of the entry whose record is `slots`: its key field found
    /// once, whatever the key's kind. Out of line: one copy serves the
    /// pairwise and the hashed search.
    #[inline(never)]
    fn key<'a>(self, slots: &'a [Slot<'a>]) -> Key<'a> {
        let Some(k) = self.field else {
            return Key::Int(0);
        };
        let val = Record::new(slots).find(k).map(Slot::val);
        match (self.kind, val) {
            (Some(Kind::String | Kind::Bytes), Some(Val::Bytes(b))) => Key::Bytes(b),
            (Some(Kind::String | Kind::Bytes), Some(Val::Str(s))) => Key::Bytes(s.as_bytes()),
            (Some(Kind::String | Kind::Bytes), _) => Key::Bytes(&[]),
            (Some(Kind::Bool), Some(Val::Scalar(v))) => Key::Int(u64::from(v != 0)),
            (_, Some(Val::Scalar(v))) => Key::Int(v),
            _ => Key::Int(0),
        }
    }
}

/// Maps of at most this many entries are checked pair by pair.
const PAIRWISE: usize = 16;
/// Maps of at most this many entries take their hash table on the stack
/// (two table cells per map entry).
const STACK_ENTRIES: usize = 1024;

/// Keep, of `entries` (the elements of a map field of entry type `entry`,
/// in input order), the last entry of each key, in the order those entries
/// came, and return where the kept entries start: they are moved to the
/// end of `entries`, which stays the same length.
///
/// Small maps compare their keys pair by pair, keys in strictly increasing
/// order (what a sorted map writes) are unique as they stand, and the rest
/// go through an open-addressing table of positions with a per-process
/// random seed: linear in the entries. Up to `STACK_ENTRIES` entries the
/// table is on the stack; above, it takes 8 to 16 bytes per entry of
/// `alloc`'s arena (charged to the decode's bound: an entry is two input
/// bytes or more), so a reused arena still allocates nothing. `at` is the
/// input offset an arena limit error reports.
pub(crate) fn last_per_key<'a>(
    alloc: &BoundedAlloc<'_>,
    entry: &MessageTable,
    entries: &mut [&'a [Slot<'a>]],
    at: usize,
) -> Result<usize, DecodeError> {
    let n = entries.len();
    if n < 2 {
        return Ok(0);
    }
    let reader = KeyReader::new(entry);
    if n <= PAIRWISE {
        return Ok(keep_last(entries, |kept, slots| {
            let key = reader.key(slots);
            kept.iter().any(|e| reader.key(e) == key)
        }));
    }
    if ascending(reader, entries) {
        return Ok(0);
    }
    let cap = n.saturating_mul(2).next_power_of_two();
    if n <= STACK_ENTRIES {
        let mut table = [0u32; 2 * STACK_ENTRIES];
        let table = table.get_mut(..cap).unwrap_or_default();
        Ok(dedup_hashed(reader, entries, table))
    } else {
        let table = alloc.alloc_slice_fill_copy(cap, 0u32, at)?;
        Ok(dedup_hashed(reader, entries, table))
    }
}

/// Walk `entries` from the last, moving each one `seen` does not report
/// (given the entries kept so far, which follow it) to the front of the
/// kept suffix. Returns where the suffix starts.
#[inline]
fn keep_last<'a>(
    entries: &mut [&'a [Slot<'a>]],
    mut seen: impl FnMut(&[&'a [Slot<'a>]], &'a [Slot<'a>]) -> bool,
) -> usize {
    let mut w = entries.len();
    for i in (0..entries.len()).rev() {
        let Some(&slots) = entries.get(i) else {
            break;
        };
        if seen(entries.get(w..).unwrap_or_default(), slots) {
            continue;
        }
        // `w > i` here, so the entries before `i`, still to walk, stay.
        w = w.saturating_sub(1);
        if let Some(dst) = entries.get_mut(w) {
            *dst = slots;
        }
    }
    w
}

/// True if the keys of `entries` strictly increase (so are unique), in an
/// order of [`Key`] (integers by their 64 bits, bytes bytewise).
fn ascending(reader: KeyReader, entries: &[&[Slot<'_>]]) -> bool {
    let mut prev = None;
    for e in entries {
        let key = reader.key(e);
        let up = match (prev, key) {
            (None, _) => true,
            (Some(Key::Int(a)), Key::Int(b)) => a < b,
            (Some(Key::Bytes(a)), Key::Bytes(b)) => a < b,
            _ => false,
        };
        if !up {
            return false;
        }
        prev = Some(key);
    }
    true
}

/// [`last_per_key`] through `table` (zeroed, a power of two at least twice
/// the entries): linear probing from each key's hash.
/// A cell of the table is 0 for none, otherwise one past the position (in
/// `entries`) of a kept entry.
fn dedup_hashed(reader: KeyReader, entries: &mut [&[Slot<'_>]], table: &mut [u32]) -> usize {
    let mask = table.len().saturating_sub(1);
    let seed = seed();
    let mut w = entries.len();
    for i in (0..entries.len()).rev() {
        let Some(&slots) = entries.get(i) else {
            break;
        };
        let key = reader.key(slots);
        let mut at = hash(seed, key) as usize & mask;
        let fresh = loop {
            let Some(cell) = table.get(at).copied() else {
                break false;
            };
            match (cell as usize).checked_sub(1) {
                None => break true,
                Some(p) if entries.get(p).is_some_and(|e| reader.key(e) == key) => break false,
                Some(_) => at = at.wrapping_add(1) & mask,
            }
        };
        if !fresh {
            continue;
        }
        w = w.saturating_sub(1);
        if let Some(dst) = entries.get_mut(w) {
            *dst = slots;
        }
        if let Some(cell) = table.get_mut(at) {
            *cell = u32::try_from(w.saturating_add(1)).unwrap_or(u32::MAX);
        }
    }
    w
}

/// The seed of the key hash, random per process, so that input cannot be
/// built to make keys collide.
fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
            | 1
    })
}

/// The high and low halves of `a * b`, folded (the mixing step of foldhash
/// and aHash's fallback).
#[inline]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a).wrapping_mul(u128::from(b));
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline]
fn hash(seed: u64, key: Key<'_>) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    match key {
        Key::Int(v) => fold(v ^ seed, K),
        Key::Bytes(b) => {
            let mut h = seed ^ (b.len() as u64);
            let mut chunks = b.chunks_exact(8);
            for c in &mut chunks {
                let mut w = [0u8; 8];
                w.copy_from_slice(c);
                h = fold(h ^ u64::from_le_bytes(w), K);
            }
            let rest = chunks.remainder();
            let mut w = [0u8; 8];
            if let Some(dst) = w.get_mut(..rest.len()) {
                dst.copy_from_slice(rest);
            }
            fold(h ^ u64::from_le_bytes(w), K)
        }
    }
}

/// A generated view of a map entry, as [`MapIter`] reads it. Implemented
/// by the code `quarry-proto-build` generates for each map entry type;
/// not meant to be implemented by hand.
pub trait MapEntry<'a>: Copy {
    /// The key as the map getter yields it (`&'a str`, `&'a [u8]`, an
    /// integer or `bool`).
    type Key: Copy;
    /// The key as [`MapIter::get`] takes it (`&str`, `&[u8]`, or the
    /// scalar).
    type Query<'q>: Copy;
    /// The value as the map getter yields it (a scalar, `&'a str`,
    /// `&'a [u8]`, a message view, an enum as the field's getter types
    /// it).
    type Value;
    /// The entry view over `rec`.
    fn entry(rec: Record<'a>) -> Self;
    /// The entry's key (its type's default when absent).
    fn map_key(self) -> Self::Key;
    /// The entry's value (its type's default when absent; an empty
    /// message for a message value).
    fn map_value(self) -> Self::Value;
    /// True if the entry's key is `key`.
    fn key_is(self, key: Self::Query<'_>) -> bool;
}

/// The entries of a map field, one per key: what a generated map getter
/// returns. Iterates `(key, value)` in the order of each key's last entry
/// in the input (the entry protobuf keeps), which is input order when no
/// key repeats, and the order the encoder writes them back in.
///
/// [`get`](Self::get) finds a key by scanning the entries (no index is
/// built): for many look-ups in a large map, collect it into a `HashMap`
/// once.
///
/// ```text
/// // map<string, int32> counts = 1; input entries "a" -> 1, "b" -> 2, "a" -> 3
/// msg.counts().get("a")                  == Some(3)
/// msg.counts().get("c")                  == None
/// msg.counts().collect::<Vec<_>>()       == [("b", 2), ("a", 3)]
/// ```
///
/// (`quarry-proto-tests`' crate documentation runs this on a generated
/// view.)
pub struct MapIter<'a, E> {
    entries: Messages<'a>,
    entry: PhantomData<E>,
}

impl<'a, E: MapEntry<'a>> MapIter<'a, E> {
    /// The entries of map field `field` of `rec`.
    #[inline]
    pub fn new(rec: Record<'a>, field: u32) -> Self {
        Self {
            entries: rec.messages(field),
            entry: PhantomData,
        }
    }

    /// The value of `key`, if the map holds it (of the entries not yet
    /// iterated).
    #[inline]
    pub fn get(&self, key: E::Query<'_>) -> Option<E::Value> {
        self.entries
            .clone()
            .map(E::entry)
            .find(|e| e.key_is(key))
            .map(E::map_value)
    }

    /// True if the map holds `key` (of the entries not yet iterated).
    #[inline]
    pub fn contains_key(&self, key: E::Query<'_>) -> bool {
        self.entries.clone().map(E::entry).any(|e| e.key_is(key))
    }
}

impl<E> Clone for MapIter<'_, E> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
            entry: PhantomData,
        }
    }
}

impl<E> std::fmt::Debug for MapIter<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapIter")
            .field("len", &self.entries.len())
            .finish()
    }
}

impl<'a, E: MapEntry<'a>> Iterator for MapIter<'a, E> {
    type Item = (E::Key, E::Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let e = E::entry(self.entries.next()?);
        Some((e.map_key(), e.map_value()))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl<'a, E: MapEntry<'a>> ExactSizeIterator for MapIter<'a, E> {}

impl<'a, E: MapEntry<'a>> DoubleEndedIterator for MapIter<'a, E> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let e = E::entry(self.entries.next_back()?);
        Some((e.map_key(), e.map_value()))
    }
}
