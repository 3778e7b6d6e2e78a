//! Packed strings: NIBBLE_8 (digits, `-`, `.`) and HEX_8 (upper-case hex),
//! two characters per byte, high nibble first.

/// Character of a NIBBLE_8 nibble; 0 marks the invalid nibbles 12..=14.
/// Nibble 15 is the pad: as a final dropped nibble it vanishes, anywhere
/// else it decodes to NUL, as WhatsApp's own decoder does.
const NIBBLE_CHARS: [u8; 16] = *b"0123456789-.\0\0\0\0";
const HEX_CHARS: [u8; 16] = *b"0123456789ABCDEF";

/// Marks a byte of NIBBLE_8 data holding a nibble 12..=14.
pub(crate) const INVALID: [u8; 2] = [0xFF, 0xFF];

/// Both characters of every byte value, so expanding costs one load per
/// byte instead of two lookups and two range checks.
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
        *pair = table[usize::from(byte)];
        invalid |= pair[0] == INVALID[0];
    }
    invalid
}

/// The pair of characters `byte` expands to ([`INVALID`] for a NIBBLE_8
/// byte holding a nibble 12..=14).
#[inline(always)]
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
    if nibble && NIBBLE_PAIRS[usize::from(byte)] == INVALID {
        return None;
    }
    let table = if nibble { NIBBLE_TEXT } else { HEX_TEXT };
    let start = 2 * usize::from(byte);
    table.get(start..start + 2 - usize::from(odd))
}

/// Expanded packed characters as text.
///
/// Every byte the pair tables hold is ASCII (checked at compile time by
/// [`ALPHABETS_ARE_ASCII`]), and [`INVALID`] pairs are rejected before
/// this is called; validating again cost about 20 instructions per packed
/// string in callgrind (phone numbers and ids are packed in nearly every
/// stanza), so this trusts the tables.
#[inline(always)]
pub(crate) fn ascii_text(chars: &[u8]) -> &str {
    debug_assert!(chars.is_ascii());
    // SAFETY: `chars` was produced from NIBBLE_PAIRS / HEX_PAIRS entries
    // other than INVALID, all of which are ASCII (ALPHABETS_ARE_ASCII), and
    // ASCII is valid UTF-8.
    unsafe { std::str::from_utf8_unchecked(chars) }
}

/// Compile-time proof that every character a valid pair can produce is
/// ASCII.
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
    packed
        .iter()
        .position(|&byte| NIBBLE_PAIRS[usize::from(byte)] == INVALID)
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
