//! A decoded stanza that owns its bytes and arena, for queues and other
//! tasks.

use quarry_core::bytes::Bytes;
use quarry_core::{Arena, Covariant, DecodeError, MessageArena, Owned, ViewFamily};

use crate::{Decoder, Node};

/// [`Node`] as a [`ViewFamily`]: what an [`OwnedStanza`] holds, as an
/// [`Owned<NodeRoot>`](Owned).
#[derive(Debug)]
pub struct NodeRoot;

impl ViewFamily for NodeRoot {
    type View<'a> = Node<'a>;
}

impl Covariant for NodeRoot {
    fn shorten<'long: 'short, 'short>(view: Node<'long>) -> Node<'short> {
        view
    }
}

/// A decoded stanza together with its input and arena: `'static + Send`,
/// so it can be queued or handed to another thread or task, and read there
/// through [`get`](Owned::get).
///
/// Strings and payloads still borrow from the input (now a
/// [`Bytes`]), so owning the stanza copies nothing; the arena is a box of
/// its own or one checked out of a [`quarry_core::ArenaPool`] (returned when the
/// stanza is dropped). The methods every owned message has (`get`, `with`,
/// `backing_bytes`, `slice_bytes`, `arena`) are [`Owned`]'s, reached
/// through `Deref`. Two stanzas are equal when their root nodes are.
///
/// ```
/// use quarry_core::bytes::Bytes;
/// use quarry_wa::{OwnedNode, OwnedStanza};
///
/// let wire = quarry_wa::encode(&OwnedNode::new("message").attr("id", "m1").bytes(vec![9; 64]))?;
/// let stanza = OwnedStanza::decode(Bytes::from(wire))?;
/// let stanza = std::thread::spawn(move || stanza).join().unwrap();
/// assert_eq!(stanza.get().tag(), "message");
/// assert_eq!(stanza.get().attr_str("id"), Some("m1"));
///
/// // A payload that borrows from the input, as `Bytes`: shared, not
/// // copied (everything of an inflated frame, packed strings and
/// // rendered JIDs live in the arena and are copied instead).
/// let payload = stanza.slice_bytes(stanza.get().content_bytes().unwrap());
/// assert_eq!(payload, vec![9u8; 64]);
/// assert!(stanza.backing_bytes().as_ptr_range().contains(&payload.as_ptr()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, PartialEq)]
pub struct OwnedStanza {
    inner: Owned<NodeRoot>,
}

impl std::ops::Deref for OwnedStanza {
    type Target = Owned<NodeRoot>;

    fn deref(&self) -> &Owned<NodeRoot> {
        &self.inner
    }
}

impl OwnedStanza {
    /// Decode node bytes (no flags byte) into an arena of the stanza's own,
    /// with default limits.
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let stanza = quarry_wa::OwnedStanza::decode(Bytes::from_static(&[0xF8, 1, 19]))?;
    /// assert_eq!(stanza.get().tag(), "message");
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode(bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_with(&Decoder::new(), MessageArena::new(), bytes)
    }

    /// Decode a frame (flags byte, then node bytes, possibly compressed)
    /// into an arena of the stanza's own, with default limits.
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let stanza = quarry_wa::OwnedStanza::decode_frame(Bytes::from_static(&[0, 0xF8, 1, 19]))?;
    /// assert_eq!(stanza.get().tag(), "message");
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_frame(bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_frame_with(&Decoder::new(), MessageArena::new(), bytes)
    }

    /// Decode node bytes with `decoder` into `arena` (a pooled arena, a
    /// boxed one, or an [`Arena`] to box). On an error the arena is dropped
    /// (a pooled one goes back to its pool).
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let pool = quarry_core::ArenaPool::new();
    /// let stanza = quarry_wa::OwnedStanza::decode_with(
    ///     &quarry_wa::Decoder::new(),
    ///     pool.get(),
    ///     Bytes::from_static(&[0xF8, 1, 19]),
    /// )?;
    /// assert_eq!(pool.stats().checked_out, 1);
    /// drop(stanza);
    /// assert_eq!(pool.stats().pooled, 1);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_with(
        decoder: &Decoder,
        arena: impl Into<MessageArena>,
        bytes: Bytes,
    ) -> Result<Self, DecodeError> {
        let inner = Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder.decode(arena, input)
        })?;
        Ok(Self { inner })
    }

    /// Decode a frame with `decoder` into `arena`; see
    /// [`decode_with`](Self::decode_with) and [`Decoder::decode_frame`].
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let stanza = quarry_wa::OwnedStanza::decode_frame_with(
    ///     &quarry_wa::Decoder::new(),
    ///     quarry_core::Arena::new(),
    ///     Bytes::from_static(&[0, 0xF8, 1, 19]),
    /// )?;
    /// assert_eq!(stanza.get().tag(), "message");
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_frame_with(
        decoder: &Decoder,
        arena: impl Into<MessageArena>,
        bytes: Bytes,
    ) -> Result<Self, DecodeError> {
        let inner = Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder.decode_frame(arena, input)
        })?;
        Ok(Self { inner })
    }

    /// The owned message itself, for what needs it by value
    /// ([`Owned::into_bytes`]).
    pub fn into_inner(self) -> Owned<NodeRoot> {
        self.inner
    }
}
