//! Wire-format primitives: varints, tags, fixed values, zigzag.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use quarry_core::DecodeError;

/// Wire type of varints.
pub const VARINT: u8 = 0;
/// Wire type of 64-bit fixed values.
pub const I64: u8 = 1;
/// Wire type of length-delimited values.
pub const LEN: u8 = 2;
/// Wire type of a group's start tag.
pub const SGROUP: u8 = 3;
/// Wire type of a group's end tag.
pub const EGROUP: u8 = 4;
/// Wire type of 32-bit fixed values.
pub const I32: u8 = 5;

/// Largest field number protobuf allows.
pub const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;

/// Read a varint at `*pos`, advancing it. More than ten bytes, or a tenth
/// byte with bits beyond 64, is an error at the varint's first byte.
#[inline]
pub(crate) fn read_varint(buf: &[u8], pos: &mut usize, end: usize) -> Result<u64, DecodeError> {
    let start = *pos;
    if start < end
        && let Some(&b) = buf.get(start)
    {
        #[expect(
            clippy::arithmetic_side_effects,
            reason = "start < end <= usize::MAX, so start + 1 and start + 2 do not overflow"
        )]
        {
            if b < 0x80 {
                *pos = start + 1;
                return Ok(u64::from(b));
            }
            // Two bytes: field numbers 16..2047 in tags, lengths 128..16383.
            if start + 1 < end
                && let Some(&c) = buf.get(start + 1)
                && c < 0x80
            {
                *pos = start + 2;
                return Ok(u64::from(b & 0x7F) | (u64::from(c) << 7));
            }
        }
    }
    read_varint_slow(buf, pos, end)
}

/// Varints of three bytes and more (timestamps, lengths past 16 KiB, ids):
/// up to eight bytes decoded from one unaligned load when the buffer has
/// eight bytes at `*pos`; otherwise, and for nine- and ten-byte varints,
/// byte by byte.
#[cold]
fn read_varint_slow(buf: &[u8], pos: &mut usize, end: usize) -> Result<u64, DecodeError> {
    if let Some((value, next)) = read_varint_word(buf, *pos, end) {
        *pos = next;
        return Ok(value);
    }
    read_varint_bytes(buf, pos, end)
}

/// A varint of one to eight bytes at `start`, decoded from one unaligned
/// load of the eight bytes there: the value and the position past it.
/// `None` (the caller goes on with [`read_varint`]'s checked path, which
/// reports what is wrong) when `buf` has fewer than eight bytes at
/// `start`, the varint is longer, or it does not end before `end`.
#[inline(always)]
pub(crate) fn read_varint_word(buf: &[u8], start: usize, end: usize) -> Option<(u64, usize)> {
    let eight = buf.get(start..)?.first_chunk::<8>()?;
    let word = u64::from_le_bytes(*eight);
    // The first byte without a continuation bit ends the varint.
    let stops = !word & 0x8080_8080_8080_8080;
    if stops == 0 {
        return None;
    }
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "stops != 0, so trailing_zeros() <= 63: len is 1..=8 and 64 - 8 * len is 0..=56"
    )]
    let (len, drop_bits) = {
        let len = stops.trailing_zeros() / 8 + 1;
        (len as usize, 64 - 8 * len)
    };
    // The varint must end inside the message.
    if len > end.saturating_sub(start) {
        return None;
    }
    let keep = u64::MAX.checked_shr(drop_bits).unwrap_or(u64::MAX);
    // Drop the continuation bits, then close the gaps they leave:
    // 7-bit groups into 14, 28, then 56 bits.
    let x = word & keep & 0x7F7F_7F7F_7F7F_7F7F;
    let x = ((x & 0x7F00_7F00_7F00_7F00) >> 1) | (x & 0x007F_007F_007F_007F);
    let x = ((x & 0x3FFF_0000_3FFF_0000) >> 2) | (x & 0x0000_3FFF_0000_3FFF);
    let x = ((x & 0x0FFF_FFFF_0000_0000) >> 4) | (x & 0x0000_0000_0FFF_FFFF);
    Some((x, start.saturating_add(len)))
}

#[cold]
fn read_varint_bytes(buf: &[u8], pos: &mut usize, end: usize) -> Result<u64, DecodeError> {
    let start = *pos;
    let mut value = 0u64;
    let mut i = start;
    let mut shift = 0u32;
    loop {
        let b = match buf.get(i) {
            Some(&b) if i < end => b,
            _ => return Err(DecodeError::UnexpectedEof { offset: end }),
        };
        #[expect(clippy::arithmetic_side_effects, reason = "i < end <= usize::MAX")]
        {
            i += 1;
        }
        if shift == 63 && b > 1 {
            return Err(DecodeError::invalid_value(
                start,
                "varint overflows 64 bits",
                format_args!("tenth byte 0x{b:02x}"),
            ));
        }
        value |= u64::from(b & 0x7F) << shift;
        if b < 0x80 {
            *pos = i;
            return Ok(value);
        }
        // At most 63 + 7: a tenth byte either ends the varint or errors.
        #[expect(clippy::arithmetic_side_effects, reason = "shift <= 63 here")]
        {
            shift += 7;
        }
    }
}

/// Skip a varint without decoding it (same errors as [`read_varint`]).
#[inline]
pub(crate) fn skip_varint(buf: &[u8], pos: &mut usize, end: usize) -> Result<(), DecodeError> {
    read_varint(buf, pos, end).map(|_| ())
}

/// Read a tag: `(field number, wire type)`. Field number 0, numbers past
/// 2^29-1 and wire types 6 and 7 are errors at the tag.
#[inline]
pub(crate) fn read_tag(buf: &[u8], pos: &mut usize, end: usize) -> Result<(u32, u8), DecodeError> {
    let at = *pos;
    let raw = read_varint(buf, pos, end)?;
    let wire = (raw & 7) as u8;
    let number = raw >> 3;
    if number == 0 || number > u64::from(MAX_FIELD_NUMBER) {
        return Err(invalid_field_number(at, number));
    }
    if wire > 5 {
        return Err(invalid_wire_type(at, wire, number));
    }
    Ok((number as u32, wire))
}

/// Read a length prefix and return the payload's range, checked against
/// `end`.
#[inline]
pub(crate) fn read_len(
    buf: &[u8],
    pos: &mut usize,
    end: usize,
) -> Result<(usize, usize), DecodeError> {
    let at = *pos;
    let len = read_varint(buf, pos, end)?;
    let start = *pos;
    match usize::try_from(len).ok().and_then(|l| start.checked_add(l)) {
        Some(stop) if stop <= end => {
            *pos = stop;
            Ok((start, stop))
        }
        _ => Err(len_past_end(at, len, end.saturating_sub(start))),
    }
}

/// A length prefix at `at` of `len` bytes where `left` are left. Out of
/// line, so the callers [`read_len`] is inlined into keep no formatting
/// arguments in their frames.
#[cold]
#[inline(never)]
fn len_past_end(at: usize, len: u64, left: usize) -> DecodeError {
    DecodeError::invalid_value(
        at,
        "length past the end of the message",
        format_args!("{len} bytes, {left} left"),
    )
}

/// Read a fixed-size little-endian value of `N` bytes.
#[inline]
pub(crate) fn read_fixed<const N: usize>(
    buf: &[u8],
    pos: &mut usize,
    end: usize,
) -> Result<[u8; N], DecodeError> {
    let start = *pos;
    let bytes = match start.checked_add(N) {
        Some(stop) if stop <= end => buf.get(start..stop),
        _ => None,
    };
    match bytes.and_then(|b| <[u8; N]>::try_from(b).ok()) {
        Some(out) => {
            *pos = start.saturating_add(N);
            Ok(out)
        }
        None => Err(DecodeError::UnexpectedEof { offset: end }),
    }
}

/// Zigzag-decode a 64-bit value.
#[inline]
pub const fn zigzag_decode(v: u64) -> i64 {
    ((v >> 1) as i64) ^ ((v & 1) as i64).wrapping_neg()
}

/// Zigzag-encode a 64-bit value.
#[inline]
pub const fn zigzag_encode(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Bytes a varint of `v` takes.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "bits <= 64, so bits * 9 + 64 is small"
)]
pub const fn varint_len(v: u64) -> usize {
    // 1 + floor(bits / 7), with bits = 64 - leading zeros (at least 1).
    let bits = 64 - (v | 1).leading_zeros() as usize;
    (bits * 9 + 64) / 64
}

/// Append the varint of `v` to `out`.
#[inline]
pub fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A tag whose field number is 0 or past [`MAX_FIELD_NUMBER`].
#[cold]
#[inline(never)]
pub(crate) fn invalid_field_number(at: usize, number: u64) -> DecodeError {
    DecodeError::invalid_value(at, "invalid field number", number)
}

/// A tag whose wire type is 6 or 7: the error names the type and the
/// field.
#[cold]
#[inline(never)]
pub(crate) fn invalid_wire_type(
    at: usize,
    wire: u8,
    number: impl std::fmt::Display,
) -> DecodeError {
    DecodeError::invalid_value(
        at,
        "invalid wire type",
        format_args!("{wire} (field {number})"),
    )
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects,
    reason = "tests index known vectors"
)]
mod tests {
    use super::*;

    #[test]
    fn word_varints_agree_with_the_byte_loop_at_every_length_and_position() {
        for len in 1..=10usize {
            for tail in [0usize, 3, 9] {
                for fill in [0x80u8, 0xFF, 0xAA] {
                    let mut bytes = vec![fill; len];
                    bytes[len - 1] &= 0x7F;
                    if len == 10 {
                        bytes[9] = 1;
                    }
                    bytes.extend(std::iter::repeat_n(0x77, tail));
                    for end in len.saturating_sub(1)..=bytes.len() {
                        let (mut a, mut b) = (0, 0);
                        let word = read_varint_slow(&bytes, &mut a, end);
                        let loop_ = read_varint_bytes(&bytes, &mut b, end);
                        assert_eq!(word, loop_, "len {len}, tail {tail}, end {end}");
                        assert_eq!(a, b);
                    }
                }
            }
        }
    }

    #[test]
    fn varint_len_matches_written_length() {
        for v in [0u64, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            write_varint(&mut out, v);
            assert_eq!(varint_len(v), out.len(), "{v}");
            let mut pos = 0;
            assert_eq!(read_varint(&out, &mut pos, out.len()), Ok(v));
        }
    }

    #[test]
    fn eleven_byte_varint_is_an_error() {
        let bytes = [0xFF; 11];
        let mut pos = 0;
        assert!(read_varint(&bytes, &mut pos, bytes.len()).is_err());
        // Ten bytes whose last carries a bit past 64.
        let mut ten = [0xFF; 10];
        ten[9] = 0x02;
        let mut pos = 0;
        assert!(read_varint(&ten, &mut pos, ten.len()).is_err());
        ten[9] = 0x01;
        let mut pos = 0;
        assert_eq!(read_varint(&ten, &mut pos, ten.len()), Ok(u64::MAX));
    }

    #[test]
    fn zigzag_matches_the_spec_table() {
        // From the protobuf encoding guide.
        assert_eq!(zigzag_encode(0), 0);
        assert_eq!(zigzag_encode(-1), 1);
        assert_eq!(zigzag_encode(1), 2);
        assert_eq!(zigzag_encode(-2), 3);
        assert_eq!(zigzag_encode(i64::MIN), u64::MAX);
        assert_eq!(zigzag_decode(u64::MAX), i64::MIN);
        assert_eq!(zigzag_decode(3), -2);
    }
}
