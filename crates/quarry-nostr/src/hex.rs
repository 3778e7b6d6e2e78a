//! Hex digits to bytes and back, without allocating.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

const INVALID: u8 = 0xFF;

#[expect(
    clippy::indexing_slicing,
    reason = "evaluated at compile time, where an index out of range fails the build"
)]
static DECODE: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

const LOWER: &[u8; 16] = b"0123456789abcdef";

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte of `x` (all bytes below 0x80) that lies in
/// `lo..=hi`; no carry crosses a byte for such inputs.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "every lane of x is below 0x80 (checked by the caller) and lo <= hi < 0x80: no lane carries into the next or out of the word"
)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    (x + LO * u64::from(0x80 - lo)) & !(x + LO * u64::from(0x7F - hi)) & HI
}

/// Eight hex digits (either case) to four bytes, eight at a time: ids,
/// keys and signatures are most of an event's hex.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "nibbles are at most 15 per lane and 9 is added to letters only: no lane carries"
)]
fn decode8(chunk: [u8; 8]) -> Option<[u8; 4]> {
    let w = u64::from_le_bytes(chunk);
    if w & HI != 0 {
        return None;
    }
    let lower = w | (LO * 0x20);
    let digit = in_range(w, b'0', b'9');
    let alpha = in_range(lower, b'a', b'f');
    if digit | alpha != HI {
        return None;
    }
    let nib = (lower & (LO * 0x0F)) + (alpha >> 7) * 9;
    // Byte pairs (n0, n1) -> n0 << 4 | n1 in the low byte of each u16.
    let t = ((nib << 4) | (nib >> 8)) & 0x00FF_00FF_00FF_00FF;
    let t = (t | (t >> 8)) & 0x0000_FFFF_0000_FFFF;
    let t = (t | (t >> 16)) & 0xFFFF_FFFF;
    Some((t as u32).to_le_bytes())
}

/// One register of sixteen hex digits (either case): all-ones lanes where
/// the byte is a digit, and each 16-bit lane's (first, second) digit as
/// first << 4 | second in its low byte. [`decode16`] takes one register,
/// [`decode32`] two. (`#[inline]`: `#[inline(always)]` cannot go with
/// `#[target_feature]`; both callers enable the same feature, so the
/// compiler may inline it into them.)
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn digits_and_pairs(
    v: std::arch::x86_64::__m128i,
) -> (std::arch::x86_64::__m128i, std::arch::x86_64::__m128i) {
    use std::arch::x86_64::{
        _mm_add_epi8, _mm_and_si128, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_set1_epi16, _mm_slli_epi16, _mm_srli_epi16,
    };
    // Bytes strictly between `below` and `above` (signed compares: a byte
    // of 0x80 and above is negative, so it falls in neither range and
    // fails the check like any other non-digit).
    let between = |x, below: u8, above: u8| {
        _mm_and_si128(
            _mm_cmpgt_epi8(x, _mm_set1_epi8(below.cast_signed())),
            _mm_cmplt_epi8(x, _mm_set1_epi8(above.cast_signed())),
        )
    };
    let lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
    // '/' and ':' enclose the digits, '`' and 'g' the lower-case letters.
    let digit = between(v, b'/', b':');
    let alpha = between(lower, b'`', b'g');
    // A digit's low nibble is its value; a letter's low nibble plus 9.
    let nib = _mm_add_epi8(
        _mm_and_si128(v, _mm_set1_epi8(0x0F)),
        _mm_and_si128(alpha, _mm_set1_epi8(9)),
    );
    let pairs = _mm_or_si128(
        _mm_slli_epi16(_mm_and_si128(nib, _mm_set1_epi16(0x00FF)), 4),
        _mm_srli_epi16(nib, 8),
    );
    (_mm_or_si128(digit, alpha), pairs)
}

/// Sixteen hex digits (either case) to eight bytes with SSE2 (part of
/// every x86-64 CPU): a quarter of the instructions of two [`decode8`]s.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn decode16(chunk: [u8; 16]) -> Option<[u8; 8]> {
    use std::arch::x86_64::{
        _mm_cvtsi128_si64, _mm_movemask_epi8, _mm_packus_epi16, _mm_set_epi64x,
    };
    let lo = u64::from_le_bytes(chunk_half(chunk, 0));
    let hi = u64::from_le_bytes(chunk_half(chunk, 8));
    let (ok, pairs) = digits_and_pairs(_mm_set_epi64x(hi.cast_signed(), lo.cast_signed()));
    if _mm_movemask_epi8(ok) != 0xFFFF {
        return None;
    }
    // Pack the 16-bit lanes to bytes.
    let bytes = _mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs));
    Some(bytes.to_le_bytes())
}

/// Thirty-two hex digits (either case) to sixteen bytes with SSE2: two
/// registers of digits checked and combined, then packed into one: ids and
/// keys are two of these, signatures four.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn decode32(chunk: &[u8; 32]) -> Option<[u8; 16]> {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_cvtsi128_si64, _mm_movemask_epi8, _mm_packus_epi16, _mm_set_epi64x,
        _mm_unpackhi_epi64,
    };
    let word = |at: usize| {
        let mut w = [0u8; 8];
        if let Some(src) = chunk.get(at..at.saturating_add(8)) {
            w.copy_from_slice(src);
        }
        u64::from_le_bytes(w).cast_signed()
    };
    let (ok0, p0) = digits_and_pairs(_mm_set_epi64x(word(8), word(0)));
    let (ok1, p1) = digits_and_pairs(_mm_set_epi64x(word(24), word(16)));
    if _mm_movemask_epi8(_mm_and_si128(ok0, ok1)) != 0xFFFF {
        return None;
    }
    let bytes = _mm_packus_epi16(p0, p1);
    let lo = _mm_cvtsi128_si64(bytes).cast_unsigned();
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(bytes, bytes)).cast_unsigned();
    Some((u128::from(hi) << 64 | u128::from(lo)).to_le_bytes())
}

/// Eight bytes of `chunk` from `at` (0 or 8).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn chunk_half(chunk: [u8; 16], at: usize) -> [u8; 8] {
    let mut out = [0u8; 8];
    if let Some(src) = chunk.get(at..at.saturating_add(8)) {
        out.copy_from_slice(src);
    }
    out
}

/// Decode exactly `2 * N` hex digits (either case) into `N` bytes.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    reason = "src.len() == 2N (checked first) and k < N in both loops, so every index is in range"
)]
pub(crate) fn decode<const N: usize>(src: &[u8]) -> Option<[u8; N]> {
    if src.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    let mut k = 0;
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while k + 16 <= N {
        let chunk: &[u8; 32] = src.get(2 * k..)?.first_chunk()?;
        // SAFETY: this loop is compiled only where SSE2 is enabled for the
        // target (the `cfg` above), so the CPU running it has SSE2.
        let bytes = unsafe { decode32(chunk) }?;
        out[k..k + 16].copy_from_slice(&bytes);
        k += 16;
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while k + 8 <= N {
        let chunk: [u8; 16] = src.get(2 * k..2 * k + 16)?.try_into().ok()?;
        // SAFETY: this loop is compiled only where SSE2 is enabled for the
        // target (the `cfg` above), so the CPU running it has SSE2.
        let bytes = unsafe { decode16(chunk) }?;
        out[k..k + 8].copy_from_slice(&bytes);
        k += 8;
    }
    while k + 4 <= N {
        let word: [u8; 8] = src.get(2 * k..2 * k + 8)?.try_into().ok()?;
        let bytes = decode8(word)?;
        out[k..k + 4].copy_from_slice(&bytes);
        k += 4;
    }
    // N not a multiple of 4: the rest a digit pair at a time.
    while k < N {
        let hi = DECODE[src[2 * k] as usize];
        let lo = DECODE[src[2 * k + 1] as usize];
        if (hi | lo) & 0xF0 != 0 {
            return None;
        }
        out[k] = (hi << 4) | lo;
        k += 1;
    }
    Some(out)
}

/// Write `bytes` as lower-case hex into `out` (`out.len() == 2 * bytes.len()`).
#[inline]
#[expect(
    clippy::indexing_slicing,
    reason = "a nibble indexes the 16-entry table; chunks_exact(2) gives pairs"
)]
pub(crate) fn encode_into(bytes: &[u8], out: &mut [u8]) {
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = LOWER[usize::from(b >> 4)];
        pair[1] = LOWER[usize::from(b & 0x0F)];
    }
}

/// Lower-case hex of a fixed-size byte array, on the stack.
#[inline]
pub(crate) fn encode<const N: usize, const M: usize>(bytes: &[u8; N]) -> [u8; M] {
    let mut out = [0u8; M];
    encode_into(bytes, &mut out);
    out
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
    fn decodes_both_cases_and_rejects_everything_else() {
        assert_eq!(decode::<2>(b"0aFf"), Some([0x0a, 0xff]));
        assert_eq!(decode::<2>(b"0aF"), None);
        assert_eq!(decode::<2>(b"0aFg"), None);
        assert_eq!(decode::<1>(b" 1"), None);
        for b in 0..=255u8 {
            let ok = b.is_ascii_hexdigit();
            assert_eq!(decode::<1>(&[b, b'0']).is_some(), ok, "{b}");
        }
    }

    #[test]
    fn word_at_a_time_agrees_with_the_table_for_every_byte_in_every_lane() {
        let table = |c: u8| DECODE[c as usize];
        for lane in 0..8 {
            for c in 0..=255u8 {
                let mut src = *b"0a1B2c3D";
                src[lane] = c;
                let want = src.iter().all(|&c| table(c) < 16).then(|| {
                    let n: Vec<u8> = src.iter().map(|&c| table(c)).collect();
                    [
                        n[0] << 4 | n[1],
                        n[2] << 4 | n[3],
                        n[4] << 4 | n[5],
                        n[6] << 4 | n[7],
                    ]
                });
                assert_eq!(decode8(src), want, "{src:?}");
            }
        }
        assert_eq!(decode::<3>(b"00ff7A"), Some([0, 255, 0x7a]));
        assert_eq!(
            decode::<5>(b"0123456789"),
            Some([1, 0x23, 0x45, 0x67, 0x89])
        );
        assert_eq!(decode::<5>(b"012345678x"), None);
    }

    #[test]
    fn sixteen_digits_at_a_time_agree_with_the_table_for_every_byte_in_every_lane() {
        let table = |c: u8| DECODE[c as usize];
        // Under Miri (which checks the SIMD path's unsafe call) every 17th
        // byte: all of them take minutes there.
        let step = if cfg!(miri) { 17 } else { 1 };
        for lane in 0..16 {
            for c in (0..=255u8).step_by(step) {
                let mut src = *b"0a1B2c3D4e5F6789";
                src[lane] = c;
                let want = src.iter().all(|&c| table(c) < 16).then(|| {
                    let n: Vec<u8> = src.iter().map(|&c| table(c)).collect();
                    let mut out = [0u8; 8];
                    for (k, o) in out.iter_mut().enumerate() {
                        *o = n[2 * k] << 4 | n[2 * k + 1];
                    }
                    out
                });
                assert_eq!(decode::<8>(&src), want, "{src:?}");
                // The same byte in a 32-digit value (32 at a time), at
                // either half.
                let want_long = |long: &[u8; 32]| {
                    long.iter().all(|&c| table(c) < 16).then(|| {
                        let mut out = [0u8; 16];
                        for (k, o) in out.iter_mut().enumerate() {
                            *o = table(long[2 * k]) << 4 | table(long[2 * k + 1]);
                        }
                        out
                    })
                };
                for at in [lane, 16 + lane] {
                    let mut long = *b"00112233445566778899aAbBcCdDeEfF";
                    long[at] = c;
                    assert_eq!(decode::<16>(&long), want_long(&long), "{long:?}");
                }
            }
        }
        let mut all = [0u8; 32];
        for (k, b) in all.iter_mut().enumerate() {
            *b = (k as u8).wrapping_mul(37) ^ 0xA5;
        }
        let hex: [u8; 64] = encode(&all);
        assert_eq!(decode::<32>(&hex), Some(all));
        assert_eq!(decode::<32>(&hex.to_ascii_uppercase()), Some(all));
    }

    #[test]
    fn encodes_lower_case() {
        let hex: [u8; 4] = encode(&[0xAB, 0x01]);
        assert_eq!(&hex, b"ab01");
    }
}
