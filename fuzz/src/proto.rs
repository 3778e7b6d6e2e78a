//! Protobuf messages through quarry-proto's table-driven decoder.

use quarry_core::{Arena, BoundedAlloc};
use quarry_proto::{Decoder, MessageRef, Record};

use crate::{arena_bytes_written, check_offset, in_reused_arena};

/// What a decoded record is compared by: the text format (every field, as
/// `protoc --decode` prints it, unknown fields included) and the
/// canonical encoding.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    text: String,
    bytes: Vec<u8>,
}

fn seen(message: MessageRef, record: Record<'_>) -> Seen {
    let bytes = quarry_proto::encode(message, record).expect("what the decoder made encodes");
    assert_eq!(
        quarry_proto::encoded_len(message, record),
        bytes.len(),
        "encoded_len disagrees with the encoding"
    );
    Seen {
        text: quarry_proto::text::to_text(message, record),
        bytes,
    }
}

/// Decode `data` as one `message` with the default decoder and check every
/// property.
pub fn check(message: MessageRef, data: &[u8]) {
    let decoder = Decoder::new();
    let options = decoder.options;
    let fresh = Arena::new();
    let first = decoder
        .decode(message, &fresh, data)
        .map(|r| seen(message, r));

    // Measured with no reservation and the caller's budget, which also
    // reports the bytes charged. The bound holds for every input and depth
    // (docs/SECURITY.md): nesting costs the arena nothing.
    let charge_bound = quarry_proto::max_arena_bytes(data.len());
    let write_bound = charge_bound;
    let (written, (charged, measured)) =
        arena_bytes_written(write_bound.saturating_add(4096), |arena| {
            let alloc = BoundedAlloc::new(arena, &options);
            let out = quarry_proto::decode_into(message, &alloc, data, &options)
                .map(|r| seen(message, r));
            (alloc.used(), out)
        });
    assert!(
        charged <= charge_bound && written <= write_bound,
        "{written} arena bytes written (bound {write_bound}), {charged} charged (bound \
         {charge_bound}), for {} input bytes",
        data.len()
    );

    let reused = in_reused_arena(|arena| {
        decoder
            .decode(message, arena, data)
            .map(|r| seen(message, r))
    });
    assert_eq!(first, reused, "fresh and reused arenas disagree");
    assert_eq!(first, measured, "fresh and pre-sized arenas disagree");

    match &first {
        Ok(s) => {
            let arena = Arena::new();
            let again = decoder
                .decode(message, &arena, &s.bytes)
                .unwrap_or_else(|e| panic!("the re-encoding does not decode: {e}"));
            let again = seen(message, again);
            assert_eq!(&again, s, "the re-encoding decodes to another message");
        }
        Err(e) => check_offset(e, data.len()),
    }
}
