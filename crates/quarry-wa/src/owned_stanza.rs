//! A decoded stanza that owns its bytes and arena, for queues and other
//! tasks.

use quarry_core::bytes::Bytes;
use quarry_core::{Arena, Covariant, DecodeError, MessageArena, Owned, ViewFamily};

use crate::{Decoder, Node};

/// [`Node`] as a [`ViewFamily`], the root of an [`OwnedStanza`].
struct NodeRoot;

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
/// through [`get`](Self::get).
///
/// Strings and payloads still borrow from the input (now a
/// [`Bytes`]), so owning the stanza copies nothing; the arena is a box of
/// its own or one checked out of a [`quarry_core::ArenaPool`] (returned when the
/// stanza is dropped).
///
/// ```
/// use quarry_core::bytes::Bytes;
/// use quarry_wa::{OwnedNode, OwnedStanza};
///
/// let wire = quarry_wa::encode(&OwnedNode::new("message").attr("id", "m1").bytes(vec![9; 4]))?;
/// let stanza = OwnedStanza::decode(Bytes::from(wire))?;
/// let stanza = std::thread::spawn(move || stanza).join().unwrap();
/// assert_eq!(stanza.get().tag(), "message");
/// assert_eq!(stanza.get().attr_str("id"), Some("m1"));
/// assert_eq!(stanza.get().content_bytes(), Some(&[9u8; 4][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OwnedStanza {
    inner: Owned<NodeRoot>,
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
        Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder.decode(arena, input)
        })
        .map(|inner| Self { inner })
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
        Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder.decode_frame(arena, input)
        })
        .map(|inner| Self { inner })
    }

    /// The root node, borrowing `self`.
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let stanza = quarry_wa::OwnedStanza::decode(Bytes::from_static(&[0xF8, 1, 19]))?;
    /// let root: quarry_wa::Node<'_> = stanza.get();
    /// assert_eq!(root.children().len(), 0);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn get(&self) -> Node<'_> {
        self.inner.get()
    }

    /// The bytes the stanza was decoded from (node bytes or the whole
    /// frame, as given): forward the stanza without re-encoding it. Cloning
    /// the `Bytes` shares them.
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// let wire = Bytes::from_static(&[0xF8, 1, 19]);
    /// let stanza = quarry_wa::OwnedStanza::decode(wire.clone())?;
    /// assert_eq!(stanza.backing_bytes(), &wire);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn backing_bytes(&self) -> &Bytes {
        self.inner.backing_bytes()
    }

    /// A payload or string of this stanza as `Bytes`: zero-copy when it
    /// borrows from the input (raw bytes and raw strings of an uncompressed
    /// stanza), **copied** when it lives in the arena (everything of an
    /// inflated frame, packed strings, rendered JIDs).
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// use quarry_wa::{OwnedNode, OwnedStanza};
    ///
    /// let wire = Bytes::from(quarry_wa::encode(&OwnedNode::new("enc").bytes(vec![7; 64]))?);
    /// let stanza = OwnedStanza::decode(wire)?;
    /// let payload = stanza.slice_bytes(stanza.get().content_bytes().unwrap());
    /// assert_eq!(payload, vec![7u8; 64]);
    /// let within = stanza.backing_bytes().as_ptr_range();
    /// assert!(within.contains(&payload.as_ptr())); // shared, not copied
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn slice_bytes(&self, part: &[u8]) -> Bytes {
        self.inner.slice_bytes(part)
    }

    /// The arena the stanza lives in (for its statistics).
    pub fn arena(&self) -> &Arena {
        self.inner.arena()
    }

    /// Drop the views, free or return the arena, and give back the input.
    pub fn into_bytes(self) -> Bytes {
        self.inner.into_bytes()
    }
}

impl std::fmt::Debug for OwnedStanza {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedStanza")
            .field("root", &self.get())
            .field("input_len", &self.backing_bytes().len())
            .finish()
    }
}
