//! A decoded protobuf message that owns its bytes and arena, for queues and
//! other tasks.

use quarry_core::bytes::Bytes;
use quarry_core::{Arena, Covariant, DecodeError, MessageArena, Owned, ViewFamily};

use crate::{Decoder, MessageRef, Record};

/// [`Record`] as a [`ViewFamily`]: what an [`OwnedRecord`] holds, as an
/// [`Owned<RecordRoot>`](Owned). Shared slots and borrowed values only, so
/// covariant, which [`Owned::get`] relies on.
#[derive(Debug)]
pub struct RecordRoot;

impl ViewFamily for RecordRoot {
    type View<'a> = Record<'a>;
}

impl Covariant for RecordRoot {
    fn shorten<'long: 'short, 'short>(view: Record<'long>) -> Record<'short> {
        view
    }
}

/// A decoded message together with its input and arena: `'static + Send`,
/// so it can be queued or handed to another thread or task, and read there
/// through [`get`](Owned::get).
///
/// Strings and bytes still borrow from the input (now a [`Bytes`]), so
/// owning the message copies nothing; the arena is a box of its own or one
/// checked out of a [`quarry_core::ArenaPool`] (returned when the message is
/// dropped). Generated views wrap the record with `FooView::from_record`.
/// The methods every owned message has (`get`, `with`, `backing_bytes`,
/// `slice_bytes`, `arena`) are [`Owned`]'s, reached through `Deref`. Two
/// owned records are equal when their message types have the same full
/// name and their records are equal.
///
/// ```
/// use quarry_core::bytes::Bytes;
/// use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, OwnedRecord, Schema};
///
/// static FIELDS: [FieldTable; 2] = [
///     FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit),
///     FieldTable::new(2, "tags", "tags", Kind::String, Label::Repeated),
/// ];
/// static MESSAGES: [MessageTable; 1] = [MessageTable::new("demo.Post", &FIELDS, &[])];
/// static SCHEMA: Schema = Schema { messages: &MESSAGES, enums: &[] };
/// const POST: MessageRef = MessageRef::new(&SCHEMA, 0);
///
/// let wire = Bytes::from_static(&[0x08, 0x07, 0x12, 0x02, b'h', b'i', 0x12, 0x01, b'x']);
/// let post = OwnedRecord::decode(POST, wire)?;
/// let post = std::thread::spawn(move || post).join().unwrap();
/// assert_eq!(post.get().scalar(0), Some(7));
/// assert_eq!(post.get().strs(1).to_vec().join(" "), "hi x");
///
/// // Strings and bytes borrow from the input: a zero-copy `Bytes` of one.
/// let tag: &str = post.get().strs(1)[0];
/// let shared = post.slice_bytes(tag.as_bytes());
/// assert_eq!(shared, "hi");
/// assert!(post.backing_bytes().as_ptr_range().contains(&shared.as_ptr()));
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub struct OwnedRecord {
    message: MessageRef,
    inner: Owned<RecordRoot>,
}

impl std::ops::Deref for OwnedRecord {
    type Target = Owned<RecordRoot>;

    fn deref(&self) -> &Owned<RecordRoot> {
        &self.inner
    }
}

impl PartialEq for OwnedRecord {
    fn eq(&self, other: &Self) -> bool {
        self.message.table().full_name == other.message.table().full_name
            && self.inner == other.inner
    }
}

impl OwnedRecord {
    /// Decode `bytes` as one `message` into an arena of its own, with the
    /// default [`Decoder`].
    pub fn decode(message: MessageRef, bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_with(&Decoder::new(), message, MessageArena::new(), bytes)
    }

    /// Decode with `decoder` into `arena` (a pooled arena, a boxed one, or
    /// an [`Arena`] to box). On an error the arena is dropped (a pooled one
    /// goes back to its pool).
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// # use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, OwnedRecord, Schema};
    /// # static FIELDS: [FieldTable; 1] = [FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit)];
    /// # static MESSAGES: [MessageTable; 1] = [MessageTable::new("demo.Id", &FIELDS, &[])];
    /// # static SCHEMA: Schema = Schema { messages: &MESSAGES, enums: &[] };
    /// # const ID: MessageRef = MessageRef::new(&SCHEMA, 0);
    /// let pool = quarry_core::ArenaPool::new();
    /// let rec = OwnedRecord::decode_with(
    ///     &quarry_proto::Decoder::new(),
    ///     ID,
    ///     pool.get(),
    ///     Bytes::from_static(&[0x08, 0x2A]),
    /// )?;
    /// assert_eq!(pool.stats().checked_out, 1);
    /// drop(rec);
    /// assert_eq!(pool.stats().pooled, 1);
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn decode_with(
        decoder: &Decoder,
        message: MessageRef,
        arena: impl Into<MessageArena>,
        bytes: Bytes,
    ) -> Result<Self, DecodeError> {
        Owned::try_new(bytes, arena, |arena: &Arena, input: &[u8]| {
            decoder.decode(message, arena, input)
        })
        .map(|inner| Self { message, inner })
    }

    /// The message type the record was decoded as.
    pub fn message(&self) -> MessageRef {
        self.message
    }

    /// The owned message itself, for what needs it by value
    /// ([`Owned::into_bytes`]).
    pub fn into_inner(self) -> Owned<RecordRoot> {
        self.inner
    }
}

/// As a generated view prints it: the message's full name and its text
/// format (see [`text::fmt_debug`](crate::text::fmt_debug)).
///
/// ```
/// # use quarry_core::bytes::Bytes;
/// # use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, OwnedRecord, Schema};
/// # static FIELDS: [FieldTable; 1] = [FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit)];
/// # static MESSAGES: [MessageTable; 1] = [MessageTable::new("demo.Id", &FIELDS, &[])];
/// # static SCHEMA: Schema = Schema { messages: &MESSAGES, enums: &[] };
/// # const ID: MessageRef = MessageRef::new(&SCHEMA, 0);
/// let rec = OwnedRecord::decode(ID, Bytes::from_static(&[0x08, 0x2A]))?;
/// assert_eq!(format!("{rec:?}"), "demo.Id { id: 42 }");
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
impl std::fmt::Debug for OwnedRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::text::fmt_debug(self.message, self.get(), f)
    }
}
