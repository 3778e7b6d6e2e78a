//! Frames: the flags byte in front of node bytes, and zlib-compressed
//! bodies inflated into the arena.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
use quarry_core::bumpalo::collections::Vec as ArenaVec;
use quarry_core::{Arena, ArenaBytes, BoundedAlloc, DecodeError};

use crate::decode::{Decoder, arena_for};
use crate::node::Node;
use crate::wire::FLAG_COMPRESSED;

impl Decoder {
    /// Decode a frame: a flags byte, then node bytes, zlib-compressed when
    /// flag `0x02` is set (other flag bits are ignored, as WhatsApp does).
    ///
    /// A compressed body is inflated into the arena, bounded by
    /// [`DecodeOptions::max_inflated_bytes`](quarry_core::DecodeOptions::max_inflated_bytes);
    /// nothing is allocated outside the arena's own chunks. Error offsets
    /// count from the start of the frame for a plain frame, and from the
    /// start of the inflated bytes for a compressed one (limit and inflate
    /// errors: from the start of the compressed body).
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let node = quarry_wa::Decoder::new().decode_frame(&arena, &[0x00, 0xF8, 1, 19]).unwrap();
    /// assert_eq!(node.tag(), "message");
    /// ```
    pub fn decode_frame<'a>(
        &self,
        arena: &'a Arena,
        frame: &'a [u8],
    ) -> Result<Node<'a>, DecodeError> {
        let Some((&flags, body)) = frame.split_first() else {
            return Err(DecodeError::UnexpectedEof { offset: 0 });
        };
        let alloc = BoundedAlloc::new(arena, &self.options);
        if flags & FLAG_COMPRESSED == 0 {
            return self
                .decode_into(arena, &alloc, body)
                .map_err(|e| e.shifted(1));
        }
        let inflated = inflate(arena, &alloc, body, self.options.max_inflated_bytes)?;
        self.decode_into(arena, &alloc, inflated)
    }
}

/// Decode a frame with default limits and the v3 dictionary; see
/// [`Decoder::decode_frame`].
pub fn decode_frame<'a>(arena: &'a Arena, frame: &'a [u8]) -> Result<Node<'a>, DecodeError> {
    Decoder::new().decode_frame(arena, frame)
}

/// A fresh arena for decoding `frame` once with [`decode_frame`] and
/// default limits: [`arena_for`] of the body for a plain frame (one
/// allocation, made here, and none in the decode). A compressed frame does
/// not say how large it inflates, so it gets an empty arena, which the
/// decode fills with one reservation for the inflater's state, its guess of
/// the output (8 times its length plus 1 KiB) and 4 arena bytes per byte
/// of the guess for the decode (a second chunk when the body inflates past
/// the guess or its decode writes more).
///
/// ```
/// let plain = [0x00, 0xF8, 1, 19];
/// let arena = quarry_wa::arena_for_frame(&plain);
/// let reserved = arena.stats().allocated_bytes;
/// assert!(reserved >= quarry_wa::estimate_arena_bytes(&plain[1..]));
/// assert_eq!(quarry_wa::decode_frame(&arena, &plain).unwrap().tag(), "message");
/// assert_eq!(arena.stats().allocated_bytes, reserved);
/// // Compressed (flag 0x02): nothing reserved up front.
/// assert_eq!(quarry_wa::arena_for_frame(&[0x02, 0x78, 0x9C]).stats().allocated_bytes, 0);
/// ```
pub fn arena_for_frame(frame: &[u8]) -> Arena {
    match frame.split_first() {
        Some((&flags, body)) if flags & FLAG_COMPRESSED == 0 => arena_for(body),
        _ => Arena::new(),
    }
}

/// The first guess of a body's inflated size; WhatsApp's stanzas compress
/// by well under 8:1.
fn inflated_size_guess(compressed_len: usize) -> usize {
    compressed_len.saturating_mul(8).saturating_add(1024)
}

/// Arena bytes reserved for decoding the inflated bytes, whose list
/// headers cannot be counted before they exist: 4 per inflated byte of the
/// guess, what the benchmark shapes write at most but for the densest
/// (`usync_like`, 15).
const INFLATED_ESTIMATE: ArenaBytes = ArenaBytes {
    per_input_byte: 4,
    constant: 192,
};

fn inflate<'a>(
    arena: &'a Arena,
    alloc: &BoundedAlloc<'a>,
    body: &[u8],
    limit: usize,
) -> Result<&'a [u8], DecodeError> {
    let mut capacity = inflated_size_guess(body.len()).min(limit);
    // One reservation for the inflater's state, the output and the decode
    // that follows, so a frame that inflates within the guess costs one
    // heap allocation in a fresh arena.
    let state_size = std::mem::size_of::<DecompressorOxide>();
    let budget_left = alloc.limit().saturating_sub(alloc.used());
    let want = state_size
        .saturating_add(capacity)
        .saturating_add(INFLATED_ESTIMATE.of(capacity));
    quarry_core::reserve(arena, want, || want, budget_left);
    alloc.charge(state_size, 1)?;
    let state = alloc.bump().alloc_with(DecompressorOxide::new);
    alloc.charge(capacity, 1)?;
    let mut out = ArenaVec::<u8>::with_capacity_in(capacity, alloc.bump());
    out.resize(capacity, 0);

    let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
        | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (mut read_total, mut written_total) = (0, 0);
    loop {
        let rest = body.get(read_total..).unwrap_or_default();
        let (status, read, written) = decompress(state, rest, &mut out, written_total, flags);
        // The inflater reports what it took from `rest` and wrote into
        // `out`: the totals stay within body.len() and out.len().
        #[expect(clippy::arithmetic_side_effects, reason = "see above")]
        let at = {
            read_total += read;
            written_total += written;
            1 + read_total
        };
        match status {
            TINFLStatus::Done => break,
            TINFLStatus::HasMoreOutput => {
                if capacity >= limit {
                    return Err(DecodeError::InflatedLimit { offset: at, limit });
                }
                let grown = capacity.saturating_mul(2).min(limit);
                alloc.charge(grown.saturating_sub(capacity), at)?;
                // Growing the most recent allocation: bumpalo extends it
                // within the chunk when there is room, and the budget
                // charged above bounds it either way.
                out.resize(grown, 0);
                capacity = grown;
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(DecodeError::Inflate {
                    offset: at,
                    what: "truncated zlib stream",
                });
            }
            TINFLStatus::Adler32Mismatch => {
                return Err(DecodeError::Inflate {
                    offset: at,
                    what: "adler32 mismatch",
                });
            }
            _ => {
                return Err(DecodeError::Inflate {
                    offset: at,
                    what: "invalid zlib data",
                });
            }
        }
    }
    if read_total != body.len() {
        return Err(DecodeError::TrailingBytes {
            offset: read_total.saturating_add(1),
            count: body.len().saturating_sub(read_total),
        });
    }
    out.truncate(written_total);
    Ok(out.into_bump_slice())
}
