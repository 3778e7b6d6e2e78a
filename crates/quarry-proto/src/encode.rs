//! Encoding a decoded record back to bytes: an exact size, then one
//! allocation of that size. Known fields go out in field-number order with
//! canonical varints and lengths, unknown fields after them as they came,
//! so canonically encoded input comes back byte for byte.
//!
//! Two passes over the record: [`measure`] adds up the length, [`write`]
//! fills the output from its end towards its start. Neither recurses: both
//! keep the message they are in in local variables and its ancestors on an
//! explicit [`Stack`], so a record nested as deep as the decoder's
//! `max_depth` allowed encodes on any thread's stack.
//!
//! The passes do not use the text printer's [`walk`](crate::walk), whose
//! steps come one at a time through an enum: built on it, the encoder took
//! 3,840 instructions for the 99-byte contact sample where buffa takes
//! 1,426 (callgrind).

use crate::record::{Record, Slot, Val};
use crate::table::{FieldTable, Kind, Label, MessageRef, MessageTable, Schema};
use crate::wire::{EGROUP, LEN, SGROUP, VARINT, varint_len, zigzag_encode};

/// The encoding of a varint-kind value as stored (see
/// [`Record::scalar`]).
#[inline]
fn varint_of(kind: Kind, v: u64) -> u64 {
    match kind {
        Kind::SInt32 => {
            let n = v as i32;
            u64::from(((n << 1) ^ (n >> 31)) as u32)
        }
        Kind::SInt64 => zigzag_encode(v as i64),
        _ => v,
    }
}

#[inline]
fn tag(number: u32, wt: u8) -> u64 {
    (u64::from(number) << 3) | u64::from(wt)
}

/// Bytes of a tag of field `number` (the wire type does not change it).
#[inline]
fn tag_len(number: u32) -> usize {
    varint_len(u64::from(number) << 3)
}

#[inline]
fn scalar_len(kind: Kind, v: u64) -> usize {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::SFixed64 => 8,
        Kind::Float | Kind::Fixed32 | Kind::SFixed32 => 4,
        _ => varint_len(varint_of(kind, v)),
    }
}

/// Values of a packed closed-enum run that the enum does not list.
fn rejects<'x>(
    schema: &'static Schema,
    f: &'x FieldTable,
    payload: &'x [u8],
) -> impl Iterator<Item = u64> + 'x {
    let en = schema.enums.get(f.sub as usize);
    let mut pos = 0usize;
    std::iter::from_fn(move || {
        while pos < payload.len() {
            let v = crate::wire::read_varint(payload, &mut pos, payload.len()).ok()?;
            if en.is_some_and(|e| !e.contains(v as i32)) {
                return Some(v);
            }
        }
        None
    })
}

/// Ancestors of the message being encoded kept in a local array: a record
/// nested deeper than this below its root spills into a `Vec`.
const INLINE_LEVELS: usize = 31;

/// The table of a message type a field's `sub` does not name (never the
/// case in a generated or built schema): its fields encode as nothing.
static NO_FIELDS: MessageTable = MessageTable::new("", &[], &[]);

/// A message being encoded: the one a pass is in, or an ancestor of it
/// saved on the [`Stack`].
#[derive(Clone, Copy)]
struct Level<'r> {
    table: &'static MessageTable,
    /// The field this message is the value of; `None` for the root.
    field: Option<&'static FieldTable>,
    /// Slots not visited yet (the measure visits them front to back, the
    /// write back to front).
    rest: &'r [Slot<'r>],
    /// While one of its repeated message fields is visited, the elements
    /// not visited yet.
    elements: &'r [&'r [Slot<'r>]],
    /// Measure: bytes of the fields visited so far. Write: where the
    /// message's body ends in the output.
    mark: usize,
}

impl<'r> Level<'r> {
    #[inline]
    fn root(message: MessageRef, record: Record<'r>, mark: usize) -> Self {
        Self {
            table: message
                .schema
                .messages
                .get(message.index as usize)
                .unwrap_or(&NO_FIELDS),
            field: None,
            rest: record.slots(),
            elements: &[],
            mark,
        }
    }

    /// The value `slots` of message field `f`.
    #[inline]
    fn nested(
        schema: &'static Schema,
        f: &'static FieldTable,
        slots: &'r [Slot<'r>],
        mark: usize,
    ) -> Self {
        Self {
            table: schema.messages.get(f.sub as usize).unwrap_or(&NO_FIELDS),
            field: Some(f),
            rest: slots,
            elements: &[],
            mark,
        }
    }
}

/// The ancestors of the message a pass is in.
struct Stack<'r> {
    /// `None` until first used: setting up an array of `None`s writes one
    /// word per level, where copying a placeholder level in wrote all 56
    /// bytes of each (300 instructions an encode, callgrind).
    inline: [Option<Level<'r>>; INLINE_LEVELS],
    inline_len: usize,
    /// Levels past the inline ones; only used while those are all taken.
    spill: Vec<Level<'r>>,
}

impl<'r> Stack<'r> {
    fn new() -> Self {
        Self {
            inline: [None; INLINE_LEVELS],
            inline_len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, level: Level<'r>) {
        match self.inline.get_mut(self.inline_len) {
            Some(slot) => {
                *slot = Some(level);
                self.inline_len += 1;
            }
            None => self.spill.push(level),
        }
    }

    #[inline]
    fn top(&mut self) -> Option<&mut Level<'r>> {
        match self.spill.last_mut() {
            Some(top) => Some(top),
            None => self
                .inline_len
                .checked_sub(1)
                .and_then(|i| self.inline.get_mut(i))
                .and_then(Option::as_mut),
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<Level<'r>> {
        if let Some(level) = self.spill.pop() {
            return Some(level);
        }
        self.inline_len = self.inline_len.checked_sub(1)?;
        self.inline.get(self.inline_len).copied().flatten()
    }
}

/// Bytes [`encode_to_vec`] writes for `record` as a `message`.
///
/// One pass over the record and its nested messages, which adds up every
/// message's length from its fields'.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 1] = [FieldTable::new(1, "s", "s", Kind::String, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, b"\x0a\x02hi")?;
/// assert_eq!(encoded_len(MessageRef::new(&S, 0), rec), 4);
/// # Ok::<(), quarry::DecodeError>(())
/// ```
pub fn encoded_len(message: MessageRef, record: Record<'_>) -> usize {
    measure(message, record, &mut Stack::new())
}

/// The length of `record`; `stack` is empty before and after.
fn measure<'r>(message: MessageRef, record: Record<'r>, stack: &mut Stack<'r>) -> usize {
    let schema = message.schema;
    let mut cur = Level::root(message, record, 0);
    loop {
        if let Some((f, slot)) = add_leaves(&mut cur.mark, schema, cur.table, &mut cur.rest) {
            match slot.val {
                Val::Msg(slots) => {
                    stack.push(cur);
                    cur = Level::nested(schema, f, slots, 0);
                }
                Val::Msgs(elements) => {
                    if let Some((first, others)) = elements.split_first() {
                        cur.elements = others;
                        stack.push(cur);
                        cur = Level::nested(schema, f, first, 0);
                    }
                }
                _ => {}
            }
            continue;
        }
        // The message ends: the root, or a nested one, whose parent is on
        // the stack.
        let (Some(f), Some(parent)) = (cur.field, stack.top()) else {
            return cur.mark;
        };
        parent.mark += framed_len(f, cur.mark);
        if let Some((next, others)) = parent.elements.split_first() {
            parent.elements = others;
            cur.rest = next;
            cur.mark = 0;
        } else if let Some(parent) = stack.pop() {
            cur = parent;
        }
    }
}

/// Add to `len` the bytes of the slots of `rest` (a message of type
/// `table`) up to its next nested message, which is returned with its
/// field; `None` when `rest` has no nested message left. The slots
/// between nested messages are counted in this loop, with only its own
/// few values live.
#[inline(always)]
fn add_leaves<'r>(
    len: &mut usize,
    schema: &'static Schema,
    table: &'static MessageTable,
    rest: &mut &'r [Slot<'r>],
) -> Option<(&'static FieldTable, &'r Slot<'r>)> {
    let (mut n, mut slots) = (*len, *rest);
    let found = loop {
        let Some((slot, after)) = slots.split_first() else {
            break None;
        };
        slots = after;
        // `UNKNOWN` is past the end of every table.
        match table.fields.get(slot.field as usize) {
            None => n += unknown_len(schema, table, slot),
            Some(f) => match slot.val {
                Val::Msg(_) | Val::Msgs(_) => break Some((f, slot)),
                _ => n += leaf_len(schema, table, f, slot),
            },
        }
    };
    (*len, *rest) = (n, slots);
    found
}

/// [`add_leaves`] for the write: put the slots of `rest` before `pos`, back
/// to front, down to its previous nested message.
#[inline(always)]
fn put_leaves<'r>(
    out: &mut [u8],
    pos: &mut usize,
    schema: &'static Schema,
    table: &'static MessageTable,
    rest: &mut &'r [Slot<'r>],
) -> Option<(&'static FieldTable, &'r Slot<'r>)> {
    let (mut at, mut slots) = (*pos, *rest);
    let found = loop {
        let Some((slot, before)) = slots.split_last() else {
            break None;
        };
        slots = before;
        match table.fields.get(slot.field as usize) {
            None => at = put_unknown(out, at, schema, table, slot),
            Some(f) => match slot.val {
                Val::Msg(_) | Val::Msgs(_) => break Some((f, slot)),
                _ => at = put_leaf(out, at, schema, table, f, slot),
            },
        }
    };
    (*pos, *rest) = (at, slots);
    found
}

/// Bytes message field `f` takes with a body of `body` bytes: tag and
/// length prefix, or a group's start and end tags.
fn framed_len(f: &FieldTable, body: usize) -> usize {
    let t = tag_len(f.number);
    if f.kind == Kind::Group {
        2 * t + body
    } else {
        t + varint_len(body as u64) + body
    }
}

/// Bytes known field `f`'s slot takes when it is not a nested message.
#[inline(always)]
fn leaf_len(
    schema: &'static Schema,
    table: &MessageTable,
    f: &FieldTable,
    slot: &Slot<'_>,
) -> usize {
    let implicit = f.label == Label::Implicit;
    let delimited = |len: usize| {
        if implicit && len == 0 {
            0
        } else {
            tag_len(f.number) + varint_len(len as u64) + len
        }
    };
    match slot.val {
        Val::Scalar(v) if implicit && v == 0 => 0,
        Val::Scalar(v) => tag_len(f.number) + scalar_len(f.kind, v),
        Val::Str(s) => delimited(s.len()),
        Val::Bytes(b) => delimited(b.len()),
        _ => list_len(schema, table, f, slot),
    }
}

/// [`leaf_len`] of the rarer slots: repeated fields, unknown values.
fn list_len(
    schema: &'static Schema,
    table: &MessageTable,
    f: &FieldTable,
    slot: &Slot<'_>,
) -> usize {
    let t = tag_len(f.number);
    match slot.val {
        Val::Scalars(list) => {
            let body: usize = list.iter().map(|&v| scalar_len(f.kind, v)).sum();
            match (list.is_empty(), f.packed) {
                (true, _) => 0,
                (false, true) => t + varint_len(body as u64) + body,
                (false, false) => t * list.len() + body,
            }
        }
        Val::Strs(list) => list
            .iter()
            .map(|s| t + varint_len(s.len() as u64) + s.len())
            .sum(),
        Val::BytesList(list) => list
            .iter()
            .map(|b| t + varint_len(b.len() as u64) + b.len())
            .sum(),
        Val::Raw(_) | Val::PackedRejects(_) => unknown_len(schema, table, slot),
        Val::Scalar(_) | Val::Str(_) | Val::Bytes(_) | Val::Msg(_) | Val::Msgs(_) | Val::Absent => {
            0
        }
    }
}

fn unknown_len(schema: &'static Schema, table: &MessageTable, slot: &Slot<'_>) -> usize {
    match slot.val {
        Val::Raw(value) => {
            let t = u64::from(slot.aux);
            let wt = (slot.aux & 7) as u8;
            varint_len(t)
                + match wt {
                    LEN => varint_len(value.len() as u64) + value.len(),
                    SGROUP => value.len() + varint_len(t + 1),
                    _ => value.len(),
                }
        }
        Val::PackedRejects(payload) => {
            let Some(f) = table.fields.get(slot.aux as usize) else {
                return 0;
            };
            let t = varint_len(tag(f.number, VARINT));
            rejects(schema, f, payload).map(|v| t + varint_len(v)).sum()
        }
        _ => 0,
    }
}

/// Encode `record` as a `message`: exactly [`encoded_len`] bytes in one
/// allocation (a record nested more than 31 levels deep adds one, for the
/// passes' stack).
///
/// The bytes are written back to front, so a nested message's length is
/// known, from where its body ended, when its prefix is written: every
/// length is computed once, and nothing recurses however deep the record
/// nests.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 1] = [FieldTable::new(1, "n", "n", Kind::SInt32, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x03])?;
/// assert_eq!(rec.scalar(0), Some(-2i64 as u64));
/// assert_eq!(encode_to_vec(MessageRef::new(&S, 0), rec), [0x08, 0x03]);
/// # Ok::<(), quarry::DecodeError>(())
/// ```
pub fn encode_to_vec(message: MessageRef, record: Record<'_>) -> Vec<u8> {
    let mut stack = Stack::new();
    let len = measure(message, record, &mut stack);
    #[expect(
        clippy::slow_vector_initialization,
        reason = "`vec![0; len]` is `calloc`, which glibc never serves from its \
                  per-thread cache: 330 instructions more on a 92-byte message \
                  (callgrind); it wins only where the kernel zeroes fresh pages"
    )]
    let mut out = Vec::with_capacity(len);
    out.resize(len, 0u8);
    let start = write(&mut out, message, record, &mut stack);
    debug_assert_eq!(start, 0, "measure and write disagree");
    out
}

/// Write `record` into the end of `out`, back to front; where its bytes
/// start. `stack` is empty before and after.
fn write<'r>(
    out: &mut [u8],
    message: MessageRef,
    record: Record<'r>,
    stack: &mut Stack<'r>,
) -> usize {
    let schema = message.schema;
    let mut pos = out.len();
    let mut cur = Level::root(message, record, pos);
    loop {
        if let Some((f, slot)) = put_leaves(out, &mut pos, schema, cur.table, &mut cur.rest) {
            match slot.val {
                Val::Msg(slots) => {
                    stack.push(cur);
                    pos = put_group_end(out, pos, f);
                    cur = Level::nested(schema, f, slots, pos);
                }
                Val::Msgs(elements) => {
                    if let Some((last, others)) = elements.split_last() {
                        cur.elements = others;
                        stack.push(cur);
                        pos = put_group_end(out, pos, f);
                        cur = Level::nested(schema, f, last, pos);
                    }
                }
                _ => {}
            }
            continue;
        }
        let (Some(f), Some(parent)) = (cur.field, stack.top()) else {
            return pos;
        };
        if f.kind == Kind::Group {
            pos = put_varint(out, pos, tag(f.number, SGROUP));
        } else {
            pos = put_varint(out, pos, cur.mark.saturating_sub(pos) as u64);
            pos = put_varint(out, pos, tag(f.number, LEN));
        }
        if let Some((previous, others)) = parent.elements.split_last() {
            parent.elements = others;
            pos = put_group_end(out, pos, f);
            cur.rest = previous;
            cur.mark = pos;
        } else if let Some(parent) = stack.pop() {
            cur = parent;
        }
    }
}

/// A group's end tag, written before its body (back to front).
#[inline]
fn put_group_end(out: &mut [u8], pos: usize, f: &FieldTable) -> usize {
    if f.kind == Kind::Group {
        put_varint(out, pos, tag(f.number, EGROUP))
    } else {
        pos
    }
}

/// `bytes` put before `pos`; where they start.
#[inline]
fn put(out: &mut [u8], pos: usize, bytes: &[u8]) -> usize {
    let Some(start) = pos.checked_sub(bytes.len()) else {
        return 0;
    };
    if let Some(dst) = out.get_mut(start..pos) {
        dst.copy_from_slice(bytes);
    }
    start
}

/// The varint of `v` put before `pos`; where it starts.
#[inline]
fn put_varint(out: &mut [u8], pos: usize, mut v: u64) -> usize {
    let Some(start) = pos.checked_sub(varint_len(v)) else {
        return 0;
    };
    if let Some((last, init)) = out.get_mut(start..pos).and_then(|d| d.split_last_mut()) {
        for b in init {
            *b = (v as u8) | 0x80;
            v >>= 7;
        }
        *last = v as u8;
    }
    start
}

#[inline]
fn put_scalar(out: &mut [u8], pos: usize, kind: Kind, v: u64) -> usize {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::SFixed64 => put(out, pos, &v.to_le_bytes()),
        Kind::Float | Kind::Fixed32 | Kind::SFixed32 => put(out, pos, &(v as u32).to_le_bytes()),
        _ => put_varint(out, pos, varint_of(kind, v)),
    }
}

/// A length-delimited value of field `number` put before `pos`.
#[inline]
fn put_delimited(out: &mut [u8], pos: usize, number: u32, bytes: &[u8]) -> usize {
    let pos = put(out, pos, bytes);
    let pos = put_varint(out, pos, bytes.len() as u64);
    put_varint(out, pos, tag(number, LEN))
}

/// Known field `f`'s slot, when it is not a nested message, put before
/// `pos`; where it starts.
#[inline(always)]
fn put_leaf(
    out: &mut [u8],
    pos: usize,
    schema: &'static Schema,
    table: &MessageTable,
    f: &FieldTable,
    slot: &Slot<'_>,
) -> usize {
    let implicit = f.label == Label::Implicit;
    match slot.val {
        Val::Scalar(v) if implicit && v == 0 => pos,
        Val::Scalar(v) => {
            let pos = put_scalar(out, pos, f.kind, v);
            put_varint(out, pos, tag(f.number, f.kind.wire_type()))
        }
        Val::Str(s) if implicit && s.is_empty() => pos,
        Val::Str(s) => put_delimited(out, pos, f.number, s.as_bytes()),
        Val::Bytes(b) if implicit && b.is_empty() => pos,
        Val::Bytes(b) => put_delimited(out, pos, f.number, b),
        _ => put_list(out, pos, schema, table, f, slot),
    }
}

/// [`put_leaf`] of the rarer slots: repeated fields, unknown values.
fn put_list(
    out: &mut [u8],
    mut pos: usize,
    schema: &'static Schema,
    table: &MessageTable,
    f: &FieldTable,
    slot: &Slot<'_>,
) -> usize {
    let kind = f.kind;
    match slot.val {
        Val::Scalars([]) => pos,
        Val::Scalars(list) if f.packed => {
            let end = pos;
            for &v in list.iter().rev() {
                pos = put_scalar(out, pos, kind, v);
            }
            pos = put_varint(out, pos, end.saturating_sub(pos) as u64);
            put_varint(out, pos, tag(f.number, LEN))
        }
        Val::Scalars(list) => {
            let t = tag(f.number, kind.wire_type());
            for &v in list.iter().rev() {
                pos = put_scalar(out, pos, kind, v);
                pos = put_varint(out, pos, t);
            }
            pos
        }
        Val::Strs(list) => list.iter().rev().fold(pos, |pos, s| {
            put_delimited(out, pos, f.number, s.as_bytes())
        }),
        Val::BytesList(list) => list
            .iter()
            .rev()
            .fold(pos, |pos, b| put_delimited(out, pos, f.number, b)),
        Val::Raw(_) | Val::PackedRejects(_) => put_unknown(out, pos, schema, table, slot),
        Val::Scalar(_) | Val::Str(_) | Val::Bytes(_) | Val::Msg(_) | Val::Msgs(_) | Val::Absent => {
            pos
        }
    }
}

/// An unknown field's slot put before `pos`, written front to back in the
/// [`unknown_len`] bytes it takes (a packed run's rejects are found in
/// input order).
fn put_unknown(
    out: &mut [u8],
    pos: usize,
    schema: &'static Schema,
    table: &MessageTable,
    slot: &Slot<'_>,
) -> usize {
    let Some(start) = pos.checked_sub(unknown_len(schema, table, slot)) else {
        return 0;
    };
    let mut fwd = Fwd {
        buf: out.get_mut(start..pos).unwrap_or_default(),
        at: 0,
    };
    write_unknown(&mut fwd, schema, table, slot);
    debug_assert!(fwd.is_full(), "unknown_len and write_unknown disagree");
    start
}

/// A region of the output filled front to back.
struct Fwd<'o> {
    buf: &'o mut [u8],
    at: usize,
}

impl Fwd<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let end = self.at + bytes.len();
        if let Some(dst) = self.buf.get_mut(self.at..end) {
            dst.copy_from_slice(bytes);
        }
        self.at = end;
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        if let Some(dst) = self.buf.get_mut(self.at) {
            *dst = b;
        }
        self.at += 1;
    }

    fn is_full(&self) -> bool {
        self.at == self.buf.len()
    }
}

/// Byte by byte: building the varint in a local array and copying that
/// would call `memcpy` for each one- or two-byte value.
#[inline]
fn write_varint(out: &mut Fwd<'_>, mut v: u64) {
    while v >= 0x80 {
        out.byte((v as u8) | 0x80);
        v >>= 7;
    }
    out.byte(v as u8);
}

/// An unknown field front to back.
fn write_unknown(
    out: &mut Fwd<'_>,
    schema: &'static Schema,
    table: &MessageTable,
    slot: &Slot<'_>,
) {
    match slot.val {
        Val::Raw(value) => {
            let t = u64::from(slot.aux);
            write_varint(out, t);
            match (slot.aux & 7) as u8 {
                LEN => {
                    write_varint(out, value.len() as u64);
                    out.put(value);
                }
                SGROUP => {
                    out.put(value);
                    write_varint(out, t + 1);
                }
                _ => out.put(value),
            }
        }
        Val::PackedRejects(payload) => {
            let Some(f) = table.fields.get(slot.aux as usize) else {
                return;
            };
            for v in rejects(schema, f, payload) {
                write_varint(out, tag(f.number, VARINT));
                write_varint(out, v);
            }
        }
        _ => {}
    }
}
