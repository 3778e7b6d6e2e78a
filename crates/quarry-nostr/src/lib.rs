//! Nostr (NIP-01) events and relay/client messages on the quarry arena.
//!
//! A message decodes into one [`quarry_core::Arena`]: the event record, one
//! table holding every element of every tag, one span per tag and every
//! string that had escapes live there; strings without escapes borrow from
//! the input. The id is checked while decoding (the canonical serialization
//! streamed into SHA-256 from a stack buffer), so a decode into a fresh
//! arena costs one heap allocation and into a reset one none, id check
//! included.
//!
//! ```
//! use quarry_core::Arena;
//!
//! let mut arena = Arena::new();
//! let frame = format!(r#"["EVENT","feed",{}]"#, quarry_nostr::SAMPLE_EVENT);
//! let msg = quarry_nostr::decode_relay_message(&arena, frame.as_bytes())?;
//! let event = msg.event().unwrap();
//! assert_eq!(event.id_valid(), Some(true));
//! for p in event.tags().by_name("p") {
//!     assert!(p.as_id(1).is_some());
//! }
//! drop(msg);
//! arena.reset();
//! # Ok::<(), quarry_core::DecodeError>(())
//! ```
//!
//! What the decoder accepts and rejects, and why, is in `docs/nostr.md`.

// The crate README's example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod builder;
mod canonical;
mod compact;
mod decode;
mod encode;
mod event;
mod filter;
mod hex;
mod kind;
mod message;
mod nips;
mod options;
mod owned_message;
mod reader;

#[cfg(feature = "nostr")]
mod convert;
#[cfg(feature = "sig")]
mod sig;

pub use builder::{BUILDER_RESERVE, EventBuilder};
pub use decode::{
    ARENA_BYTES_CONST, ARENA_BYTES_PER_INPUT_BYTE, ESTIMATE_FILTER_BYTES_CONST,
    ESTIMATE_FILTER_BYTES_PER_INPUT_BYTE, EVENT_ARENA_BYTES_CONST,
    EVENT_ARENA_BYTES_PER_INPUT_BYTE, arena_for, decode_event, estimate_arena_bytes,
    max_arena_bytes, max_event_arena_bytes,
};
pub use encode::{EventExtra, write_json_string};
pub use event::{Event, Tag, TagIter, Tags, TagsIter};
pub use filter::{Filter, FilterBuilder, FilterLists, Filters, decode_filter};
pub use kind::Kind;
pub use message::{
    ClientMessage, Message, RelayMessage, decode_client_message, decode_message,
    decode_relay_message,
};
pub use nips::{Coordinate, MachineReadablePrefix, leading_zero_bits};
pub use options::{ControlChars, Decoder, IdCheck};
pub use owned_message::{MessageRoot, OwnedMessage};
pub use quarry_core::{Arena, DecodeError, DecodeOptions};
/// The libsecp256k1 bindings signing and verification use (feature
/// `sig`): key pairs for [`EventBuilder::sign`] come from here.
#[cfg(feature = "sig")]
pub use secp256k1;

/// A signed kind-1 event with two tags, as a relay would send it: its id
/// and signature are valid. The crate's examples decode it; use it as a
/// known-good input in tests of your own.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let event = quarry_nostr::decode_event(&arena, quarry_nostr::SAMPLE_EVENT.as_bytes())?;
/// assert_eq!(event.tags().len(), 2);
/// assert!(event.verify_id());
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub const SAMPLE_EVENT: &str = concat!(
    r#"{"id":"10a841dcd6aefa4dcf9981aa5ad8ee959ac68863a6ccb493910748fc98dc5ba4","#,
    r#""pubkey":"989c0b76cb563971fdc9bef31ec06c3560f3249d6ee9e5d83c57625596e05f6f","#,
    r#""created_at":1673347337,"kind":1,"tags":[["e","3da979448d9ba263864c4d6f14984c423a3838364ec255f03c7904b1ae77f206"],"#,
    r#"["p","bf2376e17ba4ec269d10fcc996a4746b451152be9031fa48e74553dde5526bce"]],"#,
    r#""content":"Walled gardens became prisons, and nostr is the first step towards tearing down the prison walls.","#,
    r#""sig":"531b483495c55691ef08d5c6a39bd2d683d95b848933b4cc02a59e93fdac8570f89d6458c32de292f9ece507ece5a7cc909bdd6b7f2432d9f0d32e8eb15d3f15"}"#
);
