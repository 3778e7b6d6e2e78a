//! What a decode checks and how strictly.

use quarry_core::DecodeOptions;

/// How the canonical serialization (the id preimage) writes the C0 control
/// characters that have no short escape (U+0000-U+0007, U+000B,
/// U+000E-U+001F).
///
/// NIP-01's text escapes only `\n`, `\"`, `\\`, `\r`, `\t`, `\b`, `\f` and
/// writes every other character verbatim, which for these controls is not
/// valid JSON; JSON.stringify (nostr-tools), serde_json (rust-nostr) and
/// Python write them as `\u00xx` with lower-case digits. Both conventions
/// exist in the wild; events with such characters are rare.
///
/// ```
/// use quarry_nostr::ControlChars;
/// assert_eq!(ControlChars::default(), ControlChars::Escape);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ControlChars {
    /// `\u00xx`, lower-case hex: what JSON.stringify and serde_json produce
    /// and what rust-nostr's `verify_id` expects. The default.
    #[default]
    Escape,
    /// The raw byte, as NIP-01's wording says (nostrdb's serializer).
    Verbatim,
}

/// What the decoder does with an event's id.
///
/// ```
/// use quarry_nostr::IdCheck;
/// assert_eq!(IdCheck::default(), IdCheck::Require);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdCheck {
    /// Do not hash; [`Event::id_valid`](crate::Event::id_valid) is `None`.
    Skip,
    /// Hash and record the outcome in
    /// [`Event::id_valid`](crate::Event::id_valid); a mismatch is not an
    /// error.
    Report,
    /// Hash and fail the decode with [`DecodeError::Malformed`]
    /// ("event id does not match its content") on a mismatch. The default.
    ///
    /// [`DecodeError::Malformed`]: quarry_core::DecodeError::Malformed
    #[default]
    Require,
}

/// Decoder settings: limits, the id check and the control-character rule.
///
/// `options.max_items` counts tags plus tag elements (plus filters and
/// filter list entries in REQ/COUNT); `options.max_depth` bounds the nesting
/// of every array and object, the message's own, its event's or filter's,
/// tags, filter lists, and members that are skipped (unknown members,
/// extra message elements). Depth is counted as serde_json counts it: the
/// outermost array or object (a message, or a bare event) is depth 1, and
/// an array or object that would be at depth `max_depth` is refused, so
/// the default of 128 leaves 127 levels, as serde_json's own limit does
/// (rust-nostr applies it to filters only). A bare event with tags needs
/// at least 4 (its tags at depth 2, each tag at 3), a message carrying
/// one 5.
///
/// ```
/// use quarry_core::Arena;
/// use quarry_nostr::{Decoder, IdCheck};
///
/// let decoder = Decoder { id_check: IdCheck::Skip, ..Decoder::new() };
/// let arena = Arena::new();
/// let json = br#"["EOSE","sub1"]"#;
/// let msg = decoder.decode_relay_message(&arena, json).unwrap();
/// assert!(matches!(msg, quarry_nostr::RelayMessage::Eose { sub_id: "sub1" }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoder {
    /// Depth, item and arena limits.
    pub options: DecodeOptions,
    /// Whether ids are checked while decoding.
    pub id_check: IdCheck,
    /// The canonical control-character rule used for id checks.
    pub control_chars: ControlChars,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// Default limits, ids required to match, `\u00xx` control rule.
    pub const fn new() -> Self {
        Self {
            options: DecodeOptions::DEFAULT,
            id_check: IdCheck::Require,
            control_chars: ControlChars::Escape,
        }
    }
}
