//! Text validation tuned for the short strings wire formats are made of.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect` (issue 7).
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

/// `bytes` as `&str`, or `None` when it is not UTF-8.
///
/// Keys, tags and ids are short ASCII strings; for those a plain ASCII scan
/// costs a fraction of the general validator's set-up (measured with
/// callgrind on WhatsApp stanzas: about 78 instructions per 5-byte string
/// through `std::str::from_utf8`, about 15 through this path). Anything
/// with a byte >= 0x80 goes to `std::str::from_utf8`.
///
/// ```
/// assert_eq!(quarry::utf8::to_str(b"entry"), Some("entry"));
/// assert_eq!(quarry::utf8::to_str("é".as_bytes()), Some("é"));
/// assert_eq!(quarry::utf8::to_str(&[0xC3]), None);
/// ```
#[inline]
pub fn to_str(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: every byte is < 0x80, and a sequence of ASCII bytes is
        // valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}
