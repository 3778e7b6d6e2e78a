//! Building messages to send: [`RecordBuilder`] writes a record into an
//! arena in the decoder's own representation (a sorted run of slots), so
//! the one encoder serves decoded and built messages alike, and a built
//! message can hold a decoded one (or any part of it) by reference.
//!
//! Generated code wraps it in one typed builder per message
//! (`FooBuilder<'a>`, whose `build` returns a `FooView<'a>`); this is the
//! untyped layer under it, addressed by field index like [`Record`]'s
//! readers, for schemas known only at run time.

use quarry_core::Arena;
use quarry_core::bumpalo::collections::Vec as ArenaVec;

use crate::record::{Record, Slot, UNKNOWN, UnknownField, Val, in_reader_order};
use crate::table::{FieldTable, Kind, Label, MessageRef, MessageTable};

/// Slots a new builder makes room for before it first grows.
const FIRST_CAPACITY: usize = 6;

/// One value of a map entry's key or value field, for
/// [`RecordBuilder::set_map`]. Scalars are normalized as
/// [`Record::scalar`] reads them.
#[derive(Clone, Copy, Debug)]
pub enum MapValue<'a> {
    /// A scalar or enum value, normalized to 64 bits.
    Scalar(u64),
    /// A `string` value.
    Str(&'a str),
    /// A `bytes` value.
    Bytes(&'a [u8]),
    /// A message value, built or decoded.
    Message(Record<'a>),
}

/// A message under construction in an arena: set fields by index, then
/// [`build`](Self::build) the [`Record`] that [`encode`](crate::encode)
/// writes and readers read.
///
/// Setting a field that is set replaces its value; setting a member of a
/// oneof clears the other members. Strings, bytes and nested messages are
/// held by reference (`'a`): a built message may quote a decoded one
/// without copying it. [`copy_str`](Self::copy_str) and
/// [`copy_bytes`](Self::copy_bytes) copy a value that does not live as
/// long as the arena. The arena holds the slots; the builder allocates
/// nothing on the heap once the arena has room.
///
/// The setters check that the field exists and is of the kind the setter
/// writes, and panic if not: a mistake in the calling code, never a
/// property of input. Generated builders always pass the right kind.
///
/// ```
/// use quarry_proto::{Arena, FieldTable, Kind, Label, MessageRef, MessageTable, RecordBuilder, Schema};
///
/// static F: [FieldTable; 2] = [
///     FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit),
///     FieldTable::new(2, "name", "name", Kind::String, Label::Implicit),
/// ];
/// static M: [MessageTable; 1] = [MessageTable::new("demo.User", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// const USER: MessageRef = MessageRef::new(&S, 0);
///
/// let arena = Arena::new();
/// let mut b = RecordBuilder::new(&arena, USER);
/// b.set_str(1, "ada");
/// b.set_scalar(0, 150);
/// let user = b.build();
/// assert_eq!(quarry_proto::encode(USER, user)?, [0x08, 0x96, 0x01, 0x12, 0x03, b'a', b'd', b'a']);
/// # Ok::<(), quarry_proto::DecodeError>(())
/// ```
pub struct RecordBuilder<'a> {
    arena: &'a Arena,
    message: MessageRef,
    /// `message`'s table, looked up once for all the setters.
    table: &'static MessageTable,
    slots: ArenaVec<'a, Slot<'a>>,
}

impl std::fmt::Debug for RecordBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordBuilder")
            .field("message", &self.message.table().full_name)
            .field("slots", &self.slots.len())
            .finish()
    }
}

impl<'a> RecordBuilder<'a> {
    /// An empty message of type `message`, built in `arena`.
    #[inline]
    pub fn new(arena: &'a Arena, message: MessageRef) -> Self {
        let table = message.table();
        let cap = table.fields.len().min(FIRST_CAPACITY);
        Self {
            arena,
            message,
            table,
            slots: ArenaVec::with_capacity_in(cap, arena.bump()),
        }
    }

    /// A message of type `message` holding what `record` holds (which
    /// must be of that type): its fields and unknown fields. Only
    /// `record`'s top-level slots are copied; its strings, bytes and
    /// nested messages are shared.
    pub fn from_record(arena: &'a Arena, message: MessageRef, record: Record<'a>) -> Self {
        let src = record.slots();
        let mut slots = ArenaVec::with_capacity_in(src.len() + 2, arena.bump());
        slots.extend(src.iter().filter(|s| !s.is_absent()).copied());
        Self {
            arena,
            message,
            table: message.table(),
            slots,
        }
    }

    /// The arena the message is built in.
    #[inline]
    pub fn arena(&self) -> &'a Arena {
        self.arena
    }

    /// The message type being built.
    #[inline]
    pub fn message(&self) -> MessageRef {
        self.message
    }

    /// `s` copied into the arena, to set as a field that must outlive it.
    #[inline]
    pub fn copy_str(&self, s: &str) -> &'a str {
        self.arena.bump().alloc_str(s)
    }

    /// `b` copied into the arena, to set as a field that must outlive it.
    #[inline]
    pub fn copy_bytes(&self, b: &[u8]) -> &'a [u8] {
        self.arena.bump().alloc_slice_copy(b)
    }

    /// The finished message. Its slots stay in the arena.
    #[inline]
    pub fn build(self) -> Record<'a> {
        let slots = self.slots.into_bump_slice();
        debug_assert!(in_reader_order(slots));
        Record::new(slots)
    }

    /// Field `field`'s table entry, checked to satisfy `ok`.
    #[inline(always)]
    fn field(
        &self,
        field: u32,
        ok: impl Fn(&FieldTable) -> bool,
        what: &str,
    ) -> &'static FieldTable {
        let table = self.table;
        match table.fields.get(field as usize) {
            Some(f) if ok(f) => f,
            _ => panic!("field {field} of {} is not {what}", table.full_name),
        }
    }

    /// Put `slot` (of known field `field`, whose table entry is `f`) in
    /// order, replacing the field's slot if it has one.
    #[inline(always)]
    fn put(&mut self, f: &FieldTable, field: u32, slot: Slot<'a>) {
        if f.oneof != 0 {
            self.clear_oneof_except(f.oneof, field);
        }
        // Fields set in number order (the usual way) append.
        match self.slots.last() {
            None => return self.slots.push(slot),
            Some(last) if last.word() < field => return self.slots.push(slot),
            _ => {}
        }
        let at = self.slots.partition_point(|s| s.field() < field);
        match self.slots.get_mut(at) {
            Some(s) if s.word() == field => *s = slot,
            _ => self.slots.insert(at, slot),
        }
    }

    /// Drop the slots of oneof `oneof`'s members other than `keep`.
    fn clear_oneof_except(&mut self, oneof: u16, keep: u32) {
        let fields = self.table.fields;
        self.slots.retain(|s| {
            s.word() == keep
                || fields
                    .get(s.word() as usize)
                    .is_none_or(|g| g.oneof != oneof)
        });
    }

    /// Set singular scalar or enum field `field` (an index into the
    /// table's fields) to `value`, normalized as [`Record::scalar`] reads
    /// it. A field without presence set to 0 is not written.
    #[inline]
    pub fn set_scalar(&mut self, field: u32, value: u64) -> &mut Self {
        let f = self.field(
            field,
            |f| is_scalar(f.kind) && f.label != Label::Repeated,
            "a singular scalar",
        );
        self.put(f, field, Slot::new(field, Val::Scalar(value)));
        self
    }

    /// Set singular `string` field `field`.
    #[inline]
    pub fn set_str(&mut self, field: u32, value: &'a str) -> &mut Self {
        let f = self.field(
            field,
            |f| f.kind == Kind::String && f.label != Label::Repeated,
            "a singular string",
        );
        self.put(f, field, Slot::new(field, Val::Str(value)));
        self
    }

    /// Set singular `bytes` field `field`.
    #[inline]
    pub fn set_bytes(&mut self, field: u32, value: &'a [u8]) -> &mut Self {
        let f = self.field(
            field,
            |f| f.kind == Kind::Bytes && f.label != Label::Repeated,
            "a singular bytes field",
        );
        self.put(f, field, Slot::new(field, Val::Bytes(value)));
        self
    }

    /// Set singular message or group field `field` to `value`, a built
    /// or decoded record of the field's type, held by reference.
    #[inline]
    pub fn set_message(&mut self, field: u32, value: Record<'a>) -> &mut Self {
        let f = self.field(
            field,
            |f| f.kind.is_message() && f.label != Label::Repeated,
            "a singular message",
        );
        self.put(f, field, Slot::new(field, Val::Msg(value.slots())));
        self
    }

    /// Set repeated scalar or enum field `field` to `values` (normalized
    /// as [`Record::scalar`] reads them), copied into the arena.
    pub fn set_scalars<I>(&mut self, field: u32, values: I) -> &mut Self
    where
        I: IntoIterator<Item = u64>,
        I::IntoIter: ExactSizeIterator,
    {
        let f = self.field(
            field,
            |f| is_scalar(f.kind) && f.label == Label::Repeated,
            "a repeated scalar",
        );
        let list = self.arena.bump().alloc_slice_fill_iter(values);
        self.put(f, field, Slot::new(field, Val::Scalars(list)));
        self
    }

    /// Set repeated `string` field `field` to `values` (the references
    /// are copied into the arena, not the strings).
    pub fn set_strs<I>(&mut self, field: u32, values: I) -> &mut Self
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: ExactSizeIterator,
    {
        let f = self.field(
            field,
            |f| f.kind == Kind::String && f.label == Label::Repeated,
            "a repeated string",
        );
        let list = self.arena.bump().alloc_slice_fill_iter(values);
        self.put(f, field, Slot::new(field, Val::Strs(list)));
        self
    }

    /// Set repeated `bytes` field `field` to `values` (the references are
    /// copied into the arena, not the bytes).
    pub fn set_bytes_list<I>(&mut self, field: u32, values: I) -> &mut Self
    where
        I: IntoIterator<Item = &'a [u8]>,
        I::IntoIter: ExactSizeIterator,
    {
        let f = self.field(
            field,
            |f| f.kind == Kind::Bytes && f.label == Label::Repeated,
            "a repeated bytes field",
        );
        let list = self.arena.bump().alloc_slice_fill_iter(values);
        self.put(f, field, Slot::new(field, Val::BytesList(list)));
        self
    }

    /// Set repeated message or group field `field` (or a map field, as
    /// its entries) to `values`, built or decoded records of the field's
    /// type, held by reference.
    pub fn set_messages<I>(&mut self, field: u32, values: I) -> &mut Self
    where
        I: IntoIterator<Item = Record<'a>>,
        I::IntoIter: ExactSizeIterator,
    {
        let f = self.field(
            field,
            |f| f.kind.is_message() && f.label == Label::Repeated,
            "a repeated message",
        );
        let list = self
            .arena
            .bump()
            .alloc_slice_fill_iter(values.into_iter().map(Record::slots));
        self.put(f, field, Slot::new(field, Val::Msgs(list)));
        self
    }

    /// Set map field `field` to `entries`, in their order. As prost does,
    /// an entry leaves out a key or value equal to its type's default
    /// (0, empty, or a message that encodes to nothing).
    pub fn set_map<I>(&mut self, field: u32, entries: I) -> &mut Self
    where
        I: IntoIterator<Item = (MapValue<'a>, MapValue<'a>)>,
        I::IntoIter: ExactSizeIterator,
    {
        let message = self.message;
        let f = self.field(
            field,
            |f| {
                f.kind == Kind::Message
                    && f.label == Label::Repeated
                    && message.sub_message(f).table().map_entry
            },
            "a map",
        );
        let entry = message.sub_message(f);
        let bump = self.arena.bump();
        let list = bump.alloc_slice_fill_iter(entries.into_iter().map(|(k, v)| {
            let (key, value) = (entry_slot(entry, 0, k), entry_slot(entry, 1, v));
            match (key, value) {
                (None, None) => &[][..],
                (Some(k), None) => std::slice::from_ref(bump.alloc(k)),
                (None, Some(v)) => std::slice::from_ref(bump.alloc(v)),
                (Some(k), Some(v)) => &*bump.alloc([k, v]),
            }
        }));
        self.put(f, field, Slot::new(field, Val::Msgs(list)));
        self
    }

    /// Leave known field `field` unset.
    pub fn clear(&mut self, field: u32) -> &mut Self {
        self.slots.retain(|s| s.word() != field);
        self
    }

    /// Leave every member of oneof `oneof` (an index into the table's
    /// oneofs) unset.
    pub fn clear_oneof(&mut self, oneof: u16) -> &mut Self {
        self.clear_oneof_except(oneof + 1, UNKNOWN);
        self
    }

    /// Add `unknown` after the known fields and the unknown fields added
    /// before it, as [`Record::unknown_fields`] yields them.
    pub fn push_unknown(&mut self, unknown: UnknownField<'a>) -> &mut Self {
        let slot = match unknown {
            UnknownField::Raw { tag, value } => Slot::unknown(tag, value),
            UnknownField::PackedEnumRejects {
                field_index,
                payload,
            } => Slot::packed_rejects(field_index, payload),
        };
        self.slots.push(slot);
        self
    }
}

/// Kinds [`RecordBuilder::set_scalar`] writes.
#[inline(always)]
fn is_scalar(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::String | Kind::Bytes | Kind::Message | Kind::Group
    )
}

/// The slot of map entry field `field` (0, the key, or 1, the value)
/// holding `value`, or `None` when prost leaves it out: the default of
/// its kind (as prost compares: `-0.0` is a default too). Panics if the value's kind is not the field's.
fn entry_slot<'a>(entry: MessageRef, field: u32, value: MapValue<'a>) -> Option<Slot<'a>> {
    let f = &entry.table().fields[field as usize];
    let val = match (value, f.kind) {
        (MapValue::Scalar(0), _) | (MapValue::Str(""), _) | (MapValue::Bytes([]), _) => {
            return None;
        }
        (MapValue::Scalar(v), Kind::Float) if f32::from_bits(v as u32) == 0.0 => return None,
        (MapValue::Scalar(v), Kind::Double) if f64::from_bits(v) == 0.0 => return None,
        (MapValue::Scalar(v), k) if is_scalar(k) => Val::Scalar(v),
        (MapValue::Str(s), Kind::String) => Val::Str(s),
        (MapValue::Bytes(b), Kind::Bytes) => Val::Bytes(b),
        (MapValue::Message(m), Kind::Message) => {
            if crate::encoded_len(entry.sub_message(f), m) == 0 {
                return None;
            }
            Val::Msg(m.slots())
        }
        _ => panic!(
            "map entry field {} of {} is not of the value's kind",
            f.name,
            entry.table().full_name
        ),
    };
    Some(Slot::new(field, val))
}
