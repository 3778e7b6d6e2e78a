//! Views and builders of protobuf's well-known types (package
//! `google.protobuf`: `Any`, `Duration`, `Empty`, `FieldMask`,
//! `Struct`/`Value`/`ListValue`/`NullValue`, `Timestamp`, the wrappers,
//! and `Type`, `Api` and what they use), with their own [`SCHEMA`].
//!
//! Code `quarry-proto-build` generates refers to these types for fields of
//! a well-known type instead of generating them again, so views of two
//! schemas that both import `google/protobuf/timestamp.proto` share one
//! `TimestampView`. The module is that generator's output for
//! `any.proto`, `api.proto`, `duration.proto`, `empty.proto`,
//! `field_mask.proto`, `source_context.proto`, `struct.proto`,
//! `timestamp.proto`, `type.proto` and `wrappers.proto`
//! (`well_known_generated.rs`; a test of `quarry-proto-build` holds it to
//! the generator's output).
//!
//! ```
//! use quarry_proto::Arena;
//! use quarry_proto::well_known::{DurationBuilder, TimestampBuilder, TimestampView};
//!
//! let arena = Arena::new();
//! let mut ts = TimestampBuilder::new(&arena);
//! ts.set_seconds(1_700_000_000).set_nanos(5);
//! let bytes = ts.build().encode()?;
//! // seconds = 1 (varint), nanos = 2 (varint), as protobuf encodes them.
//! assert_eq!(bytes, [0x08, 0x80, 0xE2, 0xCF, 0xAA, 0x06, 0x10, 0x05]);
//! let back = TimestampView::decode(&arena, &bytes)?;
//! assert_eq!((back.seconds(), back.nanos()), (1_700_000_000, 5));
//! assert_eq!(back.to_json().unwrap(), "\"2023-11-14T22:13:20.000000005Z\"");
//! let _ = DurationBuilder::new(&arena).set_seconds(-1);
//! # Ok::<(), quarry_core::DecodeError>(())
//! ```

mod generated {
    include!("well_known_generated.rs");
}

pub use generated::SCHEMA;
pub use generated::google::protobuf::*;
