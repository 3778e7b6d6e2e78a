//! The static description of a schema that drives the decoder, the encoder
//! and the JSON printer.
//!
//! `quarry-proto-build` emits these tables as `static` data for generated
//! code; [`Schema`]s built at run time (the CLI) are the same types leaked
//! once, so both paths run the same decoder.

/// A whole schema: every message and enum reachable from the roots, each
/// referred to by its index. Indices instead of references keep recursive
/// schemas expressible as plain `static` data.
#[derive(Debug)]
pub struct Schema {
    /// Message tables, indexed by [`FieldTable::sub`] for message fields.
    pub messages: &'static [MessageTable],
    /// Enum tables, indexed by [`FieldTable::sub`] for enum fields.
    pub enums: &'static [EnumTable],
}

/// One message type of a [`Schema`], as the entry point of a decode.
///
/// ```
/// use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, Schema};
///
/// static FIELDS: [FieldTable; 1] = [FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit)];
/// static MESSAGES: [MessageTable; 1] = [MessageTable::new("demo.Ping", &FIELDS, &[])];
/// static SCHEMA: Schema = Schema { messages: &MESSAGES, enums: &[] };
/// const PING: MessageRef = MessageRef::new(&SCHEMA, 0);
/// assert_eq!(PING.table().full_name, "demo.Ping");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct MessageRef {
    /// The schema the message belongs to.
    pub schema: &'static Schema,
    /// Index into [`Schema::messages`].
    pub index: u32,
}

impl MessageRef {
    /// The message at `index` of `schema`.
    pub const fn new(schema: &'static Schema, index: u32) -> Self {
        Self { schema, index }
    }

    /// The message's table. Panics if `index` is out of range, which a
    /// generated or built schema never is.
    pub fn table(self) -> &'static MessageTable {
        &self.schema.messages[self.index as usize]
    }

    /// Whether `record`'s own fields can be this message's: each known
    /// field's index is one of the table's, and its value of the field's
    /// kind (a string or bytes value for a `string` or `bytes` field, a
    /// list for a repeated field, a message for a message field). Nested
    /// messages are not looked at, and two types with the same fields
    /// pass for each other: a record does not know its type.
    ///
    /// ```
    /// use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, Schema};
    /// static A: [FieldTable; 1] = [FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit)];
    /// static B: [FieldTable; 1] = [FieldTable::new(1, "s", "s", Kind::String, Label::Implicit)];
    /// static M: [MessageTable; 2] = [MessageTable::new("t.A", &A, &[]), MessageTable::new("t.B", &B, &[])];
    /// static S: Schema = Schema { messages: &M, enums: &[] };
    /// let arena = quarry_core::Arena::new();
    /// let a = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x07])?;
    /// assert!(MessageRef::new(&S, 0).holds(a));
    /// assert!(!MessageRef::new(&S, 1).holds(a));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn holds(self, record: crate::Record<'_>) -> bool {
        let fields = self.table().fields;
        record.present().all(|slot| {
            if slot.field() == crate::record::UNKNOWN {
                return true;
            }
            fields
                .get(slot.word() as usize)
                .is_some_and(|f| slot.fits(f.kind, f.label == Label::Repeated))
        })
    }

    /// The message type of field `field` (an index into the table's
    /// fields), if it is a message or group field.
    pub fn sub_message(self, field: &FieldTable) -> MessageRef {
        MessageRef::new(self.schema, field.sub)
    }
}

/// One message type: its fields sorted by number, and a lookup from field
/// number to field index.
#[derive(Debug)]
pub struct MessageTable {
    /// Fully qualified name without a leading dot (`pkg.Outer.Inner`).
    pub full_name: &'static str,
    /// Fields in ascending field-number order.
    pub fields: &'static [FieldTable],
    /// Dense lookup: `by_number[n]` is the index of field number `n` plus
    /// one, or 0 when `n` is not a field. Numbers past its end are looked up
    /// by binary search in `fields`. May be empty.
    pub by_number: &'static [u16],
    /// Names of the oneofs (real ones, not proto3 `optional` wrappers),
    /// indexed by [`FieldTable::oneof`] minus one.
    pub oneofs: &'static [&'static str],
    /// True for the synthetic entry message of a `map<K, V>` field.
    pub map_entry: bool,
    /// The decoder's first look at a one-byte tag (field numbers 1 to 15),
    /// indexed by field number: see [`MessageTable::short_of`]. Must equal
    /// `short_of(fields)`; [`MessageTable::new`] and `quarry-proto-build`
    /// set it so.
    pub short: [u16; 16],
    /// Decoded messages of this type may be dense records (one slot per
    /// field, absent ones marked, written in place): see
    /// [`MessageTable::dense_of`]. Must equal `dense_of(fields)`;
    /// [`MessageTable::new`] and `quarry-proto-build` set it so.
    pub dense: bool,
}

impl MessageTable {
    /// A table with no dense lookup and no oneofs.
    pub const fn new(
        full_name: &'static str,
        fields: &'static [FieldTable],
        by_number: &'static [u16],
    ) -> Self {
        Self {
            full_name,
            fields,
            by_number,
            oneofs: &[],
            map_entry: false,
            short: Self::short_of(fields),
            dense: Self::dense_of(fields),
        }
    }

    /// Most fields a message may have for [`dense`](MessageTable::dense)
    /// records.
    pub const DENSE_FIELDS: usize = 8;

    /// Whether messages with `fields` (with [`FieldTable::op`] set) may be
    /// decoded into dense records: at most [`DENSE_FIELDS`](Self::DENSE_FIELDS)
    /// fields, each with a reader of its own, none repeated (a dense
    /// record holds one value per field) and none a oneof member (whose
    /// slot in a dense record would outlive the member that displaced
    /// it). The decoder writes a dense record
    /// only while its budget for a decode (one dense slot per two input
    /// bytes, all dense records together) has a slot per field, so dense
    /// slots take at most 16 bytes per input byte, as the slots of sparse
    /// records do.
    ///
    /// ```
    /// use quarry_proto::{FieldTable, Kind, Label, MessageTable};
    /// static KEY: [FieldTable; 2] = [
    ///     FieldTable::new(1, "jid", "jid", Kind::String, Label::Implicit),
    ///     FieldTable::new(2, "from_me", "fromMe", Kind::Bool, Label::Implicit),
    /// ];
    /// static LIST: [FieldTable; 1] = [FieldTable::new(1, "ids", "ids", Kind::UInt64, Label::Repeated)];
    /// assert!(MessageTable::dense_of(&KEY));
    /// assert!(!MessageTable::dense_of(&LIST));
    /// ```
    pub const fn dense_of(fields: &[FieldTable]) -> bool {
        if fields.len() > Self::DENSE_FIELDS {
            return false;
        }
        let mut i = 0;
        while i < fields.len() {
            let reader = fields[i].op >> 3;
            if matches!(reader, op::RARE | op::MSGS) || fields[i].op & op::MEMBER != 0 {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The [`short`](MessageTable::short) lookup of `fields` (sorted by
    /// number, [`FieldTable::op`] set). Entry `n` describes field number
    /// `n` when the decoder can read it from its one-byte tag without the
    /// field's entry: the tag byte it expects (`n << 3 | wire type`) in
    /// bits 0 to 7, the reader ([`FieldTable::op`] bits 3 to 6) in bits 8
    /// to 11, the field's index in bits 12 to 15 (below 15: numbers are
    /// distinct and sorted, so field `n` has index `n - 1` or less). A
    /// oneof member's tag byte has bit 7 set, so no tag byte equals it:
    /// the decoder reads a member after checking which member it displaces.
    /// Other entries are `0xFF`, a byte no one-byte tag equals.
    ///
    /// ```
    /// use quarry_proto::{FieldTable, Kind, Label, MessageTable};
    /// static FIELDS: [FieldTable; 2] = [
    ///     FieldTable::new(2, "id", "id", Kind::UInt64, Label::Implicit),
    ///     FieldTable::new(5, "tags", "tags", Kind::UInt64, Label::Repeated),
    /// ];
    /// let short = MessageTable::short_of(&FIELDS);
    /// // Field 2: tag 0x10 (varint), reader 5 (64-bit varint), index 0.
    /// assert_eq!(short[2], 0x10 | 5 << 8);
    /// // Repeated scalars are read through their entry; 1 is no field.
    /// assert_eq!((short[1], short[5]), (0xFF, 0xFF));
    ///
    /// static PICK: [FieldTable; 1] = [FieldTable {
    ///     oneof: 1,
    ///     op: FieldTable::op_of(Kind::String, Label::Explicit, true, true),
    ///     ..FieldTable::new(3, "name", "name", Kind::String, Label::Explicit)
    /// }];
    /// // A oneof member: tag 0x1A with bit 7, reader 1 (UTF-8 string), index 0.
    /// assert_eq!(MessageTable::short_of(&PICK)[3], 0x80 | 0x1A | 1 << 8);
    /// ```
    pub const fn short_of(fields: &[FieldTable]) -> [u16; 16] {
        let mut short = [0xFFu16; 16];
        let mut i = 0;
        while i < fields.len() && i < 15 {
            let f = &fields[i];
            let reader = (f.op >> 3) & 15;
            if f.number < 16 && reader != op::RARE {
                short[f.number as usize] = ((f.number as u16) << 3)
                    | (f.op & (7 | op::MEMBER)) as u16
                    | (reader as u16) << 8
                    | (i as u16) << 12;
            }
            i += 1;
        }
        short
    }

    /// The index of field number `number`, if the message has it.
    ///
    /// ```
    /// use quarry_proto::{FieldTable, Kind, Label, MessageTable};
    /// static FIELDS: [FieldTable; 2] = [
    ///     FieldTable::new(2, "a", "a", Kind::Bool, Label::Implicit),
    ///     FieldTable::new(900, "b", "b", Kind::Bool, Label::Implicit),
    /// ];
    /// static T: MessageTable = MessageTable::new("t.T", &FIELDS, &[0, 0, 1]);
    /// assert_eq!(T.field_index(2), Some(0));
    /// assert_eq!(T.field_index(900), Some(1));
    /// assert_eq!(T.field_index(1), None);
    /// ```
    #[inline]
    pub fn field_index(&self, number: u32) -> Option<u32> {
        if let Some(&slot) = self.by_number.get(number as usize) {
            // 0 marks "no such field"; others are index + 1.
            return u32::from(slot).checked_sub(1);
        }
        self.fields
            .binary_search_by_key(&number, |f| f.number)
            .ok()
            .map(|i| i as u32)
    }
}

/// The wire-level kind of a field's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `double`
    Double,
    /// `float`
    Float,
    /// `int64`
    Int64,
    /// `uint64`
    UInt64,
    /// `int32`
    Int32,
    /// `uint32`
    UInt32,
    /// `fixed64`
    Fixed64,
    /// `fixed32`
    Fixed32,
    /// `bool`
    Bool,
    /// `string` (UTF-8 checked when [`FieldTable::utf8`] is set)
    String,
    /// `bytes`
    Bytes,
    /// A nested message, length-delimited.
    Message,
    /// A nested message delimited by group tags.
    Group,
    /// An enum; [`FieldTable::sub`] names its [`EnumTable`].
    Enum,
    /// `sfixed32`
    SFixed32,
    /// `sfixed64`
    SFixed64,
    /// `sint32` (zigzag)
    SInt32,
    /// `sint64` (zigzag)
    SInt64,
}

impl Kind {
    /// The wire type of one value of this kind.
    pub const fn wire_type(self) -> u8 {
        match self {
            Kind::Double | Kind::Fixed64 | Kind::SFixed64 => 1,
            Kind::Float | Kind::Fixed32 | Kind::SFixed32 => 5,
            Kind::String | Kind::Bytes | Kind::Message => 2,
            Kind::Group => 3,
            _ => 0,
        }
    }

    /// True for kinds that a repeated field may pack.
    pub const fn packable(self) -> bool {
        !matches!(
            self,
            Kind::String | Kind::Bytes | Kind::Message | Kind::Group
        )
    }

    /// True for message and group fields.
    pub const fn is_message(self) -> bool {
        matches!(self, Kind::Message | Kind::Group)
    }
}

/// How many values a field holds and whether absence is visible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// A proto3 singular field without `optional`: absent reads as the
    /// default, and the default is not written when encoding.
    Implicit,
    /// A field with presence (proto2 `optional`/`required`, proto3
    /// `optional`, oneof members, messages).
    Explicit,
    /// A `repeated` field (and `map` fields, as repeated entries).
    Repeated,
}

/// A proto2 default value of a scalar, string or bytes field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    /// The type's zero value.
    Zero,
    /// A numeric default, stored as the decoder stores values of the field's
    /// kind (see [`Record::scalar`](crate::Record::scalar)).
    Scalar(u64),
    /// A `string` or `bytes` default.
    Bytes(&'static [u8]),
}

/// One field of a [`MessageTable`].
#[derive(Debug)]
pub struct FieldTable {
    /// The field number.
    pub number: u32,
    /// The name in the `.proto` file. Extension fields (the tables list
    /// every extension of the compiled files with the message it extends)
    /// are named `[pkg.ext]` (their full name in brackets, as text and JSON
    /// print them), in `json_name` too.
    pub name: &'static str,
    /// The JSON name (lowerCamelCase unless `json_name` says otherwise).
    pub json_name: &'static str,
    /// The kind of its values.
    pub kind: Kind,
    /// Singular with or without presence, or repeated.
    pub label: Label,
    /// For repeated scalars: encode packed.
    pub packed: bool,
    /// For `string` fields: reject invalid UTF-8 while decoding.
    pub utf8: bool,
    /// For message/group fields the index of the message in
    /// [`Schema::messages`], for enum fields the index of the enum in
    /// [`Schema::enums`]; 0 otherwise.
    pub sub: u32,
    /// 0, or the index plus one of the oneof the field belongs to.
    pub oneof: u16,
    /// The value an absent singular field reads as.
    pub default: DefaultValue,
    /// How the decoder reads the field's common case: the wire type it
    /// expects in the low three bits, a reader in bits 3 to 6 (0: none, the
    /// decoder reads the field through its whole entry), and in bit 7 a
    /// mark for a oneof member. Must equal
    /// [`FieldTable::op_of`] of the other fields, or
    /// [`FieldTable::whole_entry_op`] for the value of a map entry whose
    /// values are a closed enum; [`FieldTable::new`] and
    /// `quarry-proto-build` set it so.
    pub op: u8,
}

/// Readers [`FieldTable::op`] names (shifted left by 3).
pub(crate) mod op {
    pub const RARE: u8 = 0;
    pub const STR: u8 = 1;
    pub const BYTES: u8 = 2;
    pub const MSG: u8 = 3;
    pub const MSGS: u8 = 4;
    pub const VARINT: u8 = 5;
    pub const INT32: u8 = 6;
    pub const UINT32: u8 = 7;
    pub const BOOL: u8 = 8;
    pub const SINT32: u8 = 9;
    pub const SINT64: u8 = 10;
    pub const ENUM: u8 = 11;
    pub const FIXED64: u8 = 12;
    pub const FIXED32: u8 = 13;
    pub const SFIXED32: u8 = 14;
    /// Not a reader: the bit of [`FieldTable::op`](super::FieldTable::op)
    /// that marks a oneof member.
    pub const MEMBER: u8 = 1 << 7;
}

impl FieldTable {
    /// The [`op`](FieldTable::op) of a field: singular fields and
    /// repeated message fields get a reader of their own, the rest (other
    /// repeated fields, groups) none; oneof members are marked (bit 7).
    ///
    /// ```
    /// use quarry_proto::{FieldTable, Kind, Label};
    /// // A string read as UTF-8 (reader 1), length-delimited (wire type 2).
    /// assert_eq!(FieldTable::op_of(Kind::String, Label::Implicit, false, true), 1 << 3 | 2);
    /// // The same as a oneof member.
    /// assert_eq!(FieldTable::op_of(Kind::String, Label::Explicit, true, true), 0x80 | 1 << 3 | 2);
    /// ```
    pub const fn op_of(kind: Kind, label: Label, in_oneof: bool, utf8: bool) -> u8 {
        let repeated = matches!(label, Label::Repeated);
        let reader = if repeated && !matches!(kind, Kind::Message) {
            op::RARE
        } else {
            match kind {
                Kind::String if utf8 => op::STR,
                Kind::String | Kind::Bytes => op::BYTES,
                Kind::Message if repeated => op::MSGS,
                Kind::Message => op::MSG,
                Kind::Group => op::RARE,
                Kind::Int64 | Kind::UInt64 => op::VARINT,
                Kind::Int32 => op::INT32,
                Kind::UInt32 => op::UINT32,
                Kind::Bool => op::BOOL,
                Kind::SInt32 => op::SINT32,
                Kind::SInt64 => op::SINT64,
                Kind::Enum => op::ENUM,
                Kind::Double | Kind::Fixed64 | Kind::SFixed64 => op::FIXED64,
                Kind::Float | Kind::Fixed32 => op::FIXED32,
                Kind::SFixed32 => op::SFIXED32,
            }
        };
        let member = if in_oneof { op::MEMBER } else { 0 };
        member | (reader << 3) | kind.wire_type()
    }

    /// The [`op`](FieldTable::op) of a field with no reader of its own,
    /// which the decoder always reads through its whole entry. Code
    /// generators give it to the value field of a map entry whose values are
    /// a closed enum: an unlisted value there makes the whole entry an
    /// unknown field of the map's message, which only that path handles
    /// (the inline readers stay free of the check).
    ///
    /// ```
    /// use quarry_proto::{FieldTable, Kind};
    /// assert_eq!(FieldTable::whole_entry_op(Kind::Enum), 0); // varint, no reader
    /// ```
    pub const fn whole_entry_op(kind: Kind) -> u8 {
        (op::RARE << 3) | kind.wire_type()
    }

    /// A field with no sub-type, no oneof, zero default; strings are
    /// UTF-8 checked; repeated scalars are packed.
    pub const fn new(
        number: u32,
        name: &'static str,
        json_name: &'static str,
        kind: Kind,
        label: Label,
    ) -> Self {
        Self {
            number,
            name,
            json_name,
            kind,
            label,
            packed: matches!(label, Label::Repeated) && kind.packable(),
            utf8: true,
            sub: 0,
            oneof: 0,
            default: DefaultValue::Zero,
            op: Self::op_of(kind, label, false, true),
        }
    }

    /// True for `repeated` (and map) fields.
    #[inline]
    pub const fn is_repeated(&self) -> bool {
        matches!(self.label, Label::Repeated)
    }
}

/// One enum type.
#[derive(Debug)]
pub struct EnumTable {
    /// Fully qualified name without a leading dot.
    pub full_name: &'static str,
    /// Closed (proto2) enums keep values they do not list as unknown fields
    /// instead of storing them in the field.
    pub closed: bool,
    /// `(number, name)` sorted by number, one name per number (the first
    /// one declared when aliases exist).
    pub values: &'static [(i32, &'static str)],
    /// Bit `n` set for each number `n` in 0..64 that `values` lists: what
    /// the decoder checks a closed enum's values against without a search.
    /// Must equal [`EnumTable::known_of`] of `values`; `quarry-proto-build`
    /// sets it so.
    pub known: u64,
}

impl EnumTable {
    /// True if `value` is one of the enum's numbers.
    ///
    /// ```
    /// use quarry_proto::EnumTable;
    /// static V: [(i32, &str); 3] = [(0, "A"), (5, "B"), (900, "C")];
    /// static E: EnumTable = EnumTable {
    ///     full_name: "e.E",
    ///     closed: true,
    ///     values: &V,
    ///     known: EnumTable::known_of(&V),
    /// };
    /// assert!(E.contains(5) && E.contains(900));
    /// assert!(!E.contains(4) && !E.contains(-1) && !E.contains(64));
    /// ```
    #[inline]
    pub fn contains(&self, value: i32) -> bool {
        // Most enums number their values from 0 without going past 63: one
        // bit test instead of a lookup in `values` per closed-enum value a
        // decode checks.
        match u32::try_from(value) {
            Ok(bit) if bit < 64 => (self.known >> bit) & 1 != 0,
            _ => self.values.binary_search_by_key(&value, |v| v.0).is_ok(),
        }
    }

    /// The [`known`](EnumTable::known) mask of `values`: bit `n` set for
    /// each listed number `n` in 0..64.
    ///
    /// ```
    /// use quarry_proto::EnumTable;
    /// assert_eq!(EnumTable::known_of(&[(-1, "M"), (0, "A"), (2, "C"), (64, "X")]), 0b101);
    /// ```
    pub const fn known_of(values: &[(i32, &str)]) -> u64 {
        let mut mask = 0u64;
        let mut i = 0;
        while i < values.len() {
            let n = values[i].0;
            if 0 <= n && n < 64 {
                mask |= 1 << n;
            }
            i += 1;
        }
        mask
    }

    /// The name of `value`, if the enum lists it.
    pub fn name_of(&self, value: i32) -> Option<&'static str> {
        self.values
            .binary_search_by_key(&value, |v| v.0)
            .ok()
            .and_then(|i| self.values.get(i))
            .map(|v| v.1)
    }
}
