//! An upper bound of a tree's encoded length, without classifying a
//! string: what the writer reserves when an encoding outgrows its stack
//! scratch.

use crate::jid::Jid;
use crate::node::Value;

use super::MAX_DEPTH;
use super::tree::{Body, Tree};

/// The most a string's class adds over its raw form: a JID written as one
/// (a `newsletter` JID pair spends 12 bytes on its server's name, 2 more
/// than the text's `@newsletter`) or an interop one, with its device and
/// integrator fields. Tokens, packed strings and the empty string take no
/// more than raw.
const CLASS_SLACK: usize = 16;

/// Bytes `bytes` take raw: the BINARY_8, BINARY_20 or BINARY_32 header
/// and the bytes.
fn raw_len(len: usize) -> usize {
    let header = match len {
        0..256 => 2,
        256..0x10_0000 => 4,
        _ => 5,
    };
    len.saturating_add(header)
}

fn string_bound(text: &str) -> usize {
    raw_len(text.len()).saturating_add(CLASS_SLACK)
}

/// Every wire form of a JID: its header and fields, the user however it
/// is held, and the server as a raw string.
fn jid_bound(jid: &Jid<'_>) -> usize {
    raw_len(jid.user().len())
        .saturating_add(raw_len(jid.server().as_str().len()))
        .saturating_add(CLASS_SLACK)
}

/// At least the bytes the encoder writes for `node`: a LIST_16 header per
/// node and per child list, every string at its raw length plus
/// [`CLASS_SLACK`]. Trees deeper than the encoder accepts are counted to
/// [`MAX_DEPTH`] only: their encode fails there anyway.
pub(super) fn bytes_bound<'s, T: Tree<'s>>(node: T, depth: usize) -> usize {
    let mut bound = 3usize.saturating_add(string_bound(node.tag()));
    for i in 0..node.attr_count() {
        if let Some((key, value)) = node.attr_at(i) {
            let value = match value {
                Value::Str(text) => string_bound(text),
                Value::Jid(jid) => jid_bound(&jid),
            };
            bound = bound
                .saturating_add(string_bound(key))
                .saturating_add(value);
        }
    }
    let content = match node.body() {
        Body::None => 0,
        Body::Text(text) => string_bound(text),
        Body::Bytes(bytes) => raw_len(bytes.len()),
        Body::Nodes(kids) if depth < MAX_DEPTH => kids.fold(3usize, |sum, kid| {
            sum.saturating_add(bytes_bound(kid, depth + 1))
        }),
        Body::Nodes(_) => 3,
    };
    bound.saturating_add(content)
}
