//! Generated quarry-proto views of the test schemas (`proto/`) and of
//! WhatsApp's schema, next to the prost types generated from the same
//! descriptors; the tests in `tests/` hold the two against each other.

/// Views of the schemas in `proto/` (`test2.proto`, `test3.proto`,
/// `odd2.proto`, `odd3.proto` and `names.proto`): a module per package
/// (`views::quarry::test2`, …) and their tables, `views::SCHEMA`.
pub mod views {
    include!(concat!(env!("OUT_DIR"), "/test_views.rs"));
}

/// Views of `proto/ext/order.proto` (package `quarry.order`), whose
/// `quarry.shared` types are the hand-written [`hand::shared`] (an extern
/// path) and whose well-known types are `quarry_proto::well_known`'s.
pub mod ext {
    include!(concat!(env!("OUT_DIR"), "/ext_views.rs"));
}

pub mod hand;

/// The code generated from WhatsApp's `whatsapp.proto` (from the waproto
/// package): its tables and the module of its package, `whatsapp`.
mod wa_generated {
    include!(concat!(env!("OUT_DIR"), "/wa_views.rs"));
}

/// Views of WhatsApp's `whatsapp.proto`: the module of its package,
/// `whatsapp`.
pub use wa_generated::whatsapp as wa;

/// The decode tables of WhatsApp's schema.
pub use wa_generated::SCHEMA as WA_SCHEMA;

/// prost's types for the same schemas.
#[allow(missing_docs, clippy::all)] // prost-build's output, not ours
pub mod pb {
    /// `quarry.test2`
    pub mod test2 {
        include!(concat!(env!("OUT_DIR"), "/prost_tests/quarry.test2.rs"));
    }
    /// `quarry.test3`
    pub mod test3 {
        include!(concat!(env!("OUT_DIR"), "/prost_tests/quarry.test3.rs"));
    }
    /// `quarry.odd2`
    pub mod odd2 {
        include!(concat!(env!("OUT_DIR"), "/prost_tests/quarry.odd2.rs"));
    }
    /// `quarry.odd3`
    pub mod odd3 {
        include!(concat!(env!("OUT_DIR"), "/prost_tests/quarry.odd3.rs"));
    }
    /// `quarry.names`
    pub mod names {
        include!(concat!(env!("OUT_DIR"), "/prost_tests/quarry.names.rs"));
    }
    /// `whatsapp`
    pub mod whatsapp {
        include!(concat!(env!("OUT_DIR"), "/prost_wa/whatsapp.rs"));
    }
}

pub mod samples;
pub mod sends;
pub mod variants;
mod wire_edit;

/// Encoded `FileDescriptorSet` of the test schemas.
pub const TEST_DESCRIPTORS: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/prost_tests/descriptors.bin"));

/// The directory of WhatsApp's `whatsapp.proto` in the waproto package on
/// this machine (found by the build script), for tests that compile the
/// schema themselves, as `quarry proto decode` does.
pub const WA_PROTO_DIR: &str = env!("QUARRY_WA_PROTO_DIR");

/// Encoded `FileDescriptorSet` of WhatsApp's schema.
pub const WA_DESCRIPTORS: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/prost_wa/descriptors.bin"));
