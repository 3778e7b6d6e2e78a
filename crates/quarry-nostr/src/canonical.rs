//! The canonical serialization `[0,pubkey,created_at,kind,tags,content]`
//! and JSON string escaping, written to any byte sink: SHA-256 through a
//! stack buffer (id checks, no allocation) or a caller's `Vec<u8>`.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use sha2::{Digest, Sha256};

use crate::event::Tags;
use crate::hex;
use crate::options::ControlChars;
use crate::reader::find_special;

/// Where serialized bytes go.
pub(crate) trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

const BUF: usize = 256;

/// SHA-256 fed through a stack buffer, so that the many small pieces of a
/// serialization reach the hasher as few large updates.
pub(crate) struct HashSink {
    buf: [u8; BUF],
    len: usize,
    hasher: Sha256,
}

impl HashSink {
    pub fn new() -> Self {
        Self {
            buf: [0; BUF],
            len: 0,
            hasher: Sha256::new(),
        }
    }

    #[expect(
        clippy::indexing_slicing,
        reason = "self.len <= BUF: put() keeps it so"
    )]
    pub fn finish(mut self) -> [u8; 32] {
        self.hasher.update(&self.buf[..self.len]);
        self.hasher.finalize().into()
    }
}

impl Sink for HashSink {
    #[inline]
    #[expect(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        reason = "self.len <= BUF always; bytes are copied at len only when they fit in BUF - len"
    )]
    fn put(&mut self, bytes: &[u8]) {
        let free = BUF - self.len;
        if bytes.len() <= free {
            self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
            return;
        }
        self.hasher.update(&self.buf[..self.len]);
        self.len = 0;
        if bytes.len() >= BUF {
            self.hasher.update(bytes);
        } else {
            self.buf[..bytes.len()].copy_from_slice(bytes);
            self.len = bytes.len();
        }
    }
}

/// Write `s` as a JSON string body (no quotes): `"`, `\`, LF, CR, TAB,
/// backspace and form feed get their short escapes, the other C0 controls
/// `\u00xx` (lower-case) or the raw byte per `control`, everything else
/// verbatim.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    reason = "find_special returns j in i..=b.len(), and i = j + 1 only once b[j] exists"
)]
pub(crate) fn put_escaped<S: Sink>(out: &mut S, s: &str, control: ControlChars) {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        let j = find_special(b, i);
        out.put(&b[i..j]);
        let Some(&c) = b.get(j) else {
            return;
        };
        match c {
            b'"' => out.put(b"\\\""),
            b'\\' => out.put(b"\\\\"),
            b'\n' => out.put(b"\\n"),
            b'\r' => out.put(b"\\r"),
            b'\t' => out.put(b"\\t"),
            0x08 => out.put(b"\\b"),
            0x0C => out.put(b"\\f"),
            _ => match control {
                ControlChars::Escape => {
                    let h: [u8; 2] = hex::encode(&[c]);
                    out.put(&[b'\\', b'u', b'0', b'0', h[0], h[1]]);
                }
                ControlChars::Verbatim => out.put(&[c]),
            },
        }
        i = j + 1;
    }
}

/// `"` + escaped `s` + `"`.
#[inline]
pub(crate) fn put_string<S: Sink>(out: &mut S, s: &str, control: ControlChars) {
    out.put(b"\"");
    put_escaped(out, s, control);
    out.put(b"\"");
}

/// A decimal `u64` without allocating.
#[inline]
#[expect(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    reason = "a u64 has at most 20 digits, so i stays in 0..20; a digit is below 10"
)]
pub(crate) fn put_u64<S: Sink>(out: &mut S, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.put(&buf[i..]);
}

/// The tags array, compact.
pub(crate) fn put_tags<S: Sink>(out: &mut S, tags: Tags<'_>, control: ControlChars) {
    out.put(b"[");
    for (i, tag) in tags.iter().enumerate() {
        out.put(if i == 0 { b"[" } else { b",[" });
        for (j, elem) in tag.iter().enumerate() {
            if j > 0 {
                out.put(b",");
            }
            put_string(out, elem, control);
        }
        out.put(b"]");
    }
    out.put(b"]");
}

/// The parts of the canonical serialization; `tags_raw` and
/// `content_raw`, when non-empty, are wire bytes already known to be
/// canonical and are written as they are.
pub(crate) struct CanonParts<'x> {
    pub pubkey: &'x [u8; 32],
    pub created_at: u64,
    pub kind: u16,
    pub tags: Tags<'x>,
    pub tags_raw: &'x [u8],
    pub content: &'x str,
    pub content_raw: &'x [u8],
}

pub(crate) fn put_canonical<S: Sink>(out: &mut S, p: &CanonParts<'_>, control: ControlChars) {
    let mut head = [0u8; 4 + 64 + 2];
    head[..4].copy_from_slice(b"[0,\"");
    hex::encode_into(p.pubkey, &mut head[4..68]);
    head[68..].copy_from_slice(b"\",");
    out.put(&head);
    put_u64(out, p.created_at);
    out.put(b",");
    put_u64(out, u64::from(p.kind));
    out.put(b",");
    if p.tags_raw.is_empty() {
        put_tags(out, p.tags, control);
    } else {
        out.put(p.tags_raw);
    }
    out.put(b",");
    if p.content_raw.is_empty() {
        put_string(out, p.content, control);
    } else {
        out.put(p.content_raw);
    }
    out.put(b"]");
}

/// SHA-256 of the canonical serialization.
pub(crate) fn hash(p: &CanonParts<'_>, control: ControlChars) -> [u8; 32] {
    let mut sink = HashSink::new();
    put_canonical(&mut sink, p, control);
    sink.finish()
}
