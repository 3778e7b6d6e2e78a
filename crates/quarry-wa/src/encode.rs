//! The encoder: one traversal, run once for most stanzas and twice for
//! large ones. The first run classifies every string (token, packed, JID,
//! raw), counts the bytes, finds every error, and writes into a 4 KiB
//! scratch buffer on the stack; an encoding that fits is copied into an
//! output of exactly its size. A larger one is written by a second run into
//! an output reserved at the counted size, replaying the classes the first
//! run kept ([`Memo`]). Either way the output is one allocation that never
//! grows.
//!
//! The traversal is generic over the tree ([`OwnedNode`] or a decoded
//! [`Node`] view, through [`Tree`]) and over where bytes go ([`Sink`]): the
//! size plan and the writer are the same code, so they cannot disagree.

use std::mem::MaybeUninit;

use crate::dictionary::{Dictionary, Token};
use crate::jid::{Jid, JidUser, Server, decimal_len};
use crate::node::{ChildIter, Content, Node, Value};
use crate::owned::{OwnedContent, OwnedNode};
use crate::packed::{self, Packing};
use crate::token_index::TokenIndex;
use crate::wire::*;

/// Deepest node the encoder writes: the root is depth 0, a node at depth
/// `MAX_DEPTH` is an error. WhatsApp's decoder (and quarry's, by default)
/// rejects anything deeper, and the bound keeps the encoder's recursion
/// shallow.
pub const MAX_DEPTH: usize = 128;

/// Most items (tag, two per attribute, content) a node's list header can
/// count.
const MAX_LIST: usize = u16::MAX as usize;

/// Longest string the encoder considers as a JID (WhatsApp's rule).
const JID_TEXT_MAX: usize = 48;

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
}

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
    pub fn encoded_len(&self, node: &OwnedNode) -> Result<usize, EncodeError> {
        let mut count = Count(0);
        self.plan(node, &mut count, &mut Memo::stack_only())?;
        Ok(count.0)
    }

    /// Encode `node` to node bytes (no flags byte). The result's capacity
    /// equals its length: one allocation, no growth.
    pub fn encode(&self, node: &OwnedNode) -> Result<Vec<u8>, EncodeError> {
        self.encode_exact(node, false)
    }

    /// Encode `node` as a frame: the flags byte `0x00` (uncompressed), then
    /// node bytes.
    pub fn encode_frame(&self, node: &OwnedNode) -> Result<Vec<u8>, EncodeError> {
        self.encode_exact(node, true)
    }

    /// Append the node bytes of `node` to `out`, growing it at most once.
    /// On error `out` is left as it was.
    pub fn encode_into(&self, node: &OwnedNode, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.append(node, out)
    }

    /// Re-encode a decoded view to node bytes. Canonical input (what this
    /// encoder or WhatsApp's produces) comes back byte for byte; see
    /// `docs/wa-format.md` for the inputs that do not.
    pub fn encode_view(&self, node: Node<'_>) -> Result<Vec<u8>, EncodeError> {
        self.encode_exact(node, false)
    }

    /// Re-encode a decoded view as a frame (flags byte `0x00` first).
    pub fn encode_view_frame(&self, node: Node<'_>) -> Result<Vec<u8>, EncodeError> {
        self.encode_exact(node, true)
    }

    /// Append the re-encoded view to `out`; on error `out` is unchanged.
    ///
    /// ```
    /// let arena = quarry::Arena::new();
    /// let node = quarry_wa::decode(&arena, &[0xF8, 1, 19]).unwrap();
    /// let mut out = vec![0x00];
    /// quarry_wa::Encoder::new().encode_view_into(node, &mut out).unwrap();
    /// assert_eq!(out, [0x00, 0xF8, 1, 19]);
    /// ```
    pub fn encode_view_into(&self, node: Node<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.append(node, out)
    }

    fn plan<'s, T: Tree<'s>, S: Sink>(
        &self,
        node: T,
        out: &mut S,
        memo: &mut Memo<'_>,
    ) -> Result<(), EncodeError> {
        Walk {
            tokens: self.dictionary.token_index(),
            out,
            memo,
        }
        .node(node, 0)
    }

    /// The first run writes into a scratch buffer on the stack while it
    /// counts; when the encoding fits there (most stanzas), it is copied
    /// into the output and the tree is walked once. A larger one is
    /// written by a second run, which replays the classes the first found.
    fn encode_exact<'s, T: Tree<'s>>(&self, node: T, frame: bool) -> Result<Vec<u8>, EncodeError> {
        let mut buf = [MaybeUninit::<u8>::uninit(); SCRATCH_LEN];
        let mut scratch = Scratch::new(&mut buf);
        let bound = || strings_bound(node, 0);
        let mut memo = Memo::new(&bound);
        self.plan(node, &mut scratch, &mut memo)?;
        let len = scratch.len();
        let mut out = Vec::with_capacity(len + usize::from(frame));
        if frame {
            out.push(0);
        }
        match scratch.written() {
            Some(bytes) => out.extend_from_slice(bytes),
            None => self.write(node, &mut out, &mut memo)?,
        }
        debug_assert_eq!(
            out.len(),
            len + usize::from(frame),
            "size plan and writer disagree"
        );
        Ok(out)
    }

    fn append<'s, T: Tree<'s>>(&self, node: T, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut buf = [MaybeUninit::<u8>::uninit(); SCRATCH_LEN];
        let mut scratch = Scratch::new(&mut buf);
        let bound = || strings_bound(node, 0);
        let mut memo = Memo::new(&bound);
        self.plan(node, &mut scratch, &mut memo)?;
        let len = scratch.len();
        out.reserve_exact(len);
        let start = out.len();
        match scratch.written() {
            Some(bytes) => out.extend_from_slice(bytes),
            None => self.write(node, out, &mut memo)?,
        }
        debug_assert_eq!(out.len() - start, len, "size plan and writer disagree");
        Ok(())
    }

    fn write<'s, T: Tree<'s>>(
        &self,
        node: T,
        out: &mut Vec<u8>,
        memo: &mut Memo<'_>,
    ) -> Result<(), EncodeError> {
        Walk {
            tokens: self.dictionary.token_index(),
            out,
            memo,
        }
        .node(node, 0)
    }
}

/// Encode `node` to node bytes (no flags byte) with the v3 dictionary.
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
/// let arena = quarry::Arena::new();
/// assert_eq!(quarry_wa::decode(&arena, &bytes).unwrap().to_owned(), node);
/// ```
pub fn encode(node: &OwnedNode) -> Result<Vec<u8>, EncodeError> {
    Encoder::new().encode(node)
}

/// Encode `node` as a frame: flags byte `0x00`, then node bytes.
///
/// ```
/// let node = quarry_wa::OwnedNode::new("message");
/// assert_eq!(quarry_wa::encode_frame(&node).unwrap(), [0x00, 0xF8, 1, 19]);
/// ```
pub fn encode_frame(node: &OwnedNode) -> Result<Vec<u8>, EncodeError> {
    Encoder::new().encode_frame(node)
}

/// Append the node bytes of `node` to `out` (reserving exactly what is
/// needed); on error `out` is unchanged.
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
pub fn encode_into(node: &OwnedNode, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    Encoder::new().encode_into(node, out)
}

/// Re-encode a decoded view to node bytes with the v3 dictionary.
///
/// ```
/// let arena = quarry::Arena::new();
/// // <message type="enc"><enc/></message>
/// let bytes = [0xF8, 4, 19, 4, 29, 0xF8, 1, 0xF8, 1, 29];
/// let node = quarry_wa::decode(&arena, &bytes).unwrap();
/// assert_eq!(quarry_wa::encode_view(node).unwrap(), bytes);
/// ```
pub fn encode_view(node: Node<'_>) -> Result<Vec<u8>, EncodeError> {
    Encoder::new().encode_view(node)
}

/// Re-encode a decoded view as a frame (flags byte `0x00` first).
///
/// ```
/// let arena = quarry::Arena::new();
/// let frame = [0x00, 0xF8, 1, 19];
/// let node = quarry_wa::decode_frame(&arena, &frame).unwrap();
/// assert_eq!(quarry_wa::encode_view_frame(node).unwrap(), frame);
/// ```
pub fn encode_view_frame(node: Node<'_>) -> Result<Vec<u8>, EncodeError> {
    Encoder::new().encode_view_frame(node)
}

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

/// Where encoded bytes go: counted (the size plan) or written.
pub(crate) trait Sink {
    /// True for the writer, false for the size plan: the plan records each
    /// string's class in the [`Memo`], the writer reads it back.
    const WRITES: bool;
    fn byte(&mut self, b: u8);
    fn slice(&mut self, s: &[u8]);
    fn packed(&mut self, packing: Packing, text: &str);
    /// True once the plan knows a second run will write: from then on the
    /// [`Memo`] keeps every class, even past its stack codes.
    fn needs_writer(&self) -> bool {
        false
    }
}

/// The size plan of [`Encoder::encoded_len`]: bytes counted, none written.
struct Count(usize);

impl Sink for Count {
    const WRITES: bool = false;
    #[inline]
    fn byte(&mut self, _: u8) {
        self.0 += 1;
    }
    #[inline]
    fn slice(&mut self, s: &[u8]) {
        self.0 += s.len();
    }
    #[inline]
    fn packed(&mut self, _: Packing, text: &str) {
        self.0 += packed::packed_len(text);
    }
}

/// Bytes of the stack buffer the first run writes into: a page, which
/// holds most stanzas (a message to a few dozen devices, a receipt, an
/// IQ) whole.
const SCRATCH_LEN: usize = 4096;

/// The first run's sink: counts every byte and writes those that fit in
/// the scratch buffer.
///
/// The buffer is not zeroed (for a small stanza that cost more
/// instructions than the encode, about 3,600 of them); `filled` counts
/// the leading bytes written, so only those are ever read. Writes stop at
/// the first one that does not fit, so the encoding is all there exactly
/// when `filled == len`.
struct Scratch<'b> {
    buf: &'b mut [MaybeUninit<u8>; SCRATCH_LEN],
    /// Leading bytes of `buf` written.
    filled: usize,
    /// Bytes of the encoding so far, written or not.
    len: usize,
}

impl<'b> Scratch<'b> {
    fn new(buf: &'b mut [MaybeUninit<u8>; SCRATCH_LEN]) -> Self {
        Self {
            buf,
            filled: 0,
            len: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// The whole encoding, if it fit.
    fn written(&self) -> Option<&[u8]> {
        if self.filled != self.len {
            return None;
        }
        let filled = self.buf.get(..self.filled)?;
        // SAFETY: `filled` only grows by one for each byte written into
        // `buf` in order from the start (see the `Sink` methods), so the
        // bytes `..filled` are initialized; `MaybeUninit<u8>` has the
        // layout of `u8`.
        Some(unsafe { std::slice::from_raw_parts(filled.as_ptr().cast::<u8>(), filled.len()) })
    }

    /// The unwritten tail of the buffer, if the encoding so far is all
    /// written and `n` more bytes fit.
    #[inline]
    fn room(&mut self, n: usize) -> Option<&mut [MaybeUninit<u8>]> {
        if self.filled != self.len {
            return None;
        }
        self.buf.get_mut(self.filled..self.filled + n)
    }
}

impl Sink for Scratch<'_> {
    const WRITES: bool = false;
    #[inline]
    fn byte(&mut self, b: u8) {
        if let Some([slot]) = self.room(1) {
            slot.write(b);
            self.filled += 1;
        }
        self.len += 1;
    }
    #[inline]
    fn slice(&mut self, s: &[u8]) {
        if let Some(dst) = self.room(s.len()) {
            dst.write_copy_of_slice(s);
            self.filled += s.len();
        }
        self.len += s.len();
    }
    #[inline]
    fn packed(&mut self, packing: Packing, text: &str) {
        let n = packed::packed_len(text);
        if let Some(dst) = self.room(n) {
            let mut written = 0;
            for (slot, byte) in dst.iter_mut().zip(packed::packed_bytes(packing, text)) {
                slot.write(byte);
                written += 1;
            }
            self.filled += written;
        }
        self.len += n;
    }
    #[inline]
    fn needs_writer(&self) -> bool {
        self.filled != self.len
    }
}

impl Sink for Vec<u8> {
    const WRITES: bool = true;
    #[inline]
    fn byte(&mut self, b: u8) {
        self.push(b);
    }
    #[inline]
    fn slice(&mut self, s: &[u8]) {
        self.extend_from_slice(s);
    }
    #[inline]
    fn packed(&mut self, packing: Packing, text: &str) {
        packed::pack_into(packing, text, self);
    }
}

/// Where a string goes; decides what an empty string and '@' mean.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// A tag, a key, an attribute value, or content.
    General,
    /// The user or server of a JID: never written as a JID itself (the
    /// decoder rejects a JID nested in a JID).
    InJid,
}

/// How a JID travels.
#[derive(Clone, Copy)]
enum JidForm {
    Pair,
    Ad { domain: u8, device: u8 },
    Interop,
    Fb,
}

/// The wire form of `jid`, or what the wire cannot carry. Every form
/// chosen here decodes back to the same JID.
fn jid_form(jid: &Jid<'_>) -> Result<JidForm, &'static str> {
    if jid.agent() != 0 {
        return Err("the binary format has no agent field");
    }
    let (device, integrator) = (jid.device(), jid.integrator());
    let form = match jid.server() {
        // WhatsApp writes INTEROP_JID only for a non-zero integrator; a
        // device alone would be dropped by a JID_PAIR, so it goes here too.
        Server::Interop if integrator != 0 || device != 0 => JidForm::Interop,
        Server::Messenger if device != 0 => JidForm::Fb,
        server if device != 0 && server.is_ad_capable() => JidForm::Ad {
            domain: match server {
                Server::Pn => 0,
                Server::Lid => 1,
                Server::Hosted => 128,
                _ => 129,
            },
            device: u8::try_from(device).map_err(|_| "device does not fit AD_JID's byte")?,
        },
        _ if device != 0 => return Err("this server's JIDs carry no device"),
        _ if integrator != 0 => return Err("only interop JIDs carry an integrator"),
        _ => JidForm::Pair,
    };
    if jid.user().is_empty() && !matches!(form, JidForm::Pair) {
        return Err("a device-qualified JID needs a user");
    }
    Ok(form)
}

/// `text` as a JID, if it is exactly one's rendering and a JID encoding
/// decodes back to the same text. An agent (`.N` on servers other than
/// `s.whatsapp.net` and `lid`) has no field on the wire, so it stays part
/// of the user, which renders the same.
fn text_jid(text: &str) -> Option<(Jid<'_>, JidForm)> {
    // `Jid::parse` allocates its error; rule out the common failures
    // (an unknown server, a non-numeric device) without it.
    let (user, server) = text.rsplit_once('@')?;
    Server::from_name(server)?;
    if let Some((_, device)) = user.rsplit_once(':') {
        device.parse::<u16>().ok()?;
    }
    let parsed = Jid::parse(text).ok()?;
    if parsed != *text {
        return None;
    }
    let mut jid = parsed;
    if parsed.agent() != 0 {
        let user_len = parsed.user().len() + 1 + decimal_len(u32::from(parsed.agent()));
        jid = Jid::new(text.get(..user_len)?, parsed.server()).with_device(parsed.device());
    }
    let form = jid_form(&jid).ok()?;
    Some((jid, form))
}

/// How a string is written.
enum Class<'t> {
    Empty,
    Token(Token),
    Packed(Packing),
    Jid(Jid<'t>, JidForm),
    Raw,
}

/// Strings whose class the size plan keeps on the stack.
const MEMO_INLINE: usize = 256;

/// The class of each string, in traversal order, as the size plan found
/// it, so the writer does not classify a string again (the token lookup
/// and the packing scan are most of a string's cost).
///
/// The first [`MEMO_INLINE`] codes live on the stack. Past them, codes are
/// kept only once the plan knows a writer will run (the encoding outgrew
/// the scratch buffer, [`Sink::needs_writer`]); they go into one heap
/// allocation sized by [`strings_bound`] of the whole tree. Strings
/// between the two (at most one per byte of the scratch buffer) are
/// classified again by the writer. [`Encoder::encoded_len`] has no writer
/// to serve: its plan keeps only the stack codes and never allocates.
struct Memo<'b> {
    codes: [u16; MEMO_INLINE],
    /// Codes of strings `spill_from..`, once needed.
    spill: Vec<u16>,
    /// Index of the string whose code is `spill[0]`.
    spill_from: usize,
    /// Strings the plan has seen.
    seen: usize,
    /// Index of the string the writer reads next.
    next: usize,
    /// An upper bound of the tree's strings, asked at most once, to size
    /// `spill`; `None` when the plan must not allocate.
    bound: Option<&'b dyn Fn() -> usize>,
}

/// [`Memo`] codes below the token ranges.
const CODE_EMPTY: u16 = 0;
const CODE_RAW: u16 = 1;
const CODE_NIBBLE: u16 = 2;
const CODE_HEX: u16 = 3;
/// A JID is parsed again from its text (it borrows from it).
const CODE_JID: u16 = 4;
/// `CODE_SINGLE + code` for a one-byte token.
const CODE_SINGLE: u16 = 0x100;
/// `CODE_DOUBLE + dictionary * 256 + index` for a two-byte token.
const CODE_DOUBLE: u16 = 0x200;

/// The token a [`Memo`] code at or past [`CODE_SINGLE`] stands for.
#[inline]
fn token_of_code(code: u16) -> Token {
    if code >= CODE_DOUBLE {
        Token::Double(((code - CODE_DOUBLE) >> 8) as u8, code as u8)
    } else {
        Token::Single(code as u8)
    }
}

impl<'b> Memo<'b> {
    /// A memo for a plan a writer may follow; `bound` sizes the spill.
    fn new(bound: &'b dyn Fn() -> usize) -> Self {
        Self {
            bound: Some(bound),
            ..Self::stack_only()
        }
    }

    /// A memo that never allocates: strings past the stack's codes are not
    /// remembered.
    fn stack_only() -> Self {
        Self {
            codes: [0; MEMO_INLINE],
            spill: Vec::new(),
            spill_from: 0,
            seen: 0,
            next: 0,
            bound: None,
        }
    }

    /// The plan's side: remember `class` (past the stack codes only when
    /// `keep` says a writer will run).
    #[inline]
    fn record(&mut self, class: &Class<'_>, keep: bool) {
        let code = match class {
            Class::Empty => CODE_EMPTY,
            Class::Raw => CODE_RAW,
            Class::Packed(Packing::Nibble) => CODE_NIBBLE,
            Class::Packed(Packing::Hex) => CODE_HEX,
            Class::Jid(..) => CODE_JID,
            Class::Token(Token::Single(b)) => CODE_SINGLE + u16::from(*b),
            Class::Token(Token::Double(d, i)) => CODE_DOUBLE + (u16::from(*d) << 8) + u16::from(*i),
        };
        let index = self.seen;
        self.seen += 1;
        if let Some(slot) = self.codes.get_mut(index) {
            *slot = code;
        } else if keep && (self.spill.capacity() > 0 || self.start_spill(index)) {
            self.spill.push(code);
        }
    }

    /// Size the spill for the strings from `index` on; false when this
    /// memo must not allocate.
    #[cold]
    #[inline(never)]
    fn start_spill(&mut self, index: usize) -> bool {
        let Some(bound) = self.bound.take() else {
            return false;
        };
        self.spill_from = index;
        // At least one slot, so a wrong bound costs growth, not codes.
        self.spill
            .reserve_exact(bound().saturating_sub(index).max(1));
        true
    }

    /// The writer's side: the next string's code, if the plan kept it.
    #[inline]
    fn take(&mut self) -> Option<u16> {
        let index = self.next;
        self.next += 1;
        match self.codes.get(index) {
            Some(&code) if index < self.seen => Some(code),
            Some(_) => None,
            None => self.spill.get(index.checked_sub(self.spill_from)?).copied(),
        }
    }
}

/// An upper bound of the strings a walk of `node` classifies: a tag, text
/// content, and per attribute a key and a value, which for a JID may be
/// two (its user and, for a server without a token, the server's name).
/// Each attribute is counted at three, so no attribute is looked at. Trees
/// deeper than the encoder accepts are counted to [`MAX_DEPTH`] only: their
/// plan fails there anyway.
fn strings_bound<'s, T: Tree<'s>>(node: T, depth: usize) -> usize {
    let mut count = 2usize.saturating_add(node.attr_count().saturating_mul(3));
    if let Body::Nodes(kids) = node.body()
        && depth < MAX_DEPTH
    {
        for kid in kids {
            count = count.saturating_add(strings_bound(kid, depth + 1));
        }
    }
    count
}

/// One run of the traversal, writing into (or counting for) `out`.
struct Walk<'d, 'o, 'm, 'b, S: Sink> {
    tokens: &'d TokenIndex,
    out: &'o mut S,
    memo: &'m mut Memo<'b>,
}

impl<S: Sink> Walk<'_, '_, '_, '_, S> {
    fn node<'s, T: Tree<'s>>(&mut self, node: T, depth: usize) -> Result<(), EncodeError> {
        if depth >= MAX_DEPTH {
            return Err(EncodeError::TooDeep { limit: MAX_DEPTH });
        }
        let tag = node.tag();
        let body = node.body();
        let has_content = !matches!(body, Body::None);
        let attr_count = node.attr_count();
        let max_attrs = (MAX_LIST - 1 - usize::from(has_content)) / 2;
        if attr_count > max_attrs {
            return Err(EncodeError::TooManyAttributes {
                tag: tag.to_owned(),
                count: attr_count,
                max: max_attrs,
            });
        }
        self.list_header(1 + 2 * attr_count + usize::from(has_content));
        self.string(tag, Slot::General)?;
        for i in 0..attr_count {
            let Some((key, value)) = node.attr_at(i) else {
                break;
            };
            self.string(key, Slot::General)?;
            match value {
                Value::Str(text) => self.string(text, Slot::General)?,
                Value::Jid(jid) => {
                    let form = jid_form(&jid).map_err(|why| EncodeError::Jid {
                        jid: jid.to_string(),
                        why,
                    })?;
                    self.jid(&jid, form)?;
                }
            }
        }
        match body {
            Body::None => {}
            Body::Text(text) => self.string(text, Slot::General)?,
            Body::Bytes(bytes) => self.raw(bytes)?,
            Body::Nodes(kids) => {
                let count = kids.len();
                if count > MAX_LIST {
                    return Err(EncodeError::TooManyChildren {
                        tag: tag.to_owned(),
                        count,
                    });
                }
                // Also for an empty list: LIST_8 00 decodes as an empty
                // child list, while LIST_EMPTY would decode as no content.
                self.list_header(count);
                for kid in kids {
                    self.node(kid, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    /// LIST_8 or LIST_16; `len` is at most 65535 (checked by the caller).
    fn list_header(&mut self, len: usize) {
        if let Ok(len) = u8::try_from(len) {
            self.out.byte(LIST_8);
            self.out.byte(len);
        } else {
            self.out.byte(LIST_16);
            self.out.slice(&(len as u16).to_be_bytes());
        }
    }

    /// WhatsApp's classification order: empty, too long to be anything but
    /// raw, token, nibble-packable, hex-packable, JID, raw.
    #[inline(always)]
    ///
    /// `looked_up` says the caller already found `text` is no token (no
    /// token is empty or longer than [`PACKED_MAX`], so the order holds).
    fn classify<'t>(&self, text: &'t str, slot: Slot, looked_up: bool) -> Class<'t> {
        if text.is_empty() {
            return Class::Empty;
        }
        if text.len() > PACKED_MAX {
            return Class::Raw;
        }
        if !looked_up && let Some(token) = self.tokens.lookup(text) {
            return Class::Token(token);
        }
        if let Some(packing) = packed::packing_of(text) {
            return Class::Packed(packing);
        }
        if slot == Slot::General
            && text.len() <= JID_TEXT_MAX
            && text.contains('@')
            && let Some((jid, form)) = text_jid(text)
        {
            return Class::Jid(jid, form);
        }
        Class::Raw
    }

    /// A JID's server: its token, found once when the index was built,
    /// else (`newsletter` in v3) written as any string.
    #[inline]
    fn server(&mut self, server: Server) -> Result<(), EncodeError> {
        match self.tokens.server(server) {
            Some(token) => {
                self.token(token);
                Ok(())
            }
            None => self.string(server.as_str(), Slot::InJid),
        }
    }

    #[inline]
    fn token(&mut self, token: Token) {
        match token {
            Token::Single(b) => self.out.byte(b),
            Token::Double(dict, index) => {
                self.out.byte(DICTIONARY_0 + dict);
                self.out.byte(index);
            }
        }
    }

    /// Write `text` as its class says: the class the size plan remembered
    /// when the writer runs, else found (and remembered) here. Tokens, most
    /// strings of a stanza, take the inlined path.
    #[inline(always)]
    fn string(&mut self, text: &str, slot: Slot) -> Result<(), EncodeError> {
        if S::WRITES {
            match self.memo.take() {
                Some(code) if code >= CODE_SINGLE => {
                    self.token(token_of_code(code));
                    Ok(())
                }
                Some(code) => self.remembered(code, text, slot),
                None => self.classify_and_write(text, slot, false),
            }
        } else {
            match self.tokens.lookup(text) {
                Some(token) => {
                    self.memo
                        .record(&Class::Token(token), self.out.needs_writer());
                    self.token(token);
                    Ok(())
                }
                None => self.classify_and_write(text, slot, true),
            }
        }
    }

    /// [`string`](Self::string) for any class.
    #[inline(never)]
    fn classify_and_write(
        &mut self,
        text: &str,
        slot: Slot,
        looked_up: bool,
    ) -> Result<(), EncodeError> {
        let class = self.classify(text, slot, looked_up);
        if !S::WRITES {
            self.memo.record(&class, self.out.needs_writer());
        }
        self.write_class(text, class)
    }

    /// [`string`](Self::string) for a class the plan remembered as `code`.
    #[inline(never)]
    fn remembered(&mut self, code: u16, text: &str, slot: Slot) -> Result<(), EncodeError> {
        match code {
            CODE_EMPTY => self.write_class(text, Class::Empty),
            CODE_RAW => self.raw(text.as_bytes()),
            CODE_NIBBLE => self.write_class(text, Class::Packed(Packing::Nibble)),
            CODE_HEX => self.write_class(text, Class::Packed(Packing::Hex)),
            CODE_JID => match text_jid(text) {
                Some((jid, form)) => self.jid(&jid, form),
                None => {
                    let class = self.classify(text, slot, false);
                    self.write_class(text, class)
                }
            },
            code => {
                self.token(token_of_code(code));
                Ok(())
            }
        }
    }

    #[inline(always)]
    fn write_class(&mut self, text: &str, class: Class<'_>) -> Result<(), EncodeError> {
        match class {
            Class::Empty => {
                self.out.byte(BINARY_8);
                self.out.byte(0);
            }
            Class::Token(token) => self.token(token),
            Class::Packed(packing) => {
                self.out.byte(match packing {
                    Packing::Nibble => NIBBLE_8,
                    Packing::Hex => HEX_8,
                });
                self.out.packed(packing, text);
            }
            Class::Jid(jid, form) => self.jid(&jid, form)?,
            Class::Raw => self.raw(text.as_bytes())?,
        }
        Ok(())
    }

    fn raw(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let len = bytes.len();
        if let Ok(short) = u8::try_from(len) {
            self.out.byte(BINARY_8);
            self.out.byte(short);
        } else if len < 1 << 20 {
            self.out.byte(BINARY_20);
            self.out.slice(&(len as u32).to_be_bytes()[1..]);
        } else {
            let long = u32::try_from(len).map_err(|_| EncodeError::TooLong { len })?;
            self.out.byte(BINARY_32);
            self.out.slice(&long.to_be_bytes());
        }
        self.out.slice(bytes);
        Ok(())
    }

    /// A JID's user: a user still packed from the wire is written back
    /// exactly as it came (byte-identical re-encoding); text is classified
    /// like any string.
    fn jid_user(&mut self, user: JidUser<'_>) -> Result<(), EncodeError> {
        match (user.packed_form(), user.as_str()) {
            (Some((bytes, nibble, odd)), _) => {
                self.out.byte(if nibble { NIBBLE_8 } else { HEX_8 });
                self.out
                    .byte(bytes.len() as u8 | if odd { 0x80 } else { 0 });
                self.out.slice(bytes);
                Ok(())
            }
            (None, Some(text)) => self.string(text, Slot::InJid),
            (None, None) => self.string("", Slot::InJid),
        }
    }

    fn jid(&mut self, jid: &Jid<'_>, form: JidForm) -> Result<(), EncodeError> {
        match form {
            JidForm::Pair => {
                self.out.byte(JID_PAIR);
                if jid.user().is_empty() {
                    self.out.byte(LIST_EMPTY);
                } else {
                    self.jid_user(jid.user())?;
                }
                self.server(jid.server())?;
            }
            JidForm::Ad { domain, device } => {
                self.out.byte(AD_JID);
                self.out.byte(domain);
                self.out.byte(device);
                self.jid_user(jid.user())?;
            }
            JidForm::Interop => {
                // WhatsApp's own writer stops after the integrator (its
                // outbound form); the inbound form, which every decoder
                // reads, ends with the server. We write the inbound form so
                // our output decodes.
                self.out.byte(INTEROP_JID);
                self.jid_user(jid.user())?;
                self.out.slice(&jid.device().to_be_bytes());
                self.out.slice(&jid.integrator().to_be_bytes());
                self.server(Server::Interop)?;
            }
            JidForm::Fb => {
                self.out.byte(FB_JID);
                self.jid_user(jid.user())?;
                self.out.slice(&jid.device().to_be_bytes());
                self.server(Server::Messenger)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Hand-computed vectors from the format spec; token codes come from
    //! the dictionary, never from the encoder.

    use super::*;
    use crate::owned::{OwnedJid, OwnedNode};

    fn t(text: &str) -> Vec<u8> {
        match Dictionary::v3().lookup(text) {
            Some(Token::Single(b)) => vec![b],
            Some(Token::Double(d, i)) => vec![DICTIONARY_0 + d, i],
            None => panic!("{text} is not a token"),
        }
    }

    fn raw(text: &[u8]) -> Vec<u8> {
        assert!(text.len() < 256);
        [&[BINARY_8, text.len() as u8][..], text].concat()
    }

    fn token_or_raw(text: &str) -> Vec<u8> {
        match Dictionary::v3().lookup(text) {
            Some(_) => t(text),
            None => raw(text.as_bytes()),
        }
    }

    fn enc(node: &OwnedNode) -> Vec<u8> {
        encode(node).unwrap()
    }

    /// The first run's scratch against the writer alone (a memo with no
    /// codes, so the writer classifies every string itself): a stanza
    /// with every kind of string, packed ones included, fits and comes
    /// out the same; one past the buffer is not taken from it.
    #[test]
    fn the_scratch_holds_what_the_writer_writes() {
        let every_kind = OwnedNode::new("message")
            .attr("id", "3EB0A1B2C3D4E5F6")
            .attr("t", "1717000000")
            .attr("to", "5511999990000@s.whatsapp.net")
            .attr("notify", "Zoë")
            .attr("edit", "")
            .jid_attr(
                "participant",
                Jid::new("5511999990000", Server::Pn).with_device(3),
            )
            .children([
                OwnedNode::new("enc").attr("v", "2").bytes(vec![0xAB; 300]),
                OwnedNode::new("body").text("hello"),
            ]);
        let big = OwnedNode::new("iq").children([
            every_kind.clone(),
            OwnedNode::new("enc").bytes(vec![0; SCRATCH_LEN]),
        ]);
        let encoder = Encoder::new();
        for (node, fits) in [(&every_kind, true), (&big, false)] {
            let mut buf = [MaybeUninit::<u8>::uninit(); SCRATCH_LEN];
            let mut scratch = Scratch::new(&mut buf);
            let bound = || strings_bound(node, 0);
            encoder
                .plan(node, &mut scratch, &mut Memo::new(&bound))
                .unwrap();
            let mut alone = Vec::new();
            encoder
                .write(node, &mut alone, &mut Memo::stack_only())
                .unwrap();
            assert_eq!(scratch.len(), alone.len());
            match scratch.written() {
                Some(bytes) => assert_eq!(bytes, &alone[..]),
                None => assert!(!fits, "a {}-byte encoding fits", alone.len()),
            }
            assert_eq!(scratch.written().is_some(), fits);
            assert_eq!(enc(node), alone);
        }
    }

    #[test]
    fn tokens_and_empty_attribute_value() {
        let node = OwnedNode::new("iq").attr("type", "get").attr("id", "");
        let want = [
            &[LIST_8, 5][..],
            &t("iq"),
            &t("type"),
            &t("get"),
            &t("id"),
            &[BINARY_8, 0],
        ]
        .concat();
        assert_eq!(enc(&node), want);
    }

    /// NIBBLE_8 of a string of digits, by the spec: two digits a byte,
    /// an odd length padded with 15 and flagged in the length byte.
    fn nibble(digits: &str) -> Vec<u8> {
        let d: Vec<u8> = digits.bytes().map(|b| b - b'0').collect();
        let mut out = vec![
            NIBBLE_8,
            (d.len().div_ceil(2) as u8) | (d.len() as u8 % 2) << 7,
        ];
        out.extend(
            d.chunks(2)
                .map(|p| p[0] << 4 | p.get(1).copied().unwrap_or(15)),
        );
        out
    }

    #[test]
    fn strings_past_what_the_plan_remembers_are_classified_again() {
        // 1 + 150 * 5 strings: far more than the memo holds, so the writer
        // replays the first classes and classifies the rest itself.
        const { assert!(1 + 150 * 5 > MEMO_INLINE) };
        let id = |i: u32| (900_000 + i).to_string();
        let kids: Vec<OwnedNode> = (0..150)
            .map(|i| OwnedNode::new("item").attr("id", id(i)).attr("type", "get"))
            .collect();
        let node = OwnedNode::new("iq").children(kids);
        let mut want = [&[LIST_8, 2][..], &t("iq"), &[LIST_8, 150]].concat();
        for i in 0..150 {
            want.extend([LIST_8, 5]);
            want.extend(t("item"));
            want.extend(t("id"));
            assert_eq!(Dictionary::v3().lookup(&id(i)), None);
            want.extend(nibble(&id(i)));
            want.extend(t("type"));
            want.extend(t("get"));
        }
        assert_eq!(enc(&node), want);
        assert_eq!(Encoder::new().encoded_len(&node).unwrap(), want.len());
        let mut appended = vec![7];
        encode_into(&node, &mut appended).unwrap();
        assert_eq!(appended[1..], want[..]);
    }

    #[test]
    fn packed_strings_pad_odd_lengths_with_f() {
        let node = OwnedNode::new("iq")
            .attr("id", "123")
            .attr("t", "12-.")
            .attr("to", "3EB0")
            .attr("from", "ABC");
        let want = [
            &[LIST_8, 9][..],
            &t("iq"),
            &t("id"),
            &[NIBBLE_8, 0x82, 0x12, 0x3F],
            &t("t"),
            &[NIBBLE_8, 0x02, 0x12, 0xAB],
            &t("to"),
            &[HEX_8, 0x02, 0x3E, 0xB0],
            &t("from"),
            &[HEX_8, 0x82, 0xAB, 0xCF],
        ]
        .concat();
        assert_eq!(enc(&node), want);
    }

    #[test]
    fn jid_text_becomes_a_jid_pair_and_other_at_text_stays_raw() {
        let node = OwnedNode::new("iq")
            .attr("to", "123@s.whatsapp.net")
            .attr("from", "foo@example.com")
            .attr("jid", "5511999990000:0@s.whatsapp.net");
        let want = [
            &[LIST_8, 7][..],
            &t("iq"),
            &t("to"),
            &[JID_PAIR, NIBBLE_8, 0x82, 0x12, 0x3F],
            &t("s.whatsapp.net"),
            &t("from"),
            &raw(b"foo@example.com"),
            &t("jid"),
            &raw(b"5511999990000:0@s.whatsapp.net"),
        ]
        .concat();
        assert_eq!(enc(&node), want);
    }

    #[test]
    fn structured_jids_pick_their_wire_form() {
        let ad = OwnedJid::new("123", Server::Lid).with_device(5);
        let interop = OwnedJid::new("123", Server::Interop)
            .with_device(1)
            .with_integrator(2);
        let fb = OwnedJid::new("123", Server::Messenger).with_device(3);
        let pair = OwnedJid::new("", Server::Group);
        let node = OwnedNode::new("iq")
            .attr("to", ad)
            .attr("from", interop)
            .attr("jid", fb)
            .attr("participant", pair);
        let user = [NIBBLE_8, 0x82, 0x12, 0x3F];
        let want = [
            &[LIST_8, 9][..],
            &t("iq"),
            &t("to"),
            &[AD_JID, 1, 5],
            &user,
            &t("from"),
            &[INTEROP_JID],
            &user,
            &[0, 1, 0, 2],
            &token_or_raw("interop"),
            &t("jid"),
            &[FB_JID],
            &user,
            &[0, 3],
            &t("msgr"),
            &t("participant"),
            &[JID_PAIR, LIST_EMPTY],
            &t("g.us"),
        ]
        .concat();
        assert_eq!(enc(&node), want);
    }

    #[test]
    fn agent_text_stays_in_the_user() {
        // "abc.1@bot": Jid::parse reads agent 1; the wire has no agent, so
        // the user is written as "abc.1", which renders the same.
        let node = OwnedNode::new("iq").attr("to", "abc.1@bot");
        let want = [
            &[LIST_8, 3][..],
            &t("iq"),
            &t("to"),
            &[JID_PAIR],
            &raw(b"abc.1"),
            &token_or_raw("bot"),
        ]
        .concat();
        assert_eq!(enc(&node), want);
    }

    #[test]
    fn content_kinds() {
        let empty_list = OwnedNode::new("message").children([]);
        assert_eq!(
            enc(&empty_list),
            [&[LIST_8, 2][..], &t("message"), &[LIST_8, 0]].concat()
        );
        let text = OwnedNode::new("message").text("hello");
        assert_eq!(
            enc(&text),
            [&[LIST_8, 2][..], &t("message"), &raw(b"hello")].concat()
        );
        let long_digits = "1".repeat(128);
        let text = OwnedNode::new("message").text(long_digits.clone());
        assert_eq!(
            enc(&text),
            [
                &[LIST_8, 2][..],
                &t("message"),
                &[BINARY_8, 128],
                long_digits.as_bytes()
            ]
            .concat()
        );
        let b20 = OwnedNode::new("message").bytes(vec![7; 300]);
        assert_eq!(
            enc(&b20),
            [
                &[LIST_8, 2][..],
                &t("message"),
                &[BINARY_20, 0, 1, 0x2C],
                &[7; 300]
            ]
            .concat()
        );
        let b32 = OwnedNode::new("message").bytes(vec![7; 1 << 20]);
        let out = enc(&b32);
        assert_eq!(
            out[..8],
            [&[LIST_8, 2][..], &t("message"), &[BINARY_32, 0, 0x10, 0, 0]].concat()[..]
        );
        assert_eq!(out.len(), 8 + (1 << 20));
    }

    #[test]
    fn list_16_headers() {
        let mut node = OwnedNode::new("iq");
        for i in 0..128 {
            node.attrs.push((format!("k{i}"), "v".into()));
        }
        let out = enc(&node);
        assert_eq!(out[..3], [LIST_16, 0x01, 0x01]); // 1 + 2 * 128 = 257
        let node = OwnedNode::new("iq").children(vec![OwnedNode::new("iq"); 300]);
        let out = enc(&node);
        let at = 2 + t("iq").len();
        assert_eq!(out[at..at + 3], [LIST_16, 0x01, 0x2C]);
    }

    #[test]
    fn errors() {
        let err = |node: &OwnedNode| encode(node).unwrap_err();
        let mut many = OwnedNode::new("iq").text("x");
        many.attrs = vec![("k".into(), "v".into()); 32767];
        assert!(matches!(
            err(&many),
            EncodeError::TooManyAttributes { max: 32766, .. }
        ));
        many.content = OwnedContent::None;
        assert!(encode(&many).is_ok());
        many.attrs.push(("k".into(), "v".into()));
        assert!(matches!(
            err(&many),
            EncodeError::TooManyAttributes { max: 32767, .. }
        ));
        let wide = OwnedNode::new("iq").children(vec![OwnedNode::new("a"); 65536]);
        assert!(matches!(
            err(&wide),
            EncodeError::TooManyChildren { count: 65536, .. }
        ));
        let jid_err = |jid: OwnedJid| err(&OwnedNode::new("iq").attr("to", jid));
        let mut agent = OwnedJid::new("abc", Server::Bot);
        agent.agent = 1;
        for jid in [
            agent,
            OwnedJid::new("abc", Server::Group).with_device(1),
            OwnedJid::new("abc", Server::Pn).with_device(256),
            OwnedJid::new("", Server::Pn).with_device(1),
            OwnedJid::new("abc", Server::Pn).with_integrator(1),
        ] {
            assert!(matches!(jid_err(jid), EncodeError::Jid { .. }));
        }
        let mut deep = OwnedNode::new("a");
        for _ in 0..MAX_DEPTH {
            deep = OwnedNode::new("a").children([deep]);
        }
        assert_eq!(err(&deep), EncodeError::TooDeep { limit: MAX_DEPTH });
        let OwnedContent::Nodes(kids) = deep.content else {
            unreachable!()
        };
        assert!(encode(&kids[0]).is_ok());
    }
}
