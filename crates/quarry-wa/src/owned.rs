//! The owned node tree: what the send side builds, and what a decoded view
//! becomes when it has to outlive its arena.

use std::fmt;

use crate::jid::{Jid, JidParseError, Server};
use crate::node::{Content, Node, Value};
use crate::owned_text::{AttrList, SmallStr};

/// A node that owns its strings: the tree you build to send a stanza, or a
/// decoded [`Node`] copied out of its arena with [`Node::to_owned_node`].
///
/// The fields are public; the builder methods are shorthand.
///
/// ```
/// use quarry_wa::{Jid, OwnedNode, Server};
///
/// let receipt = OwnedNode::new("receipt")
///     .attr("id", "3EB0C4F1A2")
///     .jid_attr("to", Jid::new("5511999990000", Server::Pn).with_device(2))
///     .attr("t", 1_700_000_000u64)
///     .children([OwnedNode::new("list").bytes(vec![1, 2, 3])]);
///
/// assert_eq!(receipt.tag(), "receipt");
/// assert_eq!(receipt.get_attr("to").unwrap(), "5511999990000:2@s.whatsapp.net");
/// assert_eq!(receipt.attr_str("t"), Some("1700000000"));
/// assert_eq!(receipt.child("list").unwrap().content_bytes(), Some(&[1u8, 2, 3][..]));
/// ```
///
/// Cloning, comparing and dropping walk the tree with a stack of their
/// own, so a tree of any depth is safe on any thread; `Debug` writes at
/// most [`DEBUG_DEPTH`](Self::DEBUG_DEPTH) levels.
#[derive(Default, Eq)]
pub struct OwnedNode {
    /// The tag (description). Must not be empty to be encoded.
    pub tag: SmallStr,
    /// The attributes in wire order. Duplicate keys are allowed here (the
    /// wire allows them); [`OwnedNode::attr`] replaces instead of adding.
    pub attrs: AttrList,
    /// The content.
    pub content: OwnedContent,
}

/// An attribute key of an [`OwnedNode`].
pub type AttrKey = SmallStr;

/// An owned attribute value: text or a structured JID.
///
/// Compares with `&str` by the JID's rendered form, like [`Value`].
///
/// ```
/// use quarry_wa::{OwnedJid, OwnedValue, Server};
///
/// assert_eq!(OwnedValue::from("enc"), "enc");
/// assert_eq!(OwnedValue::from(OwnedJid::new("123", Server::Group)), "123@g.us");
/// assert_eq!(OwnedValue::from(17u32), "17");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OwnedValue {
    /// Text.
    Str(SmallStr),
    /// A JID, kept structured.
    Jid(OwnedJid),
}

/// An owned JID: the fields of a [`Jid`] view, with the user owned.
///
/// ```
/// use quarry_wa::{Jid, OwnedJid, Server};
///
/// let jid: OwnedJid = "5511999990000:3@s.whatsapp.net".parse().unwrap();
/// assert_eq!((jid.user.as_str(), jid.device, jid.server), ("5511999990000", 3, Server::Pn));
/// assert_eq!(jid.as_view(), Jid::new("5511999990000", Server::Pn).with_device(3));
/// assert_eq!(jid.to_string(), "5511999990000:3@s.whatsapp.net");
/// ```
///
/// Equality and hashing are [`Jid`]'s: an agent on a device server takes no
/// part.
#[derive(Clone, Debug)]
pub struct OwnedJid {
    /// The user part (empty: the JID names the server itself), inline up
    /// to [`SmallStr::INLINE`] bytes as every phone number and LID is.
    pub user: SmallStr,
    /// The server.
    pub server: Server,
    /// The agent. The binary format has no field for it: a JID with an
    /// agent on a server that renders one cannot be encoded structured.
    pub agent: u8,
    /// The device; 0 is the primary device and is not rendered.
    pub device: u16,
    /// The interop integrator; kept but not rendered.
    pub integrator: u16,
}

/// An owned node's content.
///
/// # Lossy in the format itself
///
/// The wire has no separate "text" kind for content: text is written as a
/// token, a packed string, a JID or raw bytes, and raw bytes come back as
/// bytes. So `Text` content that is not a token, not packable
/// (`[0-9.-]`, `[0-9A-F]`) and not an exact JID comes back from a decode as
/// [`Content::Bytes`] with the same UTF-8 bytes:
/// `OwnedContent::Text("hello")` returns as `Content::Bytes(b"hello")`.
/// Tokens, packed strings and JIDs come back as `Content::Text`.
///
/// ```
/// use quarry_wa::{OwnedContent, OwnedNode};
///
/// let arena = quarry_core::Arena::new();
/// let sent = OwnedNode::new("body").text("hello");
/// let bytes = quarry_wa::encode(&sent).unwrap();
/// let back = quarry_wa::decode(&arena, &bytes).unwrap().to_owned_node();
/// assert_eq!(back.content, OwnedContent::Bytes(b"hello".to_vec()));
///
/// let sent = OwnedNode::new("body").text("12345"); // nibble-packed
/// let bytes = quarry_wa::encode(&sent).unwrap();
/// assert_eq!(quarry_wa::decode(&arena, &bytes).unwrap().to_owned_node(), sent);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum OwnedContent {
    /// No content.
    #[default]
    None,
    /// Text (see the type's docs: raw text comes back as bytes).
    Text(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A child list, possibly empty (an empty list is kept distinct from
    /// no content on the wire: it is written as `LIST_8 00`).
    Nodes(Vec<OwnedNode>),
}

impl OwnedNode {
    /// A node with no attributes and no content.
    pub fn new(tag: impl Into<SmallStr>) -> Self {
        Self {
            tag: tag.into(),
            attrs: AttrList::new(),
            content: OwnedContent::None,
        }
    }

    /// Set attribute `key` (replacing the first one of that name, as
    /// WhatsApp's own builder does; push onto [`attrs`](Self::attrs) for a
    /// duplicate key).
    ///
    /// ```
    /// let node = quarry_wa::OwnedNode::new("iq").attr("type", "get").attr("type", "set");
    /// assert_eq!(node.attrs.len(), 1);
    /// assert_eq!(node.get_attr("type").unwrap(), "set");
    /// ```
    pub fn attr(mut self, key: impl Into<SmallStr>, value: impl Into<OwnedValue>) -> Self {
        let key = key.into();
        let value = value.into();
        match self.attrs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = value,
            None => self.attrs.push((key, value)),
        }
        self
    }

    /// Set attribute `key` to a structured JID.
    ///
    /// ```
    /// use quarry_wa::{Jid, OwnedNode, Server};
    /// let node = OwnedNode::new("message").jid_attr("to", Jid::new("123", Server::Group));
    /// assert_eq!(node.get_attr("to").unwrap().as_jid(), Some(Jid::new("123", Server::Group)));
    /// ```
    pub fn jid_attr(self, key: impl Into<SmallStr>, jid: Jid<'_>) -> Self {
        self.attr(key, OwnedValue::Jid(jid.into()))
    }

    /// Make the content a child list (an empty iterator gives an empty
    /// list, which is not the same as no content).
    ///
    /// ```
    /// use quarry_wa::OwnedNode;
    /// let node = OwnedNode::new("iq").children([OwnedNode::new("ping")]);
    /// assert_eq!(node.child_nodes().len(), 1);
    /// assert_eq!(OwnedNode::new("iq").children([]).content_nodes(), Some(&[][..]));
    /// ```
    pub fn children(mut self, children: impl IntoIterator<Item = OwnedNode>) -> Self {
        self.content = OwnedContent::Nodes(children.into_iter().collect());
        self
    }

    /// Make the content raw bytes.
    ///
    /// ```
    /// let node = quarry_wa::OwnedNode::new("enc").bytes(*b"\x01\x02");
    /// assert_eq!(node.content_bytes(), Some(&[1u8, 2][..]));
    /// ```
    pub fn bytes(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.content = OwnedContent::Bytes(bytes.into());
        self
    }

    /// Make the content text (raw text comes back as bytes: see
    /// [`OwnedContent`]).
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.content = OwnedContent::Text(text.into());
        self
    }

    /// The tag.
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// The first attribute named `key`, as a view.
    pub fn get_attr(&self, key: &str) -> Option<Value<'_>> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_view())
    }

    /// The attribute `key` when it is text (not a JID).
    pub fn attr_str(&self, key: &str) -> Option<&str> {
        self.get_attr(key).and_then(Value::as_plain_str)
    }

    /// A typed reader of the attributes, the same as a decoded node's
    /// ([`Node::attr_parser`]).
    pub fn attr_parser(&self) -> crate::AttrParser<'_> {
        crate::AttrParser::from_owned(&self.attrs)
    }

    /// The child nodes; empty unless the content is a child list.
    pub fn child_nodes(&self) -> &[OwnedNode] {
        match &self.content {
            OwnedContent::Nodes(nodes) => nodes,
            _ => &[],
        }
    }

    /// The child list, if the content is one (an empty list is `Some`).
    pub fn content_nodes(&self) -> Option<&[OwnedNode]> {
        match &self.content {
            OwnedContent::Nodes(nodes) => Some(nodes),
            _ => None,
        }
    }

    /// The first child tagged `tag`.
    pub fn child(&self, tag: &str) -> Option<&OwnedNode> {
        self.child_nodes().iter().find(|c| c.tag == tag)
    }

    /// Every child tagged `tag`, in order.
    ///
    /// ```
    /// use quarry_wa::OwnedNode;
    /// let node = OwnedNode::new("participants")
    ///     .children([OwnedNode::new("to"), OwnedNode::new("x"), OwnedNode::new("to")]);
    /// assert_eq!(node.children_by_tag("to").count(), 2);
    /// ```
    pub fn children_by_tag<'s>(&'s self, tag: &'s str) -> impl Iterator<Item = &'s OwnedNode> {
        self.child_nodes().iter().filter(move |c| c.tag == tag)
    }

    /// Follow `path` one tag per level (first match at each level).
    ///
    /// ```
    /// use quarry_wa::OwnedNode;
    /// let node = OwnedNode::new("message")
    ///     .children([OwnedNode::new("enc").children([OwnedNode::new("plaintext")])]);
    /// assert_eq!(node.path(&["enc", "plaintext"]).unwrap().tag(), "plaintext");
    /// assert!(node.path(&["plaintext"]).is_none());
    /// ```
    pub fn path(&self, path: &[&str]) -> Option<&OwnedNode> {
        path.iter().try_fold(self, |node, tag| node.child(tag))
    }

    /// Bytes content.
    pub fn content_bytes(&self) -> Option<&[u8]> {
        match &self.content {
            OwnedContent::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// Text content.
    pub fn content_str(&self) -> Option<&str> {
        match &self.content {
            OwnedContent::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl<'a> Node<'a> {
    /// Copy this node and everything below it out of the arena. The walk
    /// keeps its own stack, so a tree of any depth converts on any thread.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// // <message type="enc"/>
    /// let owned = quarry_wa::decode(&arena, &[0xF8, 3, 19, 4, 29]).unwrap().to_owned_node();
    /// drop(arena);
    /// assert_eq!(owned, quarry_wa::OwnedNode::new("message").attr("type", "enc"));
    /// ```
    pub fn to_owned_node(self) -> OwnedNode {
        build(self, |node| {
            let (content, children) = match node.content() {
                Content::None => (OwnedContent::None, None),
                Content::Text(s) => (OwnedContent::Text(s.to_owned()), None),
                Content::Bytes(b) => (OwnedContent::Bytes(b.to_vec()), None),
                Content::Nodes(children) => (
                    OwnedContent::Nodes(Vec::with_capacity(children.len())),
                    Some(children.iter()),
                ),
            };
            let shell = OwnedNode {
                tag: node.tag().into(),
                attrs: node
                    .attrs()
                    .iter()
                    .map(|(k, v)| (SmallStr::from(k), OwnedValue::from(v)))
                    .collect(),
                content,
            };
            (shell, children)
        })
    }
}

/// The owned tree of `root`, built without recursion: `shallow` makes one
/// node with its child list still empty (but for its capacity) and gives
/// the children to build into it, if it has a child list.
fn build<T, I: Iterator<Item = T>>(
    root: T,
    shallow: impl Fn(T) -> (OwnedNode, Option<I>),
) -> OwnedNode {
    let (node, children) = shallow(root);
    let Some(children) = children else {
        return node;
    };
    // The nodes whose child lists are being filled, with the children
    // left to build.
    let mut open = vec![(node, children)];
    loop {
        let Some((_, children)) = open.last_mut() else {
            return OwnedNode::default();
        };
        let done = match children.next() {
            Some(child) => match shallow(child) {
                (node, Some(grandchildren)) => {
                    open.push((node, grandchildren));
                    continue;
                }
                (node, None) => node,
            },
            None => match open.pop() {
                Some((node, _)) => node,
                None => return OwnedNode::default(),
            },
        };
        match open.last_mut() {
            Some((parent, _)) => {
                if let OwnedContent::Nodes(list) = &mut parent.content {
                    list.push(done);
                }
            }
            None => return done,
        }
    }
}

impl OwnedNode {
    /// Levels of nodes `Debug` writes; the child lists below them are
    /// written as their lengths.
    pub const DEBUG_DEPTH: usize = 64;
}

impl Clone for OwnedNode {
    fn clone(&self) -> Self {
        build(self, |node: &OwnedNode| {
            let (content, children) = match &node.content {
                OwnedContent::Nodes(children) => (
                    OwnedContent::Nodes(Vec::with_capacity(children.len())),
                    Some(children.iter()),
                ),
                OwnedContent::None => (OwnedContent::None, None),
                OwnedContent::Text(s) => (OwnedContent::Text(s.clone()), None),
                OwnedContent::Bytes(b) => (OwnedContent::Bytes(b.clone()), None),
            };
            let shell = OwnedNode {
                tag: node.tag.clone(),
                attrs: node.attrs.clone(),
                content,
            };
            (shell, children)
        })
    }
}

/// Equal when the tags, attributes (in order) and contents are, all the
/// way down.
impl PartialEq for OwnedNode {
    fn eq(&self, other: &Self) -> bool {
        let mut pairs = vec![(self, other)];
        while let Some((a, b)) = pairs.pop() {
            if a.tag != b.tag || a.attrs != b.attrs {
                return false;
            }
            match (&a.content, &b.content) {
                (OwnedContent::Nodes(x), OwnedContent::Nodes(y)) => {
                    if x.len() != y.len() {
                        return false;
                    }
                    pairs.extend(x.iter().zip(y));
                }
                (OwnedContent::Nodes(_), _) | (_, OwnedContent::Nodes(_)) => return false,
                (x, y) => {
                    if x != y {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// Frees the tree one node at a time: the descendants are moved onto a
/// flat list first, so no drop recurses.
impl Drop for OwnedNode {
    fn drop(&mut self) {
        let OwnedContent::Nodes(children) = &mut self.content else {
            return;
        };
        // A flat child list (most stanzas) drops as it is.
        if !children
            .iter()
            .any(|c| matches!(&c.content, OwnedContent::Nodes(list) if !list.is_empty()))
        {
            return;
        }
        let mut pending = std::mem::take(children);
        while let Some(mut node) = pending.pop() {
            if let OwnedContent::Nodes(list) = &mut node.content {
                pending.append(list);
            }
        }
    }
}

impl fmt::Debug for OwnedNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(
            &DebugAt {
                node: self,
                depth: 0,
            },
            f,
        )
    }
}

/// A node written by `Debug` at `depth` levels below where writing began.
struct DebugAt<'n> {
    node: &'n OwnedNode,
    depth: usize,
}

impl fmt::Debug for DebugAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list;
        let content: &dyn fmt::Debug = match &self.node.content {
            OwnedContent::Nodes(children) => {
                list = NodesAt {
                    children,
                    depth: self.depth + 1,
                };
                &list
            }
            other => other,
        };
        f.debug_struct("OwnedNode")
            .field("tag", &self.node.tag)
            .field("attrs", &self.node.attrs)
            .field("content", content)
            .finish()
    }
}

/// `OwnedContent::Nodes` written by `Debug`, its nodes at `depth`.
struct NodesAt<'n> {
    children: &'n [OwnedNode],
    depth: usize,
}

impl fmt::Debug for NodesAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tuple = f.debug_tuple("Nodes");
        if self.depth >= OwnedNode::DEBUG_DEPTH && !self.children.is_empty() {
            tuple.field(&format_args!("[… {} nodes]", self.children.len()));
        } else {
            tuple.field(&ListAt(self));
        }
        tuple.finish()
    }
}

/// The nodes of a [`NodesAt`] as a list.
struct ListAt<'l, 'n>(&'l NodesAt<'n>);

impl fmt::Debug for ListAt<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.children.iter().map(|node| DebugAt {
                node,
                depth: self.0.depth,
            }))
            .finish()
    }
}

impl From<Node<'_>> for OwnedNode {
    fn from(node: Node<'_>) -> Self {
        node.to_owned_node()
    }
}

impl OwnedValue {
    /// This value as a view (`Copy`, borrows `self`).
    pub fn as_view(&self) -> Value<'_> {
        match self {
            OwnedValue::Str(s) => Value::Str(s),
            OwnedValue::Jid(j) => Value::Jid(j.as_view()),
        }
    }

    /// The text, if this is not a JID.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            OwnedValue::Str(s) => Some(s.as_str()),
            OwnedValue::Jid(_) => None,
        }
    }

    /// The JID, if this is one.
    pub fn as_jid(&self) -> Option<&OwnedJid> {
        match self {
            OwnedValue::Jid(j) => Some(j),
            OwnedValue::Str(_) => None,
        }
    }
}

impl fmt::Display for OwnedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.as_view(), f)
    }
}

impl PartialEq<str> for OwnedValue {
    fn eq(&self, other: &str) -> bool {
        self.as_view() == *other
    }
}

impl PartialEq<&str> for OwnedValue {
    fn eq(&self, other: &&str) -> bool {
        self.as_view() == **other
    }
}

impl From<Value<'_>> for OwnedValue {
    fn from(value: Value<'_>) -> Self {
        match value {
            Value::Str(s) => OwnedValue::Str(s.into()),
            Value::Jid(j) => OwnedValue::Jid(j.into()),
        }
    }
}

impl From<&str> for OwnedValue {
    fn from(s: &str) -> Self {
        OwnedValue::Str(s.into())
    }
}

impl From<String> for OwnedValue {
    fn from(s: String) -> Self {
        OwnedValue::Str(s.into())
    }
}

impl From<&String> for OwnedValue {
    fn from(s: &String) -> Self {
        OwnedValue::Str(s.into())
    }
}

impl From<SmallStr> for OwnedValue {
    fn from(s: SmallStr) -> Self {
        OwnedValue::Str(s)
    }
}

impl From<OwnedJid> for OwnedValue {
    fn from(jid: OwnedJid) -> Self {
        OwnedValue::Jid(jid)
    }
}

impl From<Jid<'_>> for OwnedValue {
    fn from(jid: Jid<'_>) -> Self {
        OwnedValue::Jid(jid.into())
    }
}

/// `"true"` / `"false"`, as WhatsApp's own builder writes them.
impl From<bool> for OwnedValue {
    fn from(b: bool) -> Self {
        OwnedValue::Str(if b { "true" } else { "false" }.into())
    }
}

macro_rules! value_from_integer {
    ($($t:ty),*) => {$(
        /// The decimal form (which the encoder nibble-packs).
        impl From<$t> for OwnedValue {
            fn from(n: $t) -> Self {
                OwnedValue::Str(SmallStr::display(n))
            }
        }
    )*};
}
value_from_integer!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl OwnedJid {
    /// A JID with no device, agent or integrator.
    pub fn new(user: impl Into<SmallStr>, server: Server) -> Self {
        Self {
            user: user.into(),
            server,
            agent: 0,
            device: 0,
            integrator: 0,
        }
    }

    /// A phone-number user: `user@s.whatsapp.net`.
    pub fn pn(user: impl Into<SmallStr>) -> Self {
        Self::new(user, Server::Pn)
    }

    /// A LID user: `user@lid`.
    pub fn lid(user: impl Into<SmallStr>) -> Self {
        Self::new(user, Server::Lid)
    }

    /// A group: `id@g.us`.
    pub fn group(id: impl Into<SmallStr>) -> Self {
        Self::new(id, Server::Group)
    }

    /// A newsletter (channel): `id@newsletter`.
    pub fn newsletter(id: impl Into<SmallStr>) -> Self {
        Self::new(id, Server::Newsletter)
    }

    /// `status@broadcast`.
    pub fn status_broadcast() -> Self {
        Self::new(crate::jid::STATUS_BROADCAST_USER, Server::Broadcast)
    }

    /// A phone-number user's device: `user:device@s.whatsapp.net`.
    pub fn pn_device(user: impl Into<SmallStr>, device: u16) -> Self {
        Self::new(user, Server::Pn).with_device(device)
    }

    /// A LID user's device: `user:device@lid`.
    pub fn lid_device(user: impl Into<SmallStr>, device: u16) -> Self {
        Self::new(user, Server::Lid).with_device(device)
    }

    /// The same JID with `device` set.
    pub fn with_device(self, device: u16) -> Self {
        Self { device, ..self }
    }

    /// The same JID with `agent` set.
    pub fn with_agent(self, agent: u8) -> Self {
        Self { agent, ..self }
    }

    /// The same JID without device and agent (see [`Jid::to_non_ad`]).
    pub fn to_non_ad(&self) -> OwnedJid {
        OwnedJid::from(self.as_view().to_non_ad())
    }

    /// The same JID with `integrator` set (interop JIDs).
    pub fn with_integrator(self, integrator: u16) -> Self {
        Self { integrator, ..self }
    }

    /// This JID as a view (`Copy`, borrows `self`).
    pub fn as_view(&self) -> Jid<'_> {
        Jid::new(&self.user, self.server)
            .with_agent(self.agent)
            .with_device(self.device)
            .with_integrator(self.integrator)
    }

    /// Parse the text form; see [`Jid::parse`].
    pub fn parse(text: &str) -> Result<OwnedJid, JidParseError> {
        Jid::parse(text).map(OwnedJid::from)
    }
}

impl From<Jid<'_>> for OwnedJid {
    fn from(jid: Jid<'_>) -> Self {
        Self {
            user: jid.user().to_small_str(),
            server: jid.server(),
            agent: jid.agent(),
            device: jid.device(),
            integrator: jid.integrator(),
        }
    }
}

impl PartialEq for OwnedJid {
    fn eq(&self, other: &Self) -> bool {
        self.as_view() == other.as_view()
    }
}

impl Eq for OwnedJid {}

impl std::hash::Hash for OwnedJid {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_view().hash(state);
    }
}

/// [`Jid`]'s predicates on the owned JID, each the view's.
macro_rules! owned_jid_predicates {
    ($($name:ident),*) => {
        impl OwnedJid {$(
            #[doc = concat!("[`Jid::", stringify!($name), "`] of this JID.")]
            pub fn $name(&self) -> bool {
                self.as_view().$name()
            }
        )*}
    };
}
owned_jid_predicates!(
    is_pn,
    is_lid,
    is_group,
    is_ad,
    is_interop,
    is_messenger,
    is_broadcast_list,
    is_status_broadcast,
    is_psa,
    is_bot,
    is_newsletter,
    is_hosted
);

impl OwnedJid {
    /// [`Jid::is_same_chat_as`].
    pub fn is_same_chat_as(&self, other: &OwnedJid) -> bool {
        self.as_view().is_same_chat_as(&other.as_view())
    }

    /// [`Jid::device_eq`].
    pub fn device_eq(&self, other: &OwnedJid) -> bool {
        self.as_view().device_eq(&other.as_view())
    }

    /// [`Jid::device_key`], borrowing this JID's user.
    pub fn device_key(&self) -> crate::jid::DeviceKey<'_> {
        self.as_view().device_key()
    }

    /// [`Jid::to_non_ad_string`].
    pub fn to_non_ad_string(&self) -> String {
        self.as_view().to_non_ad_string()
    }

    /// [`Jid::observe`]: the form for logs, phone numbers hidden.
    pub fn observe(&self) -> crate::jid::ObservedJid<'_> {
        self.as_view().observe()
    }
}

impl std::str::FromStr for OwnedJid {
    type Err = JidParseError;
    fn from_str(text: &str) -> Result<Self, JidParseError> {
        OwnedJid::parse(text)
    }
}

impl fmt::Display for OwnedJid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.as_view(), f)
    }
}

impl PartialEq<str> for OwnedJid {
    fn eq(&self, other: &str) -> bool {
        self.as_view() == *other
    }
}

impl PartialEq<&str> for OwnedJid {
    fn eq(&self, other: &&str) -> bool {
        self.as_view() == **other
    }
}
