//! Packed strings: NIBBLE_8 (digits, `-`, `.`) and HEX_8 (upper-case hex),
//! two characters per byte, high nibble first.

/// Character of a NIBBLE_8 nibble; 0 marks the invalid nibbles 12..=14.
/// Nibble 15 is the pad: as a final dropped nibble it vanishes, anywhere
/// else it decodes to NUL, as WhatsApp's own decoder does.
const NIBBLE_CHARS: [u8; 16] = *b"0123456789-.\0\0\0\0";
const HEX_CHARS: [u8; 16] = *b"0123456789ABCDEF";

/// Expand `packed` into `out` (exactly `2 * packed.len()` bytes). Returns the
/// index within `packed` of the first byte holding an invalid nibble.
#[inline]
pub(crate) fn unpack_nibbles(packed: &[u8], out: &mut [u8]) -> Result<(), usize> {
    for (i, (&byte, pair)) in packed.iter().zip(out.chunks_exact_mut(2)).enumerate() {
        let (hi, lo) = (byte >> 4, byte & 0x0F);
        if (12..=14).contains(&hi) || (12..=14).contains(&lo) {
            return Err(i);
        }
        pair[0] = NIBBLE_CHARS[usize::from(hi)];
        pair[1] = NIBBLE_CHARS[usize::from(lo)];
    }
    Ok(())
}

/// Expand `packed` into `out` (exactly `2 * packed.len()` bytes).
#[inline]
pub(crate) fn unpack_hex(packed: &[u8], out: &mut [u8]) {
    for (&byte, pair) in packed.iter().zip(out.chunks_exact_mut(2)) {
        pair[0] = HEX_CHARS[usize::from(byte >> 4)];
        pair[1] = HEX_CHARS[usize::from(byte & 0x0F)];
    }
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
    if bytes.iter().all(|&b| b.is_ascii_digit() || b == b'-' || b == b'.') {
        Some(Packing::Nibble)
    } else if bytes.iter().all(|&b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b)) {
        Some(Packing::Hex)
    } else {
        None
    }
}

fn nibble_of(packing: Packing, c: u8) -> u8 {
    match (packing, c) {
        (_, b'0'..=b'9') => c - b'0',
        (Packing::Nibble, b'-') => 10,
        (Packing::Nibble, b'.') => 11,
        (Packing::Hex, b'A'..=b'F') => c - b'A' + 10,
        _ => unreachable!("packing_of checked the alphabet"),
    }
}

/// Write `text` (already classified by [`packing_of`]) packed: the header
/// byte then `ceil(len / 2)` bytes, odd lengths padded with nibble 15.
pub(crate) fn pack_into(packing: Packing, text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    let odd = bytes.len() % 2 == 1;
    out.push(bytes.len().div_ceil(2) as u8 | if odd { 0x80 } else { 0 });
    for pair in bytes.chunks(2) {
        let hi = nibble_of(packing, pair[0]);
        let lo = pair.get(1).map_or(15, |&c| nibble_of(packing, c));
        out.push(hi << 4 | lo);
    }
}
