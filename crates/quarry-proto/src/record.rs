//! What a decoded message is in the arena: a sorted run of [`Slot`]s, one
//! per present field plus one per unknown field, read through [`Record`].
//! A narrow message (see [`MessageTable::dense`](crate::MessageTable::dense))
//! may instead have one slot per field of its table, those the input did
//! not set marked absent; readers see no difference.

use crate::table::Kind;

/// Marks a slot that holds an unknown field rather than a known one: the
/// sort key of every unknown slot (see [`Slot::field`]), past every field
/// index (a table has fewer than 2^29 fields).
pub(crate) const UNKNOWN: u32 = 1 << 31;

/// A [`Slot::pending`] mark: the message's record still holds
/// occurrences to merge, in it or below it.
const MARK_PENDING: u8 = 1;
/// A [`Slot::with_reset`] mark.
const MARK_RESET: u8 = 2;

/// One present field of a decoded message (opaque; read it through
/// [`Record`]).
///
/// Known fields come first, in field-index (so field-number) order, then
/// unknown fields in input order.
///
/// 24 bytes: the value's kind, the field word and a 16-byte value. (A
/// struct of field, kind and value took 32; the slots are most of what
/// a decode writes, and at 48 bytes decoding history sync cost 4.5% more.)
#[derive(Clone, Copy, Debug)]
pub struct Slot<'a>(Repr<'a>);

/// [`Slot`]'s storage. `repr(u8)` lays every variant out as a C struct
/// behind a one-byte tag, so the `u32` field word sits at offset 4 in
/// each, where [`Slot::word`] reads it with one load.
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
enum Repr<'a> {
    Scalar(u32, u64),
    Str(u32, &'a str),
    Bytes(u32, &'a [u8]),
    Msg(u32, &'a [Slot<'a>]),
    Scalars(u32, &'a [u64]),
    Strs(u32, &'a [&'a str]),
    BytesList(u32, &'a [&'a [u8]]),
    Msgs(u32, &'a [&'a [Slot<'a>]]),
    /// An unknown field: its wire type (in the tag's padding byte), then
    /// `UNKNOWN | number`.
    Raw(u8, u32, &'a [u8]),
    /// `UNKNOWN | field index`.
    PackedRejects(u32, &'a [u8]),
    Absent(u32),
    /// A message with marks ([`MARK_PENDING`], [`MARK_RESET`]) in the
    /// padding byte; read as `Msg`.
    MarkedMsg(u8, u32, &'a [Slot<'a>]),
    /// A repeated message field some of whose elements still hold
    /// occurrences to merge; read as `Msgs`.
    PendingMsgs(u32, &'a [&'a [Slot<'a>]]),
}

const _: () = assert!(std::mem::size_of::<Slot<'static>>() == 24);

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
///
/// Two records are equal when they hold the same fields with equal values,
/// nested messages compared the same way all the way down, and the same
/// unknown fields in the same order. Records of one message type compare
/// meaningfully; a record does not know its type. Scalars compare by their
/// bits (a NaN equals the same NaN), and a repeated message field read
/// once equals a list of that one message. The walk keeps its own stack,
/// so records of any depth compare on any thread.
///
/// ```
/// use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, Schema};
///
/// static F: [FieldTable; 2] = [
///     FieldTable::new(1, "id", "id", Kind::UInt64, Label::Implicit),
///     FieldTable::new(2, "s", "s", Kind::String, Label::Implicit),
/// ];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static SCHEMA: Schema = Schema { messages: &M, enums: &[] };
/// let message = MessageRef::new(&SCHEMA, 0);
///
/// let (one, two) = (quarry_core::Arena::new(), quarry_core::Arena::new());
/// // The same fields in the other order on the wire: equal.
/// let a = quarry_proto::decode(message, &one, &[0x08, 0x07, 0x12, 0x01, b'x']).unwrap();
/// let b = quarry_proto::decode(message, &two, &[0x12, 0x01, b'x', 0x08, 0x07]).unwrap();
/// assert_eq!(a, b);
/// let c = quarry_proto::decode(message, &two, &[0x08, 0x07, 0x12, 0x01, b'y']).unwrap();
/// assert_ne!(a, c);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    slots: &'a [Slot<'a>],
}

impl PartialEq for Record<'_> {
    fn eq(&self, other: &Self) -> bool {
        // Slot runs still to compare, one pair per nested message met.
        let mut runs = vec![(self.slots, other.slots)];
        while let Some((a, b)) = runs.pop() {
            let mut xs = a.iter().filter(|s| !s.is_absent());
            let mut ys = b.iter().filter(|s| !s.is_absent());
            loop {
                match (xs.next(), ys.next()) {
                    (None, None) => break,
                    (Some(x), Some(y)) if same_slot(x, y, &mut runs) => {}
                    _ => return false,
                }
            }
        }
        true
    }
}

/// Whether two present slots hold the same field and value; the nested
/// messages of two message fields are pushed on `runs` to compare later.
fn same_slot<'a>(
    x: &'a Slot<'a>,
    y: &'a Slot<'a>,
    runs: &mut Vec<(&'a [Slot<'a>], &'a [Slot<'a>])>,
) -> bool {
    if x.field() != y.field() {
        return false;
    }
    if x.field() == UNKNOWN {
        return x.as_unknown() == y.as_unknown();
    }
    match (x.val(), y.val()) {
        (Val::Scalar(p), Val::Scalar(q)) => p == q,
        (Val::Str(p), Val::Str(q)) => p == q,
        (Val::Bytes(p), Val::Bytes(q)) => p == q,
        (Val::Scalars(p), Val::Scalars(q)) => p == q,
        (Val::Strs(p), Val::Strs(q)) => p == q,
        (Val::BytesList(p), Val::BytesList(q)) => p == q,
        (Val::Msg(_) | Val::Msgs(_), Val::Msg(_) | Val::Msgs(_)) => {
            let (p, q) = (x.elements(), y.elements());
            if p.len() != q.len() {
                return false;
            }
            runs.extend(p.iter().copied().zip(q.iter().copied()));
            true
        }
        _ => false,
    }
}

/// The order [`Record::find`] relies on and every decoder produces: known
/// fields' slots in strictly increasing field order, then unknown fields
/// only. (A dense record, one slot per table field, is the case where slot
/// `i` holds field `i`.) Checked by debug assertions where records are
/// built.
pub(crate) fn in_reader_order(slots: &[Slot<'_>]) -> bool {
    let known = slots.iter().take_while(|s| s.field() != UNKNOWN).count();
    let (known, unknown) = slots.split_at(known);
    known.windows(2).all(|w| w[0].field() < w[1].field())
        && unknown.iter().all(|s| s.field() == UNKNOWN)
}

/// [`in_reader_order`], or the order of a record the decoder has not
/// settled yet: a singular message field's occurrences side by side, in
/// input order, before they are merged (see `merge.rs`).
pub(crate) fn in_decode_order(slots: &[Slot<'_>]) -> bool {
    let known = slots.iter().take_while(|s| s.field() != UNKNOWN).count();
    let (known, unknown) = slots.split_at(known);
    known.windows(2).all(|w| w[0].field() <= w[1].field())
        && unknown.iter().all(|s| s.field() == UNKNOWN)
}

impl<'a> Slot<'a> {
    /// Known field `field` (an index into its table's fields) holding
    /// `val`. Unknown fields are built with [`unknown`](Self::unknown) and
    /// [`packed_rejects`](Self::packed_rejects), which keep their tag; the
    /// `Raw` and `PackedRejects` arms below only make the match total.
    #[inline(always)]
    pub(crate) fn new(field: u32, val: Val<'a>) -> Self {
        debug_assert!(
            field < UNKNOWN && !matches!(val, Val::Raw(_) | Val::PackedRejects(_)),
            "unknown fields are built by Slot::unknown and Slot::packed_rejects"
        );
        Self(match val {
            Val::Scalar(v) => Repr::Scalar(field, v),
            Val::Str(v) => Repr::Str(field, v),
            Val::Bytes(v) => Repr::Bytes(field, v),
            Val::Msg(v) => Repr::Msg(field, v),
            Val::Scalars(v) => Repr::Scalars(field, v),
            Val::Strs(v) => Repr::Strs(field, v),
            Val::BytesList(v) => Repr::BytesList(field, v),
            Val::Msgs(v) => Repr::Msgs(field, v),
            Val::Raw(v) => Repr::Raw(0, UNKNOWN | field, v),
            Val::PackedRejects(v) => Repr::PackedRejects(UNKNOWN | field, v),
            Val::Absent => Repr::Absent(field),
        })
    }

    /// Field `field` of a dense record, not set by the input.
    pub(crate) const fn absent(field: u32) -> Self {
        Self(Repr::Absent(field))
    }

    /// An unknown field with tag `tag` (`number << 3 | wire_type`) and the
    /// raw bytes after it (see [`Val::Raw`]).
    #[inline]
    pub(crate) fn unknown(tag: u32, value: &'a [u8]) -> Self {
        // A tag's number is below 2^29, so it fits beside the mark.
        Self(Repr::Raw((tag & 7) as u8, UNKNOWN | (tag >> 3), value))
    }

    /// The values of a packed run of closed-enum field `field` the enum
    /// does not list (see [`Val::PackedRejects`]).
    #[inline]
    pub(crate) fn packed_rejects(field: u32, payload: &'a [u8]) -> Self {
        Self(Repr::PackedRejects(UNKNOWN | field, payload))
    }

    /// The field word: a known field's index, `UNKNOWN | number` for an
    /// unknown field, `UNKNOWN | field index` for packed closed-enum
    /// rejects. Known slots in reader order have strictly increasing words
    /// and every unknown slot's word is larger, so a run of slots whose
    /// words increase is in reader order.
    #[inline(always)]
    pub(crate) fn word(&self) -> u32 {
        match self.0 {
            Repr::Scalar(w, _)
            | Repr::Str(w, _)
            | Repr::Bytes(w, _)
            | Repr::Msg(w, _)
            | Repr::Scalars(w, _)
            | Repr::Strs(w, _)
            | Repr::BytesList(w, _)
            | Repr::Msgs(w, _)
            | Repr::Raw(_, w, _)
            | Repr::PackedRejects(w, _)
            | Repr::Absent(w)
            | Repr::MarkedMsg(_, w, _)
            | Repr::PendingMsgs(w, _) => w,
        }
    }

    /// The slot's field index, or [`UNKNOWN`] for every unknown slot: the
    /// key records are sorted by.
    #[inline(always)]
    pub(crate) fn field(&self) -> u32 {
        self.word().min(UNKNOWN)
    }

    /// Its value.
    #[inline(always)]
    pub(crate) fn val(&self) -> Val<'a> {
        match self.0 {
            Repr::Scalar(_, v) => Val::Scalar(v),
            Repr::Str(_, v) => Val::Str(v),
            Repr::Bytes(_, v) => Val::Bytes(v),
            Repr::Msg(_, v) => Val::Msg(v),
            Repr::Scalars(_, v) => Val::Scalars(v),
            Repr::Strs(_, v) => Val::Strs(v),
            Repr::BytesList(_, v) => Val::BytesList(v),
            Repr::Msgs(_, v) => Val::Msgs(v),
            Repr::Raw(_, _, v) => Val::Raw(v),
            Repr::PackedRejects(_, v) => Val::PackedRejects(v),
            Repr::Absent(_) => Val::Absent,
            Repr::MarkedMsg(_, _, v) => Val::Msg(v),
            Repr::PendingMsgs(_, v) => Val::Msgs(v),
        }
    }

    /// Message field `field` (singular, or one element of a repeated one)
    /// whose record `slots` still holds occurrences of a singular message
    /// field to merge, in it or below it. Only the decoder sees such
    /// slots: it settles every one before it returns (see `merge.rs`).
    #[inline]
    pub(crate) fn pending(field: u32, slots: &'a [Slot<'a>]) -> Self {
        Self(Repr::MarkedMsg(MARK_PENDING, field, slots))
    }

    /// Repeated message field `field` whose `elements` include records
    /// still to be settled (see [`pending`](Self::pending)).
    #[inline]
    pub(crate) fn pending_list(field: u32, elements: &'a [&'a [Slot<'a>]]) -> Self {
        Self(Repr::PendingMsgs(field, elements))
    }

    /// True for the slots [`pending`](Self::pending) and
    /// [`pending_list`](Self::pending_list) build.
    #[inline]
    pub(crate) fn is_pending(&self) -> bool {
        match self.0 {
            Repr::MarkedMsg(marks, ..) => marks & MARK_PENDING != 0,
            Repr::PendingMsgs(..) => true,
            _ => false,
        }
    }

    /// This message slot, marked as the oneof member that displaced
    /// another member of its oneof in the same message: when that message
    /// is merged with earlier occurrences of itself, the member's
    /// occurrences in them no longer count. Other slots as they are.
    #[inline]
    pub(crate) fn with_reset(self) -> Self {
        match self.0 {
            Repr::Msg(w, m) => Self(Repr::MarkedMsg(MARK_RESET, w, m)),
            Repr::MarkedMsg(marks, w, m) => Self(Repr::MarkedMsg(marks | MARK_RESET, w, m)),
            _ => self,
        }
    }

    /// True for a slot [`with_reset`](Self::with_reset) marked.
    #[inline]
    pub(crate) fn is_reset(&self) -> bool {
        matches!(self.0, Repr::MarkedMsg(marks, ..) if marks & MARK_RESET != 0)
    }

    /// The message a [`Val::Msg`] slot holds. (Read straight from the
    /// slot: through [`val`](Self::val) the compiler rebuilds the value
    /// first.)
    #[inline(always)]
    pub(crate) fn as_msg(&self) -> Option<&'a [Slot<'a>]> {
        match self.0 {
            Repr::Msg(_, m) | Repr::MarkedMsg(_, _, m) => Some(m),
            _ => None,
        }
    }

    /// The string a [`Val::Str`] slot holds.
    #[inline(always)]
    pub(crate) fn as_str(&self) -> Option<&'a str> {
        match self.0 {
            Repr::Str(_, s) => Some(s),
            _ => None,
        }
    }

    /// The bytes a [`Val::Bytes`] slot holds.
    #[inline(always)]
    pub(crate) fn as_bytes(&self) -> Option<&'a [u8]> {
        match self.0 {
            Repr::Bytes(_, b) => Some(b),
            _ => None,
        }
    }

    /// Whether a known field's slot holds a value a field of `kind`
    /// (`repeated` or not) can hold. Single values are taken for either
    /// (a repeated message field read once holds its one element); lists
    /// only for repeated fields.
    pub(crate) fn fits(&self, kind: Kind, repeated: bool) -> bool {
        let text = matches!(kind, Kind::String | Kind::Bytes);
        match self.val() {
            Val::Scalar(_) => !text && !kind.is_message(),
            Val::Scalars(_) => !text && !kind.is_message() && repeated,
            Val::Str(_) | Val::Bytes(_) => text,
            Val::Strs(_) | Val::BytesList(_) => text && repeated,
            Val::Msg(_) => kind.is_message(),
            Val::Msgs(_) => kind.is_message() && repeated,
            Val::Absent => true,
            Val::Raw(_) | Val::PackedRejects(_) => false,
        }
    }

    /// A field of a dense record the input did not set.
    #[inline]
    pub(crate) fn is_absent(&self) -> bool {
        matches!(self.0, Repr::Absent(_))
    }

    /// The elements of a repeated message, group or map field's slot: its
    /// array, or the one element a [`Val::Msg`] holds. Readers of repeated
    /// fields go through here: the one-pass decoder leaves a repeated
    /// message field it met once as that one element, so its field loop
    /// marks nothing for them and such a message needs no gather (see
    /// docs/protobuf.md, "How a message is stored").
    pub(crate) fn elements<'r>(&'r self) -> &'r [&'a [Slot<'a>]] {
        match &self.0 {
            Repr::Msgs(_, list) | Repr::PendingMsgs(_, list) => list,
            Repr::Msg(_, one) | Repr::MarkedMsg(_, _, one) => std::slice::from_ref(one),
            _ => &[],
        }
    }

    /// The array of a repeated message field's slot, if it holds one
    /// (not a single element, see [`elements`](Self::elements)).
    pub(crate) fn element_list(&self) -> Option<&'a [&'a [Slot<'a>]]> {
        match self.0 {
            Repr::Msgs(_, list) | Repr::PendingMsgs(_, list) => Some(list),
            _ => None,
        }
    }

    /// The unknown field an [`UNKNOWN`] slot holds.
    pub(crate) fn as_unknown(&self) -> UnknownField<'a> {
        match self.0 {
            Repr::PackedRejects(w, payload) => UnknownField::PackedEnumRejects {
                field_index: w & !UNKNOWN,
                payload,
            },
            Repr::Raw(wt, w, value) => UnknownField::Raw {
                tag: ((w & !UNKNOWN) << 3) | u32::from(wt),
                value,
            },
            _ => UnknownField::Raw { tag: 0, value: &[] },
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
    pub(crate) fn find(self, field: u32) -> Option<&'a Slot<'a>> {
        if field >= UNKNOWN {
            // No table has that many fields (and an unknown slot's word
            // must not match).
            return None;
        }
        let slots = self.slots;
        // Known fields are sorted and distinct, so field `i`'s slot is at
        // index `i` at most; it is exactly there in a dense record, and in a
        // sparse one when every field before it is present.
        let at = field as usize;
        if let Some(s) = slots.get(at)
            && s.word() == field
        {
            return Some(s);
        }
        let slots = slots.get(..at).unwrap_or(slots);
        // Few fields are present in most messages: a short scan beats the
        // branch mispredictions of a binary search.
        if slots.len() <= 8 {
            return slots.iter().find(|s| s.word() == field);
        }
        slots
            .binary_search_by_key(&field, |s| s.field())
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
        match self.find(field)?.val() {
            Val::Scalar(v) => Some(v),
            _ => None,
        }
    }

    /// The value of singular `string` field `field`.
    #[inline]
    pub fn str(self, field: u32) -> Option<&'a str> {
        match self.find(field)?.val() {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of singular `bytes` field `field` (or a `string` field's
    /// bytes).
    #[inline]
    pub fn bytes(self, field: u32) -> Option<&'a [u8]> {
        match self.find(field)?.val() {
            Val::Bytes(b) => Some(b),
            Val::Str(s) => Some(s.as_bytes()),
            _ => None,
        }
    }

    /// The value of singular message or group field `field`.
    ///
    /// Asked of a repeated field, the answer is not specified: a field met
    /// once may come back as its one element, to spare the decoder an
    /// array for it. Read repeated fields with [`messages`](Self::messages).
    #[inline]
    pub fn message(self, field: u32) -> Option<Record<'a>> {
        match self.find(field)?.val() {
            Val::Msg(slots) => Some(Record::new(slots)),
            _ => None,
        }
    }

    /// The values of repeated scalar field `field` (normalized as in
    /// [`scalar`](Self::scalar)).
    #[inline]
    pub fn scalars(self, field: u32) -> &'a [u64] {
        match self.find(field).map(Slot::val) {
            Some(Val::Scalars(v)) => v,
            _ => &[],
        }
    }

    /// The values of repeated `string` field `field`.
    #[inline]
    pub fn strs(self, field: u32) -> &'a [&'a str] {
        match self.find(field).map(Slot::val) {
            Some(Val::Strs(v)) => v,
            _ => &[],
        }
    }

    /// The values of repeated `bytes` field `field`.
    #[inline]
    pub fn bytes_list(self, field: u32) -> &'a [&'a [u8]] {
        match self.find(field).map(Slot::val) {
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
        let start = self.slots.partition_point(|s| s.field() != UNKNOWN);
        self.slots[start..].iter().map(Slot::as_unknown)
    }

    /// Number of known fields present.
    pub fn present_fields(self) -> usize {
        self.slots
            .iter()
            .take_while(|s| s.field() != UNKNOWN)
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
        if field == UNKNOWN {
            Slot::unknown(8, &[])
        } else {
            Slot::new(field, Val::Scalar(0))
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
