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
    /// Text that must be UTF-8 is not.
    #[error("invalid UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// Where the text starts.
        offset: usize,
    },
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

impl DecodeError {
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
    /// let e = quarry_core::DecodeError::InvalidUtf8 { offset: 3 };
    /// assert_eq!(e.offset(), 3);
    /// ```
    pub fn offset(&self) -> usize {
        match *self {
            Self::UnexpectedEof { offset }
            | Self::UnexpectedByte { offset, .. }
            | Self::InvalidUtf8 { offset }
            | Self::Malformed { offset, .. }
            | Self::TrailingBytes { offset, .. }
            | Self::DepthLimit { offset, .. }
            | Self::ItemLimit { offset, .. }
            | Self::ArenaLimit { offset, .. }
            | Self::InflatedLimit { offset, .. }
            | Self::Inflate { offset, .. } => offset,
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
            | Self::InvalidUtf8 { offset }
            | Self::Malformed { offset, .. }
            | Self::TrailingBytes { offset, .. }
            | Self::DepthLimit { offset, .. }
            | Self::ItemLimit { offset, .. }
            | Self::ArenaLimit { offset, .. }
            | Self::InflatedLimit { offset, .. }
            | Self::Inflate { offset, .. } => *offset = offset.saturating_add(by),
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
}
