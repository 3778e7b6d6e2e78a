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

impl Default for DecodeOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}
