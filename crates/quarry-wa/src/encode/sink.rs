//! Where the walk's bytes go: counted ([`Count`], for `encoded_len`) or
//! written ([`Output`]: a stack scratch first, the heap past it).

use std::mem::MaybeUninit;

use crate::packed::{self, Packing};

/// Where encoded bytes go.
pub(super) trait Sink {
    fn byte(&mut self, b: u8);
    fn slice(&mut self, s: &[u8]);
    fn packed(&mut self, packing: Packing, text: &str);
}

/// Bytes counted, none written.
pub(super) struct Count(pub(super) usize);

impl Sink for Count {
    #[inline]
    fn byte(&mut self, _: u8) {
        self.0 += 1;
    }
    #[inline]
    fn slice(&mut self, s: &[u8]) {
        self.0 += s.len();
    }
    #[inline]
    fn packed(&mut self, _: Packing, text: &str) {
        self.0 += packed::packed_len(text);
    }
}

/// Bytes of the stack scratch an encode writes into first: a page, which
/// holds most stanzas (a message to a few dozen devices, a receipt, an
/// IQ) whole.
pub(super) const SCRATCH_LEN: usize = 4096;

/// A stack buffer written from its start, never zeroed (for a small
/// stanza, zeroing a page costs more than the encode itself). `filled` counts the leading bytes written; only the methods
/// below change it, each by exactly the bytes it wrote, so only written
/// bytes are ever read.
pub(super) struct Scratch<'b> {
    buf: &'b mut [MaybeUninit<u8>; SCRATCH_LEN],
    filled: usize,
}

impl<'b> Scratch<'b> {
    pub(super) fn new(buf: &'b mut [MaybeUninit<u8>; SCRATCH_LEN]) -> Self {
        Self { buf, filled: 0 }
    }

    /// The bytes written so far.
    pub(super) fn written(&self) -> &[u8] {
        let filled = self.buf.get(..self.filled).unwrap_or_default();
        // SAFETY: every byte of `..filled` was written (see the type's
        // doc), and `MaybeUninit<u8>` has the layout of `u8`.
        unsafe { std::slice::from_raw_parts(filled.as_ptr().cast::<u8>(), filled.len()) }
    }

    /// The next `n` bytes, if they fit.
    #[inline]
    fn room(&mut self, n: usize) -> Option<&mut [MaybeUninit<u8>]> {
        self.buf.get_mut(self.filled..self.filled.checked_add(n)?)
    }

    /// Append `b`; false (nothing written) when it does not fit.
    #[inline]
    fn push(&mut self, b: u8) -> bool {
        match self.room(1) {
            Some([slot]) => {
                slot.write(b);
                self.filled += 1;
                true
            }
            _ => false,
        }
    }

    /// Append `s`; false (nothing written) when it does not fit.
    #[inline]
    fn extend(&mut self, s: &[u8]) -> bool {
        match self.room(s.len()) {
            Some(dst) => {
                dst.write_copy_of_slice(s);
                self.filled += s.len();
                true
            }
            None => false,
        }
    }

    /// Append `text` packed; false (nothing written) when it does not fit.
    #[inline]
    fn extend_packed(&mut self, packing: Packing, text: &str) -> bool {
        match self.room(packed::packed_len(text)) {
            Some(dst) => {
                let mut written = 0;
                for (slot, byte) in dst.iter_mut().zip(packed::packed_bytes(packing, text)) {
                    slot.write(byte);
                    written += 1;
                }
                self.filled += written;
                true
            }
            None => false,
        }
    }
}

/// The writer: bytes go into the [`Scratch`] until one does not fit, then
/// into `heap`, reserved at that moment for everything: the prefix, the
/// scratch's bytes and [`bytes_bound`](super::bound::bytes_bound) of the
/// whole tree, so it does not grow again.
pub(super) struct Output<'b, 'h> {
    scratch: Scratch<'b>,
    /// Where the encoding continues past the scratch. It may already hold
    /// bytes of its own (`encode_into`'s buffer); ours start at `start`.
    heap: &'h mut Vec<u8>,
    start: usize,
    /// What `heap` gets first: the frame's flags byte, or nothing.
    prefix: &'static [u8],
    spilled: bool,
    /// Bytes the whole encoding may take at most, asked once, on spilling.
    bound: &'b dyn Fn() -> usize,
    /// `heap`'s capacity after the spill's reservation (debug builds check
    /// that the bound held: no growth after it).
    reserved: usize,
}

impl<'b, 'h> Output<'b, 'h> {
    pub(super) fn new(
        scratch: Scratch<'b>,
        heap: &'h mut Vec<u8>,
        prefix: &'static [u8],
        bound: &'b dyn Fn() -> usize,
    ) -> Self {
        let start = heap.len();
        Self {
            scratch,
            heap,
            start,
            prefix,
            spilled: false,
            bound,
            reserved: 0,
        }
    }

    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        let bytes = self.scratch.written();
        let bound = (self.bound)();
        self.heap.reserve_exact(
            self.prefix
                .len()
                .saturating_add(bytes.len())
                .saturating_add(bound),
        );
        self.heap.extend_from_slice(self.prefix);
        self.heap.extend_from_slice(bytes);
        self.spilled = true;
        self.reserved = self.heap.capacity();
    }

    /// True when the encoding went past the scratch.
    pub(super) fn spilled(&self) -> bool {
        self.spilled
    }

    /// Leave the whole encoding at the end of the heap vector: when it
    /// never spilled, the prefix and the scratch's bytes, reserved exactly.
    pub(super) fn finish(self) {
        debug_assert!(
            !self.spilled || self.heap.capacity() == self.reserved,
            "the encoding outgrew bytes_bound"
        );
        if !self.spilled {
            let bytes = self.scratch.written();
            self.heap.reserve_exact(self.prefix.len() + bytes.len());
            self.heap.extend_from_slice(self.prefix);
            self.heap.extend_from_slice(bytes);
        }
    }

    /// Drop what this encode appended to the heap vector.
    pub(super) fn undo(self) {
        self.heap.truncate(self.start);
    }
}

impl Sink for Output<'_, '_> {
    #[inline]
    fn byte(&mut self, b: u8) {
        if self.spilled || !self.scratch.push(b) {
            if !self.spilled {
                self.spill();
            }
            self.heap.push(b);
        }
    }
    #[inline]
    fn slice(&mut self, s: &[u8]) {
        if self.spilled || !self.scratch.extend(s) {
            if !self.spilled {
                self.spill();
            }
            self.heap.extend_from_slice(s);
        }
    }
    #[inline]
    fn packed(&mut self, packing: Packing, text: &str) {
        if self.spilled || !self.scratch.extend_packed(packing, text) {
            if !self.spilled {
                self.spill();
            }
            packed::pack_into(packing, text, self.heap);
        }
    }
}
