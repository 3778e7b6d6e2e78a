//! Hex digits to bytes and back, without allocating.

const INVALID: u8 = 0xFF;

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

/// Decode exactly `2 * N` hex digits (either case) into `N` bytes.
#[inline]
pub(crate) fn decode<const N: usize>(src: &[u8]) -> Option<[u8; N]> {
    if src.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    let mut bad = 0u8;
    for (o, pair) in out.iter_mut().zip(src.chunks_exact(2)) {
        let hi = DECODE[pair[0] as usize];
        let lo = DECODE[pair[1] as usize];
        bad |= hi | lo;
        *o = (hi << 4) | (lo & 0x0F);
    }
    (bad & 0xF0 == 0).then_some(out)
}

/// Write `bytes` as lower-case hex into `out` (`out.len() == 2 * bytes.len()`).
#[inline]
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
    fn encodes_lower_case() {
        let hex: [u8; 4] = encode(&[0xAB, 0x01]);
        assert_eq!(&hex, b"ab01");
    }
}
