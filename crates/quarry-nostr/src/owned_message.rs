//! A decoded relay or client message that owns its bytes and arena, for
//! queues and other tasks.

use quarry_core::bytes::Bytes;
use quarry_core::{Arena, Covariant, DecodeError, MessageArena, Owned, ViewFamily};

use crate::{ClientMessage, Decoder, Event, Message, RelayMessage};

/// [`Message`] as a [`ViewFamily`]: what an [`OwnedMessage`] holds, as an
/// [`Owned<MessageRoot>`](Owned).
#[derive(Debug)]
pub struct MessageRoot;

impl ViewFamily for MessageRoot {
    type View<'a> = Message<'a>;
}

impl Covariant for MessageRoot {
    fn shorten<'long: 'short, 'short>(view: Message<'long>) -> Message<'short> {
        view
    }
}

/// A decoded relay or client message together with its input and arena:
/// `'static + Send`, so it can be queued or handed to another thread or
/// task, and read there through [`get`](Owned::get).
///
/// Strings without escapes and the event's raw JSON still borrow from the
/// input (now a [`Bytes`]), so owning the message copies nothing; the arena
/// is a box of its own or one checked out of a [`quarry_core::ArenaPool`]
/// (returned when the message is dropped). The methods every owned message
/// has (`get`, `with`, `backing_bytes`, `slice_bytes`, `arena`) are
/// [`Owned`]'s, reached through `Deref`. Two messages are equal when their
/// [`Message`]s are.
///
/// ```
/// use quarry_core::bytes::Bytes;
/// use quarry_nostr::OwnedMessage;
///
/// let json = format!(r#"["EVENT",{}]"#, quarry_nostr::SAMPLE_EVENT);
/// let msg = OwnedMessage::decode_client(Bytes::from(json))?;
/// let msg = std::thread::spawn(move || msg).join().unwrap();
/// let event = msg.event().unwrap();
/// assert_eq!(event.kind(), 1);
/// assert_eq!(event.id_valid(), Some(true));
///
/// // The event's JSON, to store or relay as is: a `Bytes` sharing the
/// // input (strings that had escapes live in the arena and are copied).
/// let raw = msg.slice_bytes(event.raw());
/// assert_eq!(raw, quarry_nostr::SAMPLE_EVENT.as_bytes());
/// assert!(msg.backing_bytes().as_ptr_range().contains(&raw.as_ptr()));
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
#[derive(Debug, PartialEq)]
pub struct OwnedMessage {
    inner: Owned<MessageRoot>,
}

impl std::ops::Deref for OwnedMessage {
    type Target = Owned<MessageRoot>;

    fn deref(&self) -> &Owned<MessageRoot> {
        &self.inner
    }
}

impl OwnedMessage {
    /// Decode a client-to-relay message into an arena of its own, with the
    /// default [`Decoder`].
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let msg = quarry_nostr::OwnedMessage::decode_client(Bytes::from_static(br#"["CLOSE","s1"]"#))?;
    /// assert!(matches!(msg.client(), Some(quarry_nostr::ClientMessage::Close { sub_id: "s1" })));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_client(bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_client_with(&Decoder::new(), MessageArena::new(), bytes)
    }

    /// Decode a relay-to-client message into an arena of its own, with the
    /// default [`Decoder`].
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let msg = quarry_nostr::OwnedMessage::decode_relay(Bytes::from_static(br#"["EOSE","s1"]"#))?;
    /// assert!(matches!(msg.relay(), Some(quarry_nostr::RelayMessage::Eose { sub_id: "s1" })));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_relay(bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_relay_with(&Decoder::new(), MessageArena::new(), bytes)
    }

    /// Decode a message of either direction (see
    /// [`Decoder::decode_message`]) into an arena of its own.
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let msg = quarry_nostr::OwnedMessage::decode(Bytes::from_static(br#"["NOTICE","hi"]"#))?;
    /// assert!(matches!(msg.get(), quarry_nostr::Message::Relay(_)));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode(bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_with(&Decoder::new(), MessageArena::new(), bytes)
    }

    /// Decode a client-to-relay message with `decoder` into `arena` (a
    /// pooled arena, a boxed one, or an [`Arena`] to box). On an error the
    /// arena is dropped (a pooled one goes back to its pool).
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let pool = quarry_core::ArenaPool::new();
    /// let msg = quarry_nostr::OwnedMessage::decode_client_with(
    ///     &quarry_nostr::Decoder::new(),
    ///     pool.get(),
    ///     Bytes::from_static(br#"["REQ","s",{"kinds":[1]}]"#),
    /// )?;
    /// assert_eq!(pool.stats().checked_out, 1);
    /// drop(msg);
    /// assert_eq!(pool.stats().pooled, 1);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_client_with(
        decoder: &Decoder,
        arena: impl Into<MessageArena>,
        bytes: Bytes,
    ) -> Result<Self, DecodeError> {
        Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder
                .decode_client_message(arena, input)
                .map(Message::Client)
        })
        .map(|inner| Self { inner })
    }

    /// Decode a relay-to-client message with `decoder` into `arena`; see
    /// [`decode_client_with`](Self::decode_client_with).
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let msg = quarry_nostr::OwnedMessage::decode_relay_with(
    ///     &quarry_nostr::Decoder::new(),
    ///     quarry_core::Arena::new(),
    ///     Bytes::from_static(br#"["AUTH","challenge"]"#),
    /// )?;
    /// assert!(msg.relay().is_some());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_relay_with(
        decoder: &Decoder,
        arena: impl Into<MessageArena>,
        bytes: Bytes,
    ) -> Result<Self, DecodeError> {
        Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder
                .decode_relay_message(arena, input)
                .map(Message::Relay)
        })
        .map(|inner| Self { inner })
    }

    /// Decode a message of either direction with `decoder` into `arena`.
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let msg = quarry_nostr::OwnedMessage::decode_with(
    ///     &quarry_nostr::Decoder::new(),
    ///     quarry_core::Arena::new(),
    ///     Bytes::from_static(br#"["COUNT","s",{"count":5}]"#),
    /// )?;
    /// assert!(msg.relay().is_some());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_with(
        decoder: &Decoder,
        arena: impl Into<MessageArena>,
        bytes: Bytes,
    ) -> Result<Self, DecodeError> {
        Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder.decode_message(arena, input)
        })
        .map(|inner| Self { inner })
    }

    /// The message, if it is a relay's.
    pub fn relay(&self) -> Option<RelayMessage<'_>> {
        match self.get() {
            Message::Relay(m) => Some(m),
            Message::Client(_) => None,
        }
    }

    /// The message, if it is a client's.
    pub fn client(&self) -> Option<ClientMessage<'_>> {
        match self.get() {
            Message::Client(m) => Some(m),
            Message::Relay(_) => None,
        }
    }

    /// The event the message carries, if any (EVENT, AUTH).
    pub fn event(&self) -> Option<Event<'_>> {
        self.get().event()
    }

    /// The owned message itself, for what needs it by value
    /// ([`Owned::into_bytes`]).
    pub fn into_inner(self) -> Owned<MessageRoot> {
        self.inner
    }
}
