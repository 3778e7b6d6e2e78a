//! A decoded protobuf message that owns its bytes and arena, for queues and
//! other tasks.

use quarry_core::bytes::Bytes;
use quarry_core::{Arena, Covariant, DecodeError, MessageArena, Owned, ViewFamily};

use crate::{Decoder, MessageRef, Record};

/// [`Record`] as a [`ViewFamily`]: shared slots and borrowed values only,
/// so covariant, which [`OwnedRecord::get`] relies on.
struct RecordRoot;

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
/// through [`get`](Self::get).
///
/// Strings and bytes still borrow from the input (now a [`Bytes`]), so
/// owning the message copies nothing; the arena is a box of its own or one
/// checked out of a [`quarry_core::ArenaPool`] (returned when the message is
/// dropped). Generated views wrap the record with `FooView::from_record`.
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
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub struct OwnedRecord {
    message: MessageRef,
    inner: Owned<RecordRoot>,
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

    /// The decoded record, for as long as `self` is borrowed. Generated
    /// views wrap it with `FooView::from_record`.
    ///
    /// ```
    /// # use quarry_core::bytes::Bytes;
    /// # use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, OwnedRecord, Schema};
    /// # static FIELDS: [FieldTable; 1] = [FieldTable::new(1, "name", "name", Kind::String, Label::Implicit)];
    /// # static MESSAGES: [MessageTable; 1] = [MessageTable::new("demo.User", &FIELDS, &[])];
    /// # static SCHEMA: Schema = Schema { messages: &MESSAGES, enums: &[] };
    /// # const USER: MessageRef = MessageRef::new(&SCHEMA, 0);
    /// let rec = OwnedRecord::decode(USER, Bytes::from_static(&[0x0A, 0x03, b'a', b'd', b'a']))?;
    /// let name: &str = rec.get().str(0).unwrap();
    /// // Strings borrow from the input: a zero-copy `Bytes` of one.
    /// assert_eq!(rec.slice_bytes(name.as_bytes()), "ada");
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn get(&self) -> Record<'_> {
        self.inner.get()
    }

    /// Call `f` with the decoded record (see [`Owned::with`]). The same as
    /// `f(self.get())`.
    pub fn with<R>(&self, f: impl for<'a> FnOnce(Record<'a>) -> R) -> R {
        self.inner.with(f)
    }

    /// The message type the record was decoded as.
    pub fn message(&self) -> MessageRef {
        self.message
    }

    /// The bytes the message was decoded from: forward it without
    /// re-encoding. Cloning the `Bytes` shares them.
    pub fn backing_bytes(&self) -> &Bytes {
        self.inner.backing_bytes()
    }

    /// A `string` or `bytes` value of this message as `Bytes`, zero-copy
    /// (they borrow from the input).
    pub fn slice_bytes(&self, part: &[u8]) -> Bytes {
        self.inner.slice_bytes(part)
    }

    /// The arena the message lives in (for its statistics).
    pub fn arena(&self) -> &Arena {
        self.inner.arena()
    }

    /// Drop the record, free or return the arena, and give back the input.
    pub fn into_bytes(self) -> Bytes {
        self.inner.into_bytes()
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
