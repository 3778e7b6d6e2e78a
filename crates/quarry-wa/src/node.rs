//! Views of a decoded node tree: `Copy` handles into the arena.

use std::borrow::Cow;
use std::fmt;

use crate::jid::Jid;

/// What the arena stores per node. Children of one node are contiguous, in
/// wire order, because the wire gives their count up front.
#[derive(Clone, Copy)]
pub(crate) struct NodeRec<'a> {
    pub(crate) tag: &'a str,
    pub(crate) attrs: &'a [AttrRec<'a>],
    pub(crate) content: Content<'a>,
}

/// What the arena stores per attribute.
#[derive(Clone, Copy)]
pub(crate) struct AttrRec<'a> {
    pub(crate) key: &'a str,
    pub(crate) value: Value<'a>,
}

impl NodeRec<'_> {
    pub(crate) const EMPTY: NodeRec<'static> = NodeRec {
        tag: "",
        attrs: &[],
        content: Content::None,
    };
}

/// A decoded node: a `Copy` handle (one pointer) into the arena.
///
/// ```
/// use quarry_core::Arena;
///
/// // <iq id="1" type="get"/>: LIST_8 of 5 items, tokens for tag, keys and "get"
/// let arena = Arena::new();
/// let dict = quarry_wa::Dictionary::v3();
/// let t = |s| match dict.lookup(s) { Some(quarry_wa::Token::Single(b)) => b, _ => unreachable!() };
/// let bytes = [0xF8, 5, t("iq"), t("id"), 0xFF, 0x81, 0x1F, t("type"), t("get")];
/// let iq = quarry_wa::decode(&arena, &bytes).unwrap();
/// assert_eq!(iq.tag(), "iq");
/// assert_eq!(iq.attr("id").unwrap(), "1");
/// assert_eq!(iq.attr("type").unwrap(), "get");
/// ```
#[derive(Clone, Copy)]
pub struct Node<'a> {
    rec: &'a NodeRec<'a>,
}

impl<'a> Node<'a> {
    pub(crate) fn from_rec(rec: &'a NodeRec<'a>) -> Self {
        Self { rec }
    }

    /// The tag (description). A JID in tag position is rendered to text.
    #[inline]
    pub fn tag(self) -> &'a str {
        self.rec.tag
    }

    /// The attributes, in wire order.
    #[inline]
    pub fn attrs(self) -> Attrs<'a> {
        Attrs {
            recs: self.rec.attrs,
        }
    }

    /// The first attribute named `key`.
    ///
    /// ```
    /// # let arena = quarry_core::Arena::new();
    /// # let node = quarry_wa::decode(&arena, &[0xF8, 3, 19, 4, 29]).unwrap(); // <message type="enc"/>
    /// assert_eq!(node.attr("type").unwrap(), "enc");
    /// assert!(node.attr("id").is_none());
    /// ```
    #[inline]
    pub fn attr(self, key: &str) -> Option<Value<'a>> {
        self.attrs().get(key)
    }

    /// The attribute `key` when it is text (not a JID).
    #[inline]
    pub fn attr_str(self, key: &str) -> Option<&'a str> {
        self.attr(key).and_then(Value::as_plain_str)
    }

    /// A typed reader of the attributes that collects errors (what
    /// WhatsApp's `node.attrs()` gives; see [`AttrParser`](crate::AttrParser)).
    pub fn attr_parser(self) -> crate::AttrParser<'a> {
        crate::AttrParser::new(self.attrs())
    }

    /// The content.
    #[inline]
    pub fn content(self) -> Content<'a> {
        self.rec.content
    }

    /// The child nodes; empty unless the content is a child list.
    ///
    /// ```
    /// # let arena = quarry_core::Arena::new();
    /// // <message><enc/><enc/></message>
    /// let node = quarry_wa::decode(&arena, &[0xF8, 2, 19, 0xF8, 2, 0xF8, 1, 29, 0xF8, 1, 29]).unwrap();
    /// assert_eq!(node.children().len(), 2);
    /// assert!(node.children().iter().all(|c| c.tag() == "enc"));
    /// ```
    #[inline]
    pub fn children(self) -> Children<'a> {
        match self.rec.content {
            Content::Nodes(children) => children,
            _ => Children { recs: &[] },
        }
    }

    /// The child list, if the content is one (an empty list is `Some`).
    #[inline]
    pub fn content_nodes(self) -> Option<Children<'a>> {
        match self.rec.content {
            Content::Nodes(children) => Some(children),
            _ => None,
        }
    }

    /// The first child tagged `tag`.
    #[inline]
    pub fn child(self, tag: &str) -> Option<Node<'a>> {
        self.children().iter().find(|c| c.tag() == tag)
    }

    /// Every child tagged `tag`, in order.
    pub fn children_by_tag<'t>(self, tag: &'t str) -> impl Iterator<Item = Node<'a>> + 't
    where
        'a: 't,
    {
        self.children().iter().filter(move |c| c.tag() == tag)
    }

    /// Follow `path` one tag per level (first match at each level).
    ///
    /// ```
    /// # let arena = quarry_core::Arena::new();
    /// # let node = quarry_wa::decode(&arena, &[0xF8, 2, 19, 0xF8, 1, 0xF8, 2, 29, 0xF8, 1, 0xF8, 1, 19]).unwrap();
    /// // <message><enc><message/></enc></message>
    /// assert_eq!(node.path(&["enc", "message"]).unwrap().tag(), "message");
    /// assert!(node.path(&["enc", "enc"]).is_none());
    /// ```
    pub fn path(self, path: &[&str]) -> Option<Node<'a>> {
        path.iter().try_fold(self, |node, tag| node.child(tag))
    }

    /// Bytes content (what raw-encoded content always decodes to).
    #[inline]
    pub fn content_bytes(self) -> Option<&'a [u8]> {
        match self.rec.content {
            Content::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// Text content (tokens, packed strings, rendered JIDs).
    #[inline]
    pub fn content_str(self) -> Option<&'a str> {
        match self.rec.content {
            Content::Text(s) => Some(s),
            _ => None,
        }
    }

    /// Text or bytes content as text; bytes that are not UTF-8 are
    /// converted lossily (and only then copied).
    pub fn content_as_string(self) -> Option<Cow<'a, str>> {
        match self.rec.content {
            Content::Text(s) => Some(Cow::Borrowed(s)),
            Content::Bytes(b) => Some(String::from_utf8_lossy(b)),
            _ => None,
        }
    }
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Value equality, all the way down: the same tag, the same attributes in
/// the same order (a JID equals a JID, never its rendered text), and equal
/// contents (text never equals bytes, no content never equals an empty
/// child list). Nodes from different arenas or inputs compare by value;
/// the walk keeps its own stack, so a tree of any depth compares on any
/// thread.
///
/// ```
/// let (one, two) = (quarry_core::Arena::new(), quarry_core::Arena::new());
/// // <message type="enc"><enc/></message>, twice, then with another child tag
/// let a = quarry_wa::decode(&one, &[0xF8, 4, 19, 4, 29, 0xF8, 1, 0xF8, 1, 29]).unwrap();
/// let b = quarry_wa::decode(&two, &[0xF8, 4, 19, 4, 29, 0xF8, 1, 0xF8, 1, 29]).unwrap();
/// assert_eq!(a, b);
/// let c = quarry_wa::decode(&two, &[0xF8, 4, 19, 4, 29, 0xF8, 1, 0xF8, 1, 30]).unwrap();
/// assert_ne!(a, c);
/// ```
impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        let (mut a, mut b) = (*self, *other);
        // Child lists being compared, one pair per level below the root.
        let mut open: Vec<(ChildIter<'_>, ChildIter<'_>)> = Vec::new();
        loop {
            if a.tag() != b.tag() || a.attrs() != b.attrs() {
                return false;
            }
            match (a.content(), b.content()) {
                (Content::Nodes(x), Content::Nodes(y)) => {
                    if x.len() != y.len() {
                        return false;
                    }
                    open.push((x.iter(), y.iter()));
                }
                (x, y) => {
                    if !x.same_leaf(y) {
                        return false;
                    }
                }
            }
            loop {
                let Some((xs, ys)) = open.last_mut() else {
                    return true;
                };
                if let (Some(x), Some(y)) = (xs.next(), ys.next()) {
                    (a, b) = (x, y);
                    break;
                }
                open.pop();
            }
        }
    }
}

/// A node's content.
///
/// Equal when both are the same kind with equal values; child lists
/// compare as [`Children`] do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Content<'a> {
    /// No content (also what `LIST_EMPTY` in content position means).
    None,
    /// Text: a token, a packed string, or a rendered JID.
    Text(&'a str),
    /// Raw bytes, borrowed from the input (or from the arena for an
    /// inflated frame). Raw-encoded text arrives this way too.
    Bytes(&'a [u8]),
    /// A child list, possibly empty.
    Nodes(Children<'a>),
}

impl Content<'_> {
    /// Equal, for contents other than child lists (a child list equals
    /// nothing here).
    fn same_leaf(self, other: Content<'_>) -> bool {
        match (self, other) {
            (Content::None, Content::None) => true,
            (Content::Text(x), Content::Text(y)) => x == y,
            (Content::Bytes(x), Content::Bytes(y)) => x == y,
            _ => false,
        }
    }
}

/// A node's children: a contiguous run in the arena.
///
/// Equal when they have the same length and are equal node by node (see
/// [`Node`]'s `PartialEq`).
#[derive(Clone, Copy)]
pub struct Children<'a> {
    pub(crate) recs: &'a [NodeRec<'a>],
}

impl PartialEq for Children<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(x, y)| x == y)
    }
}

impl<'a> Children<'a> {
    /// Number of children.
    #[inline]
    pub fn len(self) -> usize {
        self.recs.len()
    }

    /// True when there are none.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.recs.is_empty()
    }

    /// The `i`-th child.
    #[inline]
    pub fn get(self, i: usize) -> Option<Node<'a>> {
        self.recs.get(i).map(Node::from_rec)
    }

    /// The children in order.
    #[inline]
    pub fn iter(self) -> ChildIter<'a> {
        ChildIter {
            inner: self.recs.iter(),
        }
    }
}

impl fmt::Debug for Children<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Children<'a> {
    type Item = Node<'a>;
    type IntoIter = ChildIter<'a>;
    fn into_iter(self) -> ChildIter<'a> {
        self.iter()
    }
}

/// Iterator over [`Children`].
#[derive(Clone)]
pub struct ChildIter<'a> {
    inner: std::slice::Iter<'a, NodeRec<'a>>,
}

impl<'a> Iterator for ChildIter<'a> {
    type Item = Node<'a>;
    #[inline]
    fn next(&mut self) -> Option<Node<'a>> {
        self.inner.next().map(Node::from_rec)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl DoubleEndedIterator for ChildIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.inner.next_back().map(Node::from_rec)
    }
}

impl ExactSizeIterator for ChildIter<'_> {}

/// A node's attributes, in wire order. Duplicate keys are kept; lookups
/// return the first. Equal when the same keys hold equal values in the
/// same order.
#[derive(Clone, Copy)]
pub struct Attrs<'a> {
    recs: &'a [AttrRec<'a>],
}

impl PartialEq for Attrs<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl<'a> Attrs<'a> {
    /// Number of attributes.
    #[inline]
    pub fn len(self) -> usize {
        self.recs.len()
    }

    /// True when there are none.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.recs.is_empty()
    }

    /// The first value of `key`.
    #[inline]
    pub fn get(self, key: &str) -> Option<Value<'a>> {
        self.recs.iter().find(|a| a.key == key).map(|a| a.value)
    }

    /// The `i`-th attribute.
    #[inline]
    pub fn get_index(self, i: usize) -> Option<(&'a str, Value<'a>)> {
        self.recs.get(i).map(|a| (a.key, a.value))
    }

    /// `(key, value)` pairs in order.
    pub fn iter(self) -> impl ExactSizeIterator<Item = (&'a str, Value<'a>)> + DoubleEndedIterator {
        self.recs.iter().map(|a| (a.key, a.value))
    }

    /// A typed reader that collects errors (see [`AttrParser`](crate::AttrParser)).
    pub fn parser(self) -> crate::AttrParser<'a> {
        crate::AttrParser::new(self)
    }
}

impl fmt::Debug for Attrs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// An attribute value: text or a structured JID.
///
/// Compares with `&str` by the JID's rendered form, without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value<'a> {
    /// Text (`LIST_EMPTY` decodes as `""`).
    Str(&'a str),
    /// A JID, kept structured.
    Jid(Jid<'a>),
}

impl<'a> Value<'a> {
    /// The value as text, as WhatsApp's `as_str` gives it: borrowed text,
    /// or a JID rendered (allocated). The same as [`to_text`](Self::to_text).
    pub fn as_str(self) -> Cow<'a, str> {
        self.to_text()
    }

    /// The text, if this is not a JID (nothing allocated).
    #[inline]
    pub fn as_plain_str(self) -> Option<&'a str> {
        match self {
            Value::Str(s) => Some(s),
            Value::Jid(_) => None,
        }
    }

    /// The JID, if this is one.
    #[inline]
    pub fn as_jid(self) -> Option<Jid<'a>> {
        match self {
            Value::Jid(j) => Some(j),
            Value::Str(_) => None,
        }
    }

    /// The value as a JID: a structured JID as it is, text that parses as
    /// one ([`Jid::parse`]) borrowed; `None` for other text.
    ///
    /// ```
    /// use quarry_wa::{Jid, Value};
    /// let text = Value::Str("5511999887766:2@s.whatsapp.net");
    /// assert_eq!(text.to_jid(), Some(Jid::pn_device("5511999887766", 2)));
    /// assert_eq!(Value::Str("hello").to_jid(), None);
    /// ```
    pub fn to_jid(self) -> Option<Jid<'a>> {
        match self {
            Value::Jid(j) => Some(j),
            Value::Str(s) => Jid::parse(s).ok(),
        }
    }

    /// The value as text; a JID is rendered (and allocated) here.
    pub fn to_text(self) -> Cow<'a, str> {
        match self {
            Value::Str(s) => Cow::Borrowed(s),
            Value::Jid(j) => Cow::Owned(j.to_string()),
        }
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => f.write_str(s),
            Value::Jid(j) => fmt::Display::fmt(j, f),
        }
    }
}

impl PartialEq<str> for Value<'_> {
    fn eq(&self, other: &str) -> bool {
        match self {
            Value::Str(s) => *s == other,
            Value::Jid(j) => j == other,
        }
    }
}

impl PartialEq<&str> for Value<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}
