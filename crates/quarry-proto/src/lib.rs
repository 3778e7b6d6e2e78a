//! Protobuf on the quarry arena.
//!
//! One non-generic decoder walks the wire format under a static
//! per-message table ([`MessageTable`]) and writes the message into a
//! [`quarry_core::Arena`]: a sorted run of slots for the fields present (sparse,
//! so wide messages cost what they carry), strings and bytes borrowed from
//! the input, repeated fields as exact-size arrays, unknown fields kept as
//! raw spans. Typed views (`FooView<'a>`) are generated from `.proto` files
//! by `quarry-proto-build` and read a [`Record`] with constant field indices;
//! [`json`] prints any record through its table.
//!
//! ```
//! use quarry_core::Arena;
//! use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, Schema};
//!
//! static FIELDS: [FieldTable; 2] = [
//!     FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit),
//!     FieldTable::new(2, "name", "name", Kind::String, Label::Implicit),
//! ];
//! static MESSAGES: [MessageTable; 1] = [MessageTable::new("demo.User", &FIELDS, &[])];
//! static SCHEMA: Schema = Schema { messages: &MESSAGES, enums: &[] };
//! const USER: MessageRef = MessageRef::new(&SCHEMA, 0);
//!
//! let arena = Arena::new();
//! let bytes = [0x08, 0x96, 0x01, 0x12, 0x03, b'a', b'd', b'a'];
//! let user = quarry_proto::decode(USER, &arena, &bytes)?;
//! assert_eq!(user.scalar(0), Some(150));
//! assert_eq!(user.str(1), Some("ada"));
//! assert_eq!(quarry_proto::encode(USER, user)?, bytes);
//! # Ok::<(), quarry_core::DecodeError>(())
//! ```

// Generated code names the crate `::quarry_proto`; `well_known` is such
// code, compiled inside the crate.
extern crate self as quarry_proto;

// The crate README's example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod builder;
mod decode;
mod encode;
mod float_text;
mod inline_stack;
pub mod json;
mod map;
mod merge;
mod one_pass;
mod owned_record;
mod record;
mod table;
pub mod text;
mod values;
mod walk;
pub mod well_known;
pub mod wire;

pub use builder::{MapValue, RecordBuilder};
pub use decode::{
    ARENA_BYTES_CONST, ARENA_BYTES_PER_INPUT_BYTE, DEFAULT_OPTIONS, Decoder, ESTIMATE_BYTES_CONST,
    ESTIMATE_BYTES_PER_INPUT_BYTE, Reserve, arena_for, decode, decode_into, estimate_arena_bytes,
    input_bounded_options, max_arena_bytes,
};
pub use encode::{
    MAX_ENCODED_LEN, encode, encode_into, encode_into_with, encode_with, encoded_len,
};
pub use map::{MapEntry, MapIter};
pub use owned_record::{OwnedRecord, RecordRoot};
pub use quarry_core::{Arena, DecodeError, DecodeOptions};
pub use record::{Messages, Record, Slot, UnknownField};
pub use table::{
    DefaultValue, EnumTable, FieldTable, Kind, Label, MessageRef, MessageTable, Schema,
};
