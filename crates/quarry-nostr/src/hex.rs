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
    fn encodes_lower_case() {
        let hex: [u8; 4] = encode(&[0xAB, 0x01]);
        assert_eq!(&hex, b"ab01");
    }
}
