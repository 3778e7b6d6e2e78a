//! WhatsApp binary node codec on the quarry arena.
//!
//! A stanza decodes into one [`quarry_core::Arena`]: every node and attribute
//! record lives there, strings and byte payloads borrow from the input,
//! packed strings are expanded into the arena, JIDs stay structured. The
//! result is a [`Node`], a `Copy` view; decoding into a fresh arena costs
//! one heap allocation, into a reset one none.
//!
//! ```
//! use quarry_core::Arena;
//!
//! let mut arena = Arena::new();
//! // <message type="enc"><enc/></message>, all tokens
//! let bytes = [0xF8, 4, 19, 4, 29, 0xF8, 1, 0xF8, 1, 29];
//! let stanza = quarry_wa::decode(&arena, &bytes)?;
//! assert_eq!(stanza.tag(), "message");
//! assert_eq!(stanza.attr("type").unwrap(), "enc");
//! assert_eq!(stanza.children_by_tag("enc").count(), 1);
//! drop(stanza);
//! arena.reset();
//! # Ok::<(), quarry_core::DecodeError>(())
//! ```
//!
//! A view borrows the arena, so resetting the arena while a view is alive
//! does not compile:
//!
//! ```compile_fail
//! let mut arena = quarry_core::Arena::new();
//! let stanza = quarry_wa::decode(&arena, &[0xF8, 1, 19]).unwrap();
//! arena.reset(); // error[E0502]: `arena` is still borrowed by `stanza`
//! println!("{}", stanza.tag());
//! ```
//!
//! (The same program with `drop(stanza)` before the reset compiles.)

// The crate README's example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod attrs;
mod decode;
mod dictionary;
mod dictionary_v3;
mod display;
mod encode;
mod frame;
mod jid;
mod node;
mod owned;
mod owned_stanza;
mod owned_text;
mod packed;
mod token_index;
pub mod wire;

pub use attrs::{AttrError, AttrErrors, AttrParser};
pub use decode::{
    ARENA_BYTES_CONST, ARENA_BYTES_PER_INPUT_BYTE, Decoder, ESTIMATE_BYTES_CONST,
    ESTIMATE_BYTES_PER_INPUT_BYTE, ESTIMATE_BYTES_PER_LIST_HEADER, arena_for, decode,
    estimate_arena_bytes, max_arena_bytes,
};
pub use dictionary::{Dictionary, Token};
pub use encode::{
    EncodeError, EncodeNode, Encoder, MAX_DEPTH, encode, encode_frame, encode_frame_to,
    encode_into, encode_to, encoded_len,
};
pub use frame::{arena_for_frame, decode_frame};
pub use jid::{
    DeviceKey, Jid, JidParseError, JidUser, ObservedJid, PSA_USER, STATUS_BROADCAST_USER, Server,
};
pub use node::{Attrs, ChildIter, Children, Content, Node, Value};
pub use owned::{AttrKey, OwnedContent, OwnedJid, OwnedNode, OwnedValue};
pub use owned_stanza::{NodeRoot, OwnedStanza};
pub use owned_text::{Attr, AttrList, SmallStr};
pub use quarry_core::{Arena, DecodeError, DecodeOptions};
