//! The traversal: each node's list header, tag, attributes and content,
//! each string written in the class WhatsApp's rules give it (token,
//! packed, JID, raw).

use crate::dictionary::Token;
use crate::jid::{Jid, JidUser, Server, decimal_len};
use crate::node::Value;
use crate::packed::{self, Packing};
use crate::token_index::TokenIndex;
use crate::wire::*;

use super::sink::Sink;
use super::tree::{Body, Tree};
use super::{EncodeError, MAX_DEPTH};

/// Most items (tag, two per attribute, content) a node's list header can
/// count.
const MAX_LIST: usize = u16::MAX as usize;

/// Longest string the encoder considers as a JID (WhatsApp's rule).
const JID_TEXT_MAX: usize = 48;

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
    // An agent on a device server is no part of the JID (not rendered, not
    // compared); elsewhere the wire cannot carry it.
    if jid.identity_agent() != 0 {
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
/// of the user, which renders the same where the server renders agents
/// and keeps the text whole where it does not.
fn text_jid(text: &str) -> Option<(Jid<'_>, JidForm)> {
    // `Jid::parse` allocates its error; rule out the common failures
    // (an unknown server, a non-numeric device) without it.
    let (user, server) = text.rsplit_once('@')?;
    Server::from_name(server)?;
    if let Some((_, device)) = user.rsplit_once(':') {
        device.parse::<u16>().ok()?;
    }
    let parsed = Jid::parse(text).ok()?;
    let mut jid = parsed;
    if parsed.agent() != 0 {
        let user_len = parsed.user().len() + 1 + decimal_len(u32::from(parsed.agent()));
        jid = Jid::new(text.get(..user_len)?, parsed.server()).with_device(parsed.device());
    }
    if jid != *text {
        return None;
    }
    let form = jid_form(&jid).ok()?;
    Some((jid, form))
}

/// How a string that is no token is written.
enum Class<'t> {
    Empty,
    Packed(Packing),
    Jid(Jid<'t>, JidForm),
    Raw,
}

/// One run of the traversal, writing into (or counting for) `out`.
pub(super) struct Walk<'d, 'o, S: Sink> {
    pub(super) tokens: &'d TokenIndex,
    pub(super) out: &'o mut S,
}

impl<S: Sink> Walk<'_, '_, S> {
    pub(super) fn node<'s, T: Tree<'s>>(
        &mut self,
        node: T,
        depth: usize,
    ) -> Result<(), EncodeError> {
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

    /// The class of a string the token index does not hold. WhatsApp's
    /// order is empty, too long to be anything but raw, token,
    /// nibble-packable, hex-packable, JID, raw; no token is empty or longer
    /// than [`PACKED_MAX`], so looking tokens up first keeps that order.
    #[inline(always)]
    fn classify_non_token<'t>(&self, text: &'t str, slot: Slot) -> Class<'t> {
        if text.is_empty() {
            return Class::Empty;
        }
        if text.len() > PACKED_MAX {
            return Class::Raw;
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

    /// Write `text` as its class says. Tokens, most strings of a stanza,
    /// take the inlined path.
    #[inline(always)]
    fn string(&mut self, text: &str, slot: Slot) -> Result<(), EncodeError> {
        match self.tokens.lookup(text) {
            Some(token) => {
                self.token(token);
                Ok(())
            }
            None => self.classify_and_write(text, slot),
        }
    }

    /// [`string`](Self::string) for a string that is no token.
    #[inline(never)]
    fn classify_and_write(&mut self, text: &str, slot: Slot) -> Result<(), EncodeError> {
        let class = self.classify_non_token(text, slot);
        self.write_class(text, class)
    }

    #[inline(always)]
    fn write_class(&mut self, text: &str, class: Class<'_>) -> Result<(), EncodeError> {
        match class {
            Class::Empty => {
                self.out.byte(BINARY_8);
                self.out.byte(0);
            }
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
        match (user.packed_form(), user.as_unpacked_str()) {
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
