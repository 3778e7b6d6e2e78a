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

use quarry_core::bumpalo::collections::String as ArenaString;
use quarry_core::{BoundedAlloc, DecodeError};

use crate::options::ControlChars;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte of `w` that ends a plain run inside a JSON string.
#[inline(always)]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "the multiplications make per-lane constants that fit; the borrow trick itself uses wrapping_sub"
)]
fn special(w: u64) -> u64 {
    let q = w ^ (LO * b'"' as u64);
    let s = w ^ (LO * b'\\' as u64);
    // For a byte below 0x80 (`!w` keeps only those), a subtraction sets its
    // high bit when it is `"` (q = 0), `\\` (s = 0) or below 0x20, or when
    // a borrow comes in from a lower byte, which happens only above such a
    // byte: the lowest flag is exact.
    (q.wrapping_sub(LO) | s.wrapping_sub(LO) | w.wrapping_sub(LO * 0x20)) & !w & HI
}

/// Bit `k` set for each byte `k` of `chunk` that ends a plain run inside a
/// JSON string (`"`, `\\` or below 0x20), with SSE2 (part of every x86-64
/// CPU): 16 bytes in about half the instructions of two [`special`] words.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn special16(chunk: [u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x,
        _mm_set1_epi8,
    };
    let (x, y) = chunk.split_at(8);
    let x = u64::from_le_bytes(x.try_into().unwrap_or_default());
    let y = u64::from_le_bytes(y.try_into().unwrap_or_default());
    let v = _mm_set_epi64x(y.cast_signed(), x.cast_signed());
    let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"'.cast_signed()));
    let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\'.cast_signed()));
    // max(v, 0x1F) == 0x1F exactly when v <= 0x1F (unsigned).
    let control = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
    let hits = _mm_or_si128(_mm_or_si128(quote, backslash), control);
    _mm_movemask_epi8(hits).cast_unsigned()
}

/// Index of the first byte at or after `i` that ends a plain run inside a
/// JSON string (`"`, `\\` or a control character below 0x20), or
/// `b.len()`.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    reason = "at and i only advance over bytes of b, plus a lane index below 16"
)]
pub(crate) fn find_special(b: &[u8], i: usize) -> usize {
    let Some(rest) = b.get(i..) else {
        return b.len();
    };
    let mut chunks = rest.chunks_exact(16);
    let mut at = i;
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    for chunk in &mut chunks {
        // SAFETY: this loop is compiled only where SSE2 is enabled for the
        // target (the `cfg` above), so the CPU running it has SSE2.
        let hit = unsafe { special16(chunk.try_into().unwrap_or_default()) };
        if hit != 0 {
            return at + hit.trailing_zeros() as usize;
        }
        at += 16;
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    for chunk in &mut chunks {
        let (x, y) = chunk.split_at(8);
        let hx = special(u64::from_le_bytes(x.try_into().unwrap_or_default()));
        let hy = special(u64::from_le_bytes(y.try_into().unwrap_or_default()));
        if hx | hy != 0 {
            return if hx != 0 {
                at + (hx.trailing_zeros() / 8) as usize
            } else {
                at + 8 + (hy.trailing_zeros() / 8) as usize
            };
        }
        at += 16;
    }
    let mut i = at;
    if let Some(chunk) = b.get(i..i + 8)
        && let Ok(word) = <[u8; 8]>::try_from(chunk)
    {
        let hit = special(u64::from_le_bytes(word));
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// The byte a two-byte escape `\\c` stands for, or `None` when `c` does not
/// make one (`u` starts a `\\uXXXX`; anything else is an error).
#[inline(always)]
fn short_escape(c: u8) -> Option<u8> {
    match c {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        b'/' => Some(b'/'),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'b' => Some(0x08),
        b'f' => Some(0x0C),
        _ => None,
    }
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
    pub src: &'a str,
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
    pub fn new(input: &'a [u8], control: ControlChars) -> Result<Self, DecodeError> {
        // One validation pass for the whole input: every string slice taken
        // later is then a `&str` without a check of its own, and structure
        // outside strings is ASCII anyway.
        let src = std::str::from_utf8(input).map_err(|_| DecodeError::invalid_utf8(0, input))?;
        Ok(Self {
            src,
            b: input,
            pos: 0,
            control,
            canonical: true,
        })
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
        let text = self.src.get(at..).unwrap_or_default();
        let end = text.char_indices().nth(len).map_or(text.len(), |(i, _)| i);
        DecodeError::invalid_value(at, what, text.get(..end).unwrap_or_default())
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
            let end = find_special(self.b, start + 1);
            if self.b.get(end) == Some(&b'"') {
                self.pos = end + 1;
                self.canonical = true;
                return Ok(self.src.get(start + 1..end).unwrap_or_default());
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
        let end = find_special(self.b, start + 1);
        match self.b.get(end) {
            Some(b'\\') => self.escaped_string(start, end, alloc),
            _ => Err(self.control_error(end)),
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

    /// The slow path: the string has an escape at `first_escape`. Walk it
    /// once to find its end (and check every escape), then decode it into
    /// the arena with exact capacity.
    #[inline(never)]
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "the closing quote at end follows the opening one at start, and each escape removes fewer bytes than it takes: removed <= end - start - 1; stop + e.len stays within the walked string"
    )]
    fn escaped_string(
        &mut self,
        start: usize,
        first_escape: usize,
        alloc: &BoundedAlloc<'a>,
    ) -> Result<&'a str, DecodeError> {
        let mut marks = [0usize; MARKS];
        let (end, removed, canonical, escapes) = self.walk_escaped(first_escape, &mut marks)?;
        let decoded_len = end - (start + 1) - removed;
        alloc.charge(decoded_len, start)?;
        let mut out = ArenaString::with_capacity_in(decoded_len, alloc.bump());
        let mut i = start + 1;
        // The escapes the walk marked decode without scanning again; past
        // them (a string with more than MARKS escapes), the scan goes on.
        for &at in marks.get(..escapes).unwrap_or(&marks) {
            out.push_str(self.src.get(i..at).unwrap_or_default());
            if let Some(ch) = self.b.get(at + 1).and_then(|&c| short_escape(c)) {
                out.push(char::from(ch));
                i = at + 2;
            } else {
                let e = self.escape(at)?;
                out.push(e.ch);
                i = at + e.len;
            }
        }
        while i < end {
            let stop = find_special(self.b, i);
            out.push_str(self.src.get(i..stop).unwrap_or_default());
            if stop >= end {
                break;
            }
            // The walk checked every escape: the short ones decode here
            // without the general decoder.
            if let Some(ch) = self.b.get(stop + 1).and_then(|&c| short_escape(c)) {
                out.push(char::from(ch));
                i = stop + 2;
                continue;
            }
            let e = self.escape(stop)?;
            out.push(e.ch);
            i = stop + e.len;
        }
        self.pos = end + 1;
        self.canonical = canonical;
        Ok(out.into_bump_str())
    }

    /// From an escape at `i` inside a string: the closing quote's offset,
    /// how many bytes decoding removes, whether every escape is canonical
    /// and how many of the first escapes' offsets it wrote to `marks`.
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "an escape takes 2..=12 input bytes and decodes to fewer: e.len - len_utf8 >= 0, and i stays within the input"
    )]
    fn walk_escaped(
        &self,
        mut i: usize,
        marks: &mut [usize; MARKS],
    ) -> Result<(usize, usize, bool, usize), DecodeError> {
        let mut removed = 0usize;
        let mut canonical = true;
        let mut escapes = 0usize;
        loop {
            match self.b.get(i) {
                Some(b'"') => return Ok((i, removed, canonical, escapes.min(MARKS))),
                Some(b'\\') => {
                    if let Some(mark) = marks.get_mut(escapes) {
                        *mark = i;
                    }
                    escapes += 1;
                    // The two-byte escapes decode to one byte; `\/` is the
                    // one the canonical form does not write.
                    if let Some(&c) = self.b.get(i + 1)
                        && short_escape(c).is_some()
                    {
                        removed += 1;
                        canonical &= c != b'/';
                        i += 2;
                    } else {
                        let e = self.escape(i)?;
                        removed += e.len - e.ch.len_utf8();
                        canonical &= e.canonical;
                        i += e.len;
                    }
                }
                _ => return Err(self.control_error(i)),
            }
            i = find_special(self.b, i);
        }
    }

    /// Skip a string (validating its escapes); `pos` at the opening quote.
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos is at a peeked quote; i advances over escapes read within the input"
    )]
    pub fn skip_string(&mut self) -> Result<(), DecodeError> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string"));
        }
        let mut i = find_special(self.b, self.pos + 1);
        loop {
            match self.b.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(());
                }
                Some(b'\\') => i += self.escape(i)?.len,
                _ => return Err(self.control_error(i)),
            }
            i = find_special(self.b, i);
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
