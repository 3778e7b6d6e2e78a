//! Value readers both decoders share: scalars normalized to the stored
//! 64-bit form, skipping of values and groups, checked spans, and the
//! errors the decoders report for schema mismatches.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use quarry_core::DecodeError;

use crate::table::Kind;
use crate::wire::{
    EGROUP, I32, I64, LEN, SGROUP, VARINT, read_fixed, read_len, read_tag, read_varint,
    skip_varint, zigzag_decode,
};

#[cold]
pub(crate) fn internal(offset: usize) -> DecodeError {
    DecodeError::Malformed {
        offset,
        what: "inconsistent field counts (decoder bug)",
    }
}

#[cold]
#[inline(never)]
pub(crate) fn wrong_wire_type(offset: usize, wire: u8, number: u32) -> DecodeError {
    DecodeError::invalid_value(
        offset,
        "wrong wire type for field",
        format_args!("{wire} for field {number}"),
    )
}

/// Normalize a varint of `kind` to the stored 64-bit form.
#[inline]
pub(crate) fn norm_varint(kind: Kind, raw: u64) -> u64 {
    match kind {
        Kind::Int32 | Kind::Enum => raw as i32 as i64 as u64,
        Kind::UInt32 => u64::from(raw as u32),
        Kind::SInt32 => {
            let v = raw as u32;
            (((v >> 1) as i32) ^ ((v & 1) as i32).wrapping_neg()) as i64 as u64
        }
        Kind::SInt64 => zigzag_decode(raw) as u64,
        Kind::Bool => u64::from(raw != 0),
        _ => raw,
    }
}

/// Read one scalar value of `kind` (wire type already checked), normalized.
#[inline]
pub(crate) fn read_scalar(
    buf: &[u8],
    pos: &mut usize,
    end: usize,
    kind: Kind,
) -> Result<u64, DecodeError> {
    match kind.wire_type() {
        VARINT => Ok(norm_varint(kind, read_varint(buf, pos, end)?)),
        I64 => Ok(u64::from_le_bytes(read_fixed::<8>(buf, pos, end)?)),
        _ => {
            let v = u32::from_le_bytes(read_fixed::<4>(buf, pos, end)?);
            Ok(if kind == Kind::SFixed32 {
                v as i32 as i64 as u64
            } else {
                u64::from(v)
            })
        }
    }
}

/// The levels below a message at nesting `depth` (the root's is 1) that
/// `max_depth` still allows: 0 for a message at the deepest level allowed.
///
/// prost counts a level for every message, map entry and group, and checks
/// it whenever it reads a field that is not a plain known value (a nested
/// message or group, a map entry, any unknown field): such a field fails
/// where this is 0. The decoders follow the same rule, so both accept and
/// refuse the same inputs at the limit.
pub(crate) fn levels_below(max_depth: u32, depth: u32) -> u32 {
    max_depth.saturating_add(1).saturating_sub(depth)
}

/// The error for a field read where no level is left below (see
/// [`levels_below`]).
#[cold]
pub(crate) fn too_deep(at: usize, max_depth: u32) -> DecodeError {
    DecodeError::DepthLimit {
        offset: at,
        limit: max_depth,
    }
}

/// How [`skip_group`] checks the fields inside the group.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupFields {
    /// An unknown group: every field in it is unknown, and each counts
    /// against the levels left, as prost's skipper counts them.
    Unknown,
    /// A known group, found whole before its body is decoded: only the
    /// groups nested in it are checked here (the body's own decode checks
    /// its other fields, some of which are known plain values).
    Known,
}

/// Skip the body of a group whose start tag (field `number`) was just read;
/// return the end of the body and the position after the end tag. The
/// group is one level of the `levels` left below its message (at least 1:
/// the caller checked the group's own tag), and each group open inside it
/// one more; a field read where none is left is a depth error at its tag
/// (see [`GroupFields`] for which fields count). Each group must end with
/// its own number, as protobuf and prost require.
pub(crate) fn skip_group(
    buf: &[u8],
    pos: &mut usize,
    end: usize,
    number: u32,
    levels: u32,
    max_depth: u32,
    fields: GroupFields,
) -> Result<usize, DecodeError> {
    // The numbers of the groups open inside this one: the first levels on
    // the stack, deeper ones (rare, and bounded by `levels`) on the heap.
    let mut inline = [0u32; OPEN_GROUPS_INLINE];
    let mut deeper: Vec<u32> = Vec::new();
    let mut nesting = 0usize;
    loop {
        let at = *pos;
        if at >= end {
            return Err(DecodeError::UnexpectedEof { offset: end });
        }
        let (n, wt) = read_tag(buf, pos, end)?;
        // The groups open around this field, this one's included.
        let open = nesting.saturating_add(1);
        match wt {
            EGROUP => {
                let Some(inner) = nesting.checked_sub(1) else {
                    if n != number {
                        return Err(mismatched_end(at, n, number));
                    }
                    return Ok(at);
                };
                let open = match inline.get(inner) {
                    Some(&open) => open,
                    None => deeper.pop().unwrap_or(u32::MAX),
                };
                if n != open {
                    return Err(mismatched_end(at, n, open));
                }
                nesting = inner;
            }
            SGROUP => {
                if open >= levels as usize {
                    return Err(too_deep(at, max_depth));
                }
                match inline.get_mut(nesting) {
                    Some(slot) => *slot = n,
                    None => deeper.push(n),
                }
                nesting = open;
            }
            _ => {
                if fields == GroupFields::Unknown && open >= levels as usize {
                    return Err(too_deep(at, max_depth));
                }
                skip_plain(buf, pos, end, wt)?
            }
        }
    }
}

/// Levels of groups nested inside a skipped group whose numbers
/// [`skip_group`] keeps without allocating.
const OPEN_GROUPS_INLINE: usize = 32;

#[cold]
#[inline(never)]
fn mismatched_end(at: usize, end: u32, start: u32) -> DecodeError {
    DecodeError::invalid_value(
        at,
        "end-group tag does not match its start",
        format_args!("field {end} closes group {start}"),
    )
}

/// A value of wire type `wt` at `at` that no field has (6 or 7, or a
/// group's end where a plain value belongs).
#[cold]
#[inline(never)]
fn bad_wire_type(at: usize, wt: u8) -> DecodeError {
    DecodeError::invalid_value(at, "invalid wire type", wt)
}

pub(crate) fn skip_plain(
    buf: &[u8],
    pos: &mut usize,
    end: usize,
    wt: u8,
) -> Result<(), DecodeError> {
    match wt {
        VARINT => skip_varint(buf, pos, end),
        I64 => read_fixed::<8>(buf, pos, end).map(|_| ()),
        I32 => read_fixed::<4>(buf, pos, end).map(|_| ()),
        LEN => read_len(buf, pos, end).map(|_| ()),
        _ => Err(bad_wire_type(*pos, wt)),
    }
}

/// `buf[s..e]` for a span the wire readers checked against the message end;
/// a span outside `buf` would be a decoder bug, reported, not a panic.
#[inline]
pub(crate) fn span(buf: &[u8], s: usize, e: usize) -> Result<&[u8], DecodeError> {
    buf.get(s..e).ok_or_else(|| internal(s))
}

/// Elements in a packed run of wire type `wt` in `buf[s..e]`.
#[inline]
pub(crate) fn packed_count(buf: &[u8], s: usize, e: usize, wt: u8) -> Result<u32, DecodeError> {
    let run = span(buf, s, e)?;
    let len = run.len();
    let n = match wt {
        VARINT => {
            if run.last().is_some_and(|&b| b >= 0x80) {
                return Err(DecodeError::UnexpectedEof { offset: e });
            }
            run.iter().filter(|&&b| b < 0x80).count()
        }
        I64 if len.is_multiple_of(8) => len / 8,
        I32 if len.is_multiple_of(4) => len / 4,
        _ => return Err(packed_misfit(s, len)),
    };
    u32::try_from(n).map_err(|_| packed_too_long(s, n))
}

/// A fixed-width packed run at `s` of `len` bytes, not a whole number of
/// elements.
#[cold]
#[inline(never)]
fn packed_misfit(s: usize, len: usize) -> DecodeError {
    DecodeError::invalid_value(
        s,
        "packed run length is not a multiple of the element size",
        format_args!("{len} bytes"),
    )
}

/// A packed run at `s` of `n` elements, more than a `u32` counts.
#[cold]
#[inline(never)]
fn packed_too_long(s: usize, n: usize) -> DecodeError {
    DecodeError::invalid_value(s, "packed run too long", n)
}
