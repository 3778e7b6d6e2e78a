//! The model of agreement with `wacore-binary` 0.7 (the peer), shared by
//! `tests/peer.rs` and the differential fuzz target `wa_node_peer`
//! (`fuzz/src/wa_peer.rs`, which includes this file by path): a neutral
//! tree both decoders convert into, the walker that names the deliberate
//! differences (docs/wa-format.md), and [`check_agreement`], which panics
//! on any other disagreement.
#![allow(dead_code)]

use quarry_core::Arena;
use quarry_wa::{Content, Value};
use wacore_binary::marshal::unmarshal_ref;
use wacore_binary::node::{NodeContentRef, NodeRef, ValueRef};

// ---------------------------------------------------------------------------
// A neutral tree both decoders are converted into.

/// An attribute value: text, or a JID's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TValue {
    Str(String),
    Jid {
        user: String,
        server: String,
        agent: u8,
        device: u16,
        integrator: u16,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TContent {
    None,
    Text(String),
    Bytes(Vec<u8>),
    Nodes(Vec<TNode>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TNode {
    pub tag: String,
    pub attrs: Vec<(String, TValue)>,
    pub content: TContent,
}

pub fn from_peer(node: &NodeRef<'_>) -> TNode {
    TNode {
        tag: node.tag.to_string(),
        attrs: node
            .attrs
            .iter()
            .map(|(key, value)| {
                let value = match value {
                    ValueRef::String(s) => TValue::Str(s.to_string()),
                    ValueRef::Jid(j) => TValue::Jid {
                        user: j.user.to_string(),
                        server: j.server.as_str().to_owned(),
                        agent: j.agent,
                        device: j.device,
                        integrator: j.integrator,
                    },
                };
                (key.to_string(), value)
            })
            .collect(),
        content: match &node.content {
            None => TContent::None,
            Some(NodeContentRef::String(s)) => TContent::Text(s.to_string()),
            Some(NodeContentRef::Bytes(b)) => TContent::Bytes(b.to_vec()),
            Some(NodeContentRef::Nodes(nodes)) => {
                TContent::Nodes(nodes.iter().map(from_peer).collect())
            }
        },
    }
}

pub fn from_quarry(node: quarry_wa::Node<'_>) -> TNode {
    TNode {
        tag: node.tag().to_owned(),
        attrs: node
            .attrs()
            .iter()
            .map(|(key, value)| {
                let value = match value {
                    Value::Str(s) => TValue::Str(s.to_owned()),
                    Value::Jid(j) => TValue::Jid {
                        user: j.user().to_text().into_owned(),
                        server: j.server().as_str().to_owned(),
                        agent: j.agent(),
                        device: j.device(),
                        integrator: j.integrator(),
                    },
                };
                (key.to_owned(), value)
            })
            .collect(),
        content: match node.content() {
            Content::None => TContent::None,
            Content::Text(s) => TContent::Text(s.to_owned()),
            Content::Bytes(b) => TContent::Bytes(b.to_vec()),
            Content::Nodes(children) => TContent::Nodes(children.iter().map(from_quarry).collect()),
        },
    }
}

pub fn peer_tree(input: &[u8]) -> Option<TNode> {
    unmarshal_ref(input).ok().map(|n| from_peer(&n))
}

pub fn quarry_tree(input: &[u8]) -> Result<TNode, quarry_core::DecodeError> {
    let arena = Arena::new();
    quarry_wa::decode(&arena, input).map(from_quarry)
}

// ---------------------------------------------------------------------------
// The walker that names the deliberate differences.

/// Classification of an input by the spec's grammar, in the peer's read
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The peer accepts it (one whole node, nothing left over).
    Accept,
    /// The peer rejects it.
    Reject,
    /// Deliberate difference (a): a JID tag at this offset stands in a JID's
    /// user or server slot, reached before any other error.
    NestedJid(usize),
    /// Deliberate difference (b): an AD/interop/Messenger JID that the peer
    /// accepts, whose user (starting at this offset) is present but empty.
    EmptyJidUser(usize),
}

pub mod walk {
    use super::Verdict;
    use wacore_binary::token::{get_double_token, get_single_token};

    enum Stop {
        Broken,
        Nested(usize),
        EmptyUser(usize),
    }

    const SERVERS: [&str; 12] = [
        "s.whatsapp.net",
        "lid",
        "g.us",
        "broadcast",
        "newsletter",
        "hosted",
        "hosted.lid",
        "msgr",
        "interop",
        "bot",
        "c.us",
        "call",
    ];

    struct Walker<'a> {
        input: &'a [u8],
        pos: usize,
    }

    impl<'a> Walker<'a> {
        fn u8(&mut self) -> Result<u8, Stop> {
            let b = *self.input.get(self.pos).ok_or(Stop::Broken)?;
            self.pos += 1;
            Ok(b)
        }

        fn take(&mut self, n: usize) -> Result<&'a [u8], Stop> {
            if self.input.len() - self.pos < n {
                return Err(Stop::Broken);
            }
            let out = &self.input[self.pos..self.pos + n];
            self.pos += n;
            Ok(out)
        }

        fn be(&mut self, n: usize) -> Result<usize, Stop> {
            Ok(self
                .take(n)?
                .iter()
                .fold(0, |acc, &b| acc << 8 | usize::from(b)))
        }

        fn binary_len(&mut self, tag: u8) -> Result<usize, Stop> {
            match tag {
                252 => self.be(1),
                253 => Ok(self.be(3)? & 0xF_FFFF),
                _ => self.be(4),
            }
        }

        fn string(&mut self, jid_slot: bool) -> Result<Option<String>, Stop> {
            let at = self.pos;
            let tag = self.u8()?;
            self.string_from(tag, at, jid_slot)
        }

        fn string_from(
            &mut self,
            tag: u8,
            at: usize,
            jid_slot: bool,
        ) -> Result<Option<String>, Stop> {
            match tag {
                0 => Ok(None),
                1..=235 => Ok(get_single_token(tag).map(str::to_owned)),
                236..=239 => {
                    let index = self.u8()?;
                    Ok(get_double_token(tag - 236, index).map(str::to_owned))
                }
                252..=254 => {
                    let len = self.binary_len(tag)?;
                    let bytes = self.take(len)?;
                    match std::str::from_utf8(bytes) {
                        Ok(s) => Ok(Some(s.to_owned())),
                        Err(_) => Err(Stop::Broken),
                    }
                }
                251 | 255 => self.packed(tag).map(Some),
                245 | 246 | 247 | 250 => {
                    if jid_slot {
                        return Err(Stop::Nested(at));
                    }
                    self.jid(tag).map(|()| Some(String::from("<jid>")))
                }
                _ => Err(Stop::Broken),
            }
        }

        fn packed(&mut self, tag: u8) -> Result<String, Stop> {
            let header = self.u8()?;
            let len = usize::from(header & 0x7F);
            if len == 0 {
                return Ok(String::new());
            }
            let mut out = String::new();
            for &byte in self.take(len)? {
                for nibble in [byte >> 4, byte & 0x0F] {
                    out.push(match (tag, nibble) {
                        (251, n) => char::from(b"0123456789ABCDEF"[usize::from(n)]),
                        (_, 0..=9) => char::from(b'0' + nibble),
                        (_, 10) => '-',
                        (_, 11) => '.',
                        (_, 15) => '\0',
                        _ => return Err(Stop::Broken),
                    });
                }
            }
            if header & 0x80 != 0 {
                out.pop();
            }
            Ok(out)
        }

        fn jid(&mut self, tag: u8) -> Result<(), Stop> {
            match tag {
                250 => {
                    self.string(true)?;
                    let server = self.string(true)?.unwrap_or_default();
                    if !SERVERS.contains(&server.as_str()) {
                        return Err(Stop::Broken);
                    }
                }
                247 => {
                    let domain = self.u8()?;
                    let _device = self.u8()?;
                    let user_at = self.pos;
                    let user = self.string(true)?.ok_or(Stop::Broken)?;
                    let valid_domain =
                        matches!(domain, 0 | 1 | 129) || (domain & 0x80 != 0 && domain % 2 == 0);
                    if !valid_domain {
                        return Err(Stop::Broken);
                    }
                    if user.is_empty() {
                        return Err(Stop::EmptyUser(user_at));
                    }
                }
                _ => {
                    let user_at = self.pos;
                    let user = self.string(true)?.ok_or(Stop::Broken)?;
                    let tail = self.interop_or_messenger_tail(tag);
                    if user.is_empty() {
                        // quarry stops at the empty user, before it reads
                        // the server, so a JID nested in the server slot
                        // after it is never reached. Broken bytes later on
                        // still make the peer reject the input.
                        return match tail {
                            Err(Stop::Broken) => Err(Stop::Broken),
                            _ => Err(Stop::EmptyUser(user_at)),
                        };
                    }
                    tail?;
                }
            }
            Ok(())
        }

        /// What follows the user of an interop (245) or Messenger (246)
        /// JID: device, integrator (interop only) and the fixed server.
        fn interop_or_messenger_tail(&mut self, tag: u8) -> Result<(), Stop> {
            self.be(2)?;
            if tag == 245 {
                self.be(2)?;
            }
            let want = if tag == 245 { "interop" } else { "msgr" };
            if self.string(true)?.unwrap_or_default() != want {
                return Err(Stop::Broken);
            }
            Ok(())
        }

        fn node(&mut self, depth: usize) -> Result<(), Stop> {
            if depth >= 128 {
                return Err(Stop::Broken);
            }
            let size = match self.u8()? {
                248 => self.be(1)?,
                249 => self.be(2)?,
                _ => return Err(Stop::Broken),
            };
            if size == 0 {
                return Err(Stop::Broken);
            }
            self.string(false)?.ok_or(Stop::Broken)?;
            for _ in 0..(size - 1) / 2 {
                self.string(false)?.ok_or(Stop::Broken)?;
                let at = self.pos;
                let tag = self.u8()?;
                self.string_from(tag, at, false)?;
            }
            if size % 2 == 0 {
                let at = self.pos;
                match self.u8()? {
                    0 => {}
                    tag @ (248 | 249) => {
                        let count = self.be(if tag == 248 { 1 } else { 2 })?;
                        for _ in 0..count {
                            self.node(depth + 1)?;
                        }
                    }
                    tag @ 252..=254 => {
                        let len = self.binary_len(tag)?;
                        self.take(len)?;
                    }
                    tag => {
                        self.string_from(tag, at, false)?;
                    }
                }
            }
            Ok(())
        }
    }

    /// How the peer would treat `input`, or which deliberate difference it
    /// meets first.
    pub fn classify(input: &[u8]) -> Verdict {
        let mut w = Walker { input, pos: 0 };
        match w.node(0) {
            Ok(()) if w.pos == input.len() => Verdict::Accept,
            Ok(()) | Err(Stop::Broken) => Verdict::Reject,
            Err(Stop::Nested(at)) => Verdict::NestedJid(at),
            Err(Stop::EmptyUser(at)) => Verdict::EmptyJidUser(at),
        }
    }
}

pub use walk::classify;

/// What happened to one input.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    BothAccept,
    BothReject,
    NestedJid,
    EmptyJidUser,
}

/// quarry's error for a named difference at the walker's offset: for a
/// nested JID, `UnexpectedByte` naming the inner JID tag; for an empty
/// user, `Malformed`; unless quarry's up-front check of a list count against the bytes left
/// rejected the input first (then `UnexpectedEof` at the end of input; the
/// peer would run out of bytes too, later).
pub fn expect_difference_error(
    err: &quarry_core::DecodeError,
    at: usize,
    what: &str,
    input: &[u8],
) {
    match err {
        quarry_core::DecodeError::Malformed { offset, .. } if what == "empty JID user" => {
            assert_eq!(*offset, at, "{what}: {err:?} for {input:02x?}");
        }
        quarry_core::DecodeError::UnexpectedByte { offset, byte, .. }
            if what == "JID nested in a JID" =>
        {
            assert_eq!(*offset, at, "{what}: {err:?} for {input:02x?}");
            assert_eq!(
                Some(byte),
                input.get(at),
                "{what}: {err:?} for {input:02x?}"
            );
            assert!((0xF5..=0xFA).contains(byte), "{what}: {err:?}");
        }
        quarry_core::DecodeError::UnexpectedEof { offset } if *offset == input.len() => {}
        _ => panic!("{what} at {at}: unexpected {err:?} for {input:02x?}"),
    }
}

/// Decode `input` with both decoders (or only quarry, for the named
/// differences) and fail on any disagreement.
pub fn check_agreement(input: &[u8]) -> Outcome {
    let quarry = quarry_tree(input);
    match classify(input) {
        Verdict::NestedJid(at) => {
            let err = quarry.expect_err("quarry must reject a JID nested in a JID");
            expect_difference_error(&err, at, "JID nested in a JID", input);
            Outcome::NestedJid
        }
        Verdict::EmptyJidUser(at) => {
            let err = quarry.expect_err("quarry must reject an empty AD/interop/FB JID user");
            expect_difference_error(&err, at, "empty JID user", input);
            Outcome::EmptyJidUser
        }
        verdict => {
            // `classify` walked the input as the peer will and found no JID
            // nested in a JID, so the peer cannot recurse without bound
            // here (counting JID tag bytes instead misfired on binary
            // payloads that happen to hold many 0xF5..=0xFA bytes).
            let peer = peer_tree(input);
            assert_eq!(
                verdict == Verdict::Accept,
                peer.is_some(),
                "the walker disagrees with the peer on {input:02x?}"
            );
            match (peer, quarry) {
                (Some(p), Ok(q)) => {
                    assert_eq!(p, q, "trees differ for {input:02x?}");
                    Outcome::BothAccept
                }
                (None, Err(e)) => {
                    assert!(e.offset() <= input.len(), "{e:?}");
                    Outcome::BothReject
                }
                (Some(p), Err(e)) => {
                    panic!("peer accepts, quarry rejects with {e:?}: {input:02x?}\npeer: {p:?}")
                }
                (None, Ok(q)) => {
                    panic!("quarry accepts, peer rejects: {input:02x?}\nquarry: {q:?}")
                }
            }
        }
    }
}
