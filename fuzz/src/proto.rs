//! Protobuf messages through quarry-proto's table-driven decoder.

use quarry::{Arena, BoundedAlloc, DecodeOptions};
use quarry_proto::{Decoder, INLINE_FRAMES, INLINE_SCRATCH, MessageRef, Record};

use crate::{arena_bytes_written, check_offset, in_reused_arena};

/// Upper bound on the arena bytes one frame of the decoder's explicit
/// stack takes once nesting goes past [`INLINE_FRAMES`] levels (the frame
/// is about 90 bytes; docs/protobuf.md says "about 100").
pub const FRAME_BYTES_MAX: usize = 128;

/// The arena bytes one decode of `len` bytes may charge to its budget and
/// write (docs/SECURITY.md): `quarry_proto::max_arena_bytes(len)` (98 x
/// len + 2,048), plus the stack frames that
/// spill into the arena past [`INLINE_FRAMES`] levels of nesting, plus 12
/// bytes of counting scratch per field of the widest message when it has
/// more than [`INLINE_SCRATCH`] fields. The spill grows by doubling and
/// each growth charges the new capacity (under 2 frames per level); the
/// buffers it leaves behind stay in the arena until it is reset, so the
/// bytes written reach up to 4 frames per level.
pub fn arena_bounds(message: MessageRef, len: usize, options: &DecodeOptions) -> (usize, usize) {
    let depth = (options.max_depth as usize).saturating_sub(INLINE_FRAMES);
    let widest = message
        .schema
        .messages
        .iter()
        .map(|m| m.fields.len())
        .max()
        .unwrap_or(0);
    let scratch = if widest > INLINE_SCRATCH {
        12 * widest
    } else {
        0
    };
    let base = quarry_proto::max_arena_bytes(len).saturating_add(scratch);
    (
        base.saturating_add(2 * FRAME_BYTES_MAX * depth),
        base.saturating_add(4 * FRAME_BYTES_MAX * depth),
    )
}

/// What a decoded record is compared by: the text format (every field, as
/// `protoc --decode` prints it, unknown fields included) and the
/// canonical encoding.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    text: String,
    bytes: Vec<u8>,
}

fn seen(message: MessageRef, record: Record<'_>) -> Seen {
    let bytes = quarry_proto::encode_to_vec(message, record);
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
    // reports the bytes charged.
    let (charge_bound, write_bound) = arena_bounds(message, data.len(), &options);
    let (written, (charged, measured)) =
        arena_bytes_written(write_bound.saturating_add(4096), |arena| {
            let alloc = BoundedAlloc::new(arena, &options);
            let out = quarry_proto::decode_with(message, &alloc, data, &options)
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
