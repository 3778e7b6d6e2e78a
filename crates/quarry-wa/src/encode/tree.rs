//! What the encoder's walk reads from a tree: an owned node or a decoded
//! view, through one trait, so both encode by the same code.

use crate::node::{ChildIter, Content, Node, Value};
use crate::owned::{OwnedContent, OwnedNode};

/// What the traversal needs from a tree: an owned node or a decoded view.
pub(crate) trait Tree<'s>: Copy {
    type Kids: ExactSizeIterator<Item = Self>;
    fn tag(self) -> &'s str;
    fn attr_count(self) -> usize;
    fn attr_at(self, i: usize) -> Option<(&'s str, Value<'s>)>;
    fn body(self) -> Body<'s, Self::Kids>;
}

/// A node's content, as the traversal sees it.
pub(crate) enum Body<'s, K> {
    None,
    Text(&'s str),
    Bytes(&'s [u8]),
    Nodes(K),
}

impl<'s> Tree<'s> for &'s OwnedNode {
    type Kids = std::slice::Iter<'s, OwnedNode>;
    fn tag(self) -> &'s str {
        &self.tag
    }
    fn attr_count(self) -> usize {
        self.attrs.len()
    }
    fn attr_at(self, i: usize) -> Option<(&'s str, Value<'s>)> {
        self.attrs.get(i).map(|(k, v)| (k.as_str(), v.as_view()))
    }
    fn body(self) -> Body<'s, Self::Kids> {
        match &self.content {
            OwnedContent::None => Body::None,
            OwnedContent::Text(s) => Body::Text(s),
            OwnedContent::Bytes(b) => Body::Bytes(b),
            OwnedContent::Nodes(nodes) => Body::Nodes(nodes.iter()),
        }
    }
}

impl<'s> Tree<'s> for Node<'s> {
    type Kids = ChildIter<'s>;
    fn tag(self) -> &'s str {
        Node::tag(self)
    }
    fn attr_count(self) -> usize {
        self.attrs().len()
    }
    fn attr_at(self, i: usize) -> Option<(&'s str, Value<'s>)> {
        self.attrs().get_index(i)
    }
    fn body(self) -> Body<'s, Self::Kids> {
        match self.content() {
            Content::None => Body::None,
            Content::Text(s) => Body::Text(s),
            Content::Bytes(b) => Body::Bytes(b),
            Content::Nodes(children) => Body::Nodes(children.iter()),
        }
    }
}

/// How the public [`EncodeNode`](super::EncodeNode) reaches the encoder's
/// code for each tree type. Public in this private module, so it bounds
/// `EncodeNode` (sealing it) without being nameable outside the crate.
pub trait Dispatch: Copy {
    /// The encoding's length.
    fn encoded_len(self, encoder: &super::Encoder) -> Result<usize, super::EncodeError>;
    /// A new buffer of exactly the encoding, after a flags byte if `frame`.
    fn encode_exact(
        self,
        encoder: &super::Encoder,
        frame: bool,
    ) -> Result<Vec<u8>, super::EncodeError>;
    /// The encoding appended to `out`.
    fn append(self, encoder: &super::Encoder, out: &mut Vec<u8>) -> Result<(), super::EncodeError>;
}
