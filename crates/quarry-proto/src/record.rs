//! What a decoded message is in the arena: a sorted run of [`Slot`]s, one
//! per present field plus one per unknown field, read through [`Record`].
//! A narrow message (see [`MessageTable::dense`](crate::MessageTable::dense))
//! may instead have one slot per field of its table, those the input did
//! not set marked absent; readers see no difference.

/// Marks a slot that holds an unknown field rather than a known one.
pub(crate) const UNKNOWN: u32 = u32::MAX;

/// One present field of a decoded message (opaque; read it through
/// [`Record`]).
///
/// Known fields come first, in field-index (so field-number) order, then
/// unknown fields in input order.
#[derive(Clone, Copy, Debug)]
pub struct Slot<'a> {
    /// Index into the message table's fields, or [`UNKNOWN`].
    pub(crate) field: u32,
    /// For an unknown field its tag; for packed closed-enum rejects, the
    /// field index; 0 otherwise.
    pub(crate) aux: u32,
    pub(crate) val: Val<'a>,
}

/// The value(s) of one slot. Scalars are stored normalized to 64 bits (see
/// [`Record::scalar`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val<'a> {
    Scalar(u64),
    Str(&'a str),
    Bytes(&'a [u8]),
    /// A message; also the one element of a repeated message field that
    /// the one-pass decoder read once, in field order (it then needs no
    /// array: see [`Slot::elements`]).
    Msg(&'a [Slot<'a>]),
    Scalars(&'a [u64]),
    Strs(&'a [&'a str]),
    BytesList(&'a [&'a [u8]]),
    Msgs(&'a [&'a [Slot<'a>]]),
    /// An unknown field: the raw bytes after its tag (a varint's bytes, a
    /// fixed value, a length-delimited payload without its length, or a
    /// group's body without its end tag).
    Raw(&'a [u8]),
    /// The payload of a packed run of a closed enum: the values the enum
    /// does not list are unknown fields, to be written back one by one.
    PackedRejects(&'a [u8]),
    /// A field of a dense record the input did not set.
    Absent,
}

/// A decoded message: a `Copy` handle on its slots in the arena.
///
/// Generated views wrap a `Record` and call its accessors with constant
/// field indices; [`json`](crate::json) and the encoder pair it with a
/// [`MessageRef`](crate::MessageRef) for schema-driven access.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    slots: &'a [Slot<'a>],
}

/// The order [`Record::find`] relies on and every decoder produces: known
/// fields' slots in strictly increasing field order, then unknown fields
/// only. (A dense record, one slot per table field, is the case where slot
/// `i` holds field `i`.) Checked by debug assertions where records are
/// built.
pub(crate) fn in_reader_order(slots: &[Slot<'_>]) -> bool {
    let known = slots.iter().take_while(|s| s.field != UNKNOWN).count();
    let (known, unknown) = slots.split_at(known);
    known.windows(2).all(|w| w[0].field < w[1].field) && unknown.iter().all(|s| s.field == UNKNOWN)
}

impl<'a> Slot<'a> {
    /// A field of a dense record the input did not set.
    #[inline]
    pub(crate) fn is_absent(&self) -> bool {
        matches!(self.val, Val::Absent)
    }

    /// The elements of a repeated message, group or map field's slot: its
    /// array, or the one element a [`Val::Msg`] holds. Readers of repeated
    /// fields go through here: the one-pass decoder leaves a repeated
    /// message field it met once as that one element, so its field loop
    /// marks nothing for them and such a message needs no gather (see
    /// docs/protobuf.md, "How a message is stored").
    pub(crate) fn elements(&'a self) -> &'a [&'a [Slot<'a>]] {
        match &self.val {
            Val::Msgs(list) => list,
            Val::Msg(one) => std::slice::from_ref(one),
            _ => &[],
        }
    }

    /// The unknown field an [`UNKNOWN`] slot holds.
    pub(crate) fn as_unknown(&self) -> UnknownField<'a> {
        match self.val {
            Val::PackedRejects(payload) => UnknownField::PackedEnumRejects {
                field_index: self.aux,
                payload,
            },
            Val::Raw(value) => UnknownField::Raw {
                tag: self.aux,
                value,
            },
            _ => UnknownField::Raw {
                tag: self.aux,
                value: &[],
            },
        }
    }
}

/// An empty message, what an absent message field reads as.
impl Default for Record<'_> {
    fn default() -> Self {
        Self { slots: &[] }
    }
}

impl<'a> Record<'a> {
    pub(crate) fn new(slots: &'a [Slot<'a>]) -> Self {
        Self { slots }
    }

    /// Its slots, absent ones (of a dense record) included.
    pub(crate) fn slots(self) -> &'a [Slot<'a>] {
        self.slots
    }

    /// The slot of known field `field` (an index into the table's fields).
    #[inline]
    fn find(self, field: u32) -> Option<&'a Slot<'a>> {
        let slots = self.slots;
        // Known fields are sorted and distinct, so field `i`'s slot is at
        // index `i` at most; it is exactly there in a dense record, and in a
        // sparse one when every field before it is present.
        let at = field as usize;
        if let Some(s) = slots.get(at)
            && s.field == field
        {
            return Some(s);
        }
        let slots = slots.get(..at).unwrap_or(slots);
        // Few fields are present in most messages: a short scan beats the
        // branch mispredictions of a binary search.
        if slots.len() <= 8 {
            return slots.iter().find(|s| s.field == field);
        }
        slots
            .binary_search_by_key(&field, |s| s.field)
            .ok()
            .map(|i| &slots[i])
    }

    /// True if known field `field` is present.
    #[inline]
    pub fn has(self, field: u32) -> bool {
        self.find(field).is_some_and(|s| !s.is_absent())
    }

    /// The value of singular scalar field `field`, normalized to 64 bits:
    /// signed kinds sign-extended (`int32`, `sint32`, `sfixed32`, enums
    /// truncated to 32 bits first), unsigned zero-extended, `bool` as 0 or
    /// 1, `float` as its bits in the low half, `double` as its bits.
    #[inline]
    pub fn scalar(self, field: u32) -> Option<u64> {
        match self.find(field)?.val {
            Val::Scalar(v) => Some(v),
            _ => None,
        }
    }

    /// The value of singular `string` field `field`.
    #[inline]
    pub fn str(self, field: u32) -> Option<&'a str> {
        match self.find(field)?.val {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of singular `bytes` field `field` (or a `string` field's
    /// bytes).
    #[inline]
    pub fn bytes(self, field: u32) -> Option<&'a [u8]> {
        match self.find(field)?.val {
            Val::Bytes(b) => Some(b),
            Val::Str(s) => Some(s.as_bytes()),
            _ => None,
        }
    }

    /// The value of singular message or group field `field`.
    #[inline]
    pub fn message(self, field: u32) -> Option<Record<'a>> {
        match self.find(field)?.val {
            Val::Msg(slots) => Some(Record::new(slots)),
            _ => None,
        }
    }

    /// The values of repeated scalar field `field` (normalized as in
    /// [`scalar`](Self::scalar)).
    #[inline]
    pub fn scalars(self, field: u32) -> &'a [u64] {
        match self.find(field).map(|s| &s.val) {
            Some(Val::Scalars(v)) => v,
            _ => &[],
        }
    }

    /// The values of repeated `string` field `field`.
    #[inline]
    pub fn strs(self, field: u32) -> &'a [&'a str] {
        match self.find(field).map(|s| &s.val) {
            Some(Val::Strs(v)) => v,
            _ => &[],
        }
    }

    /// The values of repeated `bytes` field `field`.
    #[inline]
    pub fn bytes_list(self, field: u32) -> &'a [&'a [u8]] {
        match self.find(field).map(|s| &s.val) {
            Some(Val::BytesList(v)) => v,
            _ => &[],
        }
    }

    /// The elements of repeated message, group or map field `field`.
    #[inline]
    pub fn messages(self, field: u32) -> Messages<'a> {
        Messages {
            inner: self.find(field).map_or(&[][..], Slot::elements).iter(),
        }
    }

    /// The fields the schema does not know (and values of closed enums the
    /// enum does not list), in input order.
    pub fn unknown_fields(self) -> impl Iterator<Item = UnknownField<'a>> + 'a {
        let start = self.slots.partition_point(|s| s.field != UNKNOWN);
        self.slots[start..].iter().map(Slot::as_unknown)
    }

    /// Number of known fields present.
    pub fn present_fields(self) -> usize {
        self.slots
            .iter()
            .take_while(|s| s.field != UNKNOWN)
            .filter(|s| !s.is_absent())
            .count()
    }

    /// The slots of present and unknown fields, in order.
    pub(crate) fn present(self) -> impl Iterator<Item = &'a Slot<'a>> {
        self.slots.iter().filter(|s| !s.is_absent())
    }
}

/// The elements of a repeated message field, as [`Record`]s.
#[derive(Clone, Debug)]
pub struct Messages<'a> {
    inner: std::slice::Iter<'a, &'a [Slot<'a>]>,
}

impl<'a> Iterator for Messages<'a> {
    type Item = Record<'a>;
    #[inline]
    fn next(&mut self) -> Option<Record<'a>> {
        self.inner.next().map(|s| Record::new(s))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for Messages<'_> {}

impl<'a> DoubleEndedIterator for Messages<'a> {
    #[inline]
    fn next_back(&mut self) -> Option<Record<'a>> {
        self.inner.next_back().map(|s| Record::new(s))
    }
}

/// One field the schema did not claim, kept so re-encoding loses nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownField<'a> {
    /// A whole field as it was on the wire.
    Raw {
        /// Its tag: `number << 3 | wire_type`.
        tag: u32,
        /// The bytes after the tag: a varint's bytes, a fixed value, a
        /// length-delimited payload without its length prefix, or a
        /// group's body without its end tag.
        value: &'a [u8],
    },
    /// A packed run of a closed enum field holding values the enum does not
    /// list: those values (and only those) are unknown fields.
    PackedEnumRejects {
        /// The enum field's index in its message table.
        field_index: u32,
        /// The run's payload; the listed values in it were decoded into the
        /// field.
        payload: &'a [u8],
    },
}

#[cfg(test)]
mod tests {
    use super::{Slot, UNKNOWN, Val, in_reader_order};

    fn slot(field: u32) -> Slot<'static> {
        Slot {
            field,
            aux: 0,
            val: Val::Scalar(0),
        }
    }

    #[test]
    fn reader_order_is_known_fields_ascending_then_unknown() {
        let ok = [
            &[][..],
            &[slot(0), slot(2), slot(UNKNOWN), slot(UNKNOWN)],
            &[slot(UNKNOWN)],
        ];
        for slots in ok {
            assert!(in_reader_order(slots), "{slots:?}");
        }
        let bad = [
            &[slot(1), slot(1)][..],
            &[slot(2), slot(1)],
            &[slot(0), slot(UNKNOWN), slot(1)],
        ];
        for slots in bad {
            assert!(!in_reader_order(slots), "{slots:?}");
        }
    }
}
