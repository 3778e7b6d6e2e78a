//! Text validation tuned for the short strings wire formats are made of.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

/// `bytes` as `&str`, or `None` when it is not UTF-8.
///
/// Keys, tags and ids are short ASCII strings; for those a plain ASCII scan
/// costs a fraction of the general validator's set-up. Anything with a
/// byte >= 0x80 goes to `std::str::from_utf8`.
///
/// ```
/// assert_eq!(quarry_core::utf8::to_str(b"entry"), Some("entry"));
/// assert_eq!(quarry_core::utf8::to_str("é".as_bytes()), Some("é"));
/// assert_eq!(quarry_core::utf8::to_str(&[0xC3]), None);
/// ```
#[inline]
pub fn to_str(bytes: &[u8]) -> Option<&str> {
    if is_ascii(bytes) {
        // SAFETY: every byte is < 0x80, and a sequence of ASCII bytes is
        // valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

/// True if every byte is below 0x80, read sixteen or eight bytes at a
/// time.
///
/// `<[u8]>::is_ascii` checks inputs shorter than 64 bytes one byte per
/// loop turn; most strings of a message are 4 to 40 bytes, where whole
/// words take a fraction of the instructions. A string of 8 to 32 bytes
/// is two loads that may overlap, with no loop. Past 32 bytes the blocks
/// between the first and the last 16 bytes are read two per loop turn.
#[inline]
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const HIGH2: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;
    // Shortest first: keys and tokens of 1 to 7 bytes pay one compare more
    // than a check made for them alone.
    if bytes.len() < 8 {
        if let (Some(&first), Some(&last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
            return (u32::from_le_bytes(first) | u32::from_le_bytes(last)) & 0x8080_8080 == 0;
        }
        return bytes.iter().all(|&b| b < 0x80);
    }
    if let (Some(&first), Some(&last)) = (bytes.first_chunk::<16>(), bytes.last_chunk::<16>()) {
        let mut any = u128::from_le_bytes(first) | u128::from_le_bytes(last);
        if bytes.len() > 32 {
            // The first block is in `any` already; the last, partial or
            // whole, is in `last`.
            let rest = bytes.get(16..).unwrap_or_default();
            let (pairs, tail) = rest.as_chunks::<32>();
            for pair in pairs {
                if let ([a, b], _) = pair.as_chunks::<16>() {
                    any |= u128::from_le_bytes(*a) | u128::from_le_bytes(*b);
                }
            }
            if let Some(&block) = tail.first_chunk::<16>() {
                any |= u128::from_le_bytes(block);
            }
        }
        return any & HIGH2 == 0;
    }
    if let (Some(&first), Some(&last)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        return (u64::from_le_bytes(first) | u64::from_le_bytes(last)) & HIGH == 0;
    }
    false
}
