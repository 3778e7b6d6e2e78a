//! The decoder's entry points, limits and arena policy.
//!
//! A decode runs [`one_pass`]: one non-generic loop driven by
//! [`MessageTable`](crate::MessageTable)s that reads each field once, in
//! input order, whatever the input holds (unknown fields, unlisted enum
//! values, merges, displaced oneof members); occurrences of a singular
//! message field are merged by [`merge`](crate::merge) when their parent
//! ends (past the merge budget, once the root ends).
//! Depth is bounded by [`DecodeOptions::max_depth`] and nothing else: past
//! a hundred levels the recursion goes on in new stack segments.

use quarry_core::{Arena, ArenaBytes, BoundedAlloc, DecodeError, DecodeOptions};

use crate::one_pass;
use crate::record::Record;
use crate::table::MessageRef;

/// The limits protobuf decoders use by default, safe for input from
/// strangers: a nesting limit of 100 (protobuf's own), 1,000,000 items
/// and 64 MiB of arena bytes (the core's [`DecodeOptions::DEFAULT`]).
///
/// Messages past these limits are refused with a limit error: a 16 MB
/// WhatsApp `HistorySync` holds about 1.2 million fields. Decode such
/// input, from a source the caller trusts or whose size it bounds, with
/// [`input_bounded_options`], which lets the input's length alone bound
/// items and arena bytes.
///
/// ```
/// assert_eq!(quarry_proto::DEFAULT_OPTIONS.max_depth, 100);
/// assert_eq!(quarry_proto::DEFAULT_OPTIONS.max_items, 1_000_000);
/// assert_eq!(quarry_proto::DEFAULT_OPTIONS.max_arena_bytes, 64 << 20);
/// ```
pub const DEFAULT_OPTIONS: DecodeOptions = DecodeOptions {
    max_depth: 100,
    ..DecodeOptions::DEFAULT
};

/// Limits under which a decode of `input_len` bytes never fails on items
/// or arena bytes, the depth limit of [`DEFAULT_OPTIONS`]: `max_items` the
/// input's length (every item takes two input bytes or more) and
/// `max_arena_bytes` [`max_arena_bytes`]`(input_len)`. What prost and
/// buffa accept, for input whose size the caller bounds; the decoder also
/// takes its unchecked path under them.
///
/// ```
/// let o = quarry_proto::input_bounded_options(16 << 20);
/// assert_eq!(o.max_items, 16 << 20);
/// assert_eq!(o.max_arena_bytes, quarry_proto::max_arena_bytes(16 << 20));
/// ```
pub const fn input_bounded_options(input_len: usize) -> DecodeOptions {
    DecodeOptions {
        max_items: if input_len > u32::MAX as usize {
            u32::MAX
        } else {
            input_len as u32
        },
        max_arena_bytes: max_arena_bytes(input_len),
        ..DEFAULT_OPTIONS
    }
}

/// Arena bytes one decode writes, at most, per input byte (see
/// [`max_arena_bytes`]).
///
/// Every record is charged to at least two input bytes of its own (a tag
/// and a value byte); strings and bytes borrow from the input. Per input
/// byte, at most:
///
/// * 12 for the final slots (24 bytes each), and 12 more for the slots of
///   dense records (the decode's dense budget is one slot per two input
///   bytes, absent slots included);
/// * 16 for the arrays of repeated fields (8 bytes per scalar, 16 per
///   string, bytes or message, each value one input byte or more; a field
///   read in several packed runs is copied once into one array);
/// * 24 for the scratch stack (a slot per pending field, one per two input
///   bytes at most, grown by doubling) and 2 to sort a message's slots
///   (4 bytes per slot);
/// * 6 to find displaced oneof members (12 bytes per member slot);
/// * 8 for the hash table that keeps the last entry of each key of a map
///   field of more than 1,024 entries (a 4-byte cell, at most four per
///   entry, each entry two input bytes or more; smaller maps use the
///   stack);
/// * for input whose singular message fields occur more than once, what
///   the merge writes when the root ends: per slot of the records merged, 16
///   to list it and 4 to sort it, 24 for its merged copy (22 per input
///   byte), 16 for the arrays concatenated, 8 for the lists of occurrences
///   and of repeated elements it rebuilds, 12 for the records copied on
///   the way down to a merge, 6 for its oneofs, and 8 for the hash table
///   of a map whose entries it concatenates (76);
/// * 24 for the merges done when a message ends (the merge budget,
///   `MERGE_BYTES_PER_INPUT_BYTE`): a record merged there may be copied
///   again when an ancestor's occurrences are merged, so these merges
///   stop at the budget and leave the rest to the merge when the root
///   ends, which copies each slot once.
///
/// That is 12 + 12 + 16 + 24 + 2 + 6 + 8 + 76 + 24 = 180.
pub const ARENA_BYTES_PER_INPUT_BYTE: usize = 180;

/// Arena bytes per input byte the merges done when a message ends may
/// write in one decode (see [`ARENA_BYTES_PER_INPUT_BYTE`]).
pub(crate) const MERGE_BYTES_PER_INPUT_BYTE: usize = 24;

/// Arena bytes one decode may write on top of
/// `ARENA_BYTES_PER_INPUT_BYTE` per input byte: the scratch stack as it
/// starts (8 slots of 24 bytes; when a dense root's first sparse child
/// takes that buffer as its record, the scratch grows again from nothing
/// within the 24 per input byte counted there) and alignment. Nesting costs
/// the arena nothing: the decoder's per-level state is on the thread's
/// stack.
pub const ARENA_BYTES_CONST: usize = 2048;

/// The arena bytes one decode of `input_len` bytes writes at most, whatever
/// the input and however deep it nests.
///
/// ```
/// assert_eq!(quarry_proto::max_arena_bytes(100), 180 * 100 + 2048);
/// ```
pub const fn max_arena_bytes(input_len: usize) -> usize {
    ArenaBytes {
        per_input_byte: ARENA_BYTES_PER_INPUT_BYTE,
        constant: ARENA_BYTES_CONST,
    }
    .of(input_len)
}

/// How much of the arena a decode reserves before it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reserve {
    /// [`estimate_arena_bytes`] into an arena without a chunk (see
    /// [`quarry_core::reserve`]): enough for the messages of real schemas
    /// (one allocation into a fresh arena); a denser input costs one more
    /// chunk or a few. An arena that has a chunk is used as it is.
    #[default]
    Estimate,
    /// [`max_arena_bytes`]: exactly one allocation for any input that fits
    /// the limits, at the price of holding more memory.
    WorstCase,
    /// Reserve nothing (the caller sized the arena).
    None,
}

/// Arena bytes [`estimate_arena_bytes`] reserves per input byte for a long
/// message: above what the WhatsApp-shaped samples use per input byte past
/// the scratch stack's start (strings and bytes borrow from the input;
/// records are 8 to 24 bytes; docs/BENCHMARKS.md has the bytes each
/// sample uses).
pub const ESTIMATE_BYTES_PER_INPUT_BYTE: usize = 2;
/// Arena bytes [`estimate_arena_bytes`] reserves for a short message on
/// top of one per input byte: the decoder's scratch stack as it starts (8
/// slots of 24 bytes) and the root's record.
pub const ESTIMATE_BYTES_CONST: usize = 448;

const ESTIMATE_LONG: ArenaBytes = ArenaBytes {
    per_input_byte: ESTIMATE_BYTES_PER_INPUT_BYTE,
    constant: 0,
};
const ESTIMATE_SHORT: ArenaBytes = ArenaBytes {
    per_input_byte: 1,
    constant: ESTIMATE_BYTES_CONST,
};

/// The arena bytes a decode of `input` reserves in a fresh arena (one
/// allocation; [`Reserve::Estimate`]): the larger of
/// [`ESTIMATE_BYTES_CONST`] plus one per input byte (short messages, where
/// the scratch stack's start dominates) and
/// [`ESTIMATE_BYTES_PER_INPUT_BYTE`] per input byte (long ones), never more
/// than [`max_arena_bytes`]. An estimate, measured: each WhatsApp-shaped
/// sample of the benchmarks writes between a quarter of it and all of it.
///
/// What writes more: messages of many small fields and little string or
/// bytes payload (packed repeated scalars, maps of numbers, deep merges),
/// up to [`max_arena_bytes`]. Their fresh decode takes further chunks from
/// bumpalo, each at least twice the one before; reserve
/// [`Reserve::WorstCase`] for exactly one.
///
/// ```
/// assert_eq!(quarry_proto::estimate_arena_bytes(&[0; 100]), 100 + 448);
/// assert_eq!(quarry_proto::estimate_arena_bytes(&[0; 1000]), 2 * 1000);
/// ```
pub fn estimate_arena_bytes(input: &[u8]) -> usize {
    let len = input.len();
    ESTIMATE_LONG
        .of(len)
        .max(ESTIMATE_SHORT.of(len))
        .min(max_arena_bytes(len))
}

/// Decoder settings: limits and the arena reservation policy.
///
/// ```
/// use quarry_core::DecodeOptions;
/// use quarry_proto::{Decoder, Reserve};
///
/// let decoder = Decoder {
///     options: DecodeOptions { max_depth: 16, ..quarry_proto::DEFAULT_OPTIONS },
///     reserve: Reserve::WorstCase,
/// };
/// assert_eq!(decoder.options.max_depth, 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoder {
    /// Limits. `max_items` counts present fields, repeated elements and
    /// unknown fields; `max_depth` counts nested messages and groups below
    /// the root.
    pub options: DecodeOptions,
    /// How much arena to reserve up front.
    pub reserve: Reserve,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// [`DEFAULT_OPTIONS`] and [`Reserve::Estimate`].
    pub const fn new() -> Self {
        Self {
            options: DEFAULT_OPTIONS,
            reserve: Reserve::Estimate,
        }
    }

    /// Decode `input` as one message of type `message` into `arena`.
    pub fn decode<'a>(
        &self,
        message: MessageRef,
        arena: &'a Arena,
        input: &'a [u8],
    ) -> Result<Record<'a>, DecodeError> {
        let alloc = BoundedAlloc::new(arena, &self.options);
        match self.reserve {
            Reserve::Estimate => {
                let estimate = estimate_arena_bytes(input);
                quarry_core::reserve(arena, estimate, || estimate, self.options.max_arena_bytes);
            }
            Reserve::WorstCase => {
                arena.reserve(max_arena_bytes(input.len()).min(self.options.max_arena_bytes));
            }
            Reserve::None => {}
        }
        decode_inline(message, &alloc, input, &self.options)
    }
}

/// Decode `input` as one message of type `message` with
/// [`DEFAULT_OPTIONS`], reserving [`estimate_arena_bytes`] first. This is
/// what generated `decode` functions call.
#[inline(never)]
pub fn decode<'a>(
    message: MessageRef,
    arena: &'a Arena,
    input: &'a [u8],
) -> Result<Record<'a>, DecodeError> {
    // `Decoder::new().decode(..)` spelled out on the constant options, so
    // nothing is copied per call.
    const OPTIONS: &DecodeOptions = &DEFAULT_OPTIONS;
    let alloc = BoundedAlloc::new(arena, OPTIONS);
    let estimate = estimate_arena_bytes(input);
    quarry_core::reserve(arena, estimate, || estimate, OPTIONS.max_arena_bytes);
    decode_inline(message, &alloc, input, OPTIONS)
}

/// A fresh arena for decoding `input` once: one allocation of
/// [`estimate_arena_bytes`] bytes, made here, so the decode itself
/// allocates nothing when the estimate holds (as it does for the
/// WhatsApp-shaped samples of the benchmarks). Cheaper than
/// `Arena::new()` followed by a decode, whose reservation first asks
/// bumpalo for a chunk through its growth path.
///
/// ```
/// use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, Schema};
///
/// static F: [FieldTable; 1] = [FieldTable::new(1, "s", "s", Kind::String, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static SCHEMA: Schema = Schema { messages: &M, enums: &[] };
/// let message = MessageRef::new(&SCHEMA, 0);
///
/// let input = [0x0A, 0x02, b'h', b'i'];
/// let arena = quarry_proto::arena_for(&input);
/// let reserved = arena.stats().allocated_bytes;
/// assert!(reserved >= quarry_proto::estimate_arena_bytes(&input));
/// let record = quarry_proto::decode(message, &arena, &input).unwrap();
/// assert_eq!(record.str(0), Some("hi"));
/// assert_eq!(arena.stats().allocated_bytes, reserved);
/// ```
pub fn arena_for(input: &[u8]) -> Arena {
    quarry_core::arena_for(estimate_arena_bytes(input))
}

/// Decode with an allocator and options of the caller's (no reservation).
pub fn decode_into<'a>(
    message: MessageRef,
    alloc: &BoundedAlloc<'a>,
    input: &'a [u8],
    options: &DecodeOptions,
) -> Result<Record<'a>, DecodeError> {
    decode_inline(message, alloc, input, options)
}

/// [`decode_into`], inlined into each entry point: its set-up then shares
/// the entry point's frame, one call fewer per decode.
#[inline(always)]
fn decode_inline<'a>(
    message: MessageRef,
    alloc: &BoundedAlloc<'a>,
    input: &'a [u8],
    options: &DecodeOptions,
) -> Result<Record<'a>, DecodeError> {
    one_pass::decode(message, alloc, input, options)
}
