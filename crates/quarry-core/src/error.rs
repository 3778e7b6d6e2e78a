/// Why a decode failed, and where.
///
/// Every variant carries `offset`: the byte position in the decoded input
/// (for a compressed frame, in the inflated bytes; the variant says so)
/// where the problem starts. Limit violations have variants of their own so
/// a server can tell hostile input from broken input.
///
/// ```
/// use quarry_core::DecodeError;
///
/// let e = DecodeError::UnexpectedEof { offset: 7 };
/// assert_eq!(e.offset(), 7);
/// assert_eq!(e.to_string(), "unexpected end of input at byte 7");
/// ```
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ended inside a value, or a length or count on the wire
    /// promises more bytes than remain.
    #[error("unexpected end of input at byte {offset}")]
    UnexpectedEof {
        /// Where the missing value starts.
        offset: usize,
    },
    /// A byte that has no meaning where it stands (an unassigned tag, a
    /// list header where a string must be, …).
    #[error("unexpected byte 0x{byte:02x} ({context}) at byte {offset}")]
    UnexpectedByte {
        /// Position of the byte.
        offset: usize,
        /// The byte itself.
        byte: u8,
        /// What was expected there.
        context: &'static str,
    },
    /// Text that must be UTF-8 is not: the error points at the first byte
    /// that is not part of valid UTF-8 and names the offending sequence.
    /// Boxed, like [`DecodeError::InvalidValue`], and built only when a
    /// decode fails ([`DecodeError::invalid_utf8`]).
    ///
    /// ```
    /// let e = quarry_core::DecodeError::invalid_utf8(10, b"ab\xC3(c");
    /// assert_eq!(e.offset(), 12);
    /// assert_eq!(e.to_string(), "invalid UTF-8: bytes [c3] at byte 12");
    /// ```
    #[error("{0}")]
    InvalidUtf8(Box<InvalidUtf8>),
    /// Structurally invalid input that no other variant names.
    #[error("{what} at byte {offset}")]
    Malformed {
        /// Position of the offending value.
        offset: usize,
        /// A short, static description.
        what: &'static str,
    },
    /// The message ended before the input did.
    #[error("{count} trailing bytes at byte {offset}")]
    TrailingBytes {
        /// Where the unread bytes start.
        offset: usize,
        /// How many bytes were left.
        count: usize,
    },
    /// Nesting deeper than [`DecodeOptions::max_depth`](crate::DecodeOptions::max_depth).
    #[error("depth limit {limit} exceeded at byte {offset}")]
    DepthLimit {
        /// Where the too-deep value starts.
        offset: usize,
        /// The limit in force.
        limit: u32,
    },
    /// More items than [`DecodeOptions::max_items`](crate::DecodeOptions::max_items).
    #[error("item limit {limit} exceeded at byte {offset}")]
    ItemLimit {
        /// Where the list that went past the limit starts.
        offset: usize,
        /// The limit in force.
        limit: u32,
    },
    /// The decode would write more than
    /// [`DecodeOptions::max_arena_bytes`](crate::DecodeOptions::max_arena_bytes)
    /// into the arena.
    #[error("arena limit of {limit} bytes exceeded at byte {offset}")]
    ArenaLimit {
        /// Where the value that did not fit starts.
        offset: usize,
        /// The limit in force.
        limit: usize,
    },
    /// A compressed payload inflates past
    /// [`DecodeOptions::max_inflated_bytes`](crate::DecodeOptions::max_inflated_bytes).
    #[error("inflated size limit of {limit} bytes exceeded at compressed byte {offset}")]
    InflatedLimit {
        /// Position in the compressed input where the limit was reached.
        offset: usize,
        /// The limit in force.
        limit: usize,
    },
    /// A value that is well-formed but not allowed where it stands (a
    /// field number 0, a kind above 65535, a member given twice, an unknown
    /// verb): the value itself is in the error. Boxed, so that the error
    /// stays as small as the others and only a failing decode builds it.
    ///
    /// ```
    /// let e = quarry_core::DecodeError::invalid_value(4, "unknown verb", "\"HELLO\"");
    /// assert_eq!(e.offset(), 4);
    /// assert_eq!(e.to_string(), r#"unknown verb: "HELLO" at byte 4"#);
    /// ```
    #[error("{0}")]
    InvalidValue(Box<InvalidValue>),
    /// A compressed payload is corrupt.
    #[error("corrupt compressed data ({what}) at compressed byte {offset}")]
    Inflate {
        /// Position in the compressed input.
        offset: usize,
        /// What the inflater reported.
        what: &'static str,
    },
}

/// What [`DecodeError::InvalidValue`] reports: where, what was wrong, and
/// the offending value as text (a number in decimal, a string as JSON
/// writes it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {value} at byte {offset}")]
pub struct InvalidValue {
    /// Position of the value.
    pub offset: usize,
    /// What is wrong with it: a short, static description.
    pub what: &'static str,
    /// The value, as text.
    pub value: String,
}

/// What [`DecodeError::InvalidUtf8`] reports: the position of the first
/// byte that is not part of valid UTF-8, and the offending sequence as
/// [`std::str::Utf8Error`] delimits it (UTF-8's "maximal subpart": a byte
/// that cannot start a character, or a lead byte with the continuation
/// bytes that fit it before the byte that does not), or the incomplete
/// sequence the text ends with. One to three bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid UTF-8: bytes [{}] at byte {offset}", Hex(bytes))]
pub struct InvalidUtf8 {
    /// Position of the first invalid byte.
    pub offset: usize,
    /// The offending bytes.
    pub bytes: Vec<u8>,
}

impl InvalidUtf8 {
    /// What [`DecodeError::invalid_utf8`] wraps, for a decoder whose hot
    /// path writes the variant itself: the cold call then returns one
    /// pointer in a register rather than a whole error through memory.
    ///
    /// ```
    /// use quarry_core::{DecodeError, InvalidUtf8};
    ///
    /// let e = DecodeError::InvalidUtf8(InvalidUtf8::boxed(0, b"\xFF"));
    /// assert_eq!(e.to_string(), "invalid UTF-8: bytes [ff] at byte 0");
    /// ```
    #[cold]
    #[inline(never)]
    pub fn boxed(text_offset: usize, text: &[u8]) -> Box<Self> {
        let (at, len) = match std::str::from_utf8(text) {
            Ok(_) => (text.len(), 0),
            Err(e) => {
                let at = e.valid_up_to();
                (at, e.error_len().unwrap_or(text.len().saturating_sub(at)))
            }
        };
        let bytes = text.iter().skip(at).take(len).copied().collect();
        Box::new(Self {
            offset: text_offset.saturating_add(at),
            bytes,
        })
    }
}

/// Bytes in hexadecimal, two digits each, separated by spaces.
struct Hex<'a>(&'a [u8]);

impl std::fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl DecodeError {
    /// A [`DecodeError::InvalidUtf8`] for `text`, which starts at byte
    /// `text_offset` of the input and is not UTF-8: it finds the first
    /// invalid sequence itself, so the caller passes only what it holds.
    /// (For text that is valid after all, the error points just past its
    /// end and names no bytes.) The work is in the cold
    /// [`InvalidUtf8::boxed`]: only a failing decode calls it.
    ///
    /// ```
    /// use quarry_core::DecodeError;
    ///
    /// // E2 82 is the start of a three-byte character cut short by 'x'.
    /// let e = DecodeError::invalid_utf8(4, b"\xE2\x82x");
    /// let DecodeError::InvalidUtf8(bad) = &e else { unreachable!() };
    /// assert_eq!((bad.offset, &bad.bytes[..]), (4, &[0xE2, 0x82][..]));
    /// ```
    #[inline]
    pub fn invalid_utf8(text_offset: usize, text: &[u8]) -> Self {
        Self::InvalidUtf8(InvalidUtf8::boxed(text_offset, text))
    }

    /// A [`DecodeError::InvalidValue`] at `offset`: `what` was wrong,
    /// `value` is what stood there. Cold: only a failing decode calls it.
    #[cold]
    #[inline(never)]
    pub fn invalid_value(offset: usize, what: &'static str, value: impl std::fmt::Display) -> Self {
        Self::InvalidValue(Box::new(InvalidValue {
            offset,
            what,
            value: value.to_string(),
        }))
    }

    /// The byte offset the error points at.
    ///
    /// ```
    /// let e = quarry_core::DecodeError::invalid_utf8(3, b"\xFF");
    /// assert_eq!(e.offset(), 3);
    /// ```
    pub fn offset(&self) -> usize {
        match *self {
            Self::UnexpectedEof { offset }
            | Self::UnexpectedByte { offset, .. }
            | Self::Malformed { offset, .. }
            | Self::TrailingBytes { offset, .. }
            | Self::DepthLimit { offset, .. }
            | Self::ItemLimit { offset, .. }
            | Self::ArenaLimit { offset, .. }
            | Self::InflatedLimit { offset, .. }
            | Self::Inflate { offset, .. } => offset,
            Self::InvalidUtf8(ref v) => v.offset,
            Self::InvalidValue(ref v) => v.offset,
        }
    }

    /// The same error with its offset moved by `by` bytes: for a decoder
    /// that ran on a sub-slice (a frame body after its header) and reports
    /// offsets in the caller's coordinates.
    ///
    /// ```
    /// let e = quarry_core::DecodeError::UnexpectedEof { offset: 2 }.shifted(1);
    /// assert_eq!(e.offset(), 3);
    /// ```
    pub fn shifted(mut self, by: usize) -> Self {
        match &mut self {
            Self::UnexpectedEof { offset }
            | Self::UnexpectedByte { offset, .. }
            | Self::Malformed { offset, .. }
            | Self::TrailingBytes { offset, .. }
            | Self::DepthLimit { offset, .. }
            | Self::ItemLimit { offset, .. }
            | Self::ArenaLimit { offset, .. }
            | Self::InflatedLimit { offset, .. }
            | Self::Inflate { offset, .. } => *offset = offset.saturating_add(by),
            Self::InvalidUtf8(v) => v.offset = v.offset.saturating_add(by),
            Self::InvalidValue(v) => v.offset = v.offset.saturating_add(by),
        }
        self
    }

    /// True for the variants that report a configured limit rather than
    /// broken input.
    ///
    /// ```
    /// let e = quarry_core::DecodeError::DepthLimit { offset: 0, limit: 128 };
    /// assert!(e.is_limit());
    /// ```
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            Self::DepthLimit { .. }
                | Self::ItemLimit { .. }
                | Self::ArenaLimit { .. }
                | Self::InflatedLimit { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::DecodeError;

    /// Every decoder returns `Result<_, DecodeError>` on its hot path: the
    /// boxed variant keeps the error at four words.
    #[test]
    fn the_error_stays_four_words() {
        assert_eq!(size_of::<DecodeError>(), 4 * size_of::<usize>());
    }

    #[test]
    fn an_invalid_value_moves_with_its_offset() {
        let e = DecodeError::invalid_value(3, "field number", 0).shifted(2);
        assert_eq!(e.offset(), 5);
        assert_eq!(e.to_string(), "field number: 0 at byte 5");
        assert!(!e.is_limit());
    }

    /// Expectations from the UTF-8 definition (RFC 3629 and Unicode's
    /// "maximal subpart" rule), worked out by hand per input.
    #[test]
    fn invalid_utf8_names_the_first_bad_sequence() {
        let cases: [(&[u8], usize, &[u8]); 8] = [
            // Never a UTF-8 byte.
            (b"\xFF", 0, b"\xFF"),
            // A two-byte lead followed by '(' (not a continuation byte).
            (b"ok\xC3(", 2, b"\xC3"),
            // A three-byte lead and one continuation, then 'x'.
            (b"\xE2\x82x", 0, b"\xE2\x82"),
            // ED A0 would start a surrogate: ED alone is the bad part.
            (b"a\xED\xA0\x80", 1, b"\xED"),
            // Overlong '/': C0 can never start a character.
            (b"\xC0\xAF", 0, b"\xC0"),
            // A four-byte character cut off by the end of the text.
            (b"ab\xF0\x9F\x98", 2, b"\xF0\x9F\x98"),
            // A stray continuation byte after a whole 'é'.
            (b"\xC3\xA9\xA9", 2, b"\xA9"),
            // The first of two bad places is the one named.
            (b"x\xFEy\xFF", 1, b"\xFE"),
        ];
        for (text, at, bad) in cases {
            let e = DecodeError::invalid_utf8(100, text);
            assert_eq!(e.offset(), 100 + at, "{text:x?}");
            match e {
                DecodeError::InvalidUtf8(v) => assert_eq!(v.bytes, bad, "{text:x?}"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            DecodeError::invalid_utf8(0, b"\xE2\x82x").to_string(),
            "invalid UTF-8: bytes [e2 82] at byte 0"
        );
        let moved = DecodeError::invalid_utf8(1, b"a\xFF").shifted(10);
        assert_eq!(moved.to_string(), "invalid UTF-8: bytes [ff] at byte 12");
        assert!(!moved.is_limit());
    }
}
