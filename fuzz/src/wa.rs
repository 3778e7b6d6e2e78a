//! WhatsApp binary nodes: raw node bytes and frames.

use miniz_oxide::inflate::core::DecompressorOxide;
use quarry_core::{Arena, DecodeError, DecodeOptions};
use quarry_wa::{Content, Decoder, Node, OwnedNode, max_arena_bytes};

use crate::{arena_bytes_written, check_offset, in_reused_arena};

/// Raw node bytes (no flags byte), default limits.
pub fn check_node(data: &[u8]) {
    let decoder = Decoder::new();
    let fresh = Arena::new();
    let first = decoder.decode(&fresh, data);

    let bound = max_arena_bytes(data.len());
    let (written, measured) = arena_bytes_written(bound.saturating_add(4096), |arena| {
        decoder.decode(arena, data).map(Node::to_owned_node)
    });
    assert!(
        written <= bound,
        "{written} arena bytes for {} input bytes (bound 31 x len + 256 = {bound})",
        data.len()
    );

    let reused = in_reused_arena(|arena| decoder.decode(arena, data).map(Node::to_owned_node));
    let owned = first.clone().map(Node::to_owned_node);
    assert_eq!(owned, reused, "fresh and reused arenas disagree");
    assert_eq!(owned, measured, "fresh and pre-sized arenas disagree");

    match first {
        Ok(node) => round_trip(node),
        Err(e) => check_offset(&e, data.len()),
    }
}

/// A frame: a flags byte, then node bytes, zlib-compressed when flag 0x02
/// is set. The fuzzer drives two kinds of frame: when the input's first
/// byte has bit 0x80 set, the rest of the input is node bytes that this
/// function compresses itself (so the inflater sees real streams and the
/// decoder sees what they inflate to); otherwise the input is the frame.
pub fn check_frame(data: &[u8]) {
    match data.split_first() {
        Some((&mode, nodes)) if mode & 0x80 != 0 => {
            let level = mode & 0x0F;
            let mut frame = vec![0x02];
            frame.extend(miniz_oxide::deflate::compress_to_vec_zlib(
                nodes,
                level.min(10),
            ));
            check_frame_bytes(&frame);
            // The frame decodes exactly as its inflated node bytes do:
            // same tree, same error at the same offset (offsets of a
            // compressed frame count in the inflated bytes).
            let arena = Arena::new();
            let framed = quarry_wa::decode_frame(&arena, &frame).map(Node::to_owned_node);
            let arena = Arena::new();
            let plain = quarry_wa::decode(&arena, nodes).map(Node::to_owned_node);
            assert_eq!(
                framed, plain,
                "compressed frame and its node bytes disagree"
            );
        }
        _ => check_frame_bytes(data),
    }
}

fn check_frame_bytes(frame: &[u8]) {
    let decoder = Decoder::new();
    let options = decoder.options;
    let fresh = Arena::new();
    let first = decoder.decode_frame(&fresh, frame);

    let bound = frame_arena_bound(frame, &options);
    // The decoder reserves for its first guess of the inflated size (the
    // state, the guess and 4 arena bytes per byte of it, plus 192) unless
    // the arena has that room: the measuring arena must hold that
    // reservation in its first chunk.
    let body = frame.len().saturating_sub(1);
    let guess = body
        .saturating_mul(8)
        .saturating_add(1024)
        .min(options.max_inflated_bytes);
    let reserved = std::mem::size_of::<DecompressorOxide>()
        .saturating_add(guess)
        .saturating_add(guess.saturating_mul(4).saturating_add(192));
    let capacity = bound.max(reserved).saturating_add(4096);
    let (written, measured) = arena_bytes_written(capacity, |arena| {
        decoder.decode_frame(arena, frame).map(Node::to_owned_node)
    });
    assert!(
        written <= bound,
        "{written} arena bytes for a {}-byte frame (bound {bound})",
        frame.len()
    );

    let reused =
        in_reused_arena(|arena| decoder.decode_frame(arena, frame).map(Node::to_owned_node));
    let owned = first.clone().map(Node::to_owned_node);
    assert_eq!(owned, reused, "fresh and reused arenas disagree");
    assert_eq!(owned, measured, "fresh and pre-sized arenas disagree");

    // A plain frame is its node bytes, offsets moved by the flags byte.
    if let Some((&flags, body)) = frame.split_first()
        && flags & quarry_wa::wire::FLAG_COMPRESSED == 0
    {
        let arena = Arena::new();
        let plain = quarry_wa::decode(&arena, body)
            .map(Node::to_owned_node)
            .map_err(|e| e.shifted(1));
        assert_eq!(owned, plain, "plain frame and its node bytes disagree");
    }

    match first {
        Ok(node) => round_trip(node),
        // Offsets of a compressed frame count in the inflated bytes,
        // which may be longer than the frame; only limit and inflate
        // errors count in the frame itself.
        Err(e) => {
            let compressed = frame
                .first()
                .is_some_and(|f| f & quarry_wa::wire::FLAG_COMPRESSED != 0);
            if !compressed
                || matches!(
                    e,
                    DecodeError::InflatedLimit { .. } | DecodeError::Inflate { .. }
                )
            {
                check_offset(&e, frame.len());
            }
        }
    }
}

/// The arena bytes one frame decode may write (docs/SECURITY.md): a plain
/// frame is its body's node bound; a compressed one adds the inflater's
/// state and the output buffer, which starts at `8 x body + 1024` bytes and
/// doubles until the inflated size `I` fits (capped by
/// `max_inflated_bytes`), the node bound of `I` bytes, and under 16 bytes
/// of alignment between them. `I` is measured
/// here with the same inflater; when the stream does not inflate, the limit
/// stands for it.
pub fn frame_arena_bound(frame: &[u8], options: &DecodeOptions) -> usize {
    let Some((&flags, body)) = frame.split_first() else {
        return 0;
    };
    if flags & quarry_wa::wire::FLAG_COMPRESSED == 0 {
        return max_arena_bytes(body.len());
    }
    let limit = options.max_inflated_bytes;
    let inflated = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(body, limit)
        .map_or(limit, |v| v.len());
    let guess = body.len().saturating_mul(8).saturating_add(1024);
    let buffer = guess.max(inflated.saturating_mul(2)).min(limit);
    // The three regions sit one after the other in the arena; the padding
    // that aligns each is under 8 bytes.
    std::mem::size_of::<DecompressorOxide>()
        .saturating_add(buffer)
        .saturating_add(max_arena_bytes(inflated))
        .saturating_add(16)
}

/// Re-encode a decoded tree, decode that, compare, and re-encode again.
pub fn round_trip(node: Node<'_>) {
    let bytes =
        quarry_wa::encode(node).unwrap_or_else(|e| panic!("a decoded tree does not encode: {e}"));
    let owned = node.to_owned_node();
    // The owned tree encodes too, and to the same tree (not always to the
    // same bytes: a view writes a packed JID user back as it came, the owned
    // tree holds it as text, which may be a token).
    let from_owned = quarry_wa::encode(&owned)
        .unwrap_or_else(|e| panic!("the owned copy of a decoded tree does not encode: {e}"));
    let arena = Arena::new();
    let via_owned = quarry_wa::decode(&arena, &from_owned)
        .unwrap_or_else(|e| panic!("the owned tree's encoding does not decode: {e}"));
    if let Err(why) = same_tree(node, via_owned, 0) {
        panic!("the owned tree's encoding decodes to another tree: {why}");
    }
    let arena = Arena::new();
    let again = quarry_wa::decode(&arena, &bytes)
        .unwrap_or_else(|e| panic!("the re-encoding does not decode: {e}\n{bytes:02x?}"));
    if let Err(why) = same_tree(node, again, 0) {
        panic!(
            "the re-encoding decodes to another tree: {why}\nfirst: {owned:?}\nagain: {:?}",
            again.to_owned_node()
        );
    }
    let twice = quarry_wa::encode(again).expect("a re-decoded tree encodes");
    assert_eq!(twice, bytes, "re-encoding is not a fixed point");
}

/// Equal up to the two spots where the format itself is lossy (see
/// `quarry_wa::OwnedContent`): text content written raw returns as bytes,
/// and an attribute value that is exactly a JID's text returns as a JID
/// (compared by rendering).
fn same_tree(a: Node<'_>, b: Node<'_>, depth: usize) -> Result<(), String> {
    if a.tag() != b.tag() {
        return Err(format!(
            "tag {:?} vs {:?} at depth {depth}",
            a.tag(),
            b.tag()
        ));
    }
    if a.attrs().len() != b.attrs().len() {
        return Err(format!("attribute count on <{}>", a.tag()));
    }
    for ((ka, va), (kb, vb)) in a.attrs().iter().zip(b.attrs().iter()) {
        if ka != kb || va.to_text() != vb.to_text() {
            return Err(format!("attribute {ka}={va} vs {kb}={vb} on <{}>", a.tag()));
        }
    }
    match (a.content(), b.content()) {
        (Content::None, Content::None) => Ok(()),
        (Content::Text(x), Content::Text(y)) if x == y => Ok(()),
        (Content::Text(x), Content::Bytes(y)) if x.as_bytes() == y => Ok(()),
        (Content::Bytes(x), Content::Bytes(y)) if x == y => Ok(()),
        (Content::Nodes(x), Content::Nodes(y)) if x.len() == y.len() => x
            .iter()
            .zip(y.iter())
            .try_for_each(|(x, y)| same_tree(x, y, depth + 1)),
        (x, y) => Err(format!("content {x:?} vs {y:?} of <{}>", a.tag())),
    }
}

/// Decode `bytes` to an owned tree (tests and the seed generator).
pub fn decode_owned(bytes: &[u8]) -> Result<OwnedNode, DecodeError> {
    let arena = Arena::new();
    quarry_wa::decode(&arena, bytes).map(Node::to_owned_node)
}
