use crate::DecodeError;

/// Limits every decoder enforces. The defaults are safe for untrusted input
/// on an open port; raise them deliberately. A format may start from other
/// defaults of its own (protobuf: `quarry_proto::DEFAULT_OPTIONS`, depth 100
/// and no item or arena cap beyond what the input's length sets).
///
/// ```
/// let opts = quarry_core::DecodeOptions { max_depth: 16, ..Default::default() };
/// assert_eq!(opts.max_depth, 16);
/// assert_eq!(opts.max_items, quarry_core::DecodeOptions::default().max_items);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Deepest nesting accepted: a value at depth `max_depth` is rejected.
    /// Each format says where it starts counting. WhatsApp: the root node
    /// is depth 0, so 0 rejects every stanza. Nostr: the outermost array
    /// or object is depth 1, as in serde_json, so 0 and 1 reject every
    /// input. protobuf: the root's fields are depth 0 and a nested
    /// message's (or group's) fields one deeper, as prost counts, so 0
    /// accepts no nested message and n accepts n nested levels.
    /// Default 128 (what WhatsApp's own codec uses).
    pub max_depth: u32,
    /// Most items (nodes, attributes, tags, fields: each format says what
    /// it counts) one message may hold. Default 1,000,000.
    pub max_items: u32,
    /// Most bytes one decode may write into the arena. Default 64 MiB.
    pub max_arena_bytes: usize,
    /// Most bytes a compressed payload may inflate to. Default 16 MiB.
    pub max_inflated_bytes: usize,
}

impl DecodeOptions {
    /// The defaults, usable in `const` context.
    pub const DEFAULT: Self = Self {
        max_depth: 128,
        max_items: 1_000_000,
        max_arena_bytes: 64 << 20,
        max_inflated_bytes: 16 << 20,
    };
}

impl DecodeOptions {
    /// Fail with [`DecodeError::DepthLimit`] at `offset` when a value at
    /// `depth` is too deep: at or past [`max_depth`](Self::max_depth). Each
    /// format maps its own levels to `depth` (see `max_depth`).
    ///
    /// ```
    /// use quarry_core::{DecodeError, DecodeOptions};
    ///
    /// let opts = DecodeOptions { max_depth: 2, ..DecodeOptions::DEFAULT };
    /// assert_eq!(opts.check_depth(1, 5), Ok(()));
    /// assert_eq!(opts.check_depth(2, 5), Err(DecodeError::DepthLimit { offset: 5, limit: 2 }));
    /// ```
    #[inline(always)]
    pub fn check_depth(&self, depth: u32, offset: usize) -> Result<(), DecodeError> {
        if depth >= self.max_depth {
            Err(self.too_deep(offset))
        } else {
            Ok(())
        }
    }

    /// The error [`check_depth`](Self::check_depth) returns.
    #[cold]
    #[inline(never)]
    pub fn too_deep(&self, offset: usize) -> DecodeError {
        DecodeError::DepthLimit {
            offset,
            limit: self.max_depth,
        }
    }
}

impl Default for DecodeOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}
