//! The JSON reader, tuned to NIP-01: a cursor over input that is already
//! known to be UTF-8, word-at-a-time string scanning, the full string
//! grammar (escapes, `\uXXXX`, surrogate pairs) and a non-recursive skipper
//! for members nobody asked for.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use quarry_core::{BoundedAlloc, DecodeError};

use crate::options::ControlChars;

/// Bits `k` of the bytes `k` of `chunk` that end a plain run inside a JSON
/// string (`"`, `\\` or below 0x20), and bits of the bytes at or above
/// 0x80, with SSE2 (part of every x86-64 CPU).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn masks16(chunk: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x,
        _mm_set1_epi8,
    };
    let (x, y) = chunk.split_at(8);
    let x = u64::from_le_bytes(x.try_into().unwrap_or_default());
    let y = u64::from_le_bytes(y.try_into().unwrap_or_default());
    let v = _mm_set_epi64x(y.cast_signed(), x.cast_signed());
    let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"'.cast_signed()));
    let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\'.cast_signed()));
    // min(v, 0x1F) == v exactly when v <= 0x1F (unsigned).
    let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
    let hits = _mm_or_si128(_mm_or_si128(quote, backslash), control);
    (
        _mm_movemask_epi8(hits).cast_unsigned(),
        _mm_movemask_epi8(v).cast_unsigned(),
    )
}

/// [`masks16`] a byte at a time, where SSE2 is not there (and in the
/// tests, which hold the two to each other).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn masks_bytewise(chunk: &[u8; 16]) -> (u32, u32) {
    let (mut hit, mut high) = (0u32, 0u32);
    for (k, &c) in chunk.iter().enumerate() {
        if c == b'"' || c == b'\\' || c < 0x20 {
            hit |= 1 << k;
        }
        if c >= 0x80 {
            high |= 1 << k;
        }
    }
    (hit, high)
}

#[inline(always)]
fn masks(chunk: &[u8; 16]) -> (u32, u32) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    // SAFETY: compiled only where SSE2 is enabled for the target (the
    // `cfg` above), so the CPU running it has SSE2.
    let m = unsafe { masks16(chunk) };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let m = masks_bytewise(chunk);
    m
}

/// Sixteen bytes of the input and where the plain runs of a JSON string
/// stop in them: one load serves every escape inside it, which matters
/// for text with an escape every few bytes (JSON inside JSON: profiles).
struct Window {
    /// Offset of the window's first byte.
    base: usize,
    /// Bit `k`: byte `base + k` is `"`, `\\` or below 0x20.
    hit: u32,
    /// Bit `k`: byte `base + k` is at or above 0x80.
    high: u32,
}

impl Window {
    /// The 16 bytes from `at`; past the end of the input, spaces (which
    /// stop nothing).
    #[inline(always)]
    fn load(b: &[u8], at: usize) -> Self {
        let rest = b.get(at..).unwrap_or_default();
        let (hit, high) = match rest.first_chunk::<16>() {
            Some(chunk) => masks(chunk),
            None => masks(&padded(rest)),
        };
        Self {
            base: at,
            hit,
            high,
        }
    }

    /// The first stop at or after `from` (`from >= base`), or `b.len()`;
    /// ORs into `high` the bits of bytes at or above 0x80 it passes
    /// (and those of the window before `from`, all inside the string).
    #[inline(always)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "from >= base (callers move forward only); off < 16 before the shift; base + 16 and base + k stay within b.len() + 16"
    )]
    fn next_stop(&mut self, b: &[u8], mut from: usize, high: &mut u32) -> usize {
        let off = from - self.base;
        if off < 16 {
            let m = self.hit & (u32::MAX << off);
            if m != 0 {
                // The bytes below the stop.
                *high |= self.high & ((m & m.wrapping_neg()) - 1);
                return self.base + m.trailing_zeros() as usize;
            }
            *high |= self.high;
            from = self.base + 16;
        }
        // Whole windows, then the last few bytes padded.
        loop {
            let rest = b.get(from..).unwrap_or_default();
            let (hit, hb) = match rest.first_chunk::<16>() {
                Some(chunk) => masks(chunk),
                None if rest.is_empty() => return b.len(),
                None => masks(&padded(rest)),
            };
            if hit != 0 {
                *self = Self {
                    base: from,
                    hit,
                    high: hb,
                };
                *high |= hb & ((hit & hit.wrapping_neg()) - 1);
                return from + hit.trailing_zeros() as usize;
            }
            *high |= hb;
            from += 16;
        }
    }
}

/// The last fewer than 16 bytes of the input, padded with spaces.
#[cold]
fn padded(rest: &[u8]) -> [u8; 16] {
    let mut chunk = [b' '; 16];
    if let Some(dst) = chunk.get_mut(..rest.len()) {
        dst.copy_from_slice(rest);
    }
    chunk
}

/// Index of the first byte at or after `i` that ends a plain run inside a
/// JSON string (`"`, `\\` or a control character below 0x20), or
/// `b.len()`.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "at advances over whole chunks of b; n - 16 <= at < n in the tail, and a stop in lanes 8.. of a shorter b is byte n + k - 16 >= n - 8 >= 0"
)]
pub(crate) fn find_special(b: &[u8], i: usize) -> usize {
    let n = b.len();
    let mut at = i;
    let rest = b.get(i..).unwrap_or_default();
    let (chunks, tail) = rest.as_chunks::<16>();
    for chunk in chunks {
        let (hit, _) = masks(chunk);
        if hit != 0 {
            return at + hit.trailing_zeros() as usize;
        }
        at += 16;
    }
    if tail.is_empty() {
        return n;
    }
    // The last 16 bytes of `b`, less those before `at`; a shorter `b`
    // with 8 to 15 bytes left as its first and last 8 of them, fewer a
    // byte at a time.
    if let Some(last) = b.last_chunk::<16>() {
        let (hit, _) = masks(last);
        let hit = hit >> (at - (n - 16));
        return if hit != 0 {
            at + hit.trailing_zeros() as usize
        } else {
            n
        };
    }
    if let (Some(first), Some(last)) = (tail.first_chunk::<8>(), tail.last_chunk::<8>()) {
        let mut chunk = [0u8; 16];
        chunk[..8].copy_from_slice(first);
        chunk[8..].copy_from_slice(last);
        let (hit, _) = masks(&chunk);
        // Lanes 8.. hold the bytes from `n - 8`; the first 8 lanes any
        // stop among the first 8 bytes, which comes first.
        return if hit & 0xFF != 0 {
            at + hit.trailing_zeros() as usize
        } else if hit != 0 {
            n + hit.trailing_zeros() as usize - 16
        } else {
            n
        };
    }
    tail.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map_or(n, |k| at + k)
}

/// Index of the first byte at or after `i` that ends a plain run inside a
/// JSON string (`"`, `\\` or a control character below 0x20), or `b.len()`;
/// and whether a byte at or above 0x80 lies before it (from `i`): the run
/// is ASCII when not.
#[inline(always)]
pub(crate) fn scan(b: &[u8], i: usize) -> (usize, bool) {
    if i >= b.len() {
        return (b.len(), false);
    }
    let mut window = Window::load(b, i);
    let mut high = 0;
    let at = window.next_stop(b, i, &mut high);
    (at, high != 0)
}

/// The byte a two-byte escape `\\c` stands for, or `None` when `c` does not
/// make one (`u` starts a `\\uXXXX`; anything else is an error).
#[inline(always)]
fn short_escape(c: u8) -> Option<u8> {
    match SHORT_ESCAPES.get(usize::from(c)) {
        Some(&0) | None => None,
        Some(&byte) => Some(byte),
    }
}

/// Per byte `c`, what `\\c` stands for, or 0 when it is not a two-byte
/// escape (none stands for 0).
#[expect(
    clippy::indexing_slicing,
    reason = "evaluated at compile time, where an index out of range fails the build"
)]
static SHORT_ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'n' as usize] = b'\n';
    t[b'r' as usize] = b'\r';
    t[b't' as usize] = b'\t';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0C;
    t
};

/// `bytes`, known to be ASCII (a scan found no byte at or above 0x80), as
/// text.
#[inline(always)]
fn ascii(bytes: &[u8]) -> &str {
    debug_assert!(bytes.is_ascii());
    // SAFETY: every byte is below 0x80 (the caller's scan saw none at or
    // above it), and ASCII is valid UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// A decoded string whose runs between escapes are ASCII (their scans saw
/// no byte at or above 0x80), as text.
#[inline(always)]
fn ascii_or_escaped(bytes: &[u8]) -> &str {
    debug_assert!(std::str::from_utf8(bytes).is_ok());
    // SAFETY: the bytes are ASCII runs copied from the input and, between
    // them, whole characters each escape wrote with `char::encode_utf8`;
    // the decoder writes every byte of the slice (decoded length counted
    // exactly by the walk), and the zeros it was filled with are ASCII
    // too: the concatenation is UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// Copy `n` bytes of `b` from `i` to `out` at `o` (both in range): 16 at
/// a time, a short run as one 16-byte block where both sides have room
/// past it (what lands after the run is overwritten by what follows), a
/// long one in blocks, the last overlapping the one before.
#[inline(always)]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "o + n <= out.len() and i + n <= b.len() (the caller's run), so every sum stays within a slice's length"
)]
fn copy_run(out: &mut [u8], o: usize, b: &[u8], i: usize, n: usize) {
    let block = |out: &mut [u8], o: usize, i: usize| match (
        out.get_mut(o..).and_then(|r| r.first_chunk_mut::<16>()),
        b.get(i..).and_then(|r| r.first_chunk::<16>()),
    ) {
        (Some(dst), Some(src)) => {
            *dst = *src;
            true
        }
        _ => false,
    };
    if n <= 16 {
        if !block(out, o, i)
            && let (Some(dst), Some(src)) = (out.get_mut(o..o + n), b.get(i..i + n))
        {
            dst.copy_from_slice(src);
        }
        return;
    }
    let mut k = 0;
    while k + 16 < n {
        block(out, o + k, i + k);
        k += 16;
    }
    block(out, o + n - 16, i + n - 16);
}

/// Bytes of decoded text an escaped string is decoded into on the stack
/// before its one copy into the arena; longer ones are walked first and
/// decoded into the arena.
const SCRATCH: usize = 1024;

/// A string [`Reader::unescape_short`] decoded.
struct Short {
    /// Decoded bytes.
    len: usize,
    /// The closing quote's offset.
    end: usize,
    /// Every escape is in the canonical form.
    canonical: bool,
    /// A run after the first escape has a byte at or above 0x80.
    high: bool,
}

/// The first escapes of a string, as the walk found them: offsets, and
/// the byte each two-byte escape stands for (0 for a `\\uXXXX`).
struct Marks {
    at: [usize; MARKS],
    byte: [u8; MARKS],
}

/// What the walk over an escaped string found.
struct Walk {
    /// The closing quote's offset.
    end: usize,
    /// Bytes decoding removes.
    removed: usize,
    /// Every escape is in the canonical form.
    canonical: bool,
    /// Escape offsets written to the marks.
    escapes: usize,
    /// A byte at or above 0x80 follows the first escape.
    high: bool,
}

/// Escapes of one string whose offsets the walk over it keeps for the
/// decoding pass (a profile's JSON content has a few dozen).
const MARKS: usize = 64;

/// One decoded escape sequence.
struct Escape {
    ch: char,
    /// Bytes the escape takes on the wire.
    len: usize,
    /// The wire form is the form the canonical serialization writes.
    canonical: bool,
}

#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "each subtraction is inside the range its arm matched"
)]
fn hex_val(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some(u32::from(c - b'0')),
        b'a'..=b'f' => Some(u32::from(c - b'a' + 10)),
        b'A'..=b'F' => Some(u32::from(c - b'A' + 10)),
        _ => None,
    }
}

pub(crate) struct Reader<'a> {
    pub b: &'a [u8],
    pub pos: usize,
    pub control: ControlChars,
    /// Whether the wire bytes of the last string read (quotes included,
    /// `b[start..pos]`) are exactly its canonical (id preimage) form.
    pub canonical: bool,
}

/// How an error shows a string it names: as JSON writes it; past 160
/// characters, cut, with its length.
#[cold]
pub(crate) fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(256));
    out.push('"');
    for (i, c) in s.chars().enumerate() {
        if i == 160 {
            out.push_str(&format!("\"… ({} characters)", s.chars().count()));
            return out;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An error about the number at `start`, naming it.
#[cold]
#[inline(never)]
pub(crate) fn number_error(b: &[u8], start: usize, what: &'static str) -> DecodeError {
    DecodeError::invalid_value(start, what, number_at(b, start))
}

/// The JSON number (or what was meant as one) starting at `start`, as text,
/// for an error naming it.
#[cold]
fn number_at(b: &[u8], start: usize) -> String {
    let rest = b.get(start..).unwrap_or_default();
    let len = rest
        .iter()
        .take(40)
        .take_while(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .count();
    String::from_utf8_lossy(rest.get(..len).unwrap_or_default()).into_owned()
}

pub(crate) fn unexpected(b: &[u8], offset: usize, context: &'static str) -> DecodeError {
    match b.get(offset) {
        Some(&byte) => DecodeError::UnexpectedByte {
            offset,
            byte,
            context,
        },
        None => DecodeError::UnexpectedEof { offset },
    }
}

impl<'a> Reader<'a> {
    /// A reader at the start of `input`. Nothing is validated up front:
    /// structure outside strings is ASCII (any other byte there is an
    /// error), and each string is checked as UTF-8 where its scan met a
    /// byte at or above 0x80, so a decode that succeeds has read valid
    /// UTF-8 only. A decode that fails reports the input's first byte that
    /// is not UTF-8, if it has one, before any other error
    /// ([`Reader::fail`]), as a validation of the whole input first would.
    pub fn new(input: &'a [u8], control: ControlChars) -> Self {
        Self {
            b: input,
            pos: 0,
            control,
            canonical: true,
        }
    }

    /// What a decode that failed with `e` reports: the first byte of the
    /// input that is not UTF-8, if any, else `e`.
    #[cold]
    #[inline(never)]
    pub fn fail(input: &[u8], e: DecodeError) -> DecodeError {
        match std::str::from_utf8(input) {
            Ok(_) => e,
            Err(_) => DecodeError::invalid_utf8(0, input),
        }
    }

    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    #[inline]
    pub fn err(&self, context: &'static str) -> DecodeError {
        unexpected(self.b, self.pos, context)
    }

    #[inline]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past a byte just seen"
    )]
    pub fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            if c > b' ' || !(c == b' ' || c == b'\n' || c == b'\r' || c == b'\t') {
                return;
            }
            self.pos += 1;
        }
    }

    /// Skip whitespace, then consume `byte` or fail with `context`.
    #[inline]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past a byte just seen"
    )]
    pub fn expect(&mut self, byte: u8, context: &'static str) -> Result<(), DecodeError> {
        self.ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(context))
        }
    }

    /// After a member or element: skip whitespace, consume `,` (returns
    /// true) or `close` (returns false).
    #[inline]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past a byte just seen"
    )]
    pub fn comma_or(&mut self, close: u8, context: &'static str) -> Result<bool, DecodeError> {
        self.ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(self.err(context)),
        }
    }

    /// Decode the escape at `at` (which holds the backslash).
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "at is a backslash's offset, at most b.len() <= isize::MAX, plus at most 12; d is the 4 bytes at + 2..at + 6; the surrogate arithmetic runs on values checked to be in D800..DC00 and DC00..E000"
    )]
    fn escape(&self, at: usize) -> Result<Escape, DecodeError> {
        let b = self.b;
        let Some(&c) = b.get(at + 1) else {
            return Err(DecodeError::UnexpectedEof { offset: at + 1 });
        };
        let simple = |ch: char| {
            Ok(Escape {
                ch,
                len: 2,
                canonical: true,
            })
        };
        match c {
            b'"' => simple('"'),
            b'\\' => simple('\\'),
            b'n' => simple('\n'),
            b'r' => simple('\r'),
            b't' => simple('\t'),
            b'b' => simple('\u{8}'),
            b'f' => simple('\u{c}'),
            b'/' => Ok(Escape {
                ch: '/',
                len: 2,
                canonical: false,
            }),
            b'u' => {
                let hi = self.hex4(at + 2)?;
                if (0xDC00..0xE000).contains(&hi) {
                    return Err(self.escape_error(at, 6, "lone low surrogate escape"));
                }
                if (0xD800..0xDC00).contains(&hi) {
                    if b.get(at + 6) != Some(&b'\\') || b.get(at + 7) != Some(&b'u') {
                        return Err(self.escape_error(at, 6, "lone high surrogate escape"));
                    }
                    let lo = self.hex4(at + 8)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(self.escape_error(at, 6, "lone high surrogate escape"));
                    }
                    let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    let Some(ch) = char::from_u32(cp) else {
                        return Err(self.escape_error(at, 12, "invalid surrogate pair"));
                    };
                    return Ok(Escape {
                        ch,
                        len: 12,
                        canonical: false,
                    });
                }
                let Some(ch) = char::from_u32(hi) else {
                    return Err(self.escape_error(at, 6, "invalid \\u escape"));
                };
                // The canonical form writes the C0 controls that have no
                // short escape as `\u00xx` with lower-case digits
                // (JSON.stringify, serde_json) unless told to write them
                // verbatim.
                let canonical = hi < 0x20
                    && !matches!(hi, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D)
                    && self.control == ControlChars::Escape
                    && b.get(at + 2..at + 6).is_some_and(|d| {
                        d[0] == b'0'
                            && d[1] == b'0'
                            && !d[2].is_ascii_uppercase()
                            && !d[3].is_ascii_uppercase()
                    });
                Ok(Escape {
                    ch,
                    len: 6,
                    canonical,
                })
            }
            _ => Err(self.escape_error(at, 2, "invalid escape sequence")),
        }
    }

    /// An error naming the escape of `len` characters at `at` (fewer where
    /// the input ends first).
    #[cold]
    #[inline(never)]
    fn escape_error(&self, at: usize, len: usize, what: &'static str) -> DecodeError {
        // An escape's characters take at most 4 bytes each; a decode whose
        // input is not UTF-8 reports that instead (`Reader::fail`).
        let bytes = self.b.get(at..).unwrap_or_default();
        let bytes = bytes.get(..len.saturating_mul(4)).unwrap_or(bytes);
        let text: String = String::from_utf8_lossy(bytes).chars().take(len).collect();
        DecodeError::invalid_value(at, what, text)
    }

    #[expect(
        clippy::arithmetic_side_effects,
        reason = "at + i with i < 4, at an input offset"
    )]
    fn hex4(&self, at: usize) -> Result<u32, DecodeError> {
        let mut v = 0u32;
        for i in 0..4 {
            let Some(&c) = self.b.get(at + i) else {
                return Err(DecodeError::UnexpectedEof { offset: at + i });
            };
            let Some(d) = hex_val(c) else {
                return Err(unexpected(
                    self.b,
                    at + i,
                    "invalid hex digit in \\u escape",
                ));
            };
            v = (v << 4) | d;
        }
        Ok(v)
    }

    #[cold]
    fn control_error(&self, at: usize) -> DecodeError {
        match self.b.get(at) {
            Some(_) => unexpected(self.b, at, "raw control character in string"),
            None => DecodeError::UnexpectedEof { offset: at },
        }
    }

    /// Read a string; `pos` must be at its opening quote (checked).
    #[inline(always)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "a quote was peeked at start < b.len(); end <= b.len()"
    )]
    pub fn string(&mut self, alloc: &BoundedAlloc<'a>) -> Result<&'a str, DecodeError> {
        let start = self.pos;
        if self.peek() == Some(b'"') {
            let (end, high) = scan(self.b, start + 1);
            if self.b.get(end) == Some(&b'"') {
                let raw = self.b.get(start + 1..end).unwrap_or_default();
                let text = if high {
                    std::str::from_utf8(raw).ok()
                } else {
                    Some(ascii(raw))
                };
                if let Some(text) = text {
                    self.pos = end + 1;
                    self.canonical = true;
                    return Ok(text);
                }
            }
        }
        self.string_slow(alloc)
    }

    /// Not a plain string: escapes, or an error.
    #[cold]
    #[inline(never)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "a quote was peeked at start < b.len()"
    )]
    fn string_slow(&mut self, alloc: &BoundedAlloc<'a>) -> Result<&'a str, DecodeError> {
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string"));
        }
        let (end, high) = scan(self.b, start + 1);
        match self.b.get(end) {
            Some(b'\\') => self.escaped_string(start, end, high, alloc),
            Some(b'"') => Err(self.utf8_error(start)),
            _ => Err(self.control_error(end)),
        }
    }

    /// The error for text that is not UTF-8 somewhere from `at` on: the
    /// input's first such byte.
    #[cold]
    #[inline(never)]
    fn utf8_error(&self, at: usize) -> DecodeError {
        match std::str::from_utf8(self.b) {
            Ok(_) => DecodeError::invalid_utf8(at, b""),
            Err(_) => DecodeError::invalid_utf8(0, self.b),
        }
    }

    /// After a value in compact JSON: `,` (true) or `close` (false) right
    /// here, with no whitespace; `None` for anything else (the caller then
    /// takes the general path).
    #[inline(always)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past a byte just seen"
    )]
    pub fn tight_sep(&mut self, close: u8) -> Option<bool> {
        match self.b.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                Some(true)
            }
            Some(&c) if c == close => {
                self.pos += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// The slow path: the string has an escape at `first_escape`, and
    /// `high` says whether a byte at or above 0x80 comes before it. Walk it
    /// once to find its end (and check every escape), then decode it into
    /// the arena with exact capacity: the runs between escapes are copied
    /// 16 bytes at a time where the output has room, and the result is
    /// checked as UTF-8 only when a run has a byte at or above 0x80.
    #[inline(never)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "the closing quote at end follows the opening one at start, and each escape removes fewer bytes than it takes: removed <= end - start - 1; stop + e.len stays within the walked string; o counts bytes written, at most decoded_len"
    )]
    fn escaped_string(
        &mut self,
        start: usize,
        first_escape: usize,
        high: bool,
        alloc: &BoundedAlloc<'a>,
    ) -> Result<&'a str, DecodeError> {
        let mut scratch = [0u8; SCRATCH];
        if let Some(done) = self.unescape_short(start, first_escape, &mut scratch)? {
            let text = scratch.get(..done.len).unwrap_or_default();
            alloc.charge(text.len(), start)?;
            let out: &'a [u8] = alloc.bump().alloc_slice_copy(text);
            self.pos = done.end + 1;
            self.canonical = done.canonical;
            return if high || done.high {
                std::str::from_utf8(out).map_err(|_| self.utf8_error(start))
            } else {
                // Runs without a byte at or above 0x80 are ASCII, and each
                // escape wrote one whole character.
                Ok(ascii_or_escaped(out))
            };
        }
        let mut marks = Marks {
            at: [0; MARKS],
            byte: [0; MARKS],
        };
        let walk = self.walk_escaped(first_escape, &mut marks)?;
        let end = walk.end;
        let decoded_len = end - (start + 1) - walk.removed;
        alloc.charge(decoded_len, start)?;
        let out: &'a mut [u8] = alloc.bump().alloc_slice_fill_copy(decoded_len, 0u8);
        let b = self.b;
        let mut o = 0;
        let mut i = start + 1;
        // The escapes the walk marked decode without scanning again; past
        // them (a string with more than MARKS escapes), the scan goes on.
        for (&at, &byte) in marks.at.iter().zip(&marks.byte).take(walk.escapes) {
            copy_run(out, o, b, i, at - i);
            o += at - i;
            if byte != 0 {
                if let Some(dst) = out.get_mut(o) {
                    *dst = byte;
                }
                o += 1;
                i = at + 2;
            } else {
                i = self.unescape(at, out, &mut o)?;
            }
        }
        while i < end {
            let stop = find_special(b, i).min(end);
            copy_run(out, o, b, i, stop - i);
            o += stop - i;
            if stop >= end {
                break;
            }
            i = self.unescape(stop, out, &mut o)?;
        }
        self.pos = end + 1;
        self.canonical = walk.canonical;
        let out: &'a [u8] = out;
        let out = out.get(..o).unwrap_or_default();
        if high || walk.high {
            std::str::from_utf8(out).map_err(|_| self.utf8_error(start))
        } else {
            // Runs without a byte at or above 0x80 are ASCII, and each
            // escape wrote one whole character.
            Ok(ascii_or_escaped(out))
        }
    }

    /// Decode a string whose first escape is at `first_escape` in one
    /// pass into `scratch`: `None` when it does not fit there (the caller
    /// then walks it and decodes it into the arena), an error where the
    /// walk would find one, in the same order.
    #[inline(always)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "start < first_escape <= stop <= b.len(); o counts bytes written to scratch, checked against its length before each write; an escape takes 2..=12 input bytes"
    )]
    fn unescape_short(
        &self,
        start: usize,
        first_escape: usize,
        scratch: &mut [u8; SCRATCH],
    ) -> Result<Option<Short>, DecodeError> {
        let b = self.b;
        let mut canonical = true;
        let mut high = 0u32;
        let mut i = start + 1;
        let mut stop = first_escape;
        let mut o = 0usize;
        let mut window = Window::load(b, first_escape);
        loop {
            // The run before the stop.
            let n = stop - i;
            if o + n + 4 > SCRATCH {
                return Ok(None);
            }
            copy_run(scratch, o, b, i, n);
            o += n;
            match b.get(stop) {
                Some(b'\\') => {
                    let short = b
                        .get(stop + 1)
                        .and_then(|&c| SHORT_ESCAPES.get(usize::from(c)))
                        .copied()
                        .unwrap_or(0);
                    if short != 0 {
                        if let Some(dst) = scratch.get_mut(o) {
                            *dst = short;
                        }
                        o += 1;
                        canonical &= short != b'/';
                        i = stop + 2;
                    } else {
                        let e = self.escape(stop)?;
                        let mut buf = [0u8; 4];
                        let ch = e.ch.encode_utf8(&mut buf).as_bytes();
                        if let Some(dst) = scratch.get_mut(o..o + ch.len()) {
                            dst.copy_from_slice(ch);
                        }
                        o += ch.len();
                        canonical &= e.canonical;
                        i = stop + e.len;
                    }
                }
                Some(b'"') => {
                    return Ok(Some(Short {
                        len: o,
                        end: stop,
                        canonical,
                        high: high != 0,
                    }));
                }
                _ => return Err(self.control_error(stop)),
            }
            stop = window.next_stop(b, i, &mut high);
        }
    }

    /// Decode the escape at `at` (checked by the walk) into `out[*o..]`,
    /// moving `o` past it; returns the offset after it.
    #[inline(always)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "at is a backslash's offset within the input; o stays at most out.len() (decoded bytes never outnumber the wire's)"
    )]
    fn unescape(&self, at: usize, out: &mut [u8], o: &mut usize) -> Result<usize, DecodeError> {
        if let Some(c) = self.b.get(at + 1).and_then(|&c| short_escape(c)) {
            if let Some(dst) = out.get_mut(*o) {
                *dst = c;
            }
            *o += 1;
            return Ok(at + 2);
        }
        let e = self.escape(at)?;
        let mut buf = [0u8; 4];
        let ch = e.ch.encode_utf8(&mut buf).as_bytes();
        if let Some(dst) = out.get_mut(*o..*o + ch.len()) {
            dst.copy_from_slice(ch);
        }
        *o += ch.len();
        Ok(at + e.len)
    }

    /// From an escape at `i` inside a string: the closing quote's offset,
    /// how many bytes decoding removes, whether every escape is canonical,
    /// how many of the first escapes' offsets it wrote to `marks` and
    /// whether a byte at or above 0x80 follows the first escape.
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "an escape takes 2..=12 input bytes and decodes to fewer: e.len - len_utf8 >= 0, and i stays within the input"
    )]
    fn walk_escaped(&self, mut i: usize, marks: &mut Marks) -> Result<Walk, DecodeError> {
        let b = self.b;
        let mut removed = 0usize;
        let mut canonical = true;
        let mut escapes = 0usize;
        let mut high = 0u32;
        let mut window = Window::load(b, i);
        loop {
            match b.get(i) {
                Some(b'\\') => {
                    let short = b
                        .get(i + 1)
                        .and_then(|&c| SHORT_ESCAPES.get(usize::from(c)))
                        .copied()
                        .unwrap_or(0);
                    if let (Some(at), Some(byte)) =
                        (marks.at.get_mut(escapes), marks.byte.get_mut(escapes))
                    {
                        *at = i;
                        *byte = short;
                    }
                    escapes += 1;
                    if short != 0 {
                        // The two-byte escapes decode to one byte; `\\/` is
                        // the one the canonical form does not write.
                        removed += 1;
                        canonical &= short != b'/';
                        i += 2;
                    } else {
                        let e = self.escape(i)?;
                        removed += e.len - e.ch.len_utf8();
                        canonical &= e.canonical;
                        i += e.len;
                    }
                }
                Some(b'"') => {
                    return Ok(Walk {
                        end: i,
                        removed,
                        canonical,
                        escapes: escapes.min(MARKS),
                        high: high != 0,
                    });
                }
                _ => return Err(self.control_error(i)),
            }
            i = window.next_stop(b, i, &mut high);
        }
    }

    /// Skip a string (validating its escapes, and its text as UTF-8 where
    /// it has a byte at or above 0x80); `pos` at the opening quote.
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos is at a peeked quote; i advances over escapes read within the input"
    )]
    pub fn skip_string(&mut self) -> Result<(), DecodeError> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string"));
        }
        let start = self.pos;
        let (mut i, mut high) = scan(self.b, start + 1);
        loop {
            match self.b.get(i) {
                Some(b'"') => {
                    if high
                        && std::str::from_utf8(self.b.get(start + 1..i).unwrap_or_default())
                            .is_err()
                    {
                        return Err(self.utf8_error(start));
                    }
                    self.pos = i + 1;
                    return Ok(());
                }
                Some(b'\\') => i += self.escape(i)?.len,
                _ => return Err(self.control_error(i)),
            }
            let (next, h) = scan(self.b, i);
            high |= h;
            i = next;
        }
    }

    /// A non-negative integer that fits `u64`; `what` names the member for
    /// errors.
    #[inline]
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "b[start] is the digit matched above; i advances over input digits; c - b'0' on a digit"
    )]
    pub fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let start = self.pos;
        let b = self.b;
        match b.get(start) {
            Some(b'0'..=b'9') => {}
            Some(b'-') => return Err(number_error(b, start, what)),
            _ => return Err(self.err("expected a number")),
        }
        let mut v: u64 = 0;
        let mut i = start;
        while let Some(&c) = b.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            v = match v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
            {
                Some(v) => v,
                None => return Err(number_error(b, start, what)),
            };
            i += 1;
        }
        if b[start] == b'0' && i > start + 1 {
            return Err(number_error(b, start, "leading zero in number"));
        }
        if matches!(b.get(i), Some(b'.' | b'e' | b'E')) {
            return Err(number_error(b, start, what));
        }
        self.pos = i;
        Ok(v)
    }

    /// Skip any JSON number (grammar-checked).
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "b[i] is the first of n >= 1 digits just found; i advances over input bytes"
    )]
    fn skip_number(&mut self) -> Result<(), DecodeError> {
        let b = self.b;
        let mut i = self.pos;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |mut i: usize| {
            let s = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            (i, i - s)
        };
        let (j, n) = digits(i);
        if n == 0 {
            return Err(unexpected(b, j, "expected a digit"));
        }
        if b[i] == b'0' && n > 1 {
            return Err(number_error(b, i, "leading zero in number"));
        }
        i = j;
        if b.get(i) == Some(&b'.') {
            let (j, n) = digits(i + 1);
            if n == 0 {
                return Err(unexpected(b, j, "expected a digit"));
            }
            i = j;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let (j, n) = digits(i);
            if n == 0 {
                return Err(unexpected(b, j, "expected a digit"));
            }
            i = j;
        }
        self.pos = i;
        Ok(())
    }

    /// `true` or `false`.
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "pos <= b.len(), so b[pos..] exists; pos moves past the literal just matched"
    )]
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        if self.b[self.pos..].starts_with(b"true") {
            self.pos += 4;
            Ok(true)
        } else if self.b[self.pos..].starts_with(b"false") {
            self.pos += 5;
            Ok(false)
        } else {
            Err(self.err("expected true or false"))
        }
    }

    /// Skip one value of any type. `depth` is the depth of the value
    /// itself; containers inside it count on from there. No recursion:
    /// a bit per open container says whether it is an object, in a fixed
    /// array of 1,024 bits, so skipped values nest at most
    /// `min(max_depth, 1024)` levels and the error names that limit.
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "open < limit <= 1024, so open / 64 < 16 indexes the 16-word is_obj; depth is at most 3 (the callers'); pos moves past peeked bytes and literals matched at at <= b.len()"
    )]
    pub fn skip_value(&mut self, depth: u32, max_depth: u32) -> Result<(), DecodeError> {
        const MAX_TRACKED: u32 = 1024;
        let mut is_obj = [0u64; (MAX_TRACKED / 64) as usize];
        let limit = max_depth.min(MAX_TRACKED);
        let mut open: u32 = 0;
        loop {
            // A value is expected here.
            self.ws();
            let at = self.pos;
            match self.peek() {
                Some(c @ (b'{' | b'[')) => {
                    if depth + open >= limit {
                        // The limit that stopped it: `max_depth`, or the
                        // skipper's own 1,024 levels when that is lower.
                        return Err(DecodeError::DepthLimit { offset: at, limit });
                    }
                    let word = (open / 64) as usize;
                    let bit = 1u64 << (open % 64);
                    if c == b'{' {
                        is_obj[word] |= bit;
                    } else {
                        is_obj[word] &= !bit;
                    }
                    open += 1;
                    self.pos += 1;
                    self.ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        open -= 1;
                    } else {
                        if c == b'{' {
                            self.skip_string()?;
                            self.expect(b':', "expected ':'")?;
                        }
                        continue;
                    }
                }
                Some(b'"') => self.skip_string()?,
                Some(b'-' | b'0'..=b'9') => self.skip_number()?,
                Some(b't') if self.b[at..].starts_with(b"true") => self.pos += 4,
                Some(b'f') if self.b[at..].starts_with(b"false") => self.pos += 5,
                Some(b'n') if self.b[at..].starts_with(b"null") => self.pos += 4,
                _ => return Err(self.err("expected a JSON value")),
            }
            // A value just ended: close containers until one continues.
            loop {
                if open == 0 {
                    return Ok(());
                }
                let top = open - 1;
                let obj = is_obj[(top / 64) as usize] & (1u64 << (top % 64)) != 0;
                let close = if obj { b'}' } else { b']' };
                if self.comma_or(close, "expected ',' or a closing bracket")? {
                    if obj {
                        self.ws();
                        self.skip_string()?;
                        self.expect(b':', "expected ':'")?;
                    }
                    break;
                }
                open -= 1;
            }
        }
    }
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

    fn naive(b: &[u8], i: usize) -> usize {
        (i..b.len())
            .find(|&j| b[j] == b'"' || b[j] == b'\\' || b[j] < 0x20)
            .unwrap_or(b.len())
    }

    fn naive_high(b: &[u8], i: usize) -> bool {
        b[i.min(b.len())..naive(b, i)].iter().any(|&c| c >= 0x80)
    }

    #[test]
    fn find_special_scan_reports_bytes_above_ascii_before_the_stop() {
        // Every length up to 40 past a start, a byte >= 0x80 at each place
        // before, at and after a quote, with and without a 16-byte run first.
        let step = if cfg!(miri) { 7 } else { 1 };
        for len in (0usize..40).step_by(step) {
            for high_at in 0..len {
                for quote_at in [0, len / 2, len.saturating_sub(1), len] {
                    let mut b = vec![b'a'; len];
                    b[high_at] = 0xC3;
                    if quote_at < len {
                        b[quote_at] = b'"';
                    }
                    for start in [0, 1, 3] {
                        let start = start.min(b.len());
                        assert_eq!(
                            scan(&b, start),
                            (naive(&b, start), naive_high(&b, start)),
                            "{b:?} from {start}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn find_special_sse2_masks_agree_with_a_byte_loop_for_every_byte_in_every_lane() {
        // Under Miri (which checks the SIMD path's unsafe call) every 13th
        // byte.
        let step = if cfg!(miri) { 13 } else { 1 };
        for lane in 0..16 {
            for c in (0..=255u8).step_by(step) {
                let mut chunk = *b"abcdefgh\x7f\xc3\x80 \"ABC";
                chunk[lane] = c;
                assert_eq!(masks(&chunk), masks_bytewise(&chunk), "{chunk:?}");
            }
        }
    }

    #[test]
    fn find_special_runs_copy_into_escaped_strings_of_every_length() {
        // Runs of 0 to 40 bytes (ASCII or not) between escapes, so the
        // 16-byte copies meet the end of the output at every offset.
        let arena = quarry_core::Arena::new();
        let opts = quarry_core::DecodeOptions::default();
        let alloc = BoundedAlloc::new(&arena, &opts);
        let step = if cfg!(miri) { 9 } else { 1 };
        for run in (0..41).step_by(step) {
            for text in ["x", "\\u00e9"] {
                let plain = "ab".repeat(run).chars().take(run).collect::<String>();
                let wide = "é".repeat(run / 2);
                for body in [&plain, &wide] {
                    let wire = format!("\"{body}\\n{body}{text}\\\"{body}\"  ");
                    let want: String = serde_json::from_str(wire.trim_end()).unwrap();
                    let mut r = Reader::new(wire.as_bytes(), ControlChars::Escape);
                    assert_eq!(r.string(&alloc).unwrap(), want, "{wire}");
                    assert_eq!(r.pos, wire.trim_end().len());
                }
            }
        }
    }

    #[test]
    fn find_special_runs_copy_into_long_escaped_strings() {
        // Around the stack scratch's length, and far past it with more
        // escapes than the walk marks; ASCII and not.
        let arena = quarry_core::Arena::new();
        let opts = quarry_core::DecodeOptions::default();
        let alloc = BoundedAlloc::new(&arena, &opts);
        let lens = if cfg!(miri) {
            vec![SCRATCH - 8, SCRATCH + 40]
        } else {
            (SCRATCH - 40..SCRATCH + 40).chain([3000, 5000]).collect()
        };
        for len in lens {
            for unit in ["ab\\n", "é\\\"x", "\\u0041yz"] {
                let mut body = String::new();
                while body.len() < len {
                    body.push_str(unit);
                }
                let wire = format!("\"{body}\",");
                let want: String = serde_json::from_str(&wire[..wire.len() - 1]).unwrap();
                let mut r = Reader::new(wire.as_bytes(), ControlChars::Escape);
                assert_eq!(r.string(&alloc).unwrap(), want, "{len} {unit}");
                assert_eq!(r.pos, wire.len() - 1);
            }
        }
    }

    #[test]
    fn find_special_high_bytes_that_are_not_utf8_are_refused_where_they_are() {
        let arena = quarry_core::Arena::new();
        let opts = quarry_core::DecodeOptions::default();
        let alloc = BoundedAlloc::new(&arena, &opts);
        for wire in [
            &b"\"ab\xff\""[..],
            b"\"ab\\n\xc3\"",
            b"\"\xc3\\nab\"",
            b"\"0123456789abcdef0123\xe9\"",
        ] {
            // Each high byte is followed by a quote or a backslash, so it
            // is the whole offending sequence.
            let bad = wire.iter().position(|&c| c >= 0x80).unwrap();
            let want = Err(DecodeError::InvalidUtf8(Box::new(
                quarry_core::InvalidUtf8 {
                    offset: bad,
                    bytes: vec![wire[bad]],
                },
            )));
            let mut r = Reader::new(wire, ControlChars::Escape);
            assert_eq!(r.string(&alloc), want, "{wire:?}");
            let mut r = Reader::new(wire, ControlChars::Escape);
            assert_eq!(r.skip_string().map(|()| ""), want, "{wire:?}");
        }
    }

    #[test]
    fn find_special_agrees_with_a_byte_loop() {
        let mut bytes: Vec<u8> = (0u8..=255).collect();
        bytes.extend_from_slice(b"abc\xff\x1f\"\\ \x7f\x80");
        // Under Miri (which checks the SIMD path's unsafe call) every 61st
        // start: all of them take minutes there.
        let step = if cfg!(miri) { 61 } else { 1 };
        for start in (0..bytes.len()).step_by(step) {
            for end in start..bytes.len().min(start + 40) {
                let slice = &bytes[start..end];
                for i in 0..slice.len() {
                    assert_eq!(find_special(slice, i), naive(slice, i));
                }
            }
        }
    }
}
