//! An upper bound of a tree's encoded length, without classifying a
//! string: what the writer reserves when an encoding outgrows its stack
//! scratch.

use crate::jid::Jid;
use crate::node::Value;

use super::MAX_DEPTH;
use super::tree::{Body, Tree};

/// The most a string's class adds over its raw form. Tokens, packed
/// strings and the empty string take no more than raw. A text that is a
/// JID's rendering is written as that JID, its user at most raw:
/// * a pair spends its type byte and a server token of at most 2 bytes
///   where the text spends at least 4 on `@` and the name, except
///   `newsletter`, which is no token: 1 + 12 raw against the text's 11
///   for `@newsletter`, 2 more;
/// * the device forms spend fewer than their text besides the user:
///   AD_JID 3 (the text at least 6, `:1@lid`), INTEROP_JID at most 9
///   (10, `:1@interop`), FB_JID at most 5 (7, `:1@msgr`).
pub(super) const CLASS_SLACK: usize = 2;

/// A structured JID's bytes besides its user and server: the type byte, a
/// 2-byte device and a 4-byte integrator (interop, the widest form).
const JID_FIELDS: usize = 7;

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

/// Every wire form of a JID: its fields, the user however it is held
/// (packed from the wire or text), and the server as a raw string.
fn jid_bound(jid: &Jid<'_>) -> usize {
    raw_len(jid.user().len())
        .saturating_add(raw_len(jid.server().as_str().len()))
        .saturating_add(JID_FIELDS)
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
