//! REQ/COUNT filters: decoded into shared per-message tables, viewed as
//! [`Filter`]s, matched against events without building an index.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use std::fmt;

use quarry_core::bumpalo::collections::Vec as ArenaVec;
use quarry_core::{BoundedAlloc, DecodeError};

use crate::canonical::{Sink, put_string, put_u64};
use crate::decode::{Dec, key_error};
use crate::event::Event;
use crate::hex;
use crate::options::ControlChars;

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Range32 {
    start: u32,
    len: u32,
}

impl Range32 {
    #[expect(clippy::arithmetic_side_effects, reason = "two u32s fit a usize sum")]
    fn of<T>(self, pool: &[T]) -> &[T] {
        let s = self.start as usize;
        pool.get(s..s + self.len as usize).unwrap_or(&[])
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct TagListRec {
    letter: u8,
    values: Range32,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FilterRec<'a> {
    ids: Option<Range32>,
    authors: Option<Range32>,
    kinds: Option<Range32>,
    tags: Range32,
    since: Option<u64>,
    until: Option<u64>,
    limit: Option<u64>,
    search: Option<&'a str>,
}

/// The tables every filter of one message points into.
pub(crate) struct FilterPools<'a> {
    keys: &'a [[u8; 32]],
    kinds: &'a [u16],
    values: &'a [&'a str],
    tag_lists: &'a [TagListRec],
}

/// The filters of a REQ or COUNT message.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let json = br##"["REQ","feed",{"kinds":[1,6],"#t":["nostr"],"limit":20},{"authors":["6e468422dfb74a5738702a8823b9b28168abab8655faacb6853cd0ee15deee93"]}]"##;
/// let msg = quarry_nostr::decode_client_message(&arena, json)?;
/// let quarry_nostr::ClientMessage::Req { sub_id, filters } = msg else { unreachable!() };
/// assert_eq!(sub_id, "feed");
/// assert_eq!(filters.len(), 2);
/// let f = filters.get(0).unwrap();
/// assert_eq!(f.kinds(), Some(&[1u16, 6][..]));
/// assert_eq!(f.tag_values(b't'), Some(&["nostr"][..]));
/// assert_eq!(f.limit(), Some(20));
/// assert_eq!(filters.get(1).unwrap().authors().unwrap().len(), 1);
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Filters<'a> {
    recs: &'a [FilterRec<'a>],
    pools: &'a FilterPools<'a>,
}

impl<'a> Filters<'a> {
    /// Number of filters.
    pub fn len(self) -> usize {
        self.recs.len()
    }

    /// True when the message carried no filter.
    pub fn is_empty(self) -> bool {
        self.recs.is_empty()
    }

    /// Filter `i`.
    pub fn get(self, i: usize) -> Option<Filter<'a>> {
        Some(Filter {
            rec: self.recs.get(i)?,
            pools: self.pools,
        })
    }

    /// The filters, in wire order.
    pub fn iter(self) -> impl ExactSizeIterator<Item = Filter<'a>> {
        let pools = self.pools;
        self.recs.iter().map(move |rec| Filter { rec, pools })
    }

    /// Whether any filter matches `event` (filters are OR'd).
    pub fn matches(self, event: Event<'_>) -> bool {
        self.iter().any(|f| f.matches(event))
    }
}

/// Equal when they hold equal filters in the same order.
impl PartialEq for Filters<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Filters<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One filter: lists are OR'd inside, members AND'ed.
#[derive(Clone, Copy)]
pub struct Filter<'a> {
    rec: &'a FilterRec<'a>,
    pools: &'a FilterPools<'a>,
}

impl<'a> Filter<'a> {
    /// `ids`, when present.
    pub fn ids(self) -> Option<&'a [[u8; 32]]> {
        self.rec.ids.map(|r| r.of(self.pools.keys))
    }

    /// `authors`, when present.
    pub fn authors(self) -> Option<&'a [[u8; 32]]> {
        self.rec.authors.map(|r| r.of(self.pools.keys))
    }

    /// `kinds`, when present.
    pub fn kinds(self) -> Option<&'a [u16]> {
        self.rec.kinds.map(|r| r.of(self.pools.kinds))
    }

    /// `since` (inclusive).
    pub fn since(self) -> Option<u64> {
        self.rec.since
    }

    /// `until` (inclusive).
    pub fn until(self) -> Option<u64> {
        self.rec.until
    }

    /// `limit`.
    pub fn limit(self) -> Option<u64> {
        self.rec.limit
    }

    /// `search` (NIP-50).
    pub fn search(self) -> Option<&'a str> {
        self.rec.search
    }

    /// The values of `#letter`, when present.
    pub fn tag_values(self, letter: u8) -> Option<&'a [&'a str]> {
        self.tag_lists()
            .find(|(l, _)| *l == letter)
            .map(|(_, values)| values)
    }

    /// Every `#x` member: the letter and its values, in wire order.
    pub fn tag_lists(self) -> impl Iterator<Item = (u8, &'a [&'a str])> {
        let pools = self.pools;
        self.rec
            .tags
            .of(pools.tag_lists)
            .iter()
            .map(move |t| (t.letter, t.values.of(pools.values)))
    }

    /// Whether `event` matches. NIP-01's conditions: an id, author or kind
    /// in its list (an empty list has no value to match, so it matches no
    /// event), `since <= created_at <= until`, and for each `#x` list a
    /// tag `x` whose value is in it. NIP-50's `search` as rust-nostr
    /// matches it: the query is a substring of the content, ASCII letters
    /// compared without case, and an empty query matches every event.
    /// `limit` is not an event condition. Tag conditions use the event's
    /// single-letter index, so nothing is allocated.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let event = quarry_nostr::decode_event(&arena, quarry_nostr::SAMPLE_EVENT.as_bytes())?;
    /// let req = br##"["REQ","s",{"kinds":[1],"#p":["bf2376e17ba4ec269d10fcc996a4746b451152be9031fa48e74553dde5526bce"]}]"##;
    /// let quarry_nostr::ClientMessage::Req { filters, .. } = quarry_nostr::decode_client_message(&arena, req)? else { unreachable!() };
    /// assert!(filters.get(0).unwrap().matches(event));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn matches(self, event: Event<'_>) -> bool {
        if self.ids().is_some_and(|ids| !ids.contains(event.id()))
            || self.authors().is_some_and(|a| !a.contains(event.pubkey()))
            || self.kinds().is_some_and(|k| !k.contains(&event.kind()))
            || self.since().is_some_and(|s| event.created_at() < s)
            || self.until().is_some_and(|u| event.created_at() > u)
            || self
                .search()
                .is_some_and(|q| !contains_ignoring_ascii_case(event.content(), q))
        {
            return false;
        }
        let tags = event.tags();
        self.tag_lists().all(|(letter, values)| {
            tags.has_letter(letter) && tags.letter_values(letter).any(|v| values.contains(&v))
        })
    }

    /// Write the filter as a compact JSON object, its lists as `lists`
    /// says.
    pub(crate) fn put_json<S: Sink>(self, out: &mut S, lists: FilterLists) {
        let mut sep = Sep::default();
        out.put(b"{");
        // Both forms keep rust-nostr's member order (its struct's fields,
        // then the `#x` lists flattened after them), so that a filter it
        // wrote comes back byte for byte as received.
        match lists {
            FilterLists::AsReceived => {
                put_keys(out, &mut sep, b"\"ids\"", self.ids());
                put_keys(out, &mut sep, b"\"authors\"", self.authors());
                put_kinds(out, &mut sep, self.kinds());
                self.put_scalars(out, &mut sep);
                for (letter, values) in self.tag_lists() {
                    put_values(out, &mut sep, letter, values);
                }
            }
            FilterLists::Sets => {
                put_keys(out, &mut sep, b"\"ids\"", self.ids().map(set_of).as_deref());
                let authors = self.authors().map(set_of);
                put_keys(out, &mut sep, b"\"authors\"", authors.as_deref());
                put_kinds(out, &mut sep, self.kinds().map(set_of).as_deref());
                self.put_scalars(out, &mut sep);
                let mut tag_lists: Vec<(u8, &[&str])> = self.tag_lists().collect();
                tag_lists.sort_unstable_by_key(|&(letter, _)| letter_order(letter));
                for (letter, values) in tag_lists {
                    put_values(out, &mut sep, letter, &set_of(values));
                }
            }
        }
        out.put(b"}");
    }

    /// `search`, `since`, `until` and `limit`, in that order (rust-nostr's).
    fn put_scalars<S: Sink>(self, out: &mut S, sep: &mut Sep) {
        if let Some(s) = self.search() {
            sep.next(out);
            out.put(b"\"search\":");
            put_string(out, s, ControlChars::Escape);
        }
        for (name, v) in [
            (&b"\"since\":"[..], self.since()),
            (b"\"until\":", self.until()),
            (b"\"limit\":", self.limit()),
        ] {
            if let Some(v) = v {
                sep.next(out);
                out.put(name);
                put_u64(out, v);
            }
        }
    }
}

/// How a filter's lists (`ids`, `authors`, `kinds`, each `#x`) are
/// written back to JSON.
///
/// NIP-01 gives them the meaning of sets (a filter asks for any of the
/// values), so both forms describe the same filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FilterLists {
    /// As they came: input order, repeats kept, the `#x` lists in the
    /// order they came. The members in rust-nostr's order (`ids`,
    /// `authors`, `kinds`, `search`, `since`, `until`, `limit`, then the
    /// `#x` lists), so a filter rust-nostr wrote comes out as it was.
    #[default]
    AsReceived,
    /// As sets, the form rust-nostr's `as_json()` writes: each list
    /// sorted (ids and keys by their bytes, kinds by number, tag values by
    /// their UTF-8 bytes) with repeats dropped, and the members in
    /// rust-nostr's order (`ids`, `authors`, `kinds`, `search`, `since`,
    /// `until`, `limit`, then the `#x` lists by letter, `a` < `A` < `b`).
    /// Sorting allocates a temporary vector per list.
    Sets,
}

/// The values of `list`, sorted, each once.
fn set_of<T: Ord + Copy>(list: &[T]) -> Vec<T> {
    let mut set = list.to_vec();
    set.sort_unstable();
    set.dedup();
    set
}

/// rust-nostr's order of single-letter tags: by letter regardless of case,
/// the lower-case one first.
fn letter_order(letter: u8) -> (u8, bool) {
    (letter.to_ascii_lowercase(), letter.is_ascii_uppercase())
}

fn put_keys<S: Sink>(out: &mut S, sep: &mut Sep, name: &[u8], list: Option<&[[u8; 32]]>) {
    let Some(list) = list else { return };
    sep.next(out);
    out.put(name);
    out.put(b":[");
    for (i, k) in list.iter().enumerate() {
        if i > 0 {
            out.put(b",");
        }
        let h: [u8; 64] = hex::encode(k);
        out.put(b"\"");
        out.put(&h);
        out.put(b"\"");
    }
    out.put(b"]");
}

fn put_kinds<S: Sink>(out: &mut S, sep: &mut Sep, kinds: Option<&[u16]>) {
    let Some(kinds) = kinds else { return };
    sep.next(out);
    out.put(b"\"kinds\":[");
    for (i, k) in kinds.iter().enumerate() {
        if i > 0 {
            out.put(b",");
        }
        put_u64(out, u64::from(*k));
    }
    out.put(b"]");
}

fn put_values<S: Sink>(out: &mut S, sep: &mut Sep, letter: u8, values: &[&str]) {
    sep.next(out);
    out.put(&[b'"', b'#', letter, b'"', b':', b'[']);
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.put(b",");
        }
        put_string(out, v, ControlChars::Escape);
    }
    out.put(b"]");
}

#[derive(Default)]
struct Sep(bool);

impl Sep {
    fn next<S: Sink>(&mut self, out: &mut S) {
        if self.0 {
            out.put(b",");
        }
        self.0 = true;
    }
}

/// Value equality, member by member, lists in wire order (`[1,7]` and
/// `[7,1]` differ, as they do on the wire).
impl PartialEq for Filter<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.ids() == other.ids()
            && self.authors() == other.authors()
            && self.kinds() == other.kinds()
            && self.since() == other.since()
            && self.until() == other.until()
            && self.limit() == other.limit()
            && self.search() == other.search()
            && self.tag_lists().eq(other.tag_lists())
    }
}

impl fmt::Debug for Filter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.put_json(&mut out, FilterLists::AsReceived);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

/// Push with doubling growth, charging the budget for each new buffer.
#[expect(
    clippy::arithmetic_side_effects,
    reason = "a table holds fewer entries than input bytes; its doubled capacity times a record of at most 112 bytes fits"
)]
fn push<'a, T>(
    alloc: &BoundedAlloc<'a>,
    v: &mut ArenaVec<'a, T>,
    x: T,
    at: usize,
) -> Result<(), DecodeError> {
    if v.len() == v.capacity() {
        let add = v.capacity().max(4);
        alloc.charge((v.capacity() + add) * size_of::<T>(), at)?;
        v.reserve_exact(add);
    }
    v.push(x);
    Ok(())
}

/// The growing tables while a message's filters are read.
struct Building<'a> {
    recs: ArenaVec<'a, FilterRec<'a>>,
    keys: ArenaVec<'a, [u8; 32]>,
    kinds: ArenaVec<'a, u16>,
    values: ArenaVec<'a, &'a str>,
    tag_lists: ArenaVec<'a, TagListRec>,
}

impl<'a> Building<'a> {
    fn new(bump: &'a quarry_core::bumpalo::Bump) -> Self {
        Self {
            recs: ArenaVec::new_in(bump),
            keys: ArenaVec::new_in(bump),
            kinds: ArenaVec::new_in(bump),
            values: ArenaVec::new_in(bump),
            tag_lists: ArenaVec::new_in(bump),
        }
    }
}

const IDS: u16 = 1;
const AUTHORS: u16 = 2;
const KINDS: u16 = 4;
const SINCE: u16 = 8;
const UNTIL: u16 = 16;
const LIMIT: u16 = 32;
const SEARCH: u16 = 64;

/// Whether `bytes` is the UTF-8 of exactly one character.
fn is_one_char(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|s| s.chars().count() == 1)
}

impl<'a> Dec<'a, '_> {
    /// Zero or more filter objects up to the message's closing `]`; `pos`
    /// after the element before them.
    pub(crate) fn filters(&mut self) -> Result<Filters<'a>, DecodeError> {
        let mut b = Building::new(self.alloc.bump());
        while self.r.comma_or(b']', "expected ',' or ']'")? {
            self.filter_into(&mut b)?;
        }
        self.finish_filters(b)
    }

    /// Exactly one filter object (NEG-OPEN); `pos` before it.
    pub(crate) fn one_filter(&mut self) -> Result<Filters<'a>, DecodeError> {
        let mut b = Building::new(self.alloc.bump());
        self.filter_into(&mut b)?;
        self.finish_filters(b)
    }

    fn filter_into(&mut self, b: &mut Building<'a>) -> Result<(), DecodeError> {
        self.r.ws();
        let at = self.r.pos;
        let rec = self.filter(b)?;
        self.count_items(1, at)?;
        push(self.alloc, &mut b.recs, rec, at)
    }

    fn finish_filters(&mut self, b: Building<'a>) -> Result<Filters<'a>, DecodeError> {
        let pools = self.alloc.alloc(
            FilterPools {
                keys: b.keys.into_bump_slice(),
                kinds: b.kinds.into_bump_slice(),
                values: b.values.into_bump_slice(),
                tag_lists: b.tag_lists.into_bump_slice(),
            },
            self.r.pos,
        )?;
        Ok(Filters {
            recs: b.recs.into_bump_slice(),
            pools,
        })
    }

    /// One filter object (depth 2 in its message, whose array is depth 1).
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past peeked bytes; a range's length is a table's length minus its earlier length; letter is a checked ASCII letter"
    )]
    fn filter(&mut self, b: &mut Building<'a>) -> Result<FilterRec<'a>, DecodeError> {
        self.r.ws();
        if self.r.peek() != Some(b'{') {
            return Err(self.r.err("expected a filter object"));
        }
        self.depth_check(2)?;
        self.r.pos += 1;
        let mut rec = FilterRec::default();
        let mut seen = 0u16;
        let mut letters = 0u64;
        let tags_start = b.tag_lists.len();
        self.r.ws();
        if self.r.peek() == Some(b'}') {
            self.r.pos += 1;
            return Ok(rec);
        }
        loop {
            self.r.ws();
            let key_at = self.r.pos;
            let key = self.key()?;
            self.r.expect(b':', "expected ':'")?;
            self.r.ws();
            let bit = match key {
                b"ids" => IDS,
                b"authors" => AUTHORS,
                b"kinds" => KINDS,
                b"since" => SINCE,
                b"until" => UNTIL,
                b"limit" => LIMIT,
                b"search" => SEARCH,
                _ => 0,
            };
            let dup = || key_error(key_at, "duplicate member in filter", key);
            if seen & bit != 0 {
                return Err(dup());
            }
            seen |= bit;
            match (bit, key) {
                (IDS | AUTHORS, _) => {
                    let start = b.keys.len();
                    self.list(|d| {
                        let at = d.r.pos;
                        let k = d.hex::<32>("ids and authors must be 64 hex digits")?;
                        push(d.alloc, &mut b.keys, k, at)
                    })?;
                    let r = Some(Range32 {
                        start: start as u32,
                        len: (b.keys.len() - start) as u32,
                    });
                    if bit == IDS {
                        rec.ids = r;
                    } else {
                        rec.authors = r;
                    }
                }
                (KINDS, _) => {
                    let start = b.kinds.len();
                    self.list(|d| {
                        let at = d.r.pos;
                        let k = d.kind()?;
                        push(d.alloc, &mut b.kinds, k, at)
                    })?;
                    rec.kinds = Some(Range32 {
                        start: start as u32,
                        len: (b.kinds.len() - start) as u32,
                    });
                }
                (SINCE, _) => rec.since = Some(self.r.u64("since must be an integer")?),
                (UNTIL, _) => rec.until = Some(self.r.u64("until must be an integer")?),
                (LIMIT, _) => rec.limit = Some(self.r.u64("limit must be an integer")?),
                (SEARCH, _) => rec.search = Some(self.r.string(self.alloc)?),
                (_, [b'#', letter]) if letter.is_ascii_alphabetic() => {
                    let letter = *letter;
                    let lb = if letter.is_ascii_lowercase() {
                        1u64 << (letter - b'a')
                    } else {
                        1u64 << (26 + letter - b'A')
                    };
                    if letters & lb != 0 {
                        return Err(dup());
                    }
                    letters |= lb;
                    let start = b.values.len();
                    self.list(|d| {
                        d.r.ws();
                        let at = d.r.pos;
                        let s = d.r.string(d.alloc)?;
                        push(d.alloc, &mut b.values, s, at)
                    })?;
                    push(
                        self.alloc,
                        &mut b.tag_lists,
                        TagListRec {
                            letter,
                            values: Range32 {
                                start: start as u32,
                                len: (b.values.len() - start) as u32,
                            },
                        },
                        key_at,
                    )?;
                }
                // `#` and one other character: a tag condition on a name
                // NIP-01 does not allow. Skipping it would widen the
                // subscription; rust-nostr rejects it too.
                (_, [b'#', rest @ ..]) if is_one_char(rest) => {
                    return Err(key_error(
                        key_at,
                        "a tag condition's key must be '#' and one letter a-z or A-Z",
                        key,
                    ));
                }
                _ => self.r.skip_value(3, self.cfg.options.max_depth)?,
            }
            if !self.r.comma_or(b'}', "expected ',' or '}'")? {
                break;
            }
        }
        rec.tags = Range32 {
            start: tags_start as u32,
            len: (b.tag_lists.len() - tags_start) as u32,
        };
        Ok(rec)
    }

    /// A JSON array (a filter's list, depth 3) whose items `item` reads;
    /// `pos` at the `[` (checked).
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past a peeked byte"
    )]
    fn list(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        if self.r.peek() != Some(b'[') {
            return Err(self.r.err("expected an array"));
        }
        self.depth_check(3)?;
        self.r.pos += 1;
        self.r.ws();
        if self.r.peek() == Some(b']') {
            self.r.pos += 1;
            return Ok(());
        }
        loop {
            self.r.ws();
            let at = self.r.pos;
            self.count_items(1, at)?;
            item(self)?;
            if !self.r.comma_or(b']', "expected ',' or ']'")? {
                return Ok(());
            }
        }
    }
}

/// Whether `query` occurs in `text`, ASCII letters compared without case
/// (other characters byte for byte); the empty query occurs in every text.
fn contains_ignoring_ascii_case(text: &str, query: &str) -> bool {
    let query = query.as_bytes();
    query.is_empty()
        || text
            .as_bytes()
            .windows(query.len())
            .any(|window| window.eq_ignore_ascii_case(query))
}

impl<'a> Filter<'a> {
    /// True when the filter has no condition at all (`{}`; rust-nostr's
    /// `Filter::is_empty`): it matches every event.
    pub fn is_empty(self) -> bool {
        self.ids().is_none()
            && self.authors().is_none()
            && self.kinds().is_none()
            && self.since().is_none()
            && self.until().is_none()
            && self.limit().is_none()
            && self.search().is_none()
            && self.tag_lists().next().is_none()
    }

    /// The filter alone as a compact JSON object, its lists as they came
    /// (see [`FilterLists`]).
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let f = quarry_nostr::decode_filter(&arena, br##"{ "kinds": [1], "#t": ["nostr"] }"##)?;
    /// assert_eq!(f.encode(), br##"{"kinds":[1],"#t":["nostr"]}"##);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn encode(self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into_as(&mut out, FilterLists::AsReceived);
        out
    }

    /// Append the filter alone to `out`, its lists as `lists` says:
    /// [`FilterLists::Sets`] writes what rust-nostr's `Filter::as_json`
    /// writes, byte for byte.
    pub fn encode_into_as(self, out: &mut Vec<u8>, lists: FilterLists) {
        self.put_json(out, lists);
    }
}

/// Builds one filter into an arena, as rust-nostr's `Filter::new()` and its
/// chained calls do: each list is a set (a value given twice is kept
/// once, in the order first given), calls on the same list add to it, and
/// a list given empty is present and empty (which matches no event;
/// docs/nostr.md). [`build`](Self::build) gives the [`Filter`] view a
/// decode gives, so matching and encoding apply.
///
/// ```
/// use quarry_nostr::{FilterBuilder, FilterLists, Kind};
///
/// let arena = quarry_core::Arena::new();
/// let f = FilterBuilder::new(&arena)
///     .kind(Kind::TEXT_NOTE)
///     .hashtags(["rust", "nostr"])
///     .since(1_700_000_000)
///     .limit(20)
///     .build();
/// let mut json = Vec::new();
/// f.encode_into_as(&mut json, FilterLists::Sets);
/// assert_eq!(json, br##"{"kinds":[1],"since":1700000000,"limit":20,"#t":["nostr","rust"]}"##);
/// ```
pub struct FilterBuilder<'a> {
    bump: &'a quarry_core::bumpalo::Bump,
    ids: Option<ArenaVec<'a, [u8; 32]>>,
    authors: Option<ArenaVec<'a, [u8; 32]>>,
    kinds: Option<ArenaVec<'a, u16>>,
    /// Every tag value, with its letter, in the order given.
    values: ArenaVec<'a, (u8, &'a str)>,
    /// The letters with a list (even an empty one), in the order first
    /// given.
    letters: ArenaVec<'a, u8>,
    since: Option<u64>,
    until: Option<u64>,
    limit: Option<u64>,
    search: Option<&'a str>,
}

fn add_once<'a, T: PartialEq>(
    bump: &'a quarry_core::bumpalo::Bump,
    list: &mut Option<ArenaVec<'a, T>>,
    items: impl IntoIterator<Item = T>,
) {
    let list = list.get_or_insert_with(|| ArenaVec::new_in(bump));
    for x in items {
        if !list.contains(&x) {
            list.push(x);
        }
    }
}

impl<'a> FilterBuilder<'a> {
    /// A filter with no condition, built in `arena`.
    pub fn new(arena: &'a quarry_core::Arena) -> Self {
        let bump = arena.bump();
        Self {
            bump,
            ids: None,
            authors: None,
            kinds: None,
            values: ArenaVec::new_in(bump),
            letters: ArenaVec::new_in(bump),
            since: None,
            until: None,
            limit: None,
            search: None,
        }
    }

    /// Add an event id to `ids`.
    pub fn id(self, id: &[u8; 32]) -> Self {
        self.ids([id])
    }

    /// Add event ids to `ids` (present, even when `ids` is empty).
    pub fn ids<'k>(mut self, ids: impl IntoIterator<Item = &'k [u8; 32]>) -> Self {
        add_once(self.bump, &mut self.ids, ids.into_iter().copied());
        self
    }

    /// Add a public key to `authors`.
    pub fn author(self, pubkey: &[u8; 32]) -> Self {
        self.authors([pubkey])
    }

    /// Add public keys to `authors` (present, even when empty).
    pub fn authors<'k>(mut self, pubkeys: impl IntoIterator<Item = &'k [u8; 32]>) -> Self {
        add_once(self.bump, &mut self.authors, pubkeys.into_iter().copied());
        self
    }

    /// Add a kind to `kinds`.
    pub fn kind(self, kind: impl Into<crate::Kind>) -> Self {
        self.kinds([kind.into()])
    }

    /// Add kinds to `kinds` (present, even when empty).
    pub fn kinds<K: Into<crate::Kind>>(mut self, kinds: impl IntoIterator<Item = K>) -> Self {
        let kinds = kinds.into_iter().map(|k| k.into().as_u16());
        add_once(self.bump, &mut self.kinds, kinds);
        self
    }

    /// Add `value` to the `#letter` list. A `letter` that is not an ASCII
    /// letter adds nothing: NIP-01 indexes single-letter tags only.
    pub fn custom_tag(self, letter: u8, value: &str) -> Self {
        self.custom_tags(letter, [value])
    }

    /// Add `values` to the `#letter` list (present, even when empty).
    pub fn custom_tags<'s>(
        mut self,
        letter: u8,
        values: impl IntoIterator<Item = &'s str>,
    ) -> Self {
        if !letter.is_ascii_alphabetic() {
            return self;
        }
        if !self.letters.contains(&letter) {
            self.letters.push(letter);
        }
        for v in values {
            if !self.values.iter().any(|&(l, x)| l == letter && x == v) {
                let v: &'a str = self.bump.alloc_str(v);
                self.values.push((letter, v));
            }
        }
        self
    }

    /// Add an event id to `#e`.
    pub fn event(self, id: &[u8; 32]) -> Self {
        self.events([id])
    }

    /// Add event ids to `#e`.
    pub fn events<'k>(self, ids: impl IntoIterator<Item = &'k [u8; 32]>) -> Self {
        self.hex_tags(b'e', ids)
    }

    /// Add a public key to `#p`.
    pub fn pubkey(self, pubkey: &[u8; 32]) -> Self {
        self.pubkeys([pubkey])
    }

    /// Add public keys to `#p`.
    pub fn pubkeys<'k>(self, pubkeys: impl IntoIterator<Item = &'k [u8; 32]>) -> Self {
        self.hex_tags(b'p', pubkeys)
    }

    fn hex_tags<'k>(mut self, letter: u8, keys: impl IntoIterator<Item = &'k [u8; 32]>) -> Self {
        self = self.custom_tags(letter, []);
        for k in keys {
            let h: [u8; 64] = hex::encode(k);
            self = self.custom_tag(letter, std::str::from_utf8(&h).unwrap_or_default());
        }
        self
    }

    /// Add a hashtag to `#t`, as given (a filter's hashtag is not
    /// lower-cased, in rust-nostr either; a built event's tag is).
    pub fn hashtag(self, hashtag: &str) -> Self {
        self.custom_tag(b't', hashtag)
    }

    /// Add hashtags to `#t`, as given.
    pub fn hashtags<'s>(self, hashtags: impl IntoIterator<Item = &'s str>) -> Self {
        self.custom_tags(b't', hashtags)
    }

    /// Add a tag's indexed value (element 1) to `#<its name>` when its name
    /// is one ASCII letter and it has a value; otherwise nothing
    /// (rust-nostr's `Filter::tag`).
    pub fn tag(self, tag: crate::Tag<'_>) -> Self {
        match (tag.name().as_bytes(), tag.value()) {
            (&[letter], Some(value)) => self.custom_tag(letter, value),
            _ => self,
        }
    }

    /// Add an identifier to `#d`.
    pub fn identifier(self, identifier: &str) -> Self {
        self.custom_tag(b'd', identifier)
    }

    /// Add identifiers to `#d`.
    pub fn identifiers<'s>(self, identifiers: impl IntoIterator<Item = &'s str>) -> Self {
        self.custom_tags(b'd', identifiers)
    }

    /// Add a reference (a URL, say) to `#r`.
    pub fn reference(self, reference: &str) -> Self {
        self.custom_tag(b'r', reference)
    }

    /// `since` (inclusive).
    pub fn since(mut self, secs: u64) -> Self {
        self.since = Some(secs);
        self
    }

    /// `until` (inclusive).
    pub fn until(mut self, secs: u64) -> Self {
        self.until = Some(secs);
        self
    }

    /// `limit`.
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = Some(limit);
        self
    }

    /// `search` (NIP-50).
    pub fn search(mut self, query: &str) -> Self {
        self.search = Some(self.bump.alloc_str(query));
        self
    }

    /// The filter, in the arena.
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "table lengths are counts of values the caller gave, far below u32::MAX"
    )]
    pub fn build(self) -> Filter<'a> {
        let bump = self.bump;
        let mut keys = ArenaVec::new_in(bump);
        let range = |keys: &mut ArenaVec<'a, [u8; 32]>, list: Option<ArenaVec<'a, [u8; 32]>>| {
            list.map(|l| {
                let start = keys.len();
                keys.extend_from_slice(&l);
                Range32 {
                    start: start as u32,
                    len: l.len() as u32,
                }
            })
        };
        let ids = range(&mut keys, self.ids);
        let authors = range(&mut keys, self.authors);
        let (kinds, kinds_range) = match self.kinds {
            Some(k) => {
                let len = k.len() as u32;
                (k.into_bump_slice(), Some(Range32 { start: 0, len }))
            }
            None => (&[][..], None),
        };
        let mut values = ArenaVec::with_capacity_in(self.values.len(), bump);
        let mut tag_lists = ArenaVec::with_capacity_in(self.letters.len(), bump);
        for &letter in &self.letters {
            let start = values.len();
            values.extend(
                self.values
                    .iter()
                    .filter(|&&(l, _)| l == letter)
                    .map(|&(_, v)| v),
            );
            tag_lists.push(TagListRec {
                letter,
                values: Range32 {
                    start: start as u32,
                    len: (values.len() - start) as u32,
                },
            });
        }
        let ntags = tag_lists.len() as u32;
        let pools = bump.alloc(FilterPools {
            keys: keys.into_bump_slice(),
            kinds,
            values: values.into_bump_slice(),
            tag_lists: tag_lists.into_bump_slice(),
        });
        let rec = bump.alloc(FilterRec {
            ids,
            authors,
            kinds: kinds_range,
            tags: Range32 {
                start: 0,
                len: ntags,
            },
            since: self.since,
            until: self.until,
            limit: self.limit,
            search: self.search,
        });
        Filter { rec, pools }
    }
}

impl crate::options::Decoder {
    /// Decode one filter object alone (rust-nostr's `Filter::from_json`),
    /// as a REQ's filter is read: the same members, checks and limits, its
    /// object counted at depth 1.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let f = quarry_nostr::Decoder::new().decode_filter(&arena, br#"{"kinds":[0,3],"limit":1}"#)?;
    /// assert_eq!(f.kinds(), Some(&[0u16, 3][..]));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_filter<'a>(
        &self,
        arena: &'a quarry_core::Arena,
        input: &'a [u8],
    ) -> Result<Filter<'a>, DecodeError> {
        // The filter reader counts a filter's object at depth 2, where it
        // stands in a REQ; one more level allowed keeps the bare filter's
        // count at 1.
        let mut cfg = *self;
        cfg.options.max_depth = cfg.options.max_depth.saturating_add(1);
        let alloc = BoundedAlloc::new(arena, &self.options);
        let mut d = Dec::new(arena, &alloc, &cfg, input)?;
        let filters = d
            .one_filter()
            .and_then(|filters| d.finish().map(|()| filters))
            .map_err(|e| crate::reader::Reader::fail(input, e))?;
        filters.get(0).ok_or(DecodeError::UnexpectedEof {
            offset: input.len(),
        })
    }
}

/// Decode one filter object alone with the default
/// [`Decoder`](crate::Decoder) (rust-nostr's `Filter::from_json`).
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let f = quarry_nostr::decode_filter(&arena, br##"{"#e":["a"],"search":"x"}"##)?;
/// assert_eq!(f.tag_values(b'e'), Some(&["a"][..]));
/// assert_eq!(f.search(), Some("x"));
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn decode_filter<'a>(
    arena: &'a quarry_core::Arena,
    input: &'a [u8],
) -> Result<Filter<'a>, DecodeError> {
    crate::options::Decoder::new().decode_filter(arena, input)
}
