//! Decoding: events and the parts every message shares. One pass over the
//! input, no recursion, every table written into the arena.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use quarry_core::bumpalo::collections::Vec as ArenaVec;
use quarry_core::{Arena, ArenaBytes, BoundedAlloc, DecodeError, ItemBudget};

use crate::canonical::{self, CanonParts};
use crate::event::{Event, EventRec, IdState, TagSpan, Tags, TagsRepr, letter_bit};
use crate::hex;
use crate::options::{Decoder, IdCheck};
use crate::reader::{Reader, scan, shown};

/// Upper bound on arena bytes one decode of any input writes per input
/// byte, and the constant on top ([`ARENA_BYTES_CONST`]): see
/// [`max_arena_bytes`].
///
/// Events and messages without filters stay within the much smaller
/// [`max_event_arena_bytes`]; messages with filters (REQ, COUNT,
/// NEG-OPEN) may not. Many tiny filters (`{},{},…`) write a 112-byte
/// record per 3-byte `{},`, in a table that grows by doubling with every
/// growth charged whole: under 4 records' worth per filter, and 4 x 112 / 3
/// < 150. The constant covers the first capacity (4 entries) of each of
/// the five filter tables and the table of tables.
pub const ARENA_BYTES_PER_INPUT_BYTE: usize = 150;
/// See [`ARENA_BYTES_PER_INPUT_BYTE`].
pub const ARENA_BYTES_CONST: usize = 1024;

/// Upper bound on arena bytes one decode writes per input byte for an
/// event or a message without filters, and the constant on top
/// ([`EVENT_ARENA_BYTES_CONST`]): see [`max_event_arena_bytes`].
///
/// The element table is reserved at `16` bytes per 3 remaining input bytes
/// (an element takes at least `"",`), the tag spans at `8` bytes per 5
/// (`[""],`), strings with escapes are copied at no more than their wire
/// length, and the event record is a constant. That makes
/// `16/3 + 8/5 + 1 < 8`. Messages with filters (REQ, COUNT, NEG-OPEN) are
/// bounded by [`max_arena_bytes`] only.
pub const EVENT_ARENA_BYTES_PER_INPUT_BYTE: usize = 8;
/// See [`EVENT_ARENA_BYTES_PER_INPUT_BYTE`].
pub const EVENT_ARENA_BYTES_CONST: usize = 512;

/// The most arena bytes decoding `input_len` bytes of any input writes
/// (all the bytes are charged against `max_arena_bytes` as well).
///
/// ```
/// assert_eq!(quarry_nostr::max_arena_bytes(100), 150 * 100 + 1024);
/// ```
pub const fn max_arena_bytes(input_len: usize) -> usize {
    BOUND.of(input_len)
}

const BOUND: ArenaBytes = ArenaBytes {
    per_input_byte: ARENA_BYTES_PER_INPUT_BYTE,
    constant: ARENA_BYTES_CONST,
};

/// The most arena bytes decoding `input_len` bytes writes when they hold
/// an event or a message without filters: a bound for those (never for
/// REQ, COUNT or NEG-OPEN, which [`max_arena_bytes`] bounds), and what a
/// decode of one reserves ([`estimate_arena_bytes`]).
///
/// ```
/// assert_eq!(quarry_nostr::max_event_arena_bytes(100), 8 * 100 + 512);
/// ```
pub const fn max_event_arena_bytes(input_len: usize) -> usize {
    EVENT_BOUND.of(input_len)
}

const EVENT_BOUND: ArenaBytes = ArenaBytes {
    per_input_byte: EVENT_ARENA_BYTES_PER_INPUT_BYTE,
    constant: EVENT_ARENA_BYTES_CONST,
};

/// Arena bytes [`estimate_arena_bytes`] reserves per input byte for a
/// message with filters (REQ, COUNT, NEG-OPEN): filters keep ids, authors
/// and tag values as 32-byte arrays or borrowed strings, so a REQ writes
/// well under one byte per input byte of long lists and a few hundred
/// bytes of tables for a short one.
pub const ESTIMATE_FILTER_BYTES_PER_INPUT_BYTE: usize = 1;
/// See [`ESTIMATE_FILTER_BYTES_PER_INPUT_BYTE`].
pub const ESTIMATE_FILTER_BYTES_CONST: usize = 768;

const FILTER_ESTIMATE: ArenaBytes = ArenaBytes {
    per_input_byte: ESTIMATE_FILTER_BYTES_PER_INPUT_BYTE,
    constant: ESTIMATE_FILTER_BYTES_CONST,
};

/// The arena bytes a decode of `input` reserves in a fresh arena (one
/// allocation). For an event or a message without filters, its bound
/// [`max_event_arena_bytes`]; for a message whose verb (the first string
/// of the array) is `"REQ"`, `"COUNT"` or `"NEG-OPEN"`, an estimate,
/// [`ESTIMATE_FILTER_BYTES_PER_INPUT_BYTE`] per byte and
/// [`ESTIMATE_FILTER_BYTES_CONST`], measured on the benchmark's REQs
/// (a profile, a thread, a feed of 50 authors) with margin. Never more
/// than [`max_arena_bytes`].
///
/// What writes more than its estimate: a filter message of many small
/// filters or long lists of short entries (`{},{},…`, `"kinds":[1,2,…]`,
/// up to 150 arena bytes per input byte). Its fresh decode takes further
/// chunks from bumpalo, each at least twice the one before.
///
/// ```
/// let req = br#"["REQ","s",{"kinds":[1]}]"#;
/// assert_eq!(quarry_nostr::estimate_arena_bytes(req), req.len() + 768);
/// let close = br#"["CLOSE","s"]"#;
/// assert_eq!(quarry_nostr::estimate_arena_bytes(close), 8 * close.len() + 512);
/// ```
pub fn estimate_arena_bytes(input: &[u8]) -> usize {
    let estimate = if has_filters(input) {
        FILTER_ESTIMATE.of(input.len())
    } else {
        EVENT_BOUND.of(input.len())
    };
    estimate.min(max_arena_bytes(input.len()))
}

/// Whether `input` starts (after whitespace) like a message with filters.
fn has_filters(input: &[u8]) -> bool {
    let mut rest = input.trim_ascii_start();
    let Some((b'[', after)) = rest.split_first() else {
        return false;
    };
    rest = after.trim_ascii_start();
    [&b"\"REQ\""[..], b"\"COUNT\"", b"\"NEG-OPEN\""]
        .iter()
        .any(|verb| rest.starts_with(verb))
}

/// A fresh arena for decoding `input` once with default limits: one
/// allocation of [`estimate_arena_bytes`] bytes, made here, so the decode
/// allocates nothing (except for the filter-heavy messages described
/// there).
///
/// `Arena::new()` followed by a decode also costs one allocation, but the
/// decode's reservation then goes through bumpalo's growth path. Reuse an
/// arena ([`Arena::reset`]) where messages keep coming.
///
/// ```
/// let frame = format!(r#"["EVENT","feed",{}]"#, quarry_nostr::SAMPLE_EVENT);
/// let arena = quarry_nostr::arena_for(frame.as_bytes());
/// let reserved = arena.stats().allocated_bytes;
/// assert!(reserved >= quarry_nostr::estimate_arena_bytes(frame.as_bytes()));
/// let msg = quarry_nostr::decode_relay_message(&arena, frame.as_bytes()).unwrap();
/// assert!(msg.event().is_some());
/// assert_eq!(arena.stats().allocated_bytes, reserved);
/// ```
pub fn arena_for(input: &[u8]) -> Arena {
    quarry_core::arena_for(estimate_arena_bytes(input))
}

const ID: u8 = 1;
const PUBKEY: u8 = 2;
const CREATED_AT: u8 = 4;
const KIND: u8 = 8;
const TAGS: u8 = 16;
const CONTENT: u8 = 32;
const SIG: u8 = 64;
const ALL: u8 = 127;

/// `"name":` as a little-endian word of up to 16 bytes: the pattern, the
/// mask of its bytes and its length.
#[expect(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time for names of at most 10 bytes, where an index out of range or an overflow fails the build"
)]
const fn member(name: &[u8]) -> (u128, u128, usize) {
    let mut pattern = u128::from_le_bytes([0; 16]);
    let len = name.len() + 3;
    let mut bytes = [0u8; 16];
    bytes[0] = b'"';
    let mut i = 0;
    while i < name.len() {
        bytes[i + 1] = name[i];
        i += 1;
    }
    bytes[name.len() + 1] = b'"';
    bytes[name.len() + 2] = b':';
    pattern |= u128::from_le_bytes(bytes);
    let mask = if len >= 16 {
        u128::MAX
    } else {
        (1u128 << (8 * len)) - 1
    };
    (pattern, mask, len)
}

const MEMBER_ID: (u128, u128, usize) = member(b"id");
const MEMBER_PUBKEY: (u128, u128, usize) = member(b"pubkey");
const MEMBER_CREATED_AT: (u128, u128, usize) = member(b"created_at");
const MEMBER_KIND: (u128, u128, usize) = member(b"kind");
const MEMBER_TAGS: (u128, u128, usize) = member(b"tags");
const MEMBER_CONTENT: (u128, u128, usize) = member(b"content");
const MEMBER_SIG: (u128, u128, usize) = member(b"sig");

/// The length of the name of the member `bit` stands for.
fn member_name_len(bit: u8) -> usize {
    match bit {
        ID => 2,
        PUBKEY => 6,
        CREATED_AT => 10,
        KIND | TAGS => 4,
        CONTENT => 7,
        _ => 3,
    }
}

fn missing(seen: u8) -> &'static str {
    match !seen & ALL {
        m if m & ID != 0 => "event has no id",
        m if m & PUBKEY != 0 => "event has no pubkey",
        m if m & CREATED_AT != 0 => "event has no created_at",
        m if m & KIND != 0 => "event has no kind",
        m if m & TAGS != 0 => "event has no tags",
        m if m & CONTENT != 0 => "event has no content",
        _ => "event has no sig",
    }
}

/// An error about a member (given twice, or not allowed): it names the key.
#[cold]
#[inline(never)]
pub(crate) fn key_error(offset: usize, what: &'static str, key: &[u8]) -> DecodeError {
    DecodeError::invalid_value(offset, what, shown(&String::from_utf8_lossy(key)))
}

/// A kind past 65535: the error names it.
#[cold]
#[inline(never)]
fn kind_error(offset: usize, kind: u64) -> DecodeError {
    DecodeError::invalid_value(offset, "kind must be an integer in 0..=65535", kind)
}

/// An id that is not the hash of its event: the error names the hash.
#[cold]
#[inline(never)]
fn id_mismatch(offset: usize, hash: &[u8; 32]) -> DecodeError {
    let hex: [u8; 64] = hex::encode(hash);
    DecodeError::invalid_value(
        offset,
        "event id does not match its content",
        format_args!("the content hashes to {}", String::from_utf8_lossy(&hex)),
    )
}

/// Decode state shared by the event and message decoders.
pub(crate) struct Dec<'a, 's> {
    pub r: Reader<'a>,
    pub alloc: &'s BoundedAlloc<'a>,
    pub cfg: &'s Decoder,
    items: ItemBudget,
}

impl<'a, 's> Dec<'a, 's> {
    pub fn new(
        arena: &'a Arena,
        alloc: &'s BoundedAlloc<'a>,
        cfg: &'s Decoder,
        input: &'a [u8],
    ) -> Result<Self, DecodeError> {
        let budget_left = alloc.limit().saturating_sub(alloc.used());
        let estimate = estimate_arena_bytes(input);
        quarry_core::reserve(arena, estimate, || estimate, budget_left);
        Ok(Self {
            r: Reader::new(input, cfg.control_chars),
            alloc,
            cfg,
            items: ItemBudget::new(&cfg.options),
        })
    }

    #[inline]
    pub fn count_items(&mut self, n: usize, offset: usize) -> Result<(), DecodeError> {
        self.items.take(n, offset)
    }

    #[inline]
    pub fn depth_check(&self, depth: u32) -> Result<(), DecodeError> {
        self.cfg.options.check_depth(depth, self.r.pos)
    }

    /// Whitespace, then the end of input.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        self.r.ws();
        let rest = self.r.b.len().saturating_sub(self.r.pos);
        if rest == 0 {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes {
                offset: self.r.pos,
                count: rest,
            })
        }
    }

    /// An object key, decoded; `pos` at its quote (checked).
    #[inline]
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "a quote was peeked at start < b.len(); find_special returns end in start + 1..=b.len()"
    )]
    pub fn key(&mut self) -> Result<&'a [u8], DecodeError> {
        let start = self.r.pos;
        if self.r.peek() != Some(b'"') {
            return Err(self.r.err("expected a member name"));
        }
        let (end, high) = scan(self.r.b, start + 1);
        if !high && self.r.b.get(end) == Some(&b'"') {
            self.r.pos = end + 1;
            return Ok(&self.r.b[start + 1..end]);
        }
        Ok(self.r.string(self.alloc)?.as_bytes())
    }

    /// One of the event's seven members, named without escapes and followed
    /// right away by its `:` (compact JSON): its bit, with `pos` moved past
    /// the colon. `None` for anything else (unknown members, escapes,
    /// whitespace, fewer than 16 bytes left), which the general path reads.
    #[inline(always)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past the bytes just matched, all within the 16 read"
    )]
    fn known_member(&mut self) -> Option<u8> {
        let at = self.r.pos;
        let head: [u8; 16] = self.r.b.get(at..at + 16)?.try_into().ok()?;
        let word = u128::from_le_bytes(head);
        let (bit, (pattern, mask, len)) = match head[1] {
            b'i' => (ID, MEMBER_ID),
            b'p' => (PUBKEY, MEMBER_PUBKEY),
            b'k' => (KIND, MEMBER_KIND),
            b't' => (TAGS, MEMBER_TAGS),
            b's' => (SIG, MEMBER_SIG),
            b'c' if head[2] == b'o' => (CONTENT, MEMBER_CONTENT),
            b'c' => (CREATED_AT, MEMBER_CREATED_AT),
            _ => return None,
        };
        if word & mask != pattern {
            return None;
        }
        self.r.pos = at + len;
        Some(bit)
    }

    /// A string of exactly `2 * N` hex digits; `what` is the error.
    #[inline]
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "input offsets are at most b.len() <= isize::MAX: at + 2 + 2N does not overflow, and the slice lies before the closing quote just found"
    )]
    pub fn hex<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let at = self.r.pos;
        let b = self.r.b;
        if b.get(at) == Some(&b'"')
            && b.get(at + 1 + 2 * N) == Some(&b'"')
            && let Some(out) = hex::decode::<N>(&b[at + 1..at + 1 + 2 * N])
        {
            self.r.pos = at + 2 + 2 * N;
            return Ok(out);
        }
        self.hex_slow(what)
    }

    #[cold]
    #[inline(never)]
    fn hex_slow<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let at = self.r.pos;
        let s = self.r.string(self.alloc)?;
        hex::decode::<N>(s.as_bytes()).ok_or_else(|| DecodeError::invalid_value(at, what, shown(s)))
    }

    /// A u16 number (kinds).
    #[inline]
    pub fn kind(&mut self) -> Result<u16, DecodeError> {
        let at = self.r.pos;
        let v = self.r.u64("kind must be an integer in 0..=65535")?;
        match u16::try_from(v) {
            Ok(kind) => Ok(kind),
            Err(_) => Err(kind_error(at, v)),
        }
    }

    /// A subscription id: a non-empty string of at most 64 characters.
    pub fn sub_id(&mut self) -> Result<&'a str, DecodeError> {
        self.r.ws();
        let at = self.r.pos;
        let s = self.r.string(self.alloc)?;
        if s.is_empty() || (s.len() > 64 && s.chars().count() > 64) {
            return Err(DecodeError::invalid_value(
                at,
                "subscription id must have 1 to 64 characters",
                shown(s),
            ));
        }
        Ok(s)
    }

    /// A string element (whitespace first).
    pub fn text(&mut self) -> Result<&'a str, DecodeError> {
        self.r.ws();
        self.r.string(self.alloc)
    }

    /// Skip extra elements up to the closing `]` of a message array.
    pub fn rest_of_array(&mut self) -> Result<(), DecodeError> {
        while self.r.comma_or(b']', "expected ',' or ']'")? {
            self.r.skip_value(2, self.cfg.options.max_depth)?;
        }
        Ok(())
    }

    /// One event object at nesting depth `depth`.
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "pos only moves past bytes just peeked or read, so at..pos and start..end lie in the input; depth is 1 or 2; end >= 1 once '}' was read"
    )]
    pub fn event(&mut self, depth: u32) -> Result<Event<'a>, DecodeError> {
        self.r.ws();
        self.depth_check(depth)?;
        let start = self.r.pos;
        if self.r.peek() != Some(b'{') {
            return Err(self.r.err("expected an event object"));
        }
        self.r.pos += 1;
        let mut seen = 0u8;
        let mut id = [0u8; 32];
        let mut pubkey = [0u8; 32];
        let mut sig = [0u8; 64];
        let mut created_at = 0u64;
        let mut kind = 0u16;
        let mut content = "";
        let mut content_raw: &'a [u8] = &[];
        let mut tags = Parsed::EMPTY;
        self.r.ws();
        if self.r.peek() == Some(b'}') {
            self.r.pos += 1;
        } else {
            loop {
                self.r.ws();
                let key_at = self.r.pos;
                let (bit, key) = match self.known_member() {
                    Some(bit) => (bit, &b""[..]),
                    None => {
                        let key = self.key()?;
                        self.r.expect(b':', "expected ':'")?;
                        let bit = match key {
                            b"id" => ID,
                            b"pubkey" => PUBKEY,
                            b"created_at" => CREATED_AT,
                            b"kind" => KIND,
                            b"tags" => TAGS,
                            b"content" => CONTENT,
                            b"sig" => SIG,
                            _ => 0,
                        };
                        (bit, key)
                    }
                };
                self.r.ws();
                if seen & bit != 0 {
                    return Err(key_error(
                        key_at,
                        "duplicate member in event",
                        // The fast path's key is the name on the wire.
                        if key.is_empty() {
                            self.r
                                .b
                                .get(key_at + 1..key_at + 1 + member_name_len(bit))
                                .unwrap_or_default()
                        } else {
                            key
                        },
                    ));
                }
                seen |= bit;
                match bit {
                    ID => id = self.hex::<32>("id must be 64 hex digits")?,
                    PUBKEY => pubkey = self.hex::<32>("pubkey must be 64 hex digits")?,
                    SIG => sig = self.hex::<64>("sig must be 128 hex digits")?,
                    CREATED_AT => {
                        created_at = self.r.u64("created_at must be an integer in 0..2^64")?
                    }
                    KIND => kind = self.kind()?,
                    TAGS => tags = self.tags(depth + 1)?,
                    CONTENT => {
                        let at = self.r.pos;
                        content = self.r.string(self.alloc)?;
                        content_raw = if self.r.canonical {
                            &self.r.b[at..self.r.pos]
                        } else {
                            &[]
                        };
                    }
                    _ => self.r.skip_value(depth + 1, self.cfg.options.max_depth)?,
                }
                if !self.r.comma_or(b'}', "expected ',' or '}'")? {
                    break;
                }
            }
        }
        let end = self.r.pos;
        if seen != ALL {
            return Err(DecodeError::Malformed {
                offset: end - 1,
                what: missing(seen),
            });
        }
        let tags_repr = TagsRepr::Flat {
            elems: tags.elems,
            spans: tags.spans,
        };
        let id_state = match self.cfg.id_check {
            IdCheck::Skip => IdState::Unchecked,
            _ => {
                let parts = CanonParts {
                    pubkey: &pubkey,
                    created_at,
                    kind,
                    tags: Tags::new(tags_repr, 0),
                    tags_raw: tags.raw,
                    content,
                    content_raw,
                };
                let hash = canonical::hash(&parts, self.cfg.control_chars);
                if hash == id {
                    IdState::Valid
                } else if self.cfg.id_check == IdCheck::Require {
                    return Err(id_mismatch(start, &hash));
                } else {
                    IdState::Invalid
                }
            }
        };
        let rec = self.alloc.alloc(
            EventRec {
                id,
                pubkey,
                sig,
                created_at,
                kind,
                id_state,
                content,
                tags: tags_repr,
                letters: tags.letters,
                raw: &self.r.b[start..end],
            },
            start,
        )?;
        Ok(Event::from_rec(rec))
    }

    /// The tags array; `pos` at its `[` (checked).
    /// The tags array, at nesting depth `depth` (each tag one deeper).
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "rem <= input.len(), so the capacities and their byte sizes fit (and are charged before allocating); pos moves past peeked bytes; a tag pushed at least one element, so elems[first] exists and n >= 1; depth is 2 or 3"
    )]
    fn tags(&mut self, depth: u32) -> Result<Parsed<'a>, DecodeError> {
        let start = self.r.pos;
        if self.r.peek() != Some(b'[') {
            return Err(self.r.err("tags must be an array"));
        }
        self.depth_check(depth)?;
        self.r.pos += 1;
        // Capacities from the bytes left: an element takes at least 3
        // (`"",`), a tag at least 5 (`[""],`), so neither table grows.
        let rem = self.r.b.len() - self.r.pos;
        let elem_cap = rem / 3 + 1;
        let span_cap = rem / 5 + 1;
        self.alloc.charge(
            elem_cap * size_of::<&str>() + span_cap * size_of::<TagSpan>(),
            start,
        )?;
        let bump = self.alloc.bump();
        let mut elems: ArenaVec<'a, &'a str> = ArenaVec::with_capacity_in(elem_cap, bump);
        let mut spans: ArenaVec<'a, TagSpan> = ArenaVec::with_capacity_in(span_cap, bump);
        let mut letters = 0u64;
        // Canonical when compact and free of non-canonical escapes: then
        // the wire bytes are the id preimage's tags as they stand. Compact
        // input takes the tight paths; any whitespace the general ones.
        let mut clean = true;
        if !matches!(self.r.peek(), Some(b'[' | b']')) {
            self.r.ws();
            clean = false;
        }
        if self.r.peek() == Some(b']') {
            self.r.pos += 1;
        } else {
            loop {
                let tag_at = self.r.pos;
                if self.r.peek() != Some(b'[') {
                    return Err(self.r.err("a tag must be an array of strings"));
                }
                self.depth_check(depth + 1)?;
                self.r.pos += 1;
                let first = elems.len();
                loop {
                    if self.r.peek() != Some(b'"') {
                        self.r.ws();
                        clean = false;
                        if self.r.peek() != Some(b'"') {
                            if self.r.peek() == Some(b']') && elems.len() == first {
                                return Err(DecodeError::Malformed {
                                    offset: tag_at,
                                    what: "empty tag",
                                });
                            }
                            return Err(self.r.err("a tag element must be a string"));
                        }
                    }
                    let s = self.r.string(self.alloc)?;
                    clean &= self.r.canonical;
                    elems.push(s);
                    let more = match self.r.tight_sep(b']') {
                        Some(more) => more,
                        None => {
                            clean = false;
                            self.r.comma_or(b']', "expected ',' or ']' in tag")?
                        }
                    };
                    if !more {
                        break;
                    }
                }
                let n = elems.len() - first;
                self.count_items(n + 1, tag_at)?;
                letters |= letter_bit(elems[first]);
                spans.push(TagSpan {
                    start: first as u32,
                    len: n as u32,
                });
                let more = match self.r.tight_sep(b']') {
                    Some(more) => more,
                    None => {
                        clean = false;
                        self.r.comma_or(b']', "expected ',' or ']' after tag")?
                    }
                };
                if !more {
                    break;
                }
                if self.r.peek() != Some(b'[') {
                    self.r.ws();
                    clean = false;
                }
            }
        }
        Ok(Parsed {
            elems: elems.into_bump_slice(),
            spans: spans.into_bump_slice(),
            letters,
            raw: if clean {
                &self.r.b[start..self.r.pos]
            } else {
                &[]
            },
        })
    }
}

/// A decoded tags array.
struct Parsed<'a> {
    elems: &'a [&'a str],
    spans: &'a [TagSpan],
    letters: u64,
    /// The wire bytes when they are already canonical, else empty.
    raw: &'a [u8],
}

impl Parsed<'_> {
    const EMPTY: Parsed<'static> = Parsed {
        elems: &[],
        spans: &[],
        letters: 0,
        raw: &[],
    };
}

impl Decoder {
    /// Decode one bare event object (NIP-01), with this decoder's limits
    /// and id check. Whitespace may surround it; anything else after it is
    /// an error.
    ///
    /// ```
    /// use quarry_core::Arena;
    /// use quarry_nostr::{Decoder, IdCheck};
    ///
    /// let arena = Arena::new();
    /// let json = quarry_nostr::SAMPLE_EVENT;
    /// let event = Decoder::new().decode_event(&arena, json.as_bytes())?;
    /// assert_eq!(event.id_valid(), Some(true));
    ///
    /// // One changed character in the content: the id no longer matches.
    /// let forged = json.replace("prisons", "prisms");
    /// assert!(Decoder::new().decode_event(&arena, forged.as_bytes()).is_err());
    /// let report = Decoder { id_check: IdCheck::Report, ..Decoder::new() };
    /// let event = report.decode_event(&arena, forged.as_bytes())?;
    /// assert_eq!(event.id_valid(), Some(false));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_event<'a>(
        &self,
        arena: &'a Arena,
        input: &'a [u8],
    ) -> Result<Event<'a>, DecodeError> {
        let alloc = BoundedAlloc::new(arena, &self.options);
        let mut d = Dec::new(arena, &alloc, self, input)?;
        d.event(1)
            .and_then(|event| d.finish().map(|()| event))
            .map_err(|e| Reader::fail(input, e))
    }
}

/// Decode one bare event object with the default [`Decoder`] (ids must
/// match).
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let event = quarry_nostr::decode_event(&arena, quarry_nostr::SAMPLE_EVENT.as_bytes())?;
/// assert_eq!(event.kind(), 1);
/// let err = quarry_nostr::decode_event(&arena, br#"{"kind":70000}"#).unwrap_err();
/// assert_eq!(err.to_string(), "kind must be an integer in 0..=65535: 70000 at byte 8");
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn decode_event<'a>(arena: &'a Arena, input: &'a [u8]) -> Result<Event<'a>, DecodeError> {
    Decoder::new().decode_event(arena, input)
}
