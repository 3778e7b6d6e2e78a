//! Relay-to-client and client-to-relay messages (NIP-01, NIP-42 AUTH,
//! NIP-45 COUNT, NIP-77 negentropy frames).
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use quarry_core::{Arena, BoundedAlloc, DecodeError};

use crate::decode::{Dec, key_error};
use crate::event::Event;
use crate::filter::Filters;
use crate::options::Decoder;
use crate::reader::Reader;
use crate::reader::shown;

/// A message from a relay to a client.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let msg = quarry_nostr::decode_relay_message(&arena, br#"["CLOSED","sub1","auth-required: log in first"]"#)?;
/// match msg {
///     quarry_nostr::RelayMessage::Closed { sub_id, message } => {
///         assert_eq!(sub_id, "sub1");
///         assert!(message.starts_with("auth-required:"));
///     }
///     _ => unreachable!(),
/// }
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RelayMessage<'a> {
    /// `["EVENT", <sub_id>, <event>]`
    Event {
        /// The subscription the event answers.
        sub_id: &'a str,
        /// The event.
        event: Event<'a>,
    },
    /// `["OK", <event id>, <accepted>, <message>]`
    Ok {
        /// The event id the relay answers for.
        event_id: [u8; 32],
        /// Whether the relay accepted the event.
        accepted: bool,
        /// `""` or `"<prefix>: <text>"`.
        message: &'a str,
    },
    /// `["EOSE", <sub_id>]`
    Eose {
        /// The subscription whose stored events are done.
        sub_id: &'a str,
    },
    /// `["CLOSED", <sub_id>, <message>]`
    Closed {
        /// The subscription the relay closed.
        sub_id: &'a str,
        /// `"<prefix>: <text>"`.
        message: &'a str,
    },
    /// `["NOTICE", <message>]`
    Notice {
        /// Free text.
        message: &'a str,
    },
    /// `["AUTH", <challenge>]` (NIP-42)
    Auth {
        /// The challenge to sign.
        challenge: &'a str,
    },
    /// `["COUNT", <sub_id>, {"count": n, "approximate"?: bool, "hll"?: hex}]` (NIP-45)
    Count {
        /// The subscription.
        sub_id: &'a str,
        /// The count.
        count: u64,
        /// `approximate`, when present.
        approximate: Option<bool>,
        /// `hll` (hex), when present.
        hll: Option<&'a str>,
    },
    /// `["NEG-MSG", <sub_id>, <hex message>]` (NIP-77)
    NegMsg {
        /// The subscription.
        sub_id: &'a str,
        /// The negentropy message, hex.
        message: &'a str,
    },
    /// `["NEG-ERR", <sub_id>, <reason>]` (NIP-77)
    NegErr {
        /// The subscription.
        sub_id: &'a str,
        /// Why.
        reason: &'a str,
    },
}

/// A message from a client to a relay.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let msg = quarry_nostr::decode_client_message(&arena, br#"["CLOSE","sub1"]"#)?;
/// assert!(matches!(msg, quarry_nostr::ClientMessage::Close { sub_id: "sub1" }));
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClientMessage<'a> {
    /// `["EVENT", <event>]`
    Event(Event<'a>),
    /// `["REQ", <sub_id>, <filter>...]`
    Req {
        /// The subscription id the client chose.
        sub_id: &'a str,
        /// The filters (OR'd).
        filters: Filters<'a>,
    },
    /// `["COUNT", <sub_id>, <filter>...]` (NIP-45)
    Count {
        /// The subscription id.
        sub_id: &'a str,
        /// The filters (OR'd).
        filters: Filters<'a>,
    },
    /// `["CLOSE", <sub_id>]`
    Close {
        /// The subscription to end.
        sub_id: &'a str,
    },
    /// `["AUTH", <signed kind-22242 event>]` (NIP-42)
    Auth(Event<'a>),
    /// `["NEG-OPEN", <sub_id>, <filter>, <hex message>]` (NIP-77)
    NegOpen {
        /// The subscription id.
        sub_id: &'a str,
        /// The filter (a one-element list).
        filter: Filters<'a>,
        /// The initial negentropy message, hex.
        message: &'a str,
    },
    /// `["NEG-MSG", <sub_id>, <hex message>]` (NIP-77)
    NegMsg {
        /// The subscription id.
        sub_id: &'a str,
        /// The negentropy message, hex.
        message: &'a str,
    },
    /// `["NEG-CLOSE", <sub_id>]` (NIP-77)
    NegClose {
        /// The subscription id.
        sub_id: &'a str,
    },
}

/// A message of either direction, for tools that do not know which side
/// wrote it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Message<'a> {
    /// Relay to client.
    Relay(RelayMessage<'a>),
    /// Client to relay.
    Client(ClientMessage<'a>),
}

impl<'a> RelayMessage<'a> {
    /// The event this message carries, if any.
    pub fn event(&self) -> Option<Event<'a>> {
        match *self {
            Self::Event { event, .. } => Some(event),
            _ => None,
        }
    }
}

impl<'a> ClientMessage<'a> {
    /// The event this message carries, if any (EVENT, AUTH).
    pub fn event(&self) -> Option<Event<'a>> {
        match *self {
            Self::Event(event) | Self::Auth(event) => Some(event),
            _ => None,
        }
    }
}

impl<'a> Message<'a> {
    /// The event this message carries, if any.
    pub fn event(&self) -> Option<Event<'a>> {
        match self {
            Self::Relay(m) => m.event(),
            Self::Client(m) => m.event(),
        }
    }
}

/// Which grammar to read a message with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Relay,
    Client,
    Either,
}

impl<'a> Dec<'a, '_> {
    /// `[` and the verb; returns the verb and its offset.
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past a peeked byte"
    )]
    fn open(&mut self) -> Result<(&'a str, usize), DecodeError> {
        self.r.ws();
        if self.r.peek() != Some(b'[') {
            return Err(self.r.err("a message must be a JSON array"));
        }
        self.depth_check(1)?;
        self.r.pos += 1;
        self.r.ws();
        let at = self.r.pos;
        let verb = self.r.string(self.alloc)?;
        Ok((verb, at))
    }

    fn next_elem(&mut self) -> Result<(), DecodeError> {
        self.r
            .expect(b',', "expected ',' (message has too few elements)")
    }

    /// Decide EVENT/AUTH direction by the type of the next element.
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past a peeked byte"
    )]
    fn next_is_object(&mut self) -> bool {
        let save = self.r.pos;
        self.r.ws();
        let mut obj = false;
        if self.r.peek() == Some(b',') {
            self.r.pos += 1;
            self.r.ws();
            obj = self.r.peek() == Some(b'{');
        }
        self.r.pos = save;
        obj
    }

    fn message(&mut self, side: Side) -> Result<Message<'a>, DecodeError> {
        let (verb, verb_at) = self.open()?;
        let side = match (side, verb) {
            (Side::Either, "EVENT" | "AUTH") => {
                if self.next_is_object() {
                    Side::Client
                } else {
                    Side::Relay
                }
            }
            (Side::Either, "REQ" | "CLOSE" | "NEG-OPEN" | "NEG-CLOSE") => Side::Client,
            (Side::Either, "COUNT") => {
                if self.count_has_count_member() {
                    Side::Relay
                } else {
                    Side::Client
                }
            }
            (Side::Either, _) => Side::Relay,
            (s, _) => s,
        };
        let msg = if side == Side::Relay {
            Message::Relay(self.relay_body(verb, verb_at)?)
        } else {
            Message::Client(self.client_body(verb, verb_at)?)
        };
        self.finish()?;
        Ok(msg)
    }

    /// For COUNT of unknown direction: whether the object after the sub id
    /// has a `count` member (a relay's answer) rather than being a filter.
    fn count_has_count_member(&mut self) -> bool {
        let save = self.r.pos;
        let mut found = false;
        let probe = (|| -> Result<(), DecodeError> {
            self.next_elem()?;
            self.r.ws();
            self.r.skip_string()?;
            self.next_elem()?;
            self.r.expect(b'{', "")?;
            self.r.ws();
            if self.r.peek() == Some(b'}') {
                return Ok(());
            }
            loop {
                self.r.ws();
                let key = self.key()?;
                if key == b"count" {
                    found = true;
                    return Ok(());
                }
                self.r.expect(b':', "")?;
                self.r.skip_value(3, self.cfg.options.max_depth)?;
                if !self.r.comma_or(b'}', "")? {
                    return Ok(());
                }
            }
        })();
        let _ = probe;
        self.r.pos = save;
        found
    }

    fn relay_body(
        &mut self,
        verb: &'a str,
        verb_at: usize,
    ) -> Result<RelayMessage<'a>, DecodeError> {
        let msg = match verb {
            "EVENT" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.next_elem()?;
                let event = self.event(2)?;
                RelayMessage::Event { sub_id, event }
            }
            "OK" => {
                self.next_elem()?;
                self.r.ws();
                let event_id = self.hex::<32>("event id must be 64 hex digits")?;
                self.next_elem()?;
                self.r.ws();
                let accepted = self.r.bool()?;
                self.next_elem()?;
                let message = self.text()?;
                RelayMessage::Ok {
                    event_id,
                    accepted,
                    message,
                }
            }
            "EOSE" => {
                self.next_elem()?;
                RelayMessage::Eose {
                    sub_id: self.sub_id()?,
                }
            }
            "CLOSED" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.next_elem()?;
                let message = self.text()?;
                RelayMessage::Closed { sub_id, message }
            }
            "NOTICE" => {
                self.next_elem()?;
                RelayMessage::Notice {
                    message: self.text()?,
                }
            }
            "AUTH" => {
                self.next_elem()?;
                RelayMessage::Auth {
                    challenge: self.text()?,
                }
            }
            "COUNT" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.next_elem()?;
                self.count_object(sub_id)?
            }
            "NEG-MSG" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.next_elem()?;
                let message = self.text()?;
                RelayMessage::NegMsg { sub_id, message }
            }
            "NEG-ERR" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.next_elem()?;
                let reason = self.text()?;
                RelayMessage::NegErr { sub_id, reason }
            }
            _ => {
                return Err(DecodeError::invalid_value(
                    verb_at,
                    "unknown relay message verb",
                    shown(verb),
                ));
            }
        };
        self.rest_of_array()?;
        Ok(msg)
    }

    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos moves past peeked bytes"
    )]
    fn count_object(&mut self, sub_id: &'a str) -> Result<RelayMessage<'a>, DecodeError> {
        self.r.ws();
        let start = self.r.pos;
        if self.r.peek() != Some(b'{') {
            return Err(self.r.err("expected the COUNT result object"));
        }
        self.depth_check(2)?;
        self.r.pos += 1;
        let mut count = None;
        let mut approximate = None;
        let mut hll = None;
        self.r.ws();
        if self.r.peek() == Some(b'}') {
            self.r.pos += 1;
        } else {
            loop {
                self.r.ws();
                let key_at = self.r.pos;
                let key = self.key()?;
                self.r.expect(b':', "expected ':'")?;
                self.r.ws();
                let dup = || key_error(key_at, "duplicate member in COUNT result", key);
                match key {
                    b"count" if count.is_some() => return Err(dup()),
                    b"count" => count = Some(self.r.u64("count must be an integer")?),
                    b"approximate" if approximate.is_some() => return Err(dup()),
                    b"approximate" => approximate = Some(self.r.bool()?),
                    b"hll" if hll.is_some() => return Err(dup()),
                    b"hll" => hll = Some(self.r.string(self.alloc)?),
                    _ => self.r.skip_value(3, self.cfg.options.max_depth)?,
                }
                if !self.r.comma_or(b'}', "expected ',' or '}'")? {
                    break;
                }
            }
        }
        let count = count.ok_or(DecodeError::Malformed {
            offset: start,
            what: "COUNT result has no count",
        })?;
        Ok(RelayMessage::Count {
            sub_id,
            count,
            approximate,
            hll,
        })
    }

    fn client_body(
        &mut self,
        verb: &'a str,
        verb_at: usize,
    ) -> Result<ClientMessage<'a>, DecodeError> {
        let msg = match verb {
            "EVENT" | "AUTH" => {
                self.next_elem()?;
                let event = self.event(2)?;
                self.rest_of_array()?;
                if verb == "EVENT" {
                    ClientMessage::Event(event)
                } else {
                    ClientMessage::Auth(event)
                }
            }
            "REQ" | "COUNT" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                let filters = self.filters()?;
                if filters.is_empty() {
                    // No filter to OR: match nothing or everything is a
                    // guess; rust-nostr rejects it too.
                    return Err(DecodeError::Malformed {
                        offset: self.r.pos.saturating_sub(1),
                        what: "REQ and COUNT need at least one filter",
                    });
                }
                if verb == "REQ" {
                    ClientMessage::Req { sub_id, filters }
                } else {
                    ClientMessage::Count { sub_id, filters }
                }
            }
            "CLOSE" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.rest_of_array()?;
                ClientMessage::Close { sub_id }
            }
            "NEG-OPEN" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.next_elem()?;
                // Read the one filter with the list reader: it stops at
                // the next ',' only if we feed it a one-element view.
                let filter = self.one_filter()?;
                self.next_elem()?;
                let message = self.text()?;
                self.rest_of_array()?;
                ClientMessage::NegOpen {
                    sub_id,
                    filter,
                    message,
                }
            }
            "NEG-MSG" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.next_elem()?;
                let message = self.text()?;
                self.rest_of_array()?;
                ClientMessage::NegMsg { sub_id, message }
            }
            "NEG-CLOSE" => {
                self.next_elem()?;
                let sub_id = self.sub_id()?;
                self.rest_of_array()?;
                ClientMessage::NegClose { sub_id }
            }
            _ => {
                return Err(DecodeError::invalid_value(
                    verb_at,
                    "unknown client message verb",
                    shown(verb),
                ));
            }
        };
        Ok(msg)
    }
}

impl Decoder {
    /// Decode one relay-to-client message. Extra trailing elements are
    /// ignored (forward compatibility), anything after the array is an
    /// error.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let json = format!(r#"["EVENT","sub1",{}]"#, quarry_nostr::SAMPLE_EVENT);
    /// let msg = quarry_nostr::Decoder::new().decode_relay_message(&arena, json.as_bytes())?;
    /// let quarry_nostr::RelayMessage::Event { sub_id, event } = msg else { unreachable!() };
    /// assert_eq!(sub_id, "sub1");
    /// assert_eq!(event.id_valid(), Some(true));
    /// assert_eq!(event.raw(), quarry_nostr::SAMPLE_EVENT.as_bytes());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_relay_message<'a>(
        &self,
        arena: &'a Arena,
        input: &'a [u8],
    ) -> Result<RelayMessage<'a>, DecodeError> {
        let alloc = BoundedAlloc::new(arena, &self.options);
        let mut d = Dec::new(arena, &alloc, self, input)?;
        match d.message(Side::Relay).map_err(|e| Reader::fail(input, e))? {
            Message::Relay(m) => Ok(m),
            Message::Client(_) => unreachable!("decoded as a relay message"),
        }
    }

    /// Decode one client-to-relay message.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let msg = quarry_nostr::Decoder::new().decode_client_message(&arena, br#"["REQ","s",{"kinds":[0]}]"#)?;
    /// assert!(matches!(msg, quarry_nostr::ClientMessage::Req { sub_id: "s", .. }));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_client_message<'a>(
        &self,
        arena: &'a Arena,
        input: &'a [u8],
    ) -> Result<ClientMessage<'a>, DecodeError> {
        let alloc = BoundedAlloc::new(arena, &self.options);
        let mut d = Dec::new(arena, &alloc, self, input)?;
        match d
            .message(Side::Client)
            .map_err(|e| Reader::fail(input, e))?
        {
            Message::Client(m) => Ok(m),
            Message::Relay(_) => unreachable!("decoded as a client message"),
        }
    }

    /// Decode a message of either direction. The verb decides, except for
    /// EVENT and AUTH (an object as second element means a client's) and
    /// COUNT (an object with a `count` member means a relay's answer).
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let d = quarry_nostr::Decoder::new();
    /// assert!(matches!(d.decode_message(&arena, br#"["AUTH","challenge"]"#)?, quarry_nostr::Message::Relay(_)));
    /// assert!(matches!(d.decode_message(&arena, br#"["COUNT","s",{"kinds":[1]}]"#)?, quarry_nostr::Message::Client(_)));
    /// assert!(matches!(d.decode_message(&arena, br#"["COUNT","s",{"count":5}]"#)?, quarry_nostr::Message::Relay(_)));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_message<'a>(
        &self,
        arena: &'a Arena,
        input: &'a [u8],
    ) -> Result<Message<'a>, DecodeError> {
        let alloc = BoundedAlloc::new(arena, &self.options);
        let mut d = Dec::new(arena, &alloc, self, input)?;
        d.message(Side::Either).map_err(|e| Reader::fail(input, e))
    }
}

/// Decode a relay-to-client message with the default [`Decoder`].
pub fn decode_relay_message<'a>(
    arena: &'a Arena,
    input: &'a [u8],
) -> Result<RelayMessage<'a>, DecodeError> {
    Decoder::new().decode_relay_message(arena, input)
}

/// Decode a client-to-relay message with the default [`Decoder`].
pub fn decode_client_message<'a>(
    arena: &'a Arena,
    input: &'a [u8],
) -> Result<ClientMessage<'a>, DecodeError> {
    Decoder::new().decode_client_message(arena, input)
}

/// Decode a message of either direction with the default [`Decoder`].
pub fn decode_message<'a>(arena: &'a Arena, input: &'a [u8]) -> Result<Message<'a>, DecodeError> {
    Decoder::new().decode_message(arena, input)
}
