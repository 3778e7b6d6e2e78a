//! Packed strings: NIBBLE_8 (digits, `-`, `.`) and HEX_8 (upper-case hex),
//! two characters per byte, high nibble first.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

/// Character of a NIBBLE_8 nibble; 0 marks the invalid nibbles 12..=14.
/// Nibble 15 is the pad: as a final dropped nibble it vanishes, anywhere
/// else it decodes to NUL, as WhatsApp's own decoder does.
const NIBBLE_CHARS: [u8; 16] = *b"0123456789-.\0\0\0\0";
const HEX_CHARS: [u8; 16] = *b"0123456789ABCDEF";

/// Marks a byte of NIBBLE_8 data holding a nibble 12..=14.
pub(crate) const INVALID: [u8; 2] = [0xFF, 0xFF];

/// Both characters of every byte value, so expanding costs one load per
/// byte instead of two lookups and two range checks.
#[expect(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time, where an index out of range or an overflow fails the build"
)]
const fn pair_table(chars: &[u8; 16], check_nibbles: bool) -> [[u8; 2]; 256] {
    let mut table = [[0u8; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (hi, lo) = (byte >> 4, byte & 0x0F);
        table[byte] = if check_nibbles && ((hi >= 12 && hi <= 14) || (lo >= 12 && lo <= 14)) {
            INVALID
        } else {
            [chars[hi], chars[lo]]
        };
        byte += 1;
    }
    table
}

static NIBBLE_PAIRS: [[u8; 2]; 256] = pair_table(&NIBBLE_CHARS, true);
static HEX_PAIRS: [[u8; 2]; 256] = pair_table(&HEX_CHARS, false);

/// Every one-byte expansion as text, for packed strings of a single byte:
/// entry `b` is bytes `2b..2b + 2`. Invalid nibble bytes hold `??` and are
/// never handed out.
#[expect(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time, where an index out of range or an overflow fails the build"
)]
const fn text_table(pairs: &[[u8; 2]; 256]) -> [u8; 512] {
    let mut text = [0u8; 512];
    let mut byte = 0;
    while byte < 256 {
        let pair = if pairs[byte][0] == 0xFF {
            [b'?', b'?']
        } else {
            pairs[byte]
        };
        text[2 * byte] = pair[0];
        text[2 * byte + 1] = pair[1];
        byte += 1;
    }
    text
}

const NIBBLE_TEXT_BYTES: [u8; 512] = text_table(&pair_table(&NIBBLE_CHARS, true));
const HEX_TEXT_BYTES: [u8; 512] = text_table(&pair_table(&HEX_CHARS, false));
static NIBBLE_TEXT: &str = match std::str::from_utf8(&NIBBLE_TEXT_BYTES) {
    Ok(text) => text,
    Err(_) => panic!("the nibble alphabet is ASCII"),
};
static HEX_TEXT: &str = match std::str::from_utf8(&HEX_TEXT_BYTES) {
    Ok(text) => text,
    Err(_) => panic!("the hex alphabet is ASCII"),
};

/// Expand `packed` into `out` (same length), one pair per byte. Returns
/// true when a NIBBLE_8 byte holds an invalid nibble.
#[inline(always)]
pub(crate) fn expand(nibble: bool, packed: &[u8], out: &mut [[u8; 2]]) -> bool {
    let table = if nibble { &NIBBLE_PAIRS } else { &HEX_PAIRS };
    let mut invalid = false;
    for (pair, &byte) in out.iter_mut().zip(packed) {
        #[expect(clippy::indexing_slicing, reason = "a u8 indexes a 256-entry table")]
        {
            *pair = table[usize::from(byte)];
        }
        invalid |= pair[0] == INVALID[0];
    }
    invalid
}

/// The low and the high eight bytes of `block` as little-endian words.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn halves(block: [u8; 16]) -> (i64, i64) {
    let v = u128::from_le_bytes(block);
    // Truncations keep the low 64 bits, as meant.
    (v as u64 as i64, (v >> 64) as u64 as i64)
}

/// Expand the 16 packed bytes of `block` into their 32 characters, all
/// bytes at once in SSE2 registers: the high and the low nibbles are
/// split, interleaved, and mapped to their characters by comparisons
/// instead of table loads. Every byte value gives ASCII: nibbles 12..=14,
/// which NIBBLE_8 refuses, come out as `/`, `0` and `1`, so callers check
/// NIBBLE_8 data first ([`nibbles_valid_at`]). A caller with fewer than 16
/// bytes of data passes them padded and uses the first two characters per
/// data byte.
///
/// The block goes in and out as `u64` halves, so no pointer is involved.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn expand16(nibble: bool, block: [u8; 16]) -> [u8; 32] {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8,
        _mm_cvtsi128_si64, _mm_set_epi64x, _mm_set1_epi8, _mm_srli_epi16, _mm_srli_si128,
        _mm_sub_epi8, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };
    let (lo_half, hi_half) = halves(block);
    // SAFETY: the intrinsics below take and return values only (no
    // pointer); what they require is SSE2, which this function is compiled
    // only with (`cfg(target_feature = "sse2")`, part of the x86-64
    // baseline).
    let words: [i64; 4] = unsafe {
        let v = _mm_set_epi64x(hi_half, lo_half);
        let low_nibble = _mm_set1_epi8(0x0F);
        let high = _mm_and_si128(_mm_srli_epi16::<4>(v), low_nibble);
        let low = _mm_and_si128(v, low_nibble);
        let nine = _mm_set1_epi8(9);
        let zero = _mm_set1_epi8(b'0' as i8);
        let chars = |n: __m128i| -> __m128i {
            let above_nine = _mm_cmpgt_epi8(n, nine);
            if nibble {
                // 0..=9 to '0'..='9', 10 to '-' and 11 to '.' (both 13
                // below '0' + n), 15 (the pad) to NUL.
                let letters = _mm_and_si128(above_nine, _mm_set1_epi8(0x0D));
                let pad = _mm_cmpeq_epi8(n, low_nibble);
                _mm_andnot_si128(pad, _mm_sub_epi8(_mm_add_epi8(n, zero), letters))
            } else {
                // 0..=9 to '0'..='9', 10..=15 to 'A'..='F' (7 above
                // '0' + n).
                let letters = _mm_and_si128(above_nine, _mm_set1_epi8(7));
                _mm_add_epi8(_mm_add_epi8(n, zero), letters)
            }
        };
        // Character 2i is the high nibble of byte i, character 2i + 1 its
        // low one.
        let first = chars(_mm_unpacklo_epi8(high, low));
        let second = chars(_mm_unpackhi_epi8(high, low));
        [
            _mm_cvtsi128_si64(first),
            _mm_cvtsi128_si64(_mm_srli_si128::<8>(first)),
            _mm_cvtsi128_si64(second),
            _mm_cvtsi128_si64(_mm_srli_si128::<8>(second)),
        ]
    };
    let mut out = [0u8; 32];
    for (quarter, word) in out.chunks_exact_mut(8).zip(words) {
        quarter.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// A bit per byte of `block` (bit `i` for byte `i`) that holds a nibble
/// 12..=14, which NIBBLE_8 refuses: both nibbles of all sixteen bytes
/// compared at once in SSE2 registers.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn invalid_nibble_bytes16(block: [u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_movemask_epi8,
        _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8, _mm_srli_epi16,
    };
    let (lo_half, hi_half) = halves(block);
    // SAFETY: the intrinsics below take and return values only (no
    // pointer); what they require is SSE2, which this function is compiled
    // only with (`cfg(target_feature = "sse2")`, part of the x86-64
    // baseline).
    let bits = unsafe {
        let v = _mm_set_epi64x(hi_half, lo_half);
        let low_nibble = _mm_set1_epi8(0x0F);
        let high = _mm_and_si128(_mm_srli_epi16::<4>(v), low_nibble);
        let low = _mm_and_si128(v, low_nibble);
        let eleven = _mm_set1_epi8(11);
        // 12..=14: above 11 and not 15 (nibbles are 0..=15, so the signed
        // comparison is exact).
        let bad = |n| _mm_andnot_si128(_mm_cmpeq_epi8(n, low_nibble), _mm_cmpgt_epi8(n, eleven));
        _mm_movemask_epi8(_mm_or_si128(bad(high), bad(low)))
    };
    // The mask has sixteen bits, one per byte.
    bits as u32
}

/// The pair of characters `byte` expands to ([`INVALID`] for a NIBBLE_8
/// byte holding a nibble 12..=14).
#[inline(always)]
#[expect(clippy::indexing_slicing, reason = "a u8 indexes a 256-entry table")]
pub(crate) fn pair(nibble: bool, byte: u8) -> [u8; 2] {
    if nibble {
        NIBBLE_PAIRS[usize::from(byte)]
    } else {
        HEX_PAIRS[usize::from(byte)]
    }
}

/// The expansion of packed data made of the single byte `byte`, without
/// its last character when `odd`; `None` for an invalid nibble byte.
#[inline]
pub(crate) fn one_byte(nibble: bool, byte: u8, odd: bool) -> Option<&'static str> {
    if nibble && pair(true, byte) == INVALID {
        return None;
    }
    let table = if nibble { NIBBLE_TEXT } else { HEX_TEXT };
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "start <= 510 (a u8 times two)"
    )]
    let (start, end) = {
        let start = 2 * usize::from(byte);
        (start, start + 2 - usize::from(odd))
    };
    table.get(start..end)
}

/// Expanded packed characters as text, without checking them again.
///
/// # Safety
///
/// `chars` must be ASCII (so valid UTF-8). Characters taken from the pair
/// tables ([`expand`], [`pair`]) are, once [`INVALID`] pairs have been
/// rejected: every character of both alphabets is ASCII, which
/// [`ALPHABETS_ARE_ASCII`] checks at compile time.
#[inline(always)]
pub(crate) unsafe fn ascii_text(chars: &[u8]) -> &str {
    debug_assert!(chars.is_ascii());
    // SAFETY: the caller guarantees `chars` is ASCII, and ASCII is valid
    // UTF-8.
    unsafe { std::str::from_utf8_unchecked(chars) }
}

/// Compile-time proof that every character a valid pair can produce is
/// ASCII.
#[expect(
    clippy::indexing_slicing,
    reason = "evaluated at compile time, where an index out of range fails the build"
)]
const ALPHABETS_ARE_ASCII: () = {
    let mut i = 0;
    while i < 16 {
        assert!(NIBBLE_CHARS[i] < 0x80 && HEX_CHARS[i] < 0x80);
        i += 1;
    }
};
const _: () = ALPHABETS_ARE_ASCII;

/// The index of the first byte of NIBBLE_8 data that holds a nibble
/// 12..=14 (WhatsApp rejects those, even in the dropped pad position).
pub(crate) fn first_invalid_nibble_byte(packed: &[u8]) -> Option<usize> {
    packed.iter().position(|&byte| pair(true, byte) == INVALID)
}

/// True if no nibble of the word (eight bytes of NIBBLE_8 data, little
/// endian, zero-padded) is 12..=14.
#[inline]
pub(crate) fn word_nibbles_valid(word: u64) -> bool {
    // Per nibble b3 b2 b1 b0, invalid is b3 & b2 & !(b1 & b0); the result
    // lands in bit 0 of each nibble. Zero padding is a valid nibble.
    const LOW: u64 = 0x1111_1111_1111_1111;
    let high = (word >> 3) & (word >> 2);
    let low = (word >> 1) & word;
    high & !low & LOW == 0
}

/// True if no nibble of NIBBLE_8 data is 12..=14, checked a word at a
/// time: whole words, then the last eight bytes (overlapping the words
/// before them) for the rest, so no partial word is copied; data shorter
/// than a word is checked as its first and last four bytes.
#[inline(never)]
pub(crate) fn nibbles_valid(packed: &[u8]) -> bool {
    let word = |bytes: &[u8; 8]| word_nibbles_valid(u64::from_le_bytes(*bytes));
    if let Some(last) = packed.last_chunk::<8>() {
        let (words, _) = packed.as_chunks::<8>();
        return words.iter().all(word) && word(last);
    }
    if let (Some(&first), Some(&last)) = (packed.first_chunk::<4>(), packed.last_chunk::<4>()) {
        let halves =
            u64::from(u32::from_le_bytes(first)) | u64::from(u32::from_le_bytes(last)) << 32;
        return word_nibbles_valid(halves);
    }
    packed
        .iter()
        .all(|&byte| word_nibbles_valid(u64::from(byte)))
}

/// [`nibbles_valid`] for the `len` bytes at `start` of `input`: when eight
/// bytes can be read from `start`, one unaligned load and a mask (a JID
/// user, a phone number or LID of 6 to 8 bytes, is one word check); data
/// of 9 to 16 bytes (a group's user) is its first and its last eight bytes.
#[inline(always)]
pub(crate) fn nibbles_valid_at(input: &[u8], start: usize, len: usize) -> bool {
    let word = |bytes: &[u8; 8]| word_nibbles_valid(u64::from_le_bytes(*bytes));
    if len <= 8
        && let Some(eight) = input.get(start..).and_then(|rest| rest.first_chunk::<8>())
    {
        #[expect(
            clippy::arithmetic_side_effects,
            reason = "len <= 8 was checked just above"
        )]
        let mask = u64::MAX.checked_shr(64 - 8 * len as u32).unwrap_or(0);
        return word_nibbles_valid(u64::from_le_bytes(*eight) & mask);
    }
    let data = input.get(start..).and_then(|rest| rest.get(..len));
    if len <= 16
        && let Some((first, last)) =
            data.and_then(|d| d.first_chunk::<8>().zip(d.last_chunk::<8>()))
    {
        return word(first) && word(last);
    }
    data.is_none_or(nibbles_valid)
}

/// The 16 bytes at the end of `rest` (a suffix of `input` holding at most
/// 16 bytes) placed first, zeros after them: the input's last 16 bytes
/// shifted down, so no copy of a variable length is made. `None` when the
/// input is shorter than 16 bytes.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn tail_block(input: &[u8], rest: &[u8]) -> Option<[u8; 16]> {
    let last = input.last_chunk::<16>()?;
    // `rest` ends where `input` does: it starts `skip` bytes into `last`.
    let skip = 16usize.checked_sub(rest.len())?;
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "skip <= 16, so 8 * skip <= 128"
    )]
    let bits = 8 * skip as u32;
    // Little endian: shifting right by whole bytes moves byte `skip` to
    // byte 0 and brings zeros in at the top (a shift of 128 gives 0).
    Some(
        u128::from_le_bytes(*last)
            .checked_shr(bits)
            .unwrap_or(0)
            .to_le_bytes(),
    )
}

/// How a string can be packed, if at all (the encoder's choice, same rules
/// as WhatsApp's: non-empty, at most 127 characters, all in one alphabet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Packing {
    Nibble,
    Hex,
}

pub(crate) fn packing_of(text: &str) -> Option<Packing> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > crate::wire::PACKED_MAX {
        return None;
    }
    if bytes
        .iter()
        .all(|&b| b.is_ascii_digit() || b == b'-' || b == b'.')
    {
        Some(Packing::Nibble)
    } else if bytes
        .iter()
        .all(|&b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
    {
        Some(Packing::Hex)
    } else {
        None
    }
}

#[expect(
    clippy::arithmetic_side_effects,
    reason = "each subtraction is inside the range its arm matched"
)]
fn nibble_of(packing: Packing, c: u8) -> u8 {
    match (packing, c) {
        (_, b'0'..=b'9') => c - b'0',
        (Packing::Nibble, b'-') => 10,
        (Packing::Nibble, b'.') => 11,
        (Packing::Hex, b'A'..=b'F') => c - b'A' + 10,
        _ => unreachable!("packing_of checked the alphabet"),
    }
}

/// Bytes `text` takes packed, after the string's type byte: a length byte,
/// then two characters per byte.
#[inline]
pub(crate) fn packed_len(text: &str) -> usize {
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "len / 2 rounded up is at most usize::MAX / 2 + 1"
    )]
    {
        1 + text.len().div_ceil(2)
    }
}

/// The bytes of `text` (already classified by [`packing_of`]) packed: the
/// length byte then `ceil(len / 2)` bytes, odd lengths padded with nibble
/// 15. [`packed_len`] of them.
#[inline]
pub(crate) fn packed_bytes(packing: Packing, text: &str) -> impl Iterator<Item = u8> {
    let bytes = text.as_bytes();
    let odd = bytes.len() % 2 == 1;
    let head = bytes.len().div_ceil(2) as u8 | if odd { 0x80 } else { 0 };
    std::iter::once(head).chain(bytes.chunks(2).map(move |pair| {
        // chunks(2) yields one or two bytes.
        let hi = pair.first().map_or(15, |&c| nibble_of(packing, c));
        let lo = pair.get(1).map_or(15, |&c| nibble_of(packing, c));
        hi << 4 | lo
    }))
}

/// Append `text` packed (see [`packed_bytes`]).
pub(crate) fn pack_into(packing: Packing, text: &str, out: &mut Vec<u8>) {
    out.extend(packed_bytes(packing, text));
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

    /// The spec's rule, nibble by nibble: 12, 13 and 14 are invalid.
    fn spec_valid(bytes: &[u8]) -> bool {
        bytes
            .iter()
            .all(|&b| !(12..=14).contains(&(b >> 4)) && !(12..=14).contains(&(b & 0x0F)))
    }

    #[test]
    fn word_check_agrees_with_the_nibble_rule_for_every_byte_at_every_position() {
        for len in 0..=17 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    // Valid filler (digits and the pad) around the byte under test.
                    let mut data = vec![0x12u8; len];
                    data[len - 1] = 0x9F;
                    data[at] = byte;
                    assert_eq!(
                        nibbles_valid(&data),
                        spec_valid(&data),
                        "len {len}, byte {byte:#04x} at {at}"
                    );
                    assert_eq!(
                        first_invalid_nibble_byte(&data).is_none(),
                        spec_valid(&data)
                    );
                    // The same bytes inside a longer input, at the end of
                    // one, and at the end of one shorter than a word.
                    let mut longer = vec![0xEEu8; 3];
                    longer.extend_from_slice(&data);
                    let tail = longer.len();
                    longer.extend_from_slice(&[0xEE; 9]);
                    assert_eq!(nibbles_valid_at(&longer, 3, len), spec_valid(&data));
                    assert_eq!(nibbles_valid_at(&longer[..tail], 3, len), spec_valid(&data));
                    assert_eq!(nibbles_valid_at(&data, 0, len), spec_valid(&data));
                }
            }
        }
        assert!(nibbles_valid(&[]));
    }

    /// `tail_block` puts the input's last bytes first and zeros after
    /// them, for every input length around 16 and every suffix.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn tail_block_is_the_suffix_padded_with_zeros() {
        let bytes: Vec<u8> = (1..=40u8).map(|b| b.wrapping_mul(37)).collect();
        for len in 0..=bytes.len() {
            let input = &bytes[..len];
            for start in len.saturating_sub(16)..=len {
                let rest = &input[start..];
                let want = (len >= 16).then(|| {
                    let mut out = [0u8; 16];
                    out[..rest.len()].copy_from_slice(rest);
                    out
                });
                assert_eq!(tail_block(input, rest), want, "{len} {start}");
            }
        }
    }

    /// `expand16` against the characters the alphabets give each nibble,
    /// for every byte value at every position of the block.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn sse2_expansion_gives_the_alphabets_characters() {
        // Under Miri a sample: every seventh byte value at every fifth
        // position.
        let (at_step, byte_step) = if cfg!(miri) { (5, 7) } else { (1, 1) };
        for nibble in [false, true] {
            let chars = if nibble { NIBBLE_CHARS } else { HEX_CHARS };
            for at in (0..16).step_by(at_step) {
                for byte in (0..=255u8).step_by(byte_step) {
                    let mut block = [0x3Au8; 16];
                    block[at] = byte;
                    let got = expand16(nibble, block);
                    assert!(got.is_ascii());
                    let invalid = invalid_nibble_bytes16(block);
                    for (i, &b) in block.iter().enumerate() {
                        assert_eq!(invalid >> i & 1 == 1, !spec_valid(&[b]), "{b:#04x} at {i}");
                    }
                    assert_eq!(invalid >> 16, 0);
                    for (i, &b) in block.iter().enumerate() {
                        let want = [chars[usize::from(b >> 4)], chars[usize::from(b & 0x0F)]];
                        let valid = !nibble || spec_valid(&[b]);
                        if valid {
                            assert_eq!(got[2 * i..2 * i + 2], want, "{nibble} {b:#04x} at {i}");
                        }
                    }
                }
            }
        }
        // Hand-made vectors: an id, a timestamp with its pad, a number with
        // a dash and a dot.
        let mut id = [0u8; 16];
        id[..10].copy_from_slice(&[0x3E, 0xB0, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6, 0x07, 0x18]);
        assert_eq!(&expand16(false, id)[..20], b"3EB0A1B2C3D4E5F60718");
        let mut ts = [0u8; 16];
        ts[..5].copy_from_slice(&[0x17, 0x33, 0x50, 0x01, 0x23]);
        assert_eq!(&expand16(true, ts)[..10], b"1733500123");
        let mut odd = [0u8; 16];
        odd[..3].copy_from_slice(&[0x1A, 0x2B, 0x3F]);
        assert_eq!(&expand16(true, odd)[..6], b"1-2.3\0");
    }
}
