//! The buffer the write pass fills from its end towards its start, never
//! zeroed first (zeroing would be a second pass over every byte of the
//! output).
//!
//! The invariants the unsafe code below rests on: `pos` is at most the
//! buffer's length, and every byte of `pos..` has been written. Only this
//! module moves `pos`: it starts at the length, and each move down is by
//! exactly the bytes just written there; a put that does not fit writes
//! zeros over what is left (`pos..` then covers the whole buffer) instead
//! of its bytes.

use std::mem::MaybeUninit;

use crate::wire::varint_len;

/// A byte buffer written back to front (see the module's doc).
pub(super) struct BackBuf<'o> {
    buf: &'o mut [MaybeUninit<u8>],
    /// Bytes from here on are written.
    pos: usize,
}

impl<'o> BackBuf<'o> {
    /// An empty buffer over all of `buf`.
    pub(super) fn new(buf: &'o mut [MaybeUninit<u8>]) -> Self {
        let pos = buf.len();
        Self { buf, pos }
    }

    /// Where the written bytes start.
    #[inline(always)]
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// The `n` bytes before the written ones, now counted as written
    /// (the caller fills them); `None` when they do not fit, the buffer
    /// then full of zeros.
    /// Private, so that every caller is in this module and fills all it
    /// claims.
    #[inline(always)]
    fn claim(&mut self, n: usize) -> Option<&mut [MaybeUninit<u8>]> {
        let pos = self.pos;
        let Some(start) = pos.checked_sub(n) else {
            self.overflow();
            return None;
        };
        debug_assert!(pos <= self.buf.len());
        // SAFETY: `start <= pos <= buf.len()`: `pos` starts at the
        // buffer's length and only ever moves down (the invariants in the
        // module's doc). Checking it again cost two instructions a put, a
        // tenth of an encode's.
        let region = unsafe { self.buf.get_unchecked_mut(start..pos) };
        self.pos = start;
        Some(region)
    }

    /// A put that did not fit: what is left is zeroed and counted as
    /// written, so every later put finds no room and writes nothing.
    #[cold]
    fn overflow(&mut self) {
        self.fill_rest();
    }

    /// Zeros over the bytes not written yet; afterwards the whole buffer
    /// counts as written.
    pub(super) fn fill_rest(&mut self) {
        for b in self.buf.get_mut(..self.pos).unwrap_or_default() {
            b.write(0);
        }
        self.pos = 0;
    }

    /// `bytes` put before the written ones.
    #[inline]
    pub(super) fn put(&mut self, bytes: &[u8]) {
        if let Some(dst) = self.claim(bytes.len()) {
            dst.write_copy_of_slice(bytes);
        }
    }

    /// One byte put before the written ones.
    #[inline(always)]
    pub(super) fn put_byte(&mut self, b: u8) {
        if let Some([dst]) = self.claim(1) {
            dst.write(b);
        }
    }

    /// The varint of `v` put before the written bytes.
    #[inline]
    pub(super) fn put_varint(&mut self, mut v: u64) {
        // Most tags and lengths take one byte: no length to work out.
        if v < 0x80 {
            self.put_byte(v as u8);
            return;
        }
        if let Some((last, init)) = self.claim(varint_len(v)).and_then(|d| d.split_last_mut()) {
            for b in init {
                b.write((v as u8) | 0x80);
                v >>= 7;
            }
            last.write(v as u8);
        }
    }

    /// The varint of `tag` followed by that of `v`, put before the written
    /// bytes: a field's tag and its value or length. When both take one
    /// byte (most tags, lengths and small values), one claim for the two.
    #[inline(always)]
    pub(super) fn put_tag_varint(&mut self, tag: u64, v: u64) {
        if (tag | v) < 0x80 {
            if let Some([t, b]) = self.claim(2) {
                t.write(tag as u8);
                b.write(v as u8);
            }
            return;
        }
        self.put_varint(v);
        self.put_varint(tag);
    }

    /// `n` bytes put before the written ones by `fill`, front to back
    /// through a [`Fwd`]. Bytes it leaves unwritten are zeroed (only a
    /// miscount of `n` leaves any).
    #[inline]
    pub(super) fn put_forward(&mut self, n: usize, fill: impl FnOnce(&mut Fwd<'_>)) {
        if let Some(region) = self.claim(n) {
            let mut fwd = Fwd { buf: region, at: 0 };
            fill(&mut fwd);
            for b in fwd.buf.get_mut(fwd.at..).unwrap_or_default() {
                b.write(0);
            }
        }
    }

    /// The bytes written, from [`pos`](Self::pos) to the end.
    pub(super) fn into_written(self) -> &'o [u8] {
        let written = self.buf.get(self.pos..).unwrap_or_default();
        // SAFETY: every byte of `pos..` was written (the invariant in the
        // module's doc), and `MaybeUninit<u8>` has the layout of `u8`.
        unsafe { std::slice::from_raw_parts(written.as_ptr().cast::<u8>(), written.len()) }
    }
}

/// Append `len` bytes to `out`, written back to front by `write` into
/// `out`'s spare capacity (reserved here by `reserve`) without zeroing it
/// first. Bytes `write` leaves unwritten (a miscount of `len`) are
/// zeroed.
///
/// Sound whatever `write` does: it cannot reach `out` (borrowed here), a
/// panic in it unwinds before `out`'s length changes, puts past `len`
/// find no room, and if it swaps the buffer it was handed for another
/// (the buffer then holds other memory), every byte of the region is
/// zeroed, what was written there discarded.
pub(super) fn append_back_to_front(
    out: &mut Vec<u8>,
    len: usize,
    reserve: fn(&mut Vec<u8>, usize),
    write: impl FnOnce(&mut BackBuf<'_>),
) {
    reserve(out, len);
    let start = out.len();
    let Some(spare) = out.spare_capacity_mut().get_mut(..len) else {
        // `reserve` left less room than asked for: never with the std
        // functions this takes.
        return;
    };
    let region: *const [MaybeUninit<u8>] = spare;
    let mut buf = BackBuf::new(spare);
    write(&mut buf);
    // The buffer handed to `write` may have been swapped for another
    // (`mem::swap`, `mem::replace`); its `pos` then says nothing of
    // `spare`. Only when it is still the one over `spare` is its
    // invariant about `spare`.
    // `buf` is not used past this point, which ends its borrow of `out`.
    let ours = std::ptr::eq(&raw const *buf.buf, region);
    if ours {
        buf.fill_rest();
    } else {
        for b in out.spare_capacity_mut().get_mut(..len).unwrap_or_default() {
            b.write(0);
        }
    }
    // SAFETY: every byte of the `len` bytes of spare capacity after
    // `out`'s `start` bytes is written: by `fill_rest` when the buffer is
    // the one over them (the invariant in the module's doc: every byte of
    // `pos..` is written, and `fill_rest` leaves `pos` at 0), or by the
    // loop just above when it is not. `start + len` is within the capacity,
    // as that region is, and `out`'s length has not changed since `start`
    // was read (`out` was borrowed by the region until now).
    unsafe { out.set_len(start + len) };
}

/// A region of the buffer filled front to back (see
/// [`BackBuf::put_forward`]).
pub(super) struct Fwd<'r> {
    buf: &'r mut [MaybeUninit<u8>],
    at: usize,
}

impl Fwd<'_> {
    /// Append `bytes` (nothing past the region's end).
    pub(super) fn put(&mut self, bytes: &[u8]) {
        let end = self.at.saturating_add(bytes.len());
        if let Some(dst) = self.buf.get_mut(self.at..end) {
            dst.write_copy_of_slice(bytes);
            self.at = end;
        }
    }

    /// Whether every byte of the region is written.
    pub(super) fn is_full(&self) -> bool {
        self.at == self.buf.len()
    }

    /// Append one byte (nothing past the region's end).
    #[inline]
    pub(super) fn byte(&mut self, b: u8) {
        if let Some(dst) = self.buf.get_mut(self.at) {
            dst.write(b);
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn puts_fill_from_the_end() {
        let mut mem = [MaybeUninit::<u8>::uninit(); 10];
        let mut buf = BackBuf::new(&mut mem);
        buf.put(b"cd");
        buf.put_varint(300);
        buf.put_byte(b'b');
        buf.put_forward(1, |f| f.byte(b'a'));
        assert_eq!(buf.pos(), 4);
        // 300 = 0b10_0101100: low seven bits first, with the high bit set.
        assert_eq!(buf.into_written(), b"ab\xac\x02cd");
    }

    #[test]
    fn encode_tag_and_varint_pairs_of_one_and_more_bytes() {
        let mut mem = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = BackBuf::new(&mut mem);
        buf.put_tag_varint(0x7f, 300);
        buf.put_tag_varint(300, 1);
        buf.put_tag_varint(0x0a, 0x7f);
        // 300 is 0xac 0x02 (see above); each tag before its value.
        assert_eq!(buf.into_written(), b"\x0a\x7f\xac\x02\x01\x7f\xac\x02");
        let mut mem = [MaybeUninit::<u8>::uninit(); 1];
        let mut buf = BackBuf::new(&mut mem);
        buf.put_tag_varint(1, 2);
        assert_eq!(buf.into_written(), b"\0");
    }

    #[test]
    fn a_put_without_room_zeroes_the_rest_and_stops() {
        let mut mem = [MaybeUninit::<u8>::uninit(); 4];
        let mut buf = BackBuf::new(&mut mem);
        buf.put(b"xy");
        buf.put(b"123");
        assert_eq!(buf.pos(), 0);
        buf.put_byte(b'z');
        buf.put_varint(300);
        assert_eq!(buf.into_written(), b"\0\0xy");
    }

    #[test]
    fn a_short_forward_fill_is_zero_padded() {
        let mut mem = [MaybeUninit::<u8>::uninit(); 4];
        let mut buf = BackBuf::new(&mut mem);
        buf.put_forward(3, |f| f.put(b"ab"));
        buf.put_forward(1, |f| f.put(b"too long"));
        assert_eq!(buf.into_written(), b"\0ab\0");
    }

    #[test]
    fn append_writes_every_byte_even_when_the_length_is_miscounted() {
        let mut out = b"head".to_vec();
        append_back_to_front(&mut out, 3, Vec::reserve_exact, |b| b.put(b"yz"));
        assert_eq!(out, b"head\0yz");
        append_back_to_front(&mut out, 2, Vec::reserve, |b| b.put(b"!!"));
        assert_eq!(out, b"head\0yz!!");
    }

    /// `out` holding `head`, with spare capacity left holding 0xAA bytes
    /// from earlier contents, so bytes exposed unwritten would show.
    fn dirty(head: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(&[0xAA; 64]);
        out.truncate(0);
        out.extend_from_slice(head);
        out
    }

    #[test]
    fn a_closure_that_swaps_the_buffer_out_exposes_no_unwritten_byte() {
        let mut out = dirty(b"head");
        append_back_to_front(&mut out, 3, Vec::reserve_exact, |b| {
            let mut mine = BackBuf::new(&mut []);
            std::mem::swap(b, &mut mine);
            mine.put(b"z");
        });
        assert_eq!(out, b"head\0\0\0");
        let mut out = dirty(b"head");
        append_back_to_front(&mut out, 3, Vec::reserve, |b| {
            let _ = std::mem::replace(b, BackBuf::new(&mut []));
        });
        assert_eq!(out, b"head\0\0\0");
    }

    #[test]
    fn a_closure_that_panics_appends_nothing() {
        let mut out = dirty(b"head");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            append_back_to_front(&mut out, 3, Vec::reserve_exact, |b| {
                b.put(b"z");
                panic!("the closure panics");
            });
        }));
        assert!(caught.is_err());
        assert_eq!(out, b"head");
    }

    #[test]
    fn a_closure_that_writes_more_than_the_length_appends_zeros() {
        let mut out = dirty(b"head");
        append_back_to_front(&mut out, 2, Vec::reserve_exact, |b| {
            b.put(b"a");
            b.put(b"bc");
            b.put_varint(300);
            b.put_forward(4, |f| f.put(b"defg"));
        });
        assert_eq!(out, b"head\0a");
    }

    #[test]
    fn a_closure_that_appends_again_inside_leaves_both_whole() {
        let mut out = dirty(b"head");
        let mut inner = dirty(b"in");
        append_back_to_front(&mut out, 3, Vec::reserve_exact, |b| {
            append_back_to_front(&mut inner, 2, Vec::reserve, |c| c.put(b"ner"));
            b.put(b"xy");
        });
        assert_eq!(out, b"head\0xy");
        assert_eq!(inner, b"in\0\0");
    }
}
