//! Tag bytes of the binary node format (the first byte of every value).
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

/// Absent value, empty content, or a list of size 0.
pub const LIST_EMPTY: u8 = 0;
/// First byte of the four double-byte dictionaries (236..=239).
pub const DICTIONARY_0: u8 = 236;
/// Last double-byte dictionary selector.
pub const DICTIONARY_3: u8 = 239;
/// Interop JID: user, device u16, integrator u16, server.
pub const INTEROP_JID: u8 = 245;
/// Messenger JID: user, device u16, server.
pub const FB_JID: u8 = 246;
/// Device-qualified JID: domain u8, device u8, user.
pub const AD_JID: u8 = 247;
/// List with a one-byte size.
pub const LIST_8: u8 = 248;
/// List with a big-endian two-byte size.
pub const LIST_16: u8 = 249;
/// `user@server` JID.
pub const JID_PAIR: u8 = 250;
/// Packed upper-case hex string.
pub const HEX_8: u8 = 251;
/// Raw bytes with a one-byte length.
pub const BINARY_8: u8 = 252;
/// Raw bytes with a 20-bit length in three bytes.
pub const BINARY_20: u8 = 253;
/// Raw bytes with a four-byte length.
pub const BINARY_32: u8 = 254;
/// Packed numeric string (`0-9`, `-`, `.`).
pub const NIBBLE_8: u8 = 255;
/// Most bytes a packed string may carry on the wire (the low 7 bits of its header).
pub const PACKED_MAX: usize = 127;
/// Flags-byte bit that marks a zlib-compressed frame body.
pub const FLAG_COMPRESSED: u8 = 0x02;
