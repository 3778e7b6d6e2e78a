//! The encoder: one walk over the tree. It classifies every string
//! (token, packed, JID, raw) once and writes into a 4 KiB scratch on the
//! stack; an encoding that fits (most stanzas) is then copied into an
//! output of exactly its size, one allocation. A larger one continues in
//! the heap, reserved when the scratch runs out for an upper bound of the
//! whole encoding ([`bound`]), and is shrunk to its length at the end.
//!
//! * `tree.rs`: what the walk reads, from an owned tree or a decoded view.
//! * `walk.rs`: the walk and WhatsApp's string classes.
//! * `sink.rs`: where bytes go, counted or written.
//! * `bound.rs`: the upper bound of an encoding's length.

mod bound;
mod sink;
mod tree;
mod walk;

use std::mem::MaybeUninit;

use crate::dictionary::Dictionary;
use crate::node::Node;
use crate::owned::OwnedNode;

use bound::bytes_bound;
use sink::{Count, Output, SCRATCH_LEN, Scratch, Sink};
use tree::Tree;
use walk::Walk;

/// Deepest node the encoder writes: the root is depth 0, a node at depth
/// `MAX_DEPTH` is an error. WhatsApp's decoder (and quarry's, by default)
/// rejects anything deeper, and the bound keeps the encoder's recursion
/// shallow.
pub const MAX_DEPTH: usize = 128;

/// Why a tree cannot be encoded. Nothing is written when encoding fails.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// More attributes than a list header can count (32767, or 32766 when
    /// the node also has content).
    #[error("<{tag}> has {count} attributes, more than the {max} a node can carry")]
    TooManyAttributes {
        /// The node's tag.
        tag: String,
        /// How many it has.
        count: usize,
        /// The most it may have.
        max: usize,
    },
    /// More than 65535 children.
    #[error("<{tag}> has {count} children, more than 65535")]
    TooManyChildren {
        /// The node's tag.
        tag: String,
        /// How many it has.
        count: usize,
    },
    /// A string or byte payload longer than `BINARY_32` can carry
    /// (`u32::MAX` bytes).
    #[error("a value of {len} bytes is longer than BINARY_32 can carry")]
    TooLong {
        /// Its length.
        len: usize,
    },
    /// A structured JID with a field the wire cannot carry for its server.
    #[error("JID {jid} cannot be encoded: {why}")]
    Jid {
        /// The JID, rendered.
        jid: String,
        /// What the wire cannot carry.
        why: &'static str,
    },
    /// Nesting deeper than [`MAX_DEPTH`].
    #[error("node nesting deeper than {limit}")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The writer given to [`Encoder::encode_to`] failed.
    #[error("writing the encoding failed ({kind:?}): {message}")]
    Io {
        /// The I/O error's kind.
        kind: std::io::ErrorKind,
        /// The I/O error's message.
        message: String,
    },
}

impl From<std::io::Error> for EncodeError {
    fn from(e: std::io::Error) -> Self {
        EncodeError::Io {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

/// What the encoder takes: an owned tree (`&OwnedNode`) or a decoded view
/// (`Node`). Implemented for those two only; both encode by the same code.
///
/// Re-encoding a view gives canonical input (what this encoder or
/// WhatsApp's produces) back byte for byte; see `docs/wa-format.md` for the
/// inputs that do not.
pub trait EncodeNode: tree::Dispatch {}

impl EncodeNode for &OwnedNode {}

impl EncodeNode for Node<'_> {}

/// Encoder settings: the token dictionary.
///
/// ```
/// use quarry_wa::{Dictionary, Encoder, OwnedNode};
///
/// let encoder = Encoder { dictionary: Dictionary::v3() };
/// let bytes = encoder.encode(&OwnedNode::new("message").attr("type", "enc")).unwrap();
/// assert_eq!(bytes, [0xF8, 3, 19, 4, 29]); // all three strings are tokens
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Encoder {
    /// The token dictionary (must match the decoder's).
    pub dictionary: &'static Dictionary,
}

impl Default for Encoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Encoder {
    /// The v3 dictionary.
    pub fn new() -> Self {
        Self {
            dictionary: Dictionary::v3(),
        }
    }

    /// The exact number of bytes [`encode`](Self::encode) produces for `node`.
    ///
    /// ```
    /// let node = quarry_wa::OwnedNode::new("enc").bytes(vec![0; 300]);
    /// // LIST_8 2, token, BINARY_20 + 3 length bytes, payload
    /// assert_eq!(quarry_wa::Encoder::new().encoded_len(&node).unwrap(), 2 + 1 + 4 + 300);
    /// ```
    pub fn encoded_len(&self, node: impl EncodeNode) -> Result<usize, EncodeError> {
        node.encoded_len(self)
    }

    /// Encode `node` (an owned tree or a decoded view) to node bytes (no
    /// flags byte). The result's capacity equals its length. An encoding of
    /// up to 4 KiB (most stanzas) is one allocation of exactly its size; a
    /// longer one is one allocation of an upper bound of it, shrunk in
    /// place at the end.
    pub fn encode(&self, node: impl EncodeNode) -> Result<Vec<u8>, EncodeError> {
        node.encode_exact(self, false)
    }

    /// Encode `node` as a frame: the flags byte `0x00` (uncompressed), then
    /// node bytes.
    pub fn encode_frame(&self, node: impl EncodeNode) -> Result<Vec<u8>, EncodeError> {
        node.encode_exact(self, true)
    }

    /// Append the node bytes of `node` to `out`, growing it at most once
    /// (by exactly the encoding up to 4 KiB, else by an upper bound of it).
    /// On error `out` is left as it was.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let node = quarry_wa::decode(&arena, &[0xF8, 1, 19]).unwrap();
    /// let mut out = vec![0x00];
    /// quarry_wa::Encoder::new().encode_into(node, &mut out).unwrap();
    /// assert_eq!(out, [0x00, 0xF8, 1, 19]);
    /// ```
    pub fn encode_into(&self, node: impl EncodeNode, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        node.append(self, out)
    }

    /// Write the node bytes of `node` to `writer` (WhatsApp's `marshal_to`
    /// writes a frame: that is [`encode_frame_to`](Self::encode_frame_to)).
    /// The encoding is made first, so a tree that cannot be encoded writes
    /// nothing; it costs the one allocation [`encode`](Self::encode) makes.
    ///
    /// ```
    /// let mut out = std::io::Cursor::new(Vec::new());
    /// quarry_wa::Encoder::new().encode_to(&quarry_wa::OwnedNode::new("message"), &mut out).unwrap();
    /// assert_eq!(out.into_inner(), [0xF8, 1, 19]);
    /// ```
    pub fn encode_to(
        &self,
        node: impl EncodeNode,
        writer: &mut impl std::io::Write,
    ) -> Result<(), EncodeError> {
        let bytes = self.encode(node)?;
        writer.write_all(&bytes)?;
        Ok(())
    }

    /// Write `node` as a frame (flags byte `0x00`, then node bytes) to
    /// `writer`, as [`encode_to`](Self::encode_to) does.
    pub fn encode_frame_to(
        &self,
        node: impl EncodeNode,
        writer: &mut impl std::io::Write,
    ) -> Result<(), EncodeError> {
        let bytes = self.encode_frame(node)?;
        writer.write_all(&bytes)?;
        Ok(())
    }

    /// [`encoded_len`](Self::encoded_len) of an owned tree. This and the
    /// five below are not generic, so their code is made here, once, as
    /// the encoder's was before it took views too: the generic entry
    /// points only pick one.
    fn owned_len(&self, node: &OwnedNode) -> Result<usize, EncodeError> {
        self.count(node)
    }

    fn view_len(&self, node: Node<'_>) -> Result<usize, EncodeError> {
        self.count(node)
    }

    fn owned_exact(&self, node: &OwnedNode, frame: bool) -> Result<Vec<u8>, EncodeError> {
        self.encode_exact(node, frame)
    }

    fn view_exact(&self, node: Node<'_>, frame: bool) -> Result<Vec<u8>, EncodeError> {
        self.encode_exact(node, frame)
    }

    fn owned_append(&self, node: &OwnedNode, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.encode_onto(node, out, &[]).map(|_| ())
    }

    fn view_append(&self, node: Node<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.encode_onto(node, out, &[]).map(|_| ())
    }

    fn count<'s, T: Tree<'s>>(&self, node: T) -> Result<usize, EncodeError> {
        let mut count = Count(0);
        self.walk(node, &mut count)?;
        Ok(count.0)
    }

    fn walk<'s, T: Tree<'s>, S: Sink>(&self, node: T, out: &mut S) -> Result<(), EncodeError> {
        Walk {
            tokens: self.dictionary.token_index(),
            out,
        }
        .node(node, 0)
    }

    /// Encode into a new vector of exactly the encoding's size.
    fn encode_exact<'s, T: Tree<'s>>(&self, node: T, frame: bool) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        let spilled = self.encode_onto(node, &mut out, if frame { &[0] } else { &[] })?;
        if spilled {
            // The reservation was an upper bound; give the rest back (an
            // in-place shrink).
            out.shrink_to_fit();
        }
        Ok(out)
    }

    /// Append `prefix` and the encoding of `node` to `out`, which grows at
    /// most once; on error `out` is left as it was. True when the
    /// encoding outgrew the stack scratch (`out` then holds an upper
    /// bound of it in capacity).
    fn encode_onto<'s, T: Tree<'s>>(
        &self,
        node: T,
        out: &mut Vec<u8>,
        prefix: &'static [u8],
    ) -> Result<bool, EncodeError> {
        let mut buf = [MaybeUninit::<u8>::uninit(); SCRATCH_LEN];
        let bound = || bytes_bound(node, 0);
        let mut output = Output::new(Scratch::new(&mut buf), out, prefix, &bound);
        match self.walk(node, &mut output) {
            Ok(()) => {
                let spilled = output.spilled();
                output.finish();
                Ok(spilled)
            }
            Err(error) => {
                output.undo();
                Err(error)
            }
        }
    }
}

/// Encode `node` (an owned tree or a decoded view) to node bytes (no flags
/// byte) with the v3 dictionary.
///
/// ```
/// use quarry_wa::{Jid, OwnedNode, Server};
///
/// let node = OwnedNode::new("iq")
///     .attr("id", "1")
///     .jid_attr("to", Jid::new("", Server::Pn))
///     .children([OwnedNode::new("ping")]);
/// let bytes = quarry_wa::encode(&node).unwrap();
/// assert_eq!(bytes.capacity(), bytes.len());
///
/// let arena = quarry_core::Arena::new();
/// let view = quarry_wa::decode(&arena, &bytes).unwrap();
/// assert_eq!(view.to_owned_node(), node);
/// // A view re-encodes to the same bytes.
/// assert_eq!(quarry_wa::encode(view).unwrap(), bytes);
/// ```
pub fn encode(node: impl EncodeNode) -> Result<Vec<u8>, EncodeError> {
    Encoder::new().encode(node)
}

/// Encode `node` as a frame: flags byte `0x00`, then node bytes.
///
/// ```
/// let node = quarry_wa::OwnedNode::new("message");
/// assert_eq!(quarry_wa::encode_frame(&node).unwrap(), [0x00, 0xF8, 1, 19]);
/// let arena = quarry_core::Arena::new();
/// let frame = [0x00, 0xF8, 1, 19];
/// let view = quarry_wa::decode_frame(&arena, &frame).unwrap();
/// assert_eq!(quarry_wa::encode_frame(view).unwrap(), frame);
/// ```
pub fn encode_frame(node: impl EncodeNode) -> Result<Vec<u8>, EncodeError> {
    Encoder::new().encode_frame(node)
}

/// Append the node bytes of `node` to `out` (growing it at most once; see
/// [`Encoder::encode_into`]); on error `out` is unchanged.
///
/// ```
/// let mut out = vec![0x00]; // a flags byte of our own
/// quarry_wa::encode_into(&quarry_wa::OwnedNode::new("message"), &mut out).unwrap();
/// assert_eq!(out, [0x00, 0xF8, 1, 19]);
/// // 129 levels: deeper than the wire allows, so nothing is appended.
/// let mut deep = quarry_wa::OwnedNode::new("leaf");
/// for _ in 0..128 {
///     deep = quarry_wa::OwnedNode::new("iq").children([deep]);
/// }
/// assert!(quarry_wa::encode_into(&deep, &mut out).is_err());
/// assert_eq!(out.len(), 4);
/// ```
pub fn encode_into(node: impl EncodeNode, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    Encoder::new().encode_into(node, out)
}

/// The exact length of [`encode`]'s output for `node` (a built tree or a
/// decoded view), computed without writing.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let view = quarry_wa::decode(&arena, &[0xF8, 3, 19, 4, 29]).unwrap();
/// assert_eq!(quarry_wa::encoded_len(view).unwrap(), 5);
/// ```
pub fn encoded_len(node: impl EncodeNode) -> Result<usize, EncodeError> {
    Encoder::new().encoded_len(node)
}

/// Write the node bytes of `node` to `writer`; see [`Encoder::encode_to`].
pub fn encode_to(
    node: impl EncodeNode,
    writer: &mut impl std::io::Write,
) -> Result<(), EncodeError> {
    Encoder::new().encode_to(node, writer)
}

/// Write `node` as a frame to `writer`; see [`Encoder::encode_frame_to`].
///
/// ```
/// let mut out = Vec::new();
/// quarry_wa::encode_frame_to(&quarry_wa::OwnedNode::new("message"), &mut out).unwrap();
/// assert_eq!(out, [0x00, 0xF8, 1, 19]);
/// ```
pub fn encode_frame_to(
    node: impl EncodeNode,
    writer: &mut impl std::io::Write,
) -> Result<(), EncodeError> {
    Encoder::new().encode_frame_to(node, writer)
}

impl tree::Dispatch for &OwnedNode {
    #[inline]
    fn encoded_len(self, encoder: &Encoder) -> Result<usize, EncodeError> {
        encoder.owned_len(self)
    }
    #[inline]
    fn encode_exact(self, encoder: &Encoder, frame: bool) -> Result<Vec<u8>, EncodeError> {
        encoder.owned_exact(self, frame)
    }
    #[inline]
    fn append(self, encoder: &Encoder, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        encoder.owned_append(self, out)
    }
}

impl tree::Dispatch for Node<'_> {
    #[inline]
    fn encoded_len(self, encoder: &Encoder) -> Result<usize, EncodeError> {
        encoder.view_len(self)
    }
    #[inline]
    fn encode_exact(self, encoder: &Encoder, frame: bool) -> Result<Vec<u8>, EncodeError> {
        encoder.view_exact(self, frame)
    }
    #[inline]
    fn append(self, encoder: &Encoder, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        encoder.view_append(self, out)
    }
}

#[cfg(test)]
mod tests;
