//! The decode loop: one pass over the node bytes, an explicit stack instead
//! of recursion, every record written into the arena.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use std::mem::MaybeUninit;

use quarry_core::bumpalo::Bump;
use quarry_core::bumpalo::collections::Vec as ArenaVec;
use quarry_core::{Arena, ArenaBytes, BoundedAlloc, DecodeError, DecodeOptions, ItemBudget};

use crate::dictionary::Dictionary;
use crate::jid::{self, Jid, JidUser, Server};
use crate::node::{AttrRec, Children, Content, Node, NodeRec, Value};
use crate::packed;
use crate::wire::*;

/// Upper bound on arena bytes per input byte, and the constant on top.
///
/// Every record the decoder writes is charged to input bytes that no other
/// record is charged to (child slots are only allocated for bytes not yet
/// promised to other slots), so the densest encodings per input byte set
/// the bound:
///
/// | input | bytes | arena bytes | per byte |
/// |---|---|---|---|
/// | attribute, key and value one-byte tokens | 2 | 40 (record) | 20 |
/// | child node `F8 01 <token>` | 3 | 56 (record) | 18.7 |
/// | key a `JID_PAIR` of two tokens, value a token | 4 | 40 + 63 (rendered key) | 25.75 |
/// | tag an `AD_JID` with a token user | 6 | 56 + 67 | 20.5 |
/// | one nesting level `F8 02 <token> F8 01` | 5 | 56 + 4 x 24 (stack frames: the stack doubles, so it holds under 4 frames per level) | 30.4 |
///
/// Raw strings and bytes cost nothing (they borrow from the input); a
/// one-byte packed string comes from a static table; longer ones expand
/// two characters per byte. So one decode writes at most
/// `ARENA_BYTES_PER_INPUT_BYTE * len + ARENA_BYTES_CONST` bytes
/// ([`max_arena_bytes`]).
pub const ARENA_BYTES_PER_INPUT_BYTE: usize = 31;
/// See [`ARENA_BYTES_PER_INPUT_BYTE`].
pub const ARENA_BYTES_CONST: usize = 256;

/// The arena bytes one decode of `input_len` bytes may write, at most:
/// the bound the decoder checks its budget against (when it fits, the loop
/// runs without per-allocation checks). A decode reserves
/// [`estimate_arena_bytes`], not this.
///
/// ```
/// assert_eq!(quarry_wa::max_arena_bytes(100), 31 * 100 + 256);
/// ```
pub const fn max_arena_bytes(input_len: usize) -> usize {
    BOUND.of(input_len)
}

const BOUND: ArenaBytes = ArenaBytes {
    per_input_byte: ARENA_BYTES_PER_INPUT_BYTE,
    constant: ARENA_BYTES_CONST,
};

/// Arena bytes [`estimate_arena_bytes`] counts per `LIST_8` byte (`0xF8`)
/// of the input: nearly every node and child list starts with one, and a
/// node writes a 56-byte record and, typically, one or two 40-byte
/// attribute records.
pub const ESTIMATE_BYTES_PER_LIST_HEADER: usize = 128;
/// Arena bytes [`estimate_arena_bytes`] counts per input byte, on top of
/// the list headers: packed strings expand to two characters per byte,
/// JIDs used as keys are rendered.
pub const ESTIMATE_BYTES_PER_INPUT_BYTE: usize = 2;
/// Arena bytes [`estimate_arena_bytes`] counts once: the root's attributes
/// beyond the first two and the traversal stack's first frames.
pub const ESTIMATE_BYTES_CONST: usize = 192;

const ESTIMATE: ArenaBytes = ArenaBytes {
    per_input_byte: ESTIMATE_BYTES_PER_INPUT_BYTE,
    constant: ESTIMATE_BYTES_CONST,
};

/// The arena bytes a decode of `input` reserves in a fresh arena (one
/// allocation): [`ESTIMATE_BYTES_PER_LIST_HEADER`] per `0xF8` byte,
/// [`ESTIMATE_BYTES_PER_INPUT_BYTE`] per byte and
/// [`ESTIMATE_BYTES_CONST`], never more than [`max_arena_bytes`]. An
/// estimate, measured, not a bound: on the benchmark shapes (real-shaped
/// stanzas from 15 bytes to 40 KB, with payloads, JIDs, packed strings and
/// 2,048 children) a decode writes between a quarter of it and all of it.
///
/// Inputs that write more: nodes with many attributes whose keys and values
/// are all tokens (20 arena bytes per input byte), JID-pair keys (26) and
/// deep nesting with one child per level (30). Their fresh decode takes a
/// second chunk from bumpalo, at least twice the first; in all the arena
/// then holds at most 4 times what the decode wrote, plus 8 KiB
/// (`tests/alloc.rs` checks the densest encodings at many sizes).
///
/// Counting the `0xF8` bytes reads the input once more, sixteen bytes at a
/// time in SSE2 registers on x86-64 (eight in a `u64` elsewhere and for
/// inputs under sixteen bytes); only a decode into an arena without a
/// chunk does it (and [`arena_for`]), never one into a reused arena.
///
/// ```
/// // A node with one attribute: one list header, 5 bytes.
/// let input = [0xF8, 0x03, 19, 10, 11];
/// assert_eq!(quarry_wa::estimate_arena_bytes(&input), 128 + 2 * 5 + 192);
/// ```
pub fn estimate_arena_bytes(input: &[u8]) -> usize {
    count_list_headers(input)
        .saturating_mul(ESTIMATE_BYTES_PER_LIST_HEADER)
        .saturating_add(ESTIMATE.of(input.len()))
        .min(max_arena_bytes(input.len()))
}

/// How many bytes of `input` are `LIST_8`: sixteen at a time in SSE2
/// registers where the target has them and the input is that long, else
/// eight at a time in a `u64`.
#[inline]
fn count_list_headers(input: &[u8]) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if input.len() >= 16 {
        return count_list_headers_sse2(input);
    }
    count_list_headers_swar(input)
}

/// [`count_list_headers`] sixteen bytes at a time: each block compared
/// with `LIST_8` gives -1 per match, subtracted into sixteen byte
/// counters, which are summed (`psadbw`) before any can overflow. The main
/// loop takes four blocks per turn (each counter grows by at most four, so
/// 63 turns fit in a byte); the last partial block is the input's last
/// sixteen bytes, with those already counted masked off.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn count_list_headers_sse2(input: &[u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_sad_epu8,
        _mm_set1_epi8, _mm_setzero_si128, _mm_srli_si128, _mm_sub_epi8,
    };
    /// A window of sixteen bytes starting at `r` (1..=15) keeps the last
    /// `r` bytes of a block.
    const TAIL_MASK: [u8; 32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ];
    /// Turns of the main loop between two sums: 63 * 4 blocks, plus the
    /// three single blocks and the tail after the last turn, stay under 256.
    const TURNS_PER_SUM: u32 = 63;
    // SAFETY (every `unsafe` block below): the pointer `_mm_loadu_si128`
    // reads comes from a `&[u8; 16]`, so its sixteen bytes are in bounds,
    // and the unaligned load needs no alignment; the other intrinsics take
    // and return values only. What they require is SSE2, which this
    // function is compiled only with (`cfg(target_feature = "sse2")`, part
    // of the x86-64 baseline).
    let load = |block: &[u8; 16]| -> __m128i { unsafe { _mm_loadu_si128(block.as_ptr().cast()) } };
    let sum = |counts: __m128i| -> usize {
        let (lo, hi) = unsafe {
            let sums = _mm_sad_epu8(counts, _mm_setzero_si128());
            (
                _mm_cvtsi128_si64(sums),
                _mm_cvtsi128_si64(_mm_srli_si128::<8>(sums)),
            )
        };
        // Each half is at most 8 * 255.
        usize::try_from(lo.saturating_add(hi)).unwrap_or(0)
    };
    let (needle, zero) = unsafe { (_mm_set1_epi8(LIST_8 as i8), _mm_setzero_si128()) };
    let hits = |block: &[u8; 16]| unsafe { _mm_cmpeq_epi8(load(block), needle) };
    let mut total = 0usize;
    let mut counts = zero;
    let mut turns = 0u32;
    let (quads, rest) = input.as_chunks::<64>();
    for quad in quads {
        let ([a, b, c, d], []) = quad.as_chunks::<16>() else {
            continue;
        };
        counts = unsafe {
            let ab = _mm_sub_epi8(_mm_sub_epi8(counts, hits(a)), hits(b));
            _mm_sub_epi8(_mm_sub_epi8(ab, hits(c)), hits(d))
        };
        turns = turns.saturating_add(1);
        if turns == TURNS_PER_SUM {
            total = total.saturating_add(sum(counts));
            counts = zero;
            turns = 0;
        }
    }
    let (blocks, tail) = rest.as_chunks::<16>();
    for block in blocks {
        counts = unsafe { _mm_sub_epi8(counts, hits(block)) };
    }
    if !tail.is_empty() {
        let last = input
            .len()
            .checked_sub(16)
            .and_then(|at| input.get(at..))
            .and_then(<[u8]>::first_chunk::<16>);
        let mask = TAIL_MASK
            .get(tail.len()..)
            .and_then(<[u8]>::first_chunk::<16>);
        if let (Some(last), Some(mask)) = (last, mask) {
            counts = unsafe { _mm_sub_epi8(counts, _mm_and_si128(hits(last), load(mask))) };
        }
    }
    total.saturating_add(sum(counts))
}

/// [`count_list_headers`] eight bytes at a time in a `u64` (a byte equal
/// to `LIST_8` is a zero byte of the word XOR `0xF8…`, found without
/// carries between bytes), summed in per-byte counters that are added up
/// every 255 words, before any can overflow.
#[inline]
fn count_list_headers_swar(input: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const NEEDLE: u64 = ONES * LIST_8 as u64;
    const EVEN_BYTES: u64 = 0x00FF_00FF_00FF_00FF;
    let mut total = 0usize;
    for block in input.chunks(8 * 255) {
        let mut counts = 0u64;
        let mut words = block.chunks_exact(8);
        for word in &mut words {
            let Ok(word) = <[u8; 8]>::try_from(word) else {
                continue;
            };
            let x = u64::from_le_bytes(word) ^ NEEDLE;
            // The top bit of each byte of `nonzero` is set when that byte
            // of `x` is not zero (the low seven bits plus 0x7F carry into
            // the top bit, or the top bit was set already).
            let nonzero = (x & LOW7).wrapping_add(LOW7) | x;
            counts = counts.wrapping_add((!nonzero >> 7) & ONES);
        }
        // Each byte of `counts` is at most 255: add them up in pairs, then
        // the four pairs with one multiplication.
        let pairs = (counts & EVEN_BYTES).wrapping_add((counts >> 8) & EVEN_BYTES);
        let sum = pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48;
        let tail = words.remainder().iter().filter(|&&b| b == LIST_8).count();
        total = total
            .saturating_add(usize::try_from(sum).unwrap_or(usize::MAX))
            .saturating_add(tail);
    }
    total
}

/// A fresh arena for decoding `input` once with default limits: one
/// allocation of [`estimate_arena_bytes`] bytes, made here, so the decode
/// allocates nothing (except for the dense inputs described there).
///
/// `Arena::new()` followed by a decode also costs one allocation, but the
/// decode's reservation then goes through bumpalo's growth path. Reuse an
/// arena ([`Arena::reset`]) where messages keep coming.
///
/// ```
/// let input = [0xF8, 1, 19];
/// let arena = quarry_wa::arena_for(&input);
/// let reserved = arena.stats().allocated_bytes;
/// assert!(reserved >= quarry_wa::estimate_arena_bytes(&input));
/// let node = quarry_wa::decode(&arena, &input).unwrap();
/// assert_eq!(node.tag(), "message");
/// assert_eq!(arena.stats().allocated_bytes, reserved);
/// ```
pub fn arena_for(input: &[u8]) -> Arena {
    quarry_core::arena_for(estimate_arena_bytes(input))
}

/// Decoder settings: limits and the token dictionary.
///
/// ```
/// use quarry_core::{Arena, DecodeOptions};
/// use quarry_wa::Decoder;
///
/// let decoder = Decoder { options: DecodeOptions { max_depth: 8, ..Default::default() }, ..Decoder::new() };
/// let arena = Arena::new();
/// let node = decoder.decode(&arena, &[0xF8, 1, 19]).unwrap();
/// assert_eq!(node.tag(), "message");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Decoder {
    /// Limits. `max_items` counts nodes plus attributes.
    pub options: DecodeOptions,
    /// The token dictionary.
    pub dictionary: &'static Dictionary,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// Default limits and the v3 dictionary.
    pub fn new() -> Self {
        Self {
            options: DecodeOptions::DEFAULT,
            dictionary: Dictionary::v3(),
        }
    }

    /// Decode node bytes (no flags byte) into `arena`. The whole input must
    /// be one node.
    #[inline]
    pub fn decode<'a>(&self, arena: &'a Arena, input: &'a [u8]) -> Result<Node<'a>, DecodeError> {
        let alloc = BoundedAlloc::new(arena, &self.options);
        self.decode_into(arena, &alloc, input)
    }

    /// Reserve the estimate for `input` in an arena without a chunk (one
    /// allocation; see [`quarry_core::reserve`]), then decode.
    #[inline]
    pub(crate) fn decode_into<'a>(
        &self,
        arena: &'a Arena,
        alloc: &BoundedAlloc<'a>,
        input: &'a [u8],
    ) -> Result<Node<'a>, DecodeError> {
        let budget_left = alloc.limit().saturating_sub(alloc.used());
        quarry_core::reserve(
            arena,
            ESTIMATE.of(input.len()),
            || estimate_arena_bytes(input),
            budget_left,
        );
        decode_into(alloc, input, &self.options, self.dictionary)
    }
}

/// Decode node bytes (no flags byte) with default limits and the v3
/// dictionary.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let node = quarry_wa::decode(&arena, &[0xF8, 1, 19]).unwrap();
/// assert_eq!(node.tag(), "message");
/// let err = quarry_wa::decode(&arena, &[0xF8, 2, 19]).unwrap_err();
/// assert_eq!(err.to_string(), "unexpected end of input at byte 3");
/// ```
#[inline]
pub fn decode<'a>(arena: &'a Arena, input: &'a [u8]) -> Result<Node<'a>, DecodeError> {
    Decoder::new().decode(arena, input)
}

/// One frame of the explicit stack: a run of sibling slots being filled.
#[derive(Default)]
struct Frame<'a> {
    slots: &'a mut [NodeRec<'a>],
    next: usize,
}

/// The hot path returns this zero-sized marker instead of a `DecodeError`
/// (which is five words and would make every `Result` travel through
/// memory); the error itself is parked in [`State::error`].
struct Fail;

type R<T> = Result<T, Fail>;

pub(crate) fn decode_into<'a>(
    alloc: &BoundedAlloc<'a>,
    input: &'a [u8],
    options: &DecodeOptions,
    dictionary: &Dictionary,
) -> Result<Node<'a>, DecodeError> {
    // Records are charged to disjoint input bytes (see
    // ARENA_BYTES_PER_INPUT_BYTE), and every item takes at least two bytes:
    // when the worst case for this input fits the budget and the item
    // limit, no single allocation or item can break them, and the loop runs
    // without per-allocation checks.
    let budget_left = alloc.limit().saturating_sub(alloc.used());
    let fits = max_arena_bytes(input.len()) <= budget_left
        && ItemBudget::new(options).cannot_pass(input.len() / 2);
    if fits {
        run_state::<false>(alloc, input, options, dictionary)
    } else {
        run_state::<true>(alloc, input, options, dictionary)
    }
}

fn run_state<'a, const CHECKED: bool>(
    alloc: &BoundedAlloc<'a>,
    input: &'a [u8],
    options: &DecodeOptions,
    dictionary: &Dictionary,
) -> Result<Node<'a>, DecodeError> {
    let mut st = State::<CHECKED> {
        input,
        pos: 0,
        alloc,
        bump: alloc.bump(),
        single: dictionary.single_table(),
        double: dictionary.double_tables(),
        servers: dictionary.server_table(),
        items: ItemBudget::new(options),
        pending: 0,
        error: None,
    };
    match st.run(options) {
        Ok(node) => Ok(node),
        Err(Fail) => Err(st.error.take().unwrap_or(DecodeError::Malformed {
            offset: st.pos(),
            what: "decoder failed without a reason",
        })),
    }
}

/// Decoder state. With `CHECKED` false the caller has proved that the
/// input cannot reach the arena budget or the item limit, and the checks
/// compile away.
struct State<'a, 's, const CHECKED: bool> {
    input: &'a [u8],
    /// Offset of the next unread byte.
    pos: usize,
    alloc: &'s BoundedAlloc<'a>,
    bump: &'a Bump,
    single: &'static [&'static str; 236],
    double: &'static [[&'static str; 256]; 4],
    /// The JID server each single-byte token names, if any.
    servers: &'s [Option<Server>; 236],
    items: ItemBudget,
    /// Bytes promised to allocated child slots not yet read (three each).
    pending: usize,
    error: Option<DecodeError>,
}

/// The fewest bytes a node takes: a list header of two bytes and a
/// one-byte token tag.
const MIN_NODE_BYTES: usize = 3;

const NODE: usize = std::mem::size_of::<NodeRec<'static>>();
const FRAME: usize = std::mem::size_of::<Frame<'static>>();
const ATTR: usize = std::mem::size_of::<AttrRec<'static>>();

/// Ancestor frames held on the Rust stack; deeper ones go to the arena.
const INLINE_FRAMES: usize = 8;
/// Frames the arena part of the traversal stack starts with.
const INITIAL_STACK: usize = 8;

/// Where a string is read; decides what `LIST_EMPTY` means.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Tag,
    Key,
    JidUser,
    JidServer,
}

impl<'a, const CHECKED: bool> State<'a, '_, CHECKED> {
    fn run(&mut self, options: &DecodeOptions) -> R<Node<'a>> {
        // A child list may be pushed while the stack holds fewer ancestors
        // than this (the root is depth 0).
        let max_stack = (options.max_depth as usize).saturating_sub(1);
        // The root itself stands at depth 0, which a limit of 0 rejects.
        if let Err(e) = options.check_depth(0, self.pos) {
            return Err(self.fail(e));
        }
        self.count_items(1, 0)?;
        self.charge(NODE, 0)?;
        let root: &'a mut NodeRec<'a> = self.bump.alloc(NodeRec::EMPTY);
        let pending_children = self.read_node(root)?;
        // A root without children (acks, receipts, presences) ends here,
        // before any traversal state is set up.
        if pending_children == 0 {
            self.expect_end()?;
            return Ok(Node::from_rec(root));
        }
        // The frame being filled lives in `cur`; its `depth` ancestors are
        // in `inline`, the first INLINE_FRAMES of them, then in `stack`.
        // The arena part is only allocated when a tree nests deeper than
        // that, and grows by doubling (each growth charged to the budget),
        // so a stanza of usual depth pays nothing for it.
        let mut inline: [Frame<'a>; INLINE_FRAMES] = Default::default();
        let mut depth = 0usize;
        let mut stack: ArenaVec<'a, Frame<'a>> = ArenaVec::new_in(self.bump);
        // The root's slot is read: its frame is the one whose children are
        // pushed first.
        let mut cur = Frame {
            slots: std::slice::from_mut(root),
            next: 1,
        };
        // Push the child list of `$count` (> 0) nodes of the node that
        // starts at `$start` and whose slot was just read: `cur` becomes
        // the list's frame, its parent an ancestor.
        macro_rules! push_children {
            ($count:expr, $start:expr) => {{
                // The children stand at depth + 1: what
                // `options.check_depth(depth + 1)` asks, one compare.
                if depth >= max_stack {
                    let e = options.too_deep(self.pos);
                    return Err(self.fail(e));
                }
                self.count_items($count, $start)?;
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "a child count is at most 65535 (LIST_16), times a 56-byte record"
                )]
                self.charge($count * NODE, $start)?;
                // A single child (the common case in small stanzas)
                // is written in place: a slice fill of one record goes
                // through a call to memcpy.
                let slots = if $count == 1 {
                    std::slice::from_mut(self.bump.alloc(NodeRec::EMPTY))
                } else {
                    self.bump.alloc_slice_fill_copy($count, NodeRec::EMPTY)
                };
                let parent = std::mem::replace(&mut cur, Frame { slots, next: 0 });
                if let Some(frame) = inline.get_mut(depth) {
                    *frame = parent;
                } else {
                    if stack.len() == stack.capacity() {
                        // The stack holds fewer than max_depth (a u32)
                        // frames, so its doubled capacity times a 24-byte
                        // frame fits, and grown > capacity == len.
                        #[expect(clippy::arithmetic_side_effects, reason = "see above")]
                        let (grown, bytes) = {
                            let grown = (stack.capacity() * 2).max(INITIAL_STACK);
                            (grown, grown * FRAME)
                        };
                        self.charge(bytes, $start)?;
                        stack.reserve_exact(grown.saturating_sub(stack.len()));
                    }
                    stack.push(parent);
                }
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "depth < max_stack, a u32, was checked above"
                )]
                {
                    depth += 1;
                }
            }};
        }
        push_children!(pending_children, 0);
        loop {
            if let Some(slot) = cur.slots.get_mut(cur.next) {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "slot `next` exists, so next + 1 <= slots.len(); \
                              every slot below the root was promised its three bytes \
                              when its list was read, so pending >= 3 here"
                )]
                {
                    cur.next += 1;
                    // This slot's three bytes are no longer promised: they
                    // are being read now.
                    self.pending -= MIN_NODE_BYTES;
                }
                let start = self.pos;
                let pending_children = self.read_node(slot)?;
                if pending_children > 0 {
                    push_children!(pending_children, start);
                }
            } else {
                let taken: &'a mut [NodeRec<'a>] = std::mem::take(&mut cur.slots);
                let done: &'a [NodeRec<'a>] = taken;
                let parent = match depth.checked_sub(1) {
                    Some(up) => {
                        depth = up;
                        match inline.get_mut(up) {
                            Some(frame) => Some(std::mem::take(frame)),
                            None => stack.pop(),
                        }
                    }
                    None => None,
                };
                match parent {
                    Some(parent) => {
                        cur = parent;
                        if let Some(owner) =
                            cur.next.checked_sub(1).and_then(|i| cur.slots.get_mut(i))
                        {
                            owner.content = Content::Nodes(Children { recs: done });
                        }
                    }
                    None => {
                        self.expect_end()?;
                        return match done.first() {
                            Some(root) => Ok(Node::from_rec(root)),
                            None => unreachable!("the root frame has one slot"),
                        };
                    }
                }
            }
        }
    }

    /// The root node ended: no input may follow it.
    #[inline(always)]
    fn expect_end(&mut self) -> R<()> {
        if self.pos == self.input.len() {
            return Ok(());
        }
        let (offset, count) = (self.pos, self.input.len().saturating_sub(self.pos));
        Err(self.fail(DecodeError::TrailingBytes { offset, count }))
    }

    #[cold]
    #[inline(never)]
    fn fail(&mut self, error: DecodeError) -> Fail {
        self.error = Some(error);
        Fail
    }

    #[cold]
    #[inline(never)]
    fn eof(&mut self) -> Fail {
        let offset = self.pos();
        self.fail(DecodeError::UnexpectedEof { offset })
    }

    /// A lying count: report end of input where the promised bytes would be.
    #[cold]
    #[inline(never)]
    fn eof_at_end(&mut self) -> Fail {
        let offset = self.input.len();
        self.fail(DecodeError::UnexpectedEof { offset })
    }

    #[inline(always)]
    fn check<T>(&mut self, result: Result<T, DecodeError>) -> R<T> {
        result.map_err(|e| self.fail(e))
    }

    #[inline(always)]
    fn u8(&mut self) -> R<u8> {
        match self.input.get(self.pos) {
            Some(&b) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "the byte at pos exists, so pos + 1 <= input.len()"
                )]
                {
                    self.pos += 1;
                }
                Ok(b)
            }
            None => Err(self.eof()),
        }
    }

    #[inline(always)]
    fn take(&mut self, len: usize) -> R<&'a [u8]> {
        match self.input.get(self.pos..).and_then(|rest| rest.get(..len)) {
            Some(bytes) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "input[pos..pos + len] exists, so pos + len <= input.len()"
                )]
                {
                    self.pos += len;
                }
                Ok(bytes)
            }
            None => Err(self.eof()),
        }
    }

    /// The next `N` bytes as an array.
    #[inline(always)]
    fn array<const N: usize>(&mut self) -> R<[u8; N]> {
        match self
            .input
            .get(self.pos..)
            .and_then(<[u8]>::first_chunk::<N>)
        {
            Some(bytes) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "input[pos..pos + N] exists, so pos + N <= input.len()"
                )]
                {
                    self.pos += N;
                }
                Ok(*bytes)
            }
            None => Err(self.eof()),
        }
    }

    #[inline(always)]
    fn u16_be(&mut self) -> R<u16> {
        self.array::<2>().map(u16::from_be_bytes)
    }

    /// Input bytes not yet read and not promised to child slots already
    /// allocated. Checking counts against this (not against all remaining
    /// bytes) keeps nested lists from claiming the same bytes twice, which
    /// is what bounds the arena by the input length.
    #[inline(always)]
    fn unpromised(&self) -> usize {
        #[expect(
            clippy::arithmetic_side_effects,
            reason = "pos <= input.len(): every read checks the bytes exist first"
        )]
        (self.input.len() - self.pos).saturating_sub(self.pending)
    }

    /// Offset of the next unread byte.
    #[inline(always)]
    fn pos(&self) -> usize {
        self.pos
    }

    /// Charge `bytes` of arena to the budget (a no-op when unchecked).
    #[inline(always)]
    fn charge(&mut self, bytes: usize, offset: usize) -> R<()> {
        if !CHECKED {
            return Ok(());
        }
        let result = self.alloc.charge(bytes, offset);
        self.check(result)
    }

    #[inline(always)]
    fn count_items(&mut self, n: usize, offset: usize) -> R<()> {
        if !CHECKED {
            return Ok(());
        }
        match self.items.take(n, offset) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Read one node into `slot`, up to its content. A child list is not
    /// read here (no recursion): its length is returned for the caller to
    /// push; 0 means nothing is pending.
    #[inline(always)]
    fn read_node(&mut self, slot: &mut NodeRec<'a>) -> R<usize> {
        let start = self.pos();
        // Nearly every node starts `LIST_8 <size> <token tag>`: one bounds
        // check for the three bytes instead of one per byte.
        let size = match self.input.get(start..).and_then(<[u8]>::first_chunk::<3>) {
            Some(&[LIST_8, size @ 1..=255, tag @ 1..=235]) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "input[start..start + 3] exists, so start + 3 <= input.len()"
                )]
                {
                    self.pos = start + 3;
                }
                #[expect(
                    clippy::indexing_slicing,
                    reason = "tag is in 1..=235 and the table has 236 entries"
                )]
                {
                    slot.tag = self.single[usize::from(tag)];
                }
                usize::from(size)
            }
            _ => self.read_node_head(slot, start)?,
        };
        self.read_node_rest(slot, start, size)
    }

    /// The list header and tag of a node in general.
    #[inline(always)]
    fn read_node_head(&mut self, slot: &mut NodeRec<'a>, start: usize) -> R<usize> {
        let size = match self.u8()? {
            LIST_8 => usize::from(self.u8()?),
            LIST_16 => usize::from(self.u16_be()?),
            byte => {
                return Err(self.fail(DecodeError::UnexpectedByte {
                    offset: start,
                    byte,
                    context: "expected a node list header",
                }));
            }
        };
        if size == 0 {
            return Err(self.fail(DecodeError::Malformed {
                offset: start,
                what: "node list of size 0",
            }));
        }
        slot.tag = self.read_required_text(Slot::Tag)?;
        Ok(size)
    }

    /// A node after its tag: attributes, then content (`size` >= 1 is the
    /// list size the head declared).
    #[inline(always)]
    fn read_node_rest(&mut self, slot: &mut NodeRec<'a>, start: usize, size: usize) -> R<usize> {
        let attr_count = size.saturating_sub(1) / 2;
        if attr_count > 0 {
            // Each attribute takes at least two bytes: a lying count fails
            // here, before the arena is asked for anything.
            if attr_count > self.unpromised() / 2 {
                return Err(self.eof_at_end());
            }
            self.count_items(attr_count, start)?;
            #[expect(
                clippy::arithmetic_side_effects,
                reason = "at most 32767 attributes (LIST_16), times a 40-byte record"
            )]
            self.charge(attr_count * ATTR, start)?;
            // Each record is written where its value is read, not at one
            // store after the match: a text value then stores its two words
            // and its tag, not every field a JID has.
            let recs = self
                .bump
                .alloc_slice_fill_with(attr_count, |_| MaybeUninit::<AttrRec<'a>>::uninit());
            for rec in recs.iter_mut() {
                self.read_attr(rec)?;
            }
            // SAFETY: the loop above ran to its end (an error returns
            // before this line), and each turn initialized its element:
            // `read_attr` writes `rec` on every path that returns `Ok`.
            // `MaybeUninit<T>` has the layout of `T`.
            slot.attrs = unsafe { recs.assume_init_ref() };
        }
        if size % 2 == 1 {
            return Ok(0);
        }
        // Content is nearly always `BINARY_8 <len>` or `LIST_8 <count>`:
        // both bytes under one bounds check.
        if let Some(&[byte @ (BINARY_8 | LIST_8), n]) = self
            .input
            .get(self.pos..)
            .and_then(<[u8]>::first_chunk::<2>)
        {
            #[expect(
                clippy::arithmetic_side_effects,
                reason = "input[pos..pos + 2] exists, so pos + 2 <= input.len()"
            )]
            {
                self.pos += 2;
            }
            if byte == LIST_8 {
                return self.child_list(slot, usize::from(n));
            }
            slot.content = Content::Bytes(self.take(usize::from(n))?);
            return Ok(0);
        }
        let byte = self.u8()?;
        match byte {
            LIST_EMPTY => {}
            LIST_8 | LIST_16 => {
                let count = if byte == LIST_8 {
                    usize::from(self.u8()?)
                } else {
                    usize::from(self.u16_be()?)
                };
                return self.child_list(slot, count);
            }
            BINARY_8 | BINARY_20 | BINARY_32 => {
                slot.content = Content::Bytes(self.read_binary(byte)?);
            }
            _ => {
                if let Some(text) = self.read_text_tagged(byte, Slot::Tag)? {
                    slot.content = Content::Text(text);
                }
            }
        }
        Ok(0)
    }

    /// A child list of `count` nodes declared in `slot`'s content: checked
    /// against the unpromised bytes, then returned for the caller to push.
    #[inline(always)]
    fn child_list(&mut self, slot: &mut NodeRec<'a>, count: usize) -> R<usize> {
        // A child node takes at least three bytes.
        if count > self.unpromised() / MIN_NODE_BYTES {
            return Err(self.eof_at_end());
        }
        #[expect(
            clippy::arithmetic_side_effects,
            reason = "3 * count <= unpromised() (checked above), so pending stays <= input.len()"
        )]
        {
            self.pending += count * MIN_NODE_BYTES;
        }
        if count == 0 {
            slot.content = Content::Nodes(Children { recs: &[] });
        }
        Ok(count)
    }

    /// One attribute, written into `rec` (always, when this returns `Ok`).
    #[inline(always)]
    fn read_attr(&mut self, rec: &mut MaybeUninit<AttrRec<'a>>) -> R<()> {
        // Keys are nearly always one-byte tokens: then the key and the
        // value's first byte cost one bounds check together.
        let (key, byte) = match self
            .input
            .get(self.pos..)
            .and_then(<[u8]>::first_chunk::<2>)
        {
            Some(&[key @ 1..=235, byte]) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "input[pos..pos + 2] exists, so pos + 2 <= input.len()"
                )]
                {
                    self.pos += 2;
                }
                #[expect(
                    clippy::indexing_slicing,
                    reason = "key is in 1..=235 and the table has 236 entries"
                )]
                (self.single[usize::from(key)], byte)
            }
            _ => (self.read_required_text(Slot::Key)?, self.u8()?),
        };
        // One store per arm (see `read_node_rest`).
        let mut put = |value: Value<'a>| {
            rec.write(AttrRec { key, value });
        };
        match byte {
            #[expect(
                clippy::indexing_slicing,
                reason = "byte is in 1..=235 and the table has 236 entries"
            )]
            1..=235 => put(Value::Str(self.single[usize::from(byte)])),
            LIST_EMPTY => put(Value::Str("")),
            // Device JIDs (fanout recipients) and user, group and server
            // JIDs are the common cases: inline.
            AD_JID => put(Value::Jid(self.read_ad_jid()?)),
            JID_PAIR => put(Value::Jid(self.read_jid_pair()?)),
            INTEROP_JID | FB_JID => put(Value::Jid(self.read_jid(byte)?)),
            // Packed ids and timestamps: the common lengths inline.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            NIBBLE_8 | HEX_8 => match self.packed_block(byte == NIBBLE_8) {
                Some(text) => put(Value::Str(text?)),
                None => put(Value::Str(self.read_packed(byte)?)),
            },
            _ => put(Value::Str(
                self.read_text_tagged(byte, Slot::Key)?.unwrap_or(""),
            )),
        }
        Ok(())
    }

    #[inline(always)]
    fn read_binary(&mut self, byte: u8) -> R<&'a [u8]> {
        let len = match byte {
            BINARY_8 => usize::from(self.u8()?),
            BINARY_20 => {
                let [b0, b1, b2] = self.array::<3>()?;
                (usize::from(b0 & 0x0F) << 16) | (usize::from(b1) << 8) | usize::from(b2)
            }
            _ => u32::from_be_bytes(self.array::<4>()?) as usize,
        };
        self.take(len)
    }

    /// A string that must be present (tag, key, the user of an AD, interop
    /// or Messenger JID, a JID's server).
    #[inline(always)]
    fn read_required_text(&mut self, slot: Slot) -> R<&'a str> {
        let byte = self.u8()?;
        // Tokens are what tags and keys are nearly always made of.
        if let 1..=235 = byte {
            #[expect(
                clippy::indexing_slicing,
                reason = "byte is in 1..=235 and the table has 236 entries"
            )]
            return Ok(self.single[usize::from(byte)]);
        }
        match self.read_text_tagged(byte, slot)? {
            Some(text) => Ok(text),
            None => Err(self.missing_text(slot)),
        }
    }

    /// `LIST_EMPTY`, just read, where a string must be.
    #[cold]
    #[inline(never)]
    fn missing_text(&mut self, slot: Slot) -> Fail {
        let offset = self.pos().saturating_sub(1);
        self.fail(DecodeError::UnexpectedByte {
            offset,
            byte: LIST_EMPTY,
            context: match slot {
                Slot::Tag => "LIST_EMPTY where a node tag must be",
                Slot::Key => "LIST_EMPTY where an attribute key must be",
                Slot::JidUser => "LIST_EMPTY where a JID user must be",
                Slot::JidServer => "LIST_EMPTY where a JID server must be",
            },
        })
    }

    /// A string slot whose tag byte `byte` was just read.
    /// `None` is `LIST_EMPTY`.
    #[inline(always)]
    fn read_text_tagged(&mut self, byte: u8, slot: Slot) -> R<Option<&'a str>> {
        match byte {
            LIST_EMPTY => Ok(None),
            #[expect(
                clippy::indexing_slicing,
                reason = "byte is in 1..=235 and the table has 236 entries"
            )]
            1..=235 => Ok(Some(self.single[usize::from(byte)])),
            DICTIONARY_0..=DICTIONARY_3 => {
                let index = self.u8()?;
                #[expect(
                    clippy::indexing_slicing,
                    clippy::arithmetic_side_effects,
                    reason = "byte is in 236..=239: four tables of 256 entries, any u8 index"
                )]
                let text = self.double[usize::from(byte - DICTIONARY_0)][usize::from(index)];
                Ok(Some(text))
            }
            BINARY_8 | BINARY_20 | BINARY_32 => {
                let bytes = self.read_binary(byte)?;
                match quarry_core::utf8::to_str(bytes) {
                    Some(text) => Ok(Some(text)),
                    None => {
                        let offset = self.pos().saturating_sub(bytes.len());
                        let bad = quarry_core::InvalidUtf8::boxed(offset, bytes);
                        Err(self.fail(DecodeError::InvalidUtf8(bad)))
                    }
                }
            }
            NIBBLE_8 | HEX_8 => self.read_packed(byte).map(Some),
            JID_PAIR | AD_JID | INTEROP_JID | FB_JID => self.read_jid_text(byte, slot).map(Some),
            _ => Err(self.unexpected_string_byte(byte)),
        }
    }

    /// A packed string whose tag byte `byte` was just read. One and two
    /// data bytes (ids, counters, 1- to 4-digit numbers) are handled here,
    /// inline and under one bounds check; longer ones out of line.
    #[inline(always)]
    fn read_packed(&mut self, byte: u8) -> R<&'a str> {
        let nibble = byte == NIBBLE_8;
        if let Some(&[header, a, b]) = self
            .input
            .get(self.pos..)
            .and_then(<[u8]>::first_chunk::<3>)
        {
            let odd = header >> 7 == 1;
            #[expect(
                clippy::arithmetic_side_effects,
                reason = "input[pos..pos + 3] exists, so pos + 3 <= input.len()"
            )]
            let (data_at, after_one, after_two) = (self.pos + 1, self.pos + 2, self.pos + 3);
            match header & 0x7F {
                // One byte comes from a static table: no arena bytes at all.
                1 => {
                    self.pos = after_one;
                    return match packed::one_byte(nibble, a, odd) {
                        Some(text) => Ok(text),
                        None => Err(self.invalid_nibble(data_at)),
                    };
                }
                // Two bytes: two table loads, no loop.
                2 => {
                    self.pos = after_two;
                    let (a, b) = (packed::pair(nibble, a), packed::pair(nibble, b));
                    if a == packed::INVALID || b == packed::INVALID {
                        let i = usize::from(a != packed::INVALID);
                        return Err(self.invalid_nibble(data_at.saturating_add(i)));
                    }
                    self.charge(4, data_at)?;
                    let chars: &'a [u8; 4] = self.bump.alloc([a[0], a[1], b[0], b[1]]);
                    let chars = chars.get(..if odd { 3 } else { 4 }).unwrap_or_default();
                    // SAFETY: `a` and `b` are pair-table entries, neither
                    // INVALID (checked just above), so all four are ASCII.
                    return Ok(unsafe { packed::ascii_text(chars) });
                }
                _ => {}
            }
        }
        self.read_packed_long(nibble)
    }

    /// A packed string of three or more bytes (the tag byte was just
    /// read): [`packed_block`](Self::packed_block), else
    /// [`read_packed_any`](Self::read_packed_any).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(never)]
    fn read_packed_long(&mut self, nibble: bool) -> R<&'a str> {
        match self.packed_block(nibble) {
            Some(text) => text,
            None => self.read_packed_any(nibble),
        }
    }

    /// A packed string of 3 to 16 valid bytes (ids, timestamps, phone
    /// numbers; the tag byte was just read), expanded from one 16-byte
    /// load of the input. `None`, with nothing read, for any other.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn packed_block(&mut self, nibble: bool) -> Option<R<&'a str>> {
        let at = self.pos;
        let (&header, rest) = self.input.get(at..).and_then(<[u8]>::split_first)?;
        let len = usize::from(header & 0x7F);
        if !(3..=16).contains(&len) || len > rest.len() {
            return None;
        }
        // The 16 bytes from the data's start (those past the data are
        // expanded and never read), or at the input's end the data
        // followed by zeros.
        let block = match rest.first_chunk::<16>() {
            Some(block) => *block,
            None => packed::tail_block(self.input, rest)?,
        };
        // A bit per data byte (len <= 16).
        let data_bytes = 1u32.checked_shl(len as u32).unwrap_or(0).wrapping_sub(1);
        if nibble && packed::invalid_nibble_bytes16(block) & data_bytes != 0 {
            return None;
        }
        #[expect(
            clippy::arithmetic_side_effects,
            reason = "the header and len data bytes exist, so at + 1 + len <= input.len()"
        )]
        let (start, text_len) = {
            self.pos = at + 1 + len;
            (at + 1, 2 * len - usize::from(header >> 7))
        };
        let chars = packed::expand16(nibble, block);
        if let Err(fail) = self.charge(32, start) {
            return Some(Err(fail));
        }
        let stored: &'a [u8; 32] = self.bump.alloc(chars);
        let text = stored.get(..text_len).unwrap_or_default();
        // SAFETY: `expand16` gives ASCII for every byte value (its test
        // checks each value at each position), and `text` is a prefix of
        // its output.
        Some(Ok(unsafe { packed::ascii_text(text) }))
    }

    /// [`read_packed_any`](Self::read_packed_any), on targets without SSE2.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline(always)]
    fn read_packed_long(&mut self, nibble: bool) -> R<&'a str> {
        self.read_packed_any(nibble)
    }

    /// A packed string of any length (the tag byte was just read).
    #[inline(never)]
    fn read_packed_any(&mut self, nibble: bool) -> R<&'a str> {
        let header = self.u8()?;
        let len = usize::from(header & 0x7F);
        let start = self.pos();
        let bytes = self.take(len)?;
        let odd = header >> 7 == 1;
        if bytes.is_empty() {
            return Ok("");
        }
        if let [only] = bytes {
            return match packed::one_byte(nibble, *only, odd) {
                Some(text) => Ok(text),
                None => Err(self.invalid_nibble(start)),
            };
        }
        // Short strings (ids, counters, numbers) expand into a fixed-size
        // array that moves into the arena whole: no length-dependent
        // allocation or copy. The unused tail is at most 30 bytes.
        if len <= 4 {
            return self.small_packed::<4>(bytes, nibble, odd, start);
        }
        if len <= 16 {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            return self.sse2_packed(bytes, nibble, odd, start);
            #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
            return self.small_packed::<16>(bytes, nibble, odd, start);
        }
        self.charge(2 * len, start)?;
        let pairs = self.bump.alloc_slice_fill_copy(len, [0u8; 2]);
        if packed::expand(nibble, bytes, pairs) {
            let i = packed::first_invalid_nibble_byte(bytes).unwrap_or(0);
            return Err(self.invalid_nibble(start.saturating_add(i)));
        }
        let chars = pairs.as_flattened();
        let chars = chars
            .get(..chars.len().saturating_sub(usize::from(odd)))
            .unwrap_or_default();
        // SAFETY: `expand` filled every pair from a pair table and found no
        // INVALID one, so every character is ASCII.
        Ok(unsafe { packed::ascii_text(chars) })
    }

    /// Packed data of 5 to 16 bytes, expanded all at once
    /// ([`packed::expand16`]) and moved into the arena as 32 characters, as
    /// the table path ([`small_packed`](Self::small_packed)) does.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn sse2_packed(
        &mut self,
        bytes: &'a [u8],
        nibble: bool,
        odd: bool,
        start: usize,
    ) -> R<&'a str> {
        if nibble && !packed::nibbles_valid_at(self.input, start, bytes.len()) {
            let i = packed::first_invalid_nibble_byte(bytes).unwrap_or(0);
            return Err(self.invalid_nibble(start.saturating_add(i)));
        }
        // The 16 input bytes from the string's start when there are that
        // many (those past the string are expanded and never read), else
        // the string padded with zeros.
        let block = match self.input.get(start..).and_then(<[u8]>::first_chunk::<16>) {
            Some(block) => *block,
            None => {
                let mut block = [0u8; 16];
                if let Some(head) = block.get_mut(..bytes.len()) {
                    head.copy_from_slice(bytes);
                }
                block
            }
        };
        let chars = packed::expand16(nibble, block);
        #[expect(clippy::arithmetic_side_effects, reason = "5 <= bytes.len() <= 16")]
        let len = 2 * bytes.len() - usize::from(odd);
        self.charge(32, start)?;
        let stored: &'a [u8; 32] = self.bump.alloc(chars);
        let text = stored.get(..len).unwrap_or_default();
        // SAFETY: `expand16` gives ASCII for every byte value (its test
        // checks each value at each position), and `text` is a prefix of
        // its output.
        Ok(unsafe { packed::ascii_text(text) })
    }

    /// Packed data of at most `N` bytes, expanded into `[[u8; 2]; N]`.
    #[inline(always)]
    fn small_packed<const N: usize>(
        &mut self,
        bytes: &'a [u8],
        nibble: bool,
        odd: bool,
        start: usize,
    ) -> R<&'a str> {
        let mut pairs = [[0u8; 2]; N];
        if packed::expand(nibble, bytes, &mut pairs) {
            let i = packed::first_invalid_nibble_byte(bytes).unwrap_or(0);
            return Err(self.invalid_nibble(start.saturating_add(i)));
        }
        #[expect(
            clippy::arithmetic_side_effects,
            reason = "N <= 16; 2 <= bytes.len() <= N (one-byte strings never get here)"
        )]
        let (size, len) = (2 * N, 2 * bytes.len() - usize::from(odd));
        self.charge(size, start)?;
        let pairs: &'a [[u8; 2]; N] = self.bump.alloc(pairs);
        let chars = pairs.as_flattened().get(..len).unwrap_or_default();
        // SAFETY: `expand` filled the first `bytes.len()` pairs from a pair
        // table and found no INVALID one; `len` covers no more than those.
        // The pairs past them are zeros, also ASCII.
        Ok(unsafe { packed::ascii_text(chars) })
    }

    /// `byte`, just read, cannot start a string.
    #[cold]
    #[inline(never)]
    fn unexpected_string_byte(&mut self, byte: u8) -> Fail {
        let offset = self.pos().saturating_sub(1);
        self.fail(DecodeError::UnexpectedByte {
            offset,
            byte,
            context: "expected a string",
        })
    }

    #[cold]
    #[inline(never)]
    fn invalid_nibble(&mut self, offset: usize) -> Fail {
        let byte = self.byte_at(offset);
        self.fail(DecodeError::UnexpectedByte {
            offset,
            byte,
            context: "a NIBBLE_8 byte holding a nibble 12, 13 or 14",
        })
    }

    /// A JID in a text slot (tag, key, content): rendered into the arena.
    #[cold]
    #[inline(never)]
    fn read_jid_text(&mut self, byte: u8, slot: Slot) -> R<&'a str> {
        let at = self.pos().saturating_sub(1);
        if matches!(slot, Slot::JidUser | Slot::JidServer) {
            return Err(self.fail(DecodeError::UnexpectedByte {
                offset: at,
                byte,
                context: "a JID tag inside a JID",
            }));
        }
        let jid = self.read_jid(byte)?;
        self.charge(jid.rendered_len(), at)?;
        let out = self.bump.alloc_slice_fill_copy(jid.rendered_len(), 0u8);
        jid::render_into(&jid, out);
        match quarry_core::utf8::to_str(out) {
            Some(text) => Ok(text),
            None => Err(self.jid_text_not_utf8(at, out)),
        }
    }

    /// The rendering `out` of the JID whose tag is at `at` is not UTF-8.
    /// Not reached: the user is text checked when it was read, or packed
    /// digits, and the rest is ASCII. Were it reached, the error would name
    /// the rendering's bad bytes at the JID's tag. Out of line, so that
    /// [`Self::read_jid_text`] carries no error-building code.
    #[cold]
    #[inline(never)]
    fn jid_text_not_utf8(&mut self, at: usize, out: &[u8]) -> Fail {
        let mut e = DecodeError::invalid_utf8(0, out);
        if let DecodeError::InvalidUtf8(bad) = &mut e {
            bad.offset = at;
        }
        self.fail(e)
    }

    /// A JID whose tag byte `byte` was just read.
    #[inline(never)]
    fn read_jid(&mut self, byte: u8) -> R<Jid<'a>> {
        match byte {
            JID_PAIR => self.read_jid_pair(),
            AD_JID => self.read_ad_jid(),
            INTEROP_JID => {
                let user = self.read_jid_user()?;
                let device = self.u16_be()?;
                let integrator = self.u16_be()?;
                self.expect_server(Server::Interop)?;
                Ok(Jid::with_user(user, Server::Interop)
                    .with_device(device)
                    .with_integrator(integrator))
            }
            _ => {
                let user = self.read_jid_user()?;
                let device = self.u16_be()?;
                self.expect_server(Server::Messenger)?;
                Ok(Jid::with_user(user, Server::Messenger).with_device(device))
            }
        }
    }

    /// A `JID_PAIR` whose tag byte was just read: user, server.
    #[inline(always)]
    fn read_jid_pair(&mut self) -> R<Jid<'a>> {
        // An absent user (LIST_EMPTY) is the empty user.
        let user = if self.input.get(self.pos) == Some(&LIST_EMPTY) {
            #[expect(
                clippy::arithmetic_side_effects,
                reason = "the byte at pos exists, so pos + 1 <= input.len()"
            )]
            {
                self.pos += 1;
            }
            JidUser::text("")
        } else {
            self.read_jid_user_any()?
        };
        let server = self.read_server()?;
        Ok(Jid::with_user(user, server))
    }

    /// An `AD_JID` whose tag byte was just read: domain, device, user.
    #[inline(always)]
    fn read_ad_jid(&mut self) -> R<Jid<'a>> {
        let domain_at = self.pos();
        let [domain, device] = self.array::<2>()?;
        let user = self.read_jid_user()?;
        let server = match domain {
            0 => Server::Pn,
            1 => Server::Lid,
            129 => Server::HostedLid,
            d if d & 0x81 == 0x80 => Server::Hosted,
            _ => return Err(self.invalid_ad_domain(domain_at)),
        };
        Ok(Jid::with_user(user, server).with_device(u16::from(device)))
    }

    /// The domain byte at `offset` is not one AD_JID knows.
    #[cold]
    #[inline(never)]
    fn invalid_ad_domain(&mut self, offset: usize) -> Fail {
        let byte = self.byte_at(offset);
        self.fail(DecodeError::UnexpectedByte {
            offset,
            byte,
            context: "not an AD_JID domain",
        })
    }

    /// The user of an AD, interop or Messenger JID: present and non-empty.
    #[inline(always)]
    fn read_jid_user(&mut self) -> R<JidUser<'a>> {
        let at = self.pos;
        let user = self.read_jid_user_any()?;
        if user.is_empty() {
            return Err(self.fail(DecodeError::Malformed {
                offset: at,
                what: "empty JID user",
            }));
        }
        Ok(user)
    }

    /// A JID's user slot. Packed users (phone numbers, LIDs) are checked
    /// and kept packed: they cost no arena bytes and no expansion unless
    /// read.
    #[inline(always)]
    fn read_jid_user_any(&mut self) -> R<JidUser<'a>> {
        // A packed user's tag and header under one bounds check.
        let (byte, header) = match self
            .input
            .get(self.pos..)
            .and_then(<[u8]>::first_chunk::<2>)
        {
            Some(&[byte @ (NIBBLE_8 | HEX_8), header]) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "input[pos..pos + 2] exists, so pos + 2 <= input.len()"
                )]
                {
                    self.pos += 2;
                }
                (byte, header)
            }
            _ => {
                let byte = self.u8()?;
                if byte != NIBBLE_8 && byte != HEX_8 {
                    return match self.read_text_tagged(byte, Slot::JidUser)? {
                        Some(text) => Ok(JidUser::text(text)),
                        None => Err(self.missing_text(Slot::JidUser)),
                    };
                }
                (byte, self.u8()?)
            }
        };
        let start = self.pos;
        let bytes = self.take(usize::from(header & 0x7F))?;
        let nibble = byte == NIBBLE_8;
        if nibble && !packed::nibbles_valid_at(self.input, start, bytes.len()) {
            let i = packed::first_invalid_nibble_byte(bytes).unwrap_or(0);
            return Err(self.invalid_nibble(start.saturating_add(i)));
        }
        Ok(JidUser::packed(bytes, nibble, header >> 7 == 1))
    }

    /// A JID's server: nearly always a single-byte token, read here with
    /// one table load; any other form out of line.
    #[inline(always)]
    fn read_server(&mut self) -> R<Server> {
        let at = self.pos();
        if let Some(&byte @ 1..=235) = self.input.get(at) {
            #[expect(
                clippy::arithmetic_side_effects,
                reason = "the byte at `at` exists, so at + 1 <= input.len()"
            )]
            {
                self.pos = at + 1;
            }
            #[expect(
                clippy::indexing_slicing,
                reason = "byte is in 1..=235 and the table has 236 entries"
            )]
            return match self.servers[usize::from(byte)] {
                Some(server) => Ok(server),
                None => Err(self.wrong_server(at, "not one of the twelve JID servers")),
            };
        }
        self.read_server_text()
    }

    /// A JID's server in a form other than a single-byte token.
    #[inline(never)]
    fn read_server_text(&mut self) -> R<Server> {
        let at = self.pos();
        let name = self.read_required_text(Slot::JidServer)?;
        match Server::from_name(name) {
            Some(server) => Ok(server),
            None => Err(self.wrong_server(at, "not one of the twelve JID servers")),
        }
    }

    /// The server slot at `offset` names no server, or the wrong one: the
    /// error names the slot's first byte (its token, or its string tag).
    #[cold]
    #[inline(never)]
    fn wrong_server(&mut self, offset: usize, context: &'static str) -> Fail {
        let byte = self.byte_at(offset);
        self.fail(DecodeError::UnexpectedByte {
            offset,
            byte,
            context,
        })
    }

    /// The input byte at `offset`, for an error that names it (0 past the
    /// end, which no caller asks for).
    fn byte_at(&self, offset: usize) -> u8 {
        self.input.get(offset).copied().unwrap_or(0)
    }

    fn expect_server(&mut self, want: Server) -> R<()> {
        let at = self.pos();
        if self.read_server()? == want {
            Ok(())
        } else {
            Err(self.wrong_server(
                at,
                match want {
                    Server::Interop => "an INTEROP_JID server other than interop",
                    _ => "an FB_JID server other than msgr",
                },
            ))
        }
    }
}

#[cfg(test)]
mod list_header_count {
    use super::{LIST_8, count_list_headers, count_list_headers_swar};

    /// The word-at-a-time count equals a byte-by-byte one on every length
    /// up to three blocks (so every tail and the 255-word flush), with
    /// `0xF8` at pseudo-random places, next to its neighbours 0xF7 and
    /// 0xF9 and to 0x78 (0xF8 without its top bit).
    #[test]
    fn counts_what_a_byte_loop_counts() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let bytes: Vec<u8> = (0..3 * 8 * 255 + 9)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let pick = [LIST_8, 0xF7, 0xF9, 0x78, 0, 0xFF, 0x12, LIST_8];
                pick.get(usize::from(state as u8 & 7)).copied().unwrap_or(0)
            })
            .collect();
        // Under Miri (which runs this for the SSE2 count's unsafe blocks)
        // a sample: every length to 130, then a few around the first sum
        // of the sixteen-byte count (63 turns of 64 bytes).
        let lens: Vec<usize> = if cfg!(miri) {
            (0..=130)
                .chain([64 * 63 - 1, 64 * 63, 64 * 63 + 63])
                .collect()
        } else {
            (0..=bytes.len()).collect()
        };
        for len in lens {
            let input = bytes.get(..len).unwrap_or_default();
            let naive = input.iter().filter(|&&b| b == LIST_8).count();
            assert_eq!(count_list_headers(input), naive, "{len} bytes");
            assert_eq!(count_list_headers_swar(input), naive, "{len} bytes");
        }
        // All of them `0xF8`: the per-byte counters reach their highest
        // (255 in the word-at-a-time count; 62 turns of four, three blocks
        // and the tail, 252, in the sixteen-byte one).
        let lens: &[usize] = if cfg!(miri) {
            &[64 * 62 + 63]
        } else {
            &[2 * 8 * 255 + 3, 64 * 62 + 63, 64 * 63 + 63, 2 * 64 * 63 + 1]
        };
        for &len in lens {
            let all = vec![LIST_8; len];
            assert_eq!(count_list_headers(&all), len);
            assert_eq!(count_list_headers_swar(&all), len);
        }
    }
}
