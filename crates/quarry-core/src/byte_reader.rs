// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]
use crate::DecodeError;

/// A forward-only cursor over input bytes whose every read is bounds-checked
/// and fails with [`DecodeError::UnexpectedEof`] at the offset of the
/// missing value. Borrowed slices keep the input's lifetime.
///
/// ```
/// use quarry_core::{ByteReader, DecodeError};
///
/// let mut r = ByteReader::new(&[0xF8, 0x01, 0x02, 0x03]);
/// assert_eq!(r.u8(), Ok(0xF8));
/// assert_eq!(r.u16_be(), Ok(0x0102));
/// assert_eq!(r.take(2), Err(DecodeError::UnexpectedEof { offset: 3 }));
/// assert_eq!(r.offset(), 3);
/// ```
#[derive(Clone, Debug)]
pub struct ByteReader<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `input`.
    #[inline]
    pub fn new(input: &'a [u8]) -> Self {
        Self { input, pos: 0 }
    }

    /// Bytes consumed so far, which is the offset of the next read.
    #[inline]
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// True once every byte is read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// The whole input.
    #[inline]
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    #[inline]
    fn eof(&self) -> DecodeError {
        DecodeError::UnexpectedEof { offset: self.pos }
    }

    /// Read one byte.
    #[inline]
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        match self.input.get(self.pos) {
            Some(&b) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "the byte at pos exists, so pos + 1 <= input.len() <= isize::MAX"
                )]
                {
                    self.pos += 1;
                }
                Ok(b)
            }
            None => Err(self.eof()),
        }
    }

    /// Look at the next byte without consuming it.
    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// Read `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Read a big-endian `u16`.
    #[inline]
    pub fn u16_be(&mut self) -> Result<u16, DecodeError> {
        self.array::<2>().map(u16::from_be_bytes)
    }

    /// Read a big-endian `u32`.
    #[inline]
    pub fn u32_be(&mut self) -> Result<u32, DecodeError> {
        self.array::<4>().map(u32::from_be_bytes)
    }

    /// Borrow the next `len` bytes.
    #[inline]
    pub fn take(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        match self.input.get(self.pos..).and_then(|rest| rest.get(..len)) {
            Some(bytes) => {
                #[expect(
                    clippy::arithmetic_side_effects,
                    reason = "input[pos..pos + len] exists, so pos + len <= input.len()"
                )]
                {
                    self.pos += len;
                }
                Ok(bytes)
            }
            None => Err(self.eof()),
        }
    }

    /// Skip `len` bytes.
    #[inline]
    pub fn skip(&mut self, len: usize) -> Result<(), DecodeError> {
        self.take(len).map(|_| ())
    }

    /// Fail with [`DecodeError::TrailingBytes`] unless every byte is read.
    ///
    /// ```
    /// let mut r = quarry_core::ByteReader::new(&[1, 2]);
    /// r.u8().unwrap();
    /// assert!(r.finish().is_err());
    /// r.u8().unwrap();
    /// assert!(r.finish().is_ok());
    /// ```
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes {
                offset: self.pos,
                count: self.remaining(),
            })
        }
    }
}
