//! The decoder.
//!
//! Each field is read once, in input order, and becomes a slot pushed on a
//! scratch stack in the arena. A nested message is read by a call of the
//! same function, its slots on top of its parent's; past [`MAX_RECURSION`]
//! levels (when `max_depth` allows them) each level checks the stack left
//! and goes on in a new segment when it runs short, so no input overflows
//! the thread's stack. When a message ends, its slots
//! leave the scratch for their final run in the arena: copied as they are
//! when the fields came in number order, each once, with no repeated
//! field other than messages (what canonical encoders write
//! for most messages; a repeated message field met once keeps its one
//! element as read, see `Slot::elements`; unknown fields after the known
//! ones, in increasing number order, are in that order as they stand),
//! otherwise sorted by field and gathered (repeated values into exact-size
//! arrays, the last occurrence of a scalar winning, unknown fields last in
//! input order).
//!
//! What canonical encoders do not write is read in place too. Two members
//! of one oneof: a member read right after another drops its slot as it
//! is stored, and members apart are sorted out when the message ends. An
//! unknown field or an unlisted closed-enum value in a dense record: it
//! is kept after the record's fields, which are copied out with it when
//! the message ends. A singular message field met more than once: its
//! occurrences are merged when the message ends, in place when they came
//! in a row and the message is otherwise in order (see
//! [`merge`](crate::merge); past the merge budget they are kept side by
//! side and merged once the root ends).
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use quarry_core::bumpalo::collections::Vec as ArenaVec;
use quarry_core::{BoundedAlloc, DecodeError, DecodeOptions, ItemBudget};

use crate::decode::max_arena_bytes;
use crate::merge::Oneofs;
use crate::record::{self, Record, Slot, UNKNOWN, Val};
use crate::table::{EnumTable, FieldTable, Kind, MessageRef, MessageTable, Schema, op};
use crate::values::{
    GroupFields, internal, levels_below, norm_varint, packed_count, read_scalar, skip_group,
    skip_plain, span, too_deep, wrong_wire_type,
};
use crate::wire::{
    EGROUP, LEN, SGROUP, VARINT, invalid_field_number, invalid_wire_type, read_fixed, read_len,
    read_tag, read_varint, read_varint_word,
};

/// Slots the scratch stack starts with; it doubles when full. Most messages
/// of real schemas keep fewer slots pending at once (fields of the message
/// being read and of its ancestors).
pub(crate) const INITIAL_SCRATCH: usize = 8;

/// Nesting levels the decoder enters by plain recursion (each a frame of a
/// few hundred bytes on the thread's stack). Past them, when `max_depth`
/// allows it, each level checks the stack left and goes on in a new
/// segment of [`STACK_SEGMENT`] bytes when less than [`STACK_RED_ZONE`] is
/// (`stacker`), so no nesting overflows the thread's stack.
pub(crate) const MAX_RECURSION: u32 = 100;

/// Stack a level past [`MAX_RECURSION`] needs left before it recurses.
pub(crate) const STACK_RED_ZONE: usize = 64 * 1024;

/// Size of each stack segment deep nesting grows onto.
pub(crate) const STACK_SEGMENT: usize = 1024 * 1024;

/// A dense record as it starts: slot `i` holds field `i`, absent. Copying
/// its first slots costs fewer instructions than writing each slot's three
/// words, and a copy of a length known when compiled (see
/// [`Dec::dense_slots`]) fewer than a call to `memcpy`.
// (Eight entries: a change of `DENSE_FIELDS` fails to compile here.)
static ABSENT: [Slot<'static>; MessageTable::DENSE_FIELDS] = [
    absent(0),
    absent(1),
    absent(2),
    absent(3),
    absent(4),
    absent(5),
    absent(6),
    absent(7),
];

const fn absent(field: u32) -> Slot<'static> {
    Slot::absent(field)
}

/// The first `K` slots of [`ABSENT`], allocated in `bump`.
#[inline(always)]
fn absent_run<'a, const K: usize>(bump: &'a quarry_core::bumpalo::Bump) -> &'a mut [Slot<'a>] {
    match ABSENT.first_chunk::<K>() {
        Some(run) => bump.alloc(*run),
        None => &mut [],
    }
}

/// What the decoder tracks about the message being read, besides its
/// cursor.
#[derive(Clone, Copy)]
struct Msg {
    /// Where its slots start in the scratch.
    base: usize,
    /// Where its bytes start (item-limit errors point here).
    start: usize,
    /// Bit 0 ([`Msg::GATHER`]): slots must be gathered, a repeated field
    /// (not a message one) was read. (Fields out of number order, or one
    /// twice, such as a repeated message field's second element, and
    /// unknown fields before a known one or not in increasing number
    /// order, are found when the message ends: one compare per slot there
    /// instead of per field here. Unknown fields after the known ones, in
    /// increasing number order, are in reader order as they stand.) Bit 1 ([`Msg::PENDING`]): a
    /// child's record holds occurrences still to merge. Above them, four
    /// times the number of oneof members read ([`Msg::ONEOF`] each,
    /// saturating; two or more may displace one another). One word, so the
    /// message's state costs the loop one register or one stack slot
    /// fewer.
    marks: u32,
}

impl Msg {
    fn new(base: usize, start: usize) -> Self {
        Self {
            base,
            start,
            marks: 0,
        }
    }

    const GATHER: u32 = 1;
    const PENDING: u32 = 2;
    const ONEOF: u32 = 4;

    /// The slots cannot simply be copied: something was read that needs a
    /// gather, two oneof members, or a child is pending (the gather tells
    /// the parent, so the common path checks nothing more).
    fn must_gather(self) -> bool {
        self.marks & !Self::ONEOF != 0
    }

    /// Two or more oneof members were read.
    fn oneof_pair(self) -> bool {
        self.marks >= 2 * Self::ONEOF
    }
}

/// The mutable state of one decode besides the cursor.
struct Dec<'a, 's> {
    buf: &'a [u8],
    schema: &'static Schema,
    alloc: &'s BoundedAlloc<'a>,
    scratch: ArenaVec<'a, Slot<'a>>,
    items: ItemBudget,
    max_depth: u32,
    /// Nesting level of the message being read (1 for the root).
    depth: u32,
    /// What the message that just ended tells its parent (see [`signal`]):
    /// set by the child, taken by the parent right after the child
    /// returns, so it is 0 whenever a message starts.
    signal: u8,
    /// The first level whose children are not read by plain recursion:
    /// past `max_depth` (an error) or at [`MAX_RECURSION`] (recursion that
    /// checks the stack). One compare per nested message.
    deep: u32,
    /// Dense-record slots this decode may still allocate: one per two
    /// input bytes in all (see [`Dec::enter`]).
    dense_left: usize,
    /// Arena bytes the merges at a message's end wrote so far (see
    /// [`crate::merge::merge_run`]): past the merge budget, occurrences
    /// are merged once the root ends.
    merge_spent: usize,
    /// False when nothing this decode can write or count reaches the
    /// limits (see [`decode`]): the per-message checks are skipped.
    checked: bool,
    /// The error a nested [`Dec::message_call`] stopped with (see there).
    error: Option<DecodeError>,
    /// The deepest level whose message may take the scratch as its record
    /// (see [`Dec::finish`]): 2 while the root is a dense record and the
    /// scratch is still the decode's first buffer, neither grown nor taken;
    /// 1 (the root only) otherwise.
    take_depth: u32,
}

/// Decode `input` as one message of type `message`. Inlined into the entry
/// points (see `decode::decode_inline`).
#[inline(always)]
pub(crate) fn decode<'a>(
    message: MessageRef,
    alloc: &BoundedAlloc<'a>,
    input: &'a [u8],
    options: &DecodeOptions,
) -> Result<Record<'a>, DecodeError> {
    let schema = message.schema;
    let Some(root) = schema.messages.get(message.index as usize) else {
        return Err(internal(0));
    };
    // Every slot stands for at least two input bytes, so the scratch never
    // needs more than one slot per two bytes (and one for an empty input).
    let cap = (input.len() / 2).saturating_add(1).min(INITIAL_SCRATCH);
    alloc.charge_slice::<Slot<'a>>(cap, 0)?;
    // Items are at most one per input byte (a slot stands for two bytes or
    // more, a packed value for one or more), and the arena bound holds for
    // every input: when both fit the limits, the per-message counting and
    // charging cannot fail. (Nesting costs this decoder no arena bytes: its
    // per-level state is on the thread's stack.)
    let checked = !ItemBudget::new(options).cannot_pass(input.len())
        || alloc.used().saturating_add(max_arena_bytes(input.len())) > alloc.limit();
    let mut d = Dec {
        buf: input,
        schema,
        alloc,
        scratch: ArenaVec::with_capacity_in(cap, alloc.bump()),
        items: ItemBudget::new(options),
        max_depth: options.max_depth,
        depth: 1,
        deep: options.max_depth.saturating_add(1).min(MAX_RECURSION),
        dense_left: input.len() / 2,
        merge_spent: 0,
        checked,
        error: None,
        take_depth: 1,
        signal: 0,
    };
    let outcome = d.run(root);
    // The records were allocated after the scratch, so bumpalo could not
    // take its buffer back: dropping it would only cost the check. (An
    // empty input leaves its one-slot scratch, 24 bytes, until the reset.)
    std::mem::forget(d.scratch);
    outcome
}

/// A tag of one byte (field numbers 1 to 15, wire types 0 to 7): the common
/// case, read without validation; `None` sends the caller to
/// [`read_tag`]. Field number 0 is not a field of any table, and wire types
/// 6 and 7 match no field's, so both reach the checked paths.
#[inline(always)]
fn short_tag(buf: &[u8], pos: usize) -> Option<(u32, u8)> {
    match buf.get(pos) {
        Some(&b) if b < 0x80 => Some((u32::from(b >> 3), b & 7)),
        _ => None,
    }
}

/// A two-byte tag (field numbers 16 to 2047) of a known field the loop
/// reads inline, found through the table's number lookup; `None` sends the
/// caller to the rest of the general path.
#[inline(always)]
fn two_byte_tag(table: &MessageTable, buf: &[u8], at: usize, end: usize) -> Option<General> {
    let after = at.checked_add(2)?;
    if after > end {
        return None;
    }
    let [b0, b1] = *buf.get(at..after)? else {
        return None;
    };
    if b0 < 0x80 || b1 >= 0x80 {
        return None;
    }
    let tag = u32::from(b0 & 0x7F) | u32::from(b1) << 7;
    let number = tag >> 3;
    let fi = u32::from(*table.by_number.get(number as usize)?).checked_sub(1)?;
    let op = table.fields.get(fi as usize)?.op;
    if u32::from(op & 7) != tag & 7 || !loop_reads(op) {
        return None;
    }
    Some(General {
        fi,
        number,
        reader: op >> 3,
        flags: 0,
        pos: after,
    })
}

/// True if the loop reads a field of [`FieldTable::op`] `op` once the
/// field's index is known: it has a reader (`op` from 8) and is no oneof
/// member (bit 7, which makes `op` negative as an `i8`).
#[inline(always)]
fn loop_reads(op: u8) -> bool {
    op as i8 >= 8
}

/// The [`short`](MessageTable::short) entry of the oneof member whose
/// one-byte tag is at `at` (bit 7 of its tag byte set, see
/// [`MessageTable::short_of`]), if it is one.
#[inline(always)]
fn member_entry(table: &MessageTable, buf: &[u8], at: usize) -> Option<u16> {
    let b = *buf.get(at)?;
    // Bytes from 0x80 have no entry.
    let e = *table.short.get(usize::from(b >> 3))?;
    // An entry of no field (0xFF, no reader) would match 0x7F.
    (e as u8 == b | op::MEMBER && e >= 0x100).then_some(e)
}

/// An unknown field of number `number` (not 0) and wire type `wt` whose
/// value, from `at`, is a one-byte varint (a flag, a small count or enum
/// value: what newer schemas add most): where it ends and its slot.
#[inline(always)]
fn one_byte_varint(
    buf: &[u8],
    number: u32,
    wt: u8,
    at: usize,
    end: usize,
) -> Option<(usize, Slot<'_>)> {
    match buf.get(at) {
        Some(&b) if b < 0x80 && wt == VARINT && number != 0 && at < end => {
            let pos = next_byte(at);
            Some((pos, Slot::unknown(number << 3, buf.get(at..pos)?)))
        }
        _ => None,
    }
}

/// A length prefix of one byte whose payload ends within `end`; `None`
/// sends the caller to [`read_len`], which reports what is wrong.
#[inline(always)]
fn short_len(buf: &[u8], pos: usize, end: usize) -> Option<(usize, usize)> {
    match buf.get(pos) {
        Some(&l) if l < 0x80 => {
            #[expect(
                clippy::arithmetic_side_effects,
                reason = "pos < buf.len() <= isize::MAX and l < 128: no overflow"
            )]
            let (s, e) = (pos + 1, pos + 1 + usize::from(l));
            (e <= end).then_some((s, e))
        }
        _ => None,
    }
}

/// [`read_len`] from `pos`, out of line: for the general path's rare
/// reads, where inlined it would be most of their code.
#[inline(never)]
fn read_len_at(buf: &[u8], pos: usize, end: usize) -> Result<(usize, usize), DecodeError> {
    let mut p = pos;
    read_len(buf, &mut p, end)
}

/// A field as [`Dec::general_field`] found it.
struct General {
    fi: u32,
    number: u32,
    reader: u8,
    flags: u8,
    /// Past the tag, or past the field when it was read.
    pos: usize,
}

/// A field a helper read already (reader [`op::RARE`]), up to `pos`.
#[inline(always)]
fn read_as(fi: u32, number: u32, flags: u8, pos: usize) -> General {
    General {
        fi,
        number,
        reader: op::RARE,
        flags,
        pos,
    }
}

/// What a helper tells the field loop besides the new position.
mod step {
    /// The message's slots must be sorted or gathered.
    pub const GATHER: u8 = 1;
    /// A oneof member was read.
    pub const ONEOF: u8 = 2;
    /// A child's record holds occurrences still to merge.
    pub const PENDING: u8 = 8;
}

/// What a message that ended tells its parent ([`Dec::signal`]).
mod signal {
    /// Its record holds occurrences of a singular message field still to
    /// merge, in it or below it: the parent stores it as a pending slot.
    pub const PENDING: u8 = 1;
    /// It is a map entry whose value is one a closed enum does not list:
    /// the parent keeps the whole entry as an unknown field.
    pub const ENTRY_REJECTED: u8 = 2;
}

impl<'a> Dec<'a, '_> {
    fn run(&mut self, root: &'static MessageTable) -> Result<Record<'a>, DecodeError> {
        let end = self.buf.len();
        if root.dense && self.dense_left >= root.fields.len() {
            self.take_depth = 2;
        }
        let slots = self.enter(root, 0, end)?;
        if self.signal & signal::PENDING != 0 {
            let settled = crate::merge::settle(self.alloc, self.schema, root, slots, 0)?;
            return Ok(Record::new(settled));
        }
        Ok(Record::new(slots))
    }

    /// Read the message of type `table` at `start..end`, nesting level
    /// `self.depth` (1 for the root), into its final slots. The loop reads the common fields
    /// (singular, in number order, of the kind their wire type says)
    /// inline; everything else goes through out-of-line helpers.
    ///
    /// `DENSE`: the slots are the table's fields, written in place (no
    /// scratch, no copy at the end). The first unknown field, child still
    /// to merge or message field met again ends the dense read: the rest
    /// of the message is read as a sparse one, its slots on the scratch
    /// above the dense record's present ones ([`Dec::spill`]). The common
    /// path checks nothing for that.
    ///
    /// A sparse message's slots go on the scratch from `msg.base` (which
    /// may hold the slots of a dense read that spilled), and are copied
    /// out when it ends.
    #[inline(always)]
    fn message<const DENSE: bool>(
        &mut self,
        table: &'static MessageTable,
        mut msg: Msg,
        end: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let start = msg.start;
        // The input up to the message's end: one bound for the loop and
        // the slice reads.
        let Some(buf) = self.buf.get(..end) else {
            return Err(internal(start));
        };
        let end = buf.len();
        let dense: &'a mut [Slot<'a>] = if DENSE {
            self.dense_slots(table, start)?
        } else {
            &mut []
        };
        let mut pos = start;
        while pos < end {
            let at = pos;
            // The common case first: a one-byte tag of a field the short
            // lookup reads (its entry's low byte is the very tag byte).
            let short = match buf.get(at) {
                Some(&b) if b < 0x80 => match table.short.get(usize::from(b >> 3)) {
                    Some(&e) if e as u8 == b => Some((b, e)),
                    _ => None,
                },
                _ => None,
            };
            let (fi, number, reader, after_tag) = match short {
                Some((b, e)) => (
                    u32::from(e >> 12),
                    u32::from(b >> 3),
                    ((e >> 8) & 15) as u8,
                    next_byte(at),
                ),
                None => {
                    let g = self.general_field(table, msg.base, at, end, self.depth)?;
                    if g.reader == op::RARE {
                        // Read already (see `general_field`), on the
                        // scratch. A dense read spills (dense tables have
                        // no field the general path reads, but a table is
                        // data: such a known field's marks, for repeated
                        // fields and oneofs, which dense tables have none
                        // of, are not kept).
                        pos = g.pos;
                        if DENSE {
                            return self.spill(table, msg.base, msg.start, dense, pos, end);
                        }
                        let mut marks = msg.marks;
                        if g.flags & step::GATHER != 0 {
                            marks |= Msg::GATHER;
                        }
                        if g.flags & step::PENDING != 0 {
                            marks |= Msg::PENDING;
                        }
                        if g.flags & step::ONEOF != 0 {
                            marks = marks.saturating_add(Msg::ONEOF);
                        }
                        msg.marks = marks;
                        continue;
                    }
                    (g.fi, g.number, g.reader, g.pos)
                }
            };
            match reader {
                op::STR | op::BYTES => {
                    let (s, e) = match short_len(buf, after_tag, end) {
                        Some(span) => span,
                        None => {
                            let mut p = after_tag;
                            read_len(buf, &mut p, end)?
                        }
                    };
                    pos = e;
                    let val = string_value(buf, s, e, reader == op::STR)?;
                    self.store::<DENSE>(dense, fi, val, at)?;
                }
                op::MSG | op::MSGS => {
                    let (s, e) = match short_len(buf, after_tag, end) {
                        Some(span) => span,
                        None => {
                            let mut p = after_tag;
                            read_len(buf, &mut p, end)?
                        }
                    };
                    pos = e;
                    let Some(f) = table.fields.get(fi as usize) else {
                        return Err(internal(at));
                    };
                    // A message field twice: its occurrences are merged,
                    // which a dense slot cannot hold. The dense read
                    // spills, and the later occurrence is read again from
                    // its tag as part of the rest.
                    if DENSE && dense.get(fi as usize).is_some_and(|s| s.as_msg().is_some()) {
                        return self.spill(table, msg.base, msg.start, dense, at, end);
                    }
                    let slots = self.child(f, at, s, e)?;
                    if self.signal == 0 {
                        self.store::<DENSE>(dense, fi, Val::Msg(slots), at)?;
                    } else {
                        let (slot, marks) = self.signalled(fi, at, slots)?;
                        if DENSE && slot.is_pending() {
                            // A pending child: the dense read spills, its
                            // slot with the present ones, and the parent
                            // learns of it from `spill`. (Dense tables
                            // have no map field, whose rejected entry is
                            // the other signal.)
                            match dense.get_mut(fi as usize) {
                                Some(held) => *held = slot,
                                None => return Err(internal(at)),
                            }
                            return self.spill(table, msg.base, msg.start, dense, pos, end);
                        }
                        if DENSE {
                            return Err(internal(at));
                        }
                        self.push(slot, at)?;
                        msg.marks |= marks;
                    }
                }
                _ => {
                    let mut p = after_tag;
                    let v = if reader < op::FIXED64 {
                        let raw = match buf.get(p) {
                            Some(&b) if b < 0x80 => {
                                p = next_byte(p);
                                u64::from(b)
                            }
                            // Longer varints (timestamps) from one load of
                            // eight bytes of the whole input where it has
                            // them, inline: the call to the checked path
                            // costs as much again.
                            _ => match read_varint_word(self.buf, p, end) {
                                Some((v, next)) => {
                                    p = next;
                                    v
                                }
                                None => read_varint(self.buf, &mut p, end)?,
                            },
                        };
                        norm_by_reader(reader, raw)
                    } else {
                        read_fixed_by_reader(reader, buf, &mut p, end)?
                    };
                    pos = p;
                    if reader == op::ENUM
                        && let Some(f) = table.fields.get(fi as usize)
                        && let Some(e) = closed_enum(self.schema, f)
                        && !e.contains(v as i32)
                    {
                        // Kept as an unknown field, as protobuf does. (Map
                        // values of closed enums never come here: see
                        // `FieldTable::whole_entry_op`.)
                        let unknown = Slot::unknown(number << 3, span(buf, after_tag, p)?);
                        // A slot `finish` checks the order of; a dense
                        // read spills.
                        self.push(unknown, at)?;
                        if DENSE {
                            return self.spill(table, msg.base, msg.start, dense, p, end);
                        }
                        continue;
                    }
                    self.store::<DENSE>(dense, fi, Val::Scalar(v), at)?;
                }
            }
        }
        if DENSE {
            if self.checked {
                let present = dense.iter().filter(|s| !s.is_absent()).count();
                self.items.take(present, start)?;
            }
            debug_assert!(record::in_decode_order(dense));
            return Ok(dense);
        }
        self.finish(table, msg, end)
    }

    /// Put the value of field `fi` in its dense slot, or push it on the
    /// scratch. A dense slot set twice keeps the last value, as protobuf
    /// does for singular fields.
    #[inline(always)]
    fn store<const DENSE: bool>(
        &mut self,
        dense: &mut [Slot<'a>],
        fi: u32,
        val: Val<'a>,
        at: usize,
    ) -> Result<(), DecodeError> {
        if DENSE {
            match dense.get_mut(fi as usize) {
                Some(slot) => {
                    *slot = Slot::new(fi, val);
                    Ok(())
                }
                None => Err(internal(at)),
            }
        } else {
            self.push(Slot::new(fi, val), at)
        }
    }

    /// The rest of a dense record's message, from `pos`, after its first
    /// unknown field (pushed on the scratch from `base`), a child still to
    /// merge (in its dense slot) or a message field met again (read again
    /// from its tag at `pos`). When nothing follows, the record is made in
    /// place: the present slots moved to the front of the dense ones, the
    /// unknown field after them (every field present, a copy of them with
    /// it). Otherwise the present slots go on the
    /// scratch below what is there, where a sparse read would have put
    /// them, and the sparse loop reads the rest above them, so that the
    /// message ends as a sparse one does (copied out in reader order, or
    /// gathered and its fields met twice merged); the dense slots stay
    /// behind in the arena, within the dense budget that charged them, and
    /// item-limit errors of the rest point at `pos`. The message's parts
    /// (`base`, `start`) are passed apart: as a `Msg`, the common loop
    /// keeps it in memory.
    #[cold]
    #[inline(never)]
    fn spill(
        &mut self,
        table: &'static MessageTable,
        base: usize,
        start: usize,
        dense: &'a mut [Slot<'a>],
        pos: usize,
        end: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let tail = self.scratch.len().saturating_sub(base);
        if pos >= end && tail <= 1 {
            // Nothing after what ended the dense read (most often an
            // unknown field a newer schema appended): the present slots
            // move to the front of the dense ones, in place, and the
            // unknown field, if that was it, follows them. No scratch, no
            // sparse read.
            let mut n = 0usize;
            let mut pending = false;
            for k in 0..dense.len() {
                let Some(&slot) = dense.get(k) else {
                    break;
                };
                if !slot.is_absent() {
                    pending |= slot.is_pending();
                    if n != k
                        && let Some(dst) = dense.get_mut(n)
                    {
                        *dst = slot;
                    }
                    n = n.saturating_add(1);
                }
            }
            let unknown = if tail == 1 {
                self.scratch.get(base).copied()
            } else {
                None
            };
            let record: &'a [Slot<'a>] = match unknown {
                // Room after the present slots: the unknown field there.
                Some(unknown) if n < dense.len() => {
                    if let Some(dst) = dense.get_mut(n) {
                        *dst = unknown;
                    }
                    n = n.saturating_add(1);
                    let dense: &'a [Slot<'a>] = dense;
                    dense.get(..n).unwrap_or_default()
                }
                // Every field present (nothing moved), no room: a copy of
                // them with the unknown field after them.
                Some(unknown) => {
                    n = n.saturating_add(1);
                    let dense: &'a [Slot<'a>] = dense;
                    self.alloc.alloc_slice_fill_with(n, start, |i| {
                        dense.get(i).copied().unwrap_or(unknown)
                    })?
                }
                None => {
                    let dense: &'a [Slot<'a>] = dense;
                    dense.get(..n).unwrap_or_default()
                }
            };
            if self.checked {
                self.items.take(n, start)?;
            }
            if pending {
                self.signal |= signal::PENDING;
            }
            self.scratch.truncate(base);
            debug_assert!(record::in_decode_order(record));
            return Ok(record);
        }
        // The present slots go below what the dense read pushed: one slot
        // at most (the unknown field or unlisted value that ended it),
        // held while they are pushed. (More, which no dense table makes,
        // are moved up by one per present slot.)
        let mut pending = false;
        let held = if self.scratch.len() == base.saturating_add(1) {
            self.scratch.pop()
        } else {
            None
        };
        let mut at = base;
        for slot in dense.iter().filter(|s| !s.is_absent()) {
            pending |= slot.is_pending();
            self.push(*slot, start)?;
            if let Some(region) = self.scratch.get_mut(at..)
                && region.len() > 1
            {
                let last = region.len().saturating_sub(1);
                region.copy_within(..last, 1);
                if let Some(first) = region.first_mut() {
                    *first = *slot;
                }
            }
            at = at.saturating_add(1);
        }
        if let Some(slot) = held {
            self.push(slot, start)?;
        }
        let rest = self.message_call::<false>(table, base, pos, end);
        let slots = self.result(rest)?;
        if pending {
            // Dense tables have no repeated field, the one kind whose slot
            // the gather marks for a pending child: the parent is told.
            self.signal |= signal::PENDING;
        }
        Ok(slots)
    }

    /// The slot of message field `fi` (number `number`, body `s..e`) whose
    /// record `slots` ended with a [`signal`], and the marks its message
    /// takes for it. Takes the signal. The field's number and body are read
    /// again from its tag at `at` (a map entry's, which is rare), so the
    /// loop need not keep them across the child's read.
    #[cold]
    #[inline(never)]
    fn signalled(
        &mut self,
        fi: u32,
        at: usize,
        slots: &'a [Slot<'a>],
    ) -> Result<(Slot<'a>, u32), DecodeError> {
        let signal = std::mem::take(&mut self.signal);
        if signal & signal::ENTRY_REJECTED != 0 {
            // The whole entry, as protobuf keeps it.
            let buf = self.buf;
            let mut p = at;
            let (number, _) = read_tag(buf, &mut p, buf.len())?;
            let (s, e) = read_len(buf, &mut p, buf.len())?;
            let entry = Slot::unknown((number << 3) | u32::from(LEN), span(buf, s, e)?);
            return Ok((entry, Msg::GATHER));
        }
        Ok((Slot::pending(fi, slots), Msg::PENDING))
    }

    /// Read the body `s..e` of message field `f` (tag at `at`) of a message
    /// at nesting level `self.depth`, one level down.
    #[inline(always)]
    fn child(
        &mut self,
        f: &FieldTable,
        at: usize,
        s: usize,
        e: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let depth = self.depth;
        let Some(child) = self.schema.messages.get(f.sub as usize) else {
            return Err(internal(at));
        };
        if depth >= self.deep {
            return self.deep_child(child, at, s, e);
        }
        self.depth = depth.saturating_add(1);
        let slots = self.enter(child, s, e)?;
        self.depth = depth;
        Ok(slots)
    }

    /// A nested message at level [`deep`](Dec::deep) or below: past
    /// `max_depth`, an error; otherwise read as [`child`](Self::child)
    /// reads it, on a new stack segment when this one runs short.
    #[cold]
    #[inline(never)]
    fn deep_child(
        &mut self,
        child: &'static MessageTable,
        at: usize,
        s: usize,
        e: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let depth = self.depth;
        if depth > self.max_depth {
            return Err(DecodeError::DepthLimit {
                offset: at,
                limit: self.max_depth,
            });
        }
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.depth = depth.saturating_add(1);
            let slots = self.enter(child, s, e);
            self.depth = depth;
            slots
        })
    }

    /// Read the message of type `table` at `start..end` (see
    /// [`message`](Self::message)), into a dense record when its table
    /// allows one and the decode's dense budget has a slot per field left
    /// (which keeps the arena bound: dense slots, absent ones included,
    /// take at most one slot per two input bytes in all, however the
    /// dense bodies nest).
    #[inline(always)]
    fn enter(
        &mut self,
        table: &'static MessageTable,
        start: usize,
        end: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let n = table.fields.len();
        let slots = if table.dense && self.dense_left >= n {
            self.dense_left = self.dense_left.saturating_sub(n);
            self.message_call::<true>(table, 0, start, end)
        } else {
            self.message_call::<false>(table, self.scratch.len(), start, end)
        };
        self.result(slots)
    }

    /// The result of [`message_call`](Self::message_call) as a `Result`.
    #[inline(always)]
    fn result(&mut self, slots: Option<&'a [Slot<'a>]>) -> Result<&'a [Slot<'a>], DecodeError> {
        match slots {
            Some(slots) => Ok(slots),
            None => Err(self.error.take().unwrap_or_else(|| internal(0))),
        }
    }

    /// [`message`](Self::message) behind a call whose result fits two
    /// registers: the slots, or `None` when the decode fails, the error
    /// left in [`error`](Dec::error). Returned whole, the `Result` goes
    /// through memory: stores and loads per nested message. A sparse
    /// message's slots go on the scratch from `base` (see
    /// [`spill`](Self::spill)); a dense one ignores it.
    #[inline(never)]
    fn message_call<const DENSE: bool>(
        &mut self,
        table: &'static MessageTable,
        base: usize,
        start: usize,
        end: usize,
    ) -> Option<&'a [Slot<'a>]> {
        // A dense read's base is only needed when it spills: read here,
        // the caller's loop keeps no register for it.
        let base = if DENSE { self.scratch.len() } else { base };
        let msg = Msg::new(base, start);
        match self.message::<DENSE>(table, msg, end) {
            Ok(slots) => Some(slots),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }

    /// The slots of a dense record of `table`: one per field, absent,
    /// copied from [`ABSENT`] at a length known when compiled, so the copy
    /// is a few vector moves instead of a call to `memcpy`.
    fn dense_slots(
        &self,
        table: &'static MessageTable,
        at: usize,
    ) -> Result<&'a mut [Slot<'a>], DecodeError> {
        let n = table.fields.len();
        if self.checked {
            self.alloc.charge_slice::<Slot<'a>>(n, at)?;
        }
        let bump = self.alloc.bump();
        Ok(match n {
            1 => absent_run::<1>(bump),
            2 => absent_run::<2>(bump),
            3 => absent_run::<3>(bump),
            4 => absent_run::<4>(bump),
            5 => absent_run::<5>(bump),
            6 => absent_run::<6>(bump),
            7 => absent_run::<7>(bump),
            8 => absent_run::<8>(bump),
            0 => &mut [],
            _ => return Err(internal(at)),
        })
    }

    /// A field whose tag the short lookup does not answer: a longer tag,
    /// an unknown field, or one without a reader of its own. Returns the
    /// field's index, number, reader and the position past its tag for the
    /// loop to read it; or, with reader [`op::RARE`], the field read already
    /// (unknown fields with index [`UNKNOWN`]), where the loop goes on and
    /// what it must note.
    #[inline(never)]
    fn general_field(
        &mut self,
        table: &'static MessageTable,
        base: usize,
        at: usize,
        end: usize,
        depth: u32,
    ) -> Result<General, DecodeError> {
        // Two-byte tags of fields the loop reads (`contextInfo`,
        // `messageContextInfo`) first, before the general path's set-up.
        if let Some(g) = two_byte_tag(table, self.buf, at, end) {
            return Ok(g);
        }
        self.member_or_slow(table, base, at, end, depth)
    }

    /// [`general_field`](Self::general_field) past the two-byte case:
    /// one-byte tags of oneof members to [`member`](Self::member), before
    /// the general path's set-up; the rest to
    /// [`general_slow`](Self::general_slow). (A function of its own: in
    /// `general_field` the test cost the two-byte case registers.)
    #[inline(never)]
    fn member_or_slow(
        &mut self,
        table: &'static MessageTable,
        base: usize,
        at: usize,
        end: usize,
        depth: u32,
    ) -> Result<General, DecodeError> {
        if member_entry(table, self.buf, at).is_some() {
            return self.member(table, base, at, end);
        }
        // A field appended by a newer schema, a one-byte varint: kept as
        // `general_slow` keeps it, without its set-up.
        if let Some(&b) = self.buf.get(at)
            && b < 0x80
            && table
                .fields
                .last()
                .is_some_and(|f| u32::from(b >> 3) > f.number)
            && depth <= self.max_depth
            && let Some((pos, slot)) =
                one_byte_varint(self.buf, u32::from(b >> 3), b & 7, next_byte(at), end)
        {
            self.push(slot, at)?;
            return Ok(General {
                fi: UNKNOWN,
                number: u32::from(b >> 3),
                reader: op::RARE,
                flags: 0,
                pos,
            });
        }
        self.general_slow(table, base, at, end, depth)
    }

    /// A oneof member with a one-byte tag and a reader of its own (see
    /// [`member_entry`]), read here by its reader, without the general path's set-up: a
    /// member read right after another member of its oneof (the slot on
    /// top of the scratch, above `base`) drops that slot, otherwise it is
    /// counted ([`step::ONEOF`]) for `finish`, as
    /// [`rare_known`](Self::rare_known) does. Returns the member as read
    /// (reader [`op::RARE`]). The loop itself has no oneof branch: any
    /// state it keeps for one costs every decode.
    #[inline(never)]
    fn member(
        &mut self,
        table: &'static MessageTable,
        base: usize,
        at: usize,
        end: usize,
    ) -> Result<General, DecodeError> {
        let buf = self.buf;
        let Some(e) = member_entry(table, buf, at) else {
            return Err(internal(at));
        };
        let fi = u32::from(e >> 12);
        let reader = ((e >> 8) & 15) as u8;
        let number = u32::from((e as u8) & !op::MEMBER) >> 3;
        let Some(f) = table.fields.get(fi as usize) else {
            return Err(internal(at));
        };
        let mut pos = next_byte(at);
        let mut flags = step::ONEOF;
        let val = match reader {
            op::STR | op::BYTES | op::MSG => {
                let (s, e) = match short_len(buf, pos, end) {
                    Some(span) => span,
                    None => read_len(buf, &mut pos, end)?,
                };
                pos = e;
                if reader != op::MSG {
                    string_value(buf, s, e, reader == op::STR)?
                } else {
                    let slots = self.child(f, at, s, e)?;
                    if self.signal != 0 {
                        return self.signalled_member(table, f, fi, slots, base, at, pos);
                    }
                    Val::Msg(slots)
                }
            }
            _ => {
                let v = if reader < op::FIXED64 {
                    let raw = match buf.get(pos) {
                        Some(&b) if b < 0x80 && pos < end => {
                            pos = next_byte(pos);
                            u64::from(b)
                        }
                        _ => read_varint(buf, &mut pos, end)?,
                    };
                    norm_by_reader(reader, raw)
                } else {
                    read_fixed_by_reader(reader, buf, &mut pos, end)?
                };
                if reader == op::ENUM
                    && let Some(en) = closed_enum(self.schema, f)
                    && !en.contains(v as i32)
                {
                    // Kept as an unknown field, as protobuf does; it
                    // displaces no member. (No map entry has members.)
                    let value = span(buf, next_byte(at), pos)?;
                    self.push(Slot::unknown(number << 3, value), at)?;
                    return Ok(read_as(fi, number, flags, pos));
                }
                Val::Scalar(v)
            }
        };
        let mut slot = Slot::new(fi, val);
        if self.displace_last(table, f, fi, base) {
            // One member replaced another: see `rare_known`.
            flags = 0;
            slot = slot.with_reset();
        }
        self.push(slot, at)?;
        Ok(read_as(fi, number, flags, pos))
    }

    /// [`member`](Self::member) for a message member whose record `slots`
    /// ended with a [`signal`] (see [`signalled`](Self::signalled)).
    #[cold]
    #[inline(never)]
    #[expect(
        clippy::too_many_arguments,
        reason = "the member as `member` read it and the caller's cursor"
    )]
    fn signalled_member(
        &mut self,
        table: &MessageTable,
        f: &FieldTable,
        fi: u32,
        slots: &'a [Slot<'a>],
        base: usize,
        at: usize,
        pos: usize,
    ) -> Result<General, DecodeError> {
        let flags = self.push_signalled(table, f, fi, slots, base, at, step::ONEOF)?;
        let number = table.fields.get(fi as usize).map_or(0, |f| f.number);
        Ok(read_as(fi, number, flags, pos))
    }

    /// Push the slot of message field `f` (index `fi`) whose record
    /// `slots` ended with a [`signal`] (see [`signalled`](Self::signalled)),
    /// dropping the member it displaces if it is a oneof member read right
    /// after another (see [`displace_last`](Self::displace_last)); returns
    /// `flags` with what the loop must note for it (see [`step`]).
    #[expect(
        clippy::too_many_arguments,
        reason = "the field as read, its record and the message's cursor"
    )]
    fn push_signalled(
        &mut self,
        table: &MessageTable,
        f: &FieldTable,
        fi: u32,
        slots: &'a [Slot<'a>],
        base: usize,
        at: usize,
        mut flags: u8,
    ) -> Result<u8, DecodeError> {
        let (mut slot, marks) = self.signalled(fi, at, slots)?;
        if f.oneof != 0 && self.displace_last(table, f, fi, base) {
            // One member replaced another: see `rare_known`.
            flags &= !step::ONEOF;
            slot = slot.with_reset();
        }
        self.push(slot, at)?;
        if marks & Msg::GATHER != 0 {
            flags |= step::GATHER;
        }
        if marks & Msg::PENDING != 0 {
            flags |= step::PENDING;
        }
        Ok(flags)
    }

    /// [`general_field`](Self::general_field) past the two-byte case and
    /// oneof members.
    #[inline(never)]
    fn general_slow(
        &mut self,
        table: &'static MessageTable,
        base: usize,
        at: usize,
        end: usize,
        depth: u32,
    ) -> Result<General, DecodeError> {
        let buf = self.buf;
        let (number, wt, after_tag) = match short_tag(buf, at) {
            Some((number, wt)) => (number, wt, next_byte(at)),
            None => {
                let mut p = at;
                let (number, wt) = read_tag(buf, &mut p, end)?;
                (number, wt, p)
            }
        };
        let known = match table.by_number.get(number as usize) {
            Some(&i) if i != 0 => Some(u32::from(i).saturating_sub(1)),
            // Past the last field (a field a newer schema appended): no
            // search.
            _ if table.fields.last().is_none_or(|f| number > f.number) => None,
            _ if number != 0 => table.field_index(number),
            _ => None,
        };
        let Some(fi) = known else {
            // A one-byte varint is read here (a one-byte tag's, appended,
            // by `member_or_slow` already); the rest, with the checks
            // every wire type needs, by `unknown`.
            let (pos, slot) = match one_byte_varint(buf, number, wt, after_tag, end) {
                Some(read) if depth <= self.max_depth => read,
                _ => self.unknown(number, wt, at, after_tag, end, depth)?,
            };
            self.push(slot, at)?;
            return Ok(General {
                fi: UNKNOWN,
                number,
                reader: op::RARE,
                // Unknown fields need no gather when they come last (see
                // `Msg::marks`).
                flags: 0,
                pos,
            });
        };
        let Some(f) = table.fields.get(fi as usize) else {
            return Err(internal(at));
        };
        // The field's reader and expected wire type in one byte: fields
        // without a reader of their own (other repeated fields, groups),
        // oneof members the one-byte case did not take and wire types that
        // differ (packed runs, errors) go through the whole table entry.
        let op = f.op;
        if op & 7 != wt || !loop_reads(op) {
            let (pos, flags) =
                self.rare_known(table, f, fi, number, wt, base, at, after_tag, end, depth)?;
            return Ok(General {
                fi,
                number,
                reader: op::RARE,
                flags,
                pos,
            });
        }
        Ok(General {
            fi,
            number,
            reader: op >> 3,
            flags: 0,
            pos: after_tag,
        })
    }

    /// A known field the loop does not read inline: repeated fields, oneof
    /// members [`member`](Self::member) does not read, enums, groups,
    /// packed runs and wire-type mismatches. Its
    /// tag is at `at`, its value from `pos`; returns where the loop goes on
    /// and what it must note (see [`step`]).
    #[inline(never)]
    #[expect(
        clippy::too_many_arguments,
        reason = "the cursor and limits of the caller's loop"
    )]
    fn rare_known(
        &mut self,
        table: &MessageTable,
        f: &FieldTable,
        fi: u32,
        number: u32,
        wt: u8,
        base: usize,
        at: usize,
        mut pos: usize,
        end: usize,
        depth: u32,
    ) -> Result<(usize, u8), DecodeError> {
        let buf = self.buf;
        let kind = f.kind;
        let mut flags = 0;
        if f.is_repeated() {
            flags |= step::GATHER;
        }
        if f.oneof != 0 {
            flags |= step::ONEOF;
        }
        if wt != kind.wire_type() {
            if wt == LEN && f.is_repeated() && kind.packable() {
                self.packed(f, fi, at, &mut pos, end)?;
                return Ok((pos, flags));
            }
            return Err(mismatch(wt, at, f.number));
        }
        let val = match kind {
            Kind::String | Kind::Bytes => {
                let (s, e) = read_len_at(buf, pos, end)?;
                pos = e;
                string_value(buf, s, e, kind == Kind::String && f.utf8)?
            }
            Kind::Message | Kind::Group => {
                let (s, e) = if kind == Kind::Group {
                    let s = pos;
                    let levels = levels_below(self.max_depth, depth);
                    if levels == 0 {
                        return Err(too_deep(at, self.max_depth));
                    }
                    let e = skip_group(
                        buf,
                        &mut pos,
                        end,
                        number,
                        levels,
                        self.max_depth,
                        GroupFields::Known,
                    )?;
                    (s, e)
                } else {
                    let (s, e) = read_len_at(buf, pos, end)?;
                    pos = e;
                    (s, e)
                };
                let slots = self.child(f, at, s, e)?;
                if self.signal != 0 {
                    let flags = self.push_signalled(table, f, fi, slots, base, at, flags)?;
                    return Ok((pos, flags));
                }
                Val::Msg(slots)
            }
            _ => {
                let vstart = pos;
                let v = read_scalar(buf, &mut pos, end, kind)?;
                if let Some(e) = closed_enum(self.schema, f) {
                    if !e.contains(v as i32) {
                        if table.map_entry {
                            // Unless a listed value follows, the whole
                            // entry is an unknown field of the map's
                            // message (see `Dec::signalled`).
                            self.signal |= signal::ENTRY_REJECTED;
                            return Ok((pos, flags));
                        }
                        // Kept as an unknown field, as protobuf does.
                        self.push(Slot::unknown(number << 3, span(buf, vstart, pos)?), at)?;
                        return Ok((pos, flags));
                    }
                    if table.map_entry {
                        // The entry's last value is the one that counts.
                        self.signal &= !signal::ENTRY_REJECTED;
                    }
                }
                Val::Scalar(v)
            }
        };
        let mut slot = Slot::new(fi, val);
        if f.oneof != 0 && self.displace_last(table, f, fi, base) {
            // One member replaced another: the count of members read
            // stays, and no gather is needed for it.
            flags &= !step::ONEOF;
            slot = slot.with_reset();
        }
        self.push(slot, at)?;
        Ok((pos, flags))
    }

    /// Drop the slot the message whose slots start at `base` read last if
    /// it holds another member of the oneof of `f` (index `fi`), which the
    /// member about to be stored displaces: the common case of a oneof
    /// written twice costs the one slot, not the gather's walk over the
    /// message (see [`drop_displaced`](Self::drop_displaced), which handles
    /// the rest: members apart, or a member met twice). True if it was
    /// dropped; the caller marks its member's slot as [`Slot::with_reset`]
    /// does.
    #[inline]
    fn displace_last(
        &mut self,
        table: &MessageTable,
        f: &FieldTable,
        fi: u32,
        base: usize,
    ) -> bool {
        if self.scratch.len() <= base {
            return false;
        }
        let displaced = self.scratch.last().is_some_and(|last| {
            let other = last.field();
            other != fi
                && table
                    .fields
                    .get(other as usize)
                    .is_some_and(|o| o.oneof == f.oneof)
        });
        if displaced {
            self.scratch.pop();
        }
        displaced
    }

    /// Push one slot on the scratch (items are counted when its message
    /// ends).
    ///
    /// The write is unchecked: `Vec::push` checks the capacity again
    /// after the check here, and with the grow path joining before it the
    /// compiler keeps both, plus a reload.
    #[inline]
    fn push(&mut self, slot: Slot<'a>, at: usize) -> Result<(), DecodeError> {
        let len = self.scratch.len();
        if len == self.scratch.capacity() {
            self.grow(at)?;
        }
        debug_assert!(len == self.scratch.len() && len < self.scratch.capacity());
        #[expect(
            clippy::arithmetic_side_effects,
            reason = "len < capacity <= isize::MAX"
        )]
        // SAFETY: `len < capacity`: either it was so before, or `grow`
        // returned `Ok`, which it does only with room for at least one more
        // slot and the length unchanged (see there). So `len` is within the
        // allocation, the slot there is unused (a plain write, nothing to
        // drop), and after it the first `len + 1` slots are initialized.
        unsafe {
            self.scratch.as_mut_ptr().add(len).write(slot);
            self.scratch.set_len(len + 1);
        }
        Ok(())
    }

    /// Make room on the full scratch. On `Ok` the length is unchanged and
    /// the capacity larger than it, which [`push`](Self::push)'s unchecked
    /// write relies on: the new capacity is more than the old (checked
    /// below), a new buffer replaces only an empty one, and
    /// `reserve_exact` keeps the slots and their number (it aborts rather
    /// than return without the room).
    #[cold]
    fn grow(&mut self, at: usize) -> Result<(), DecodeError> {
        // Never more slots pending than one per two input bytes (and one
        // for an empty message at the end of the input).
        let most = (self.buf.len() / 2).saturating_add(1);
        let cap = self.scratch.capacity();
        // From nothing (the first buffer became a record), as at the start.
        let total = cap.saturating_mul(2).max(INITIAL_SCRATCH).min(most);
        if total <= cap {
            return Err(internal(at));
        }
        self.take_depth = 1;
        // The old buffer stays in the arena: charge the new one whole.
        self.alloc.charge_slice::<Slot<'a>>(total, at)?;
        if cap == 0 {
            self.scratch = ArenaVec::with_capacity_in(total, self.alloc.bump());
        } else {
            self.scratch
                .reserve_exact(total.saturating_sub(self.scratch.len()));
        }
        Ok(())
    }

    /// Read an unknown field (tag already read at `at`) into a slot.
    #[cold]
    fn unknown(
        &self,
        number: u32,
        wt: u8,
        at: usize,
        mut pos: usize,
        end: usize,
        depth: u32,
    ) -> Result<(usize, Slot<'a>), DecodeError> {
        let buf = self.buf;
        let pos = &mut pos;
        // One-byte tags arrive unchecked (see `short_tag`).
        if number == 0 {
            return Err(invalid_field_number(at, 0));
        }
        // An unknown field is a level of its own to prost, whatever its
        // wire type (see `levels_below`).
        let levels = levels_below(self.max_depth, depth);
        if levels == 0 {
            return Err(too_deep(at, self.max_depth));
        }
        let value = match wt {
            // A one-byte varint (a flag, a small count or enum value).
            VARINT if *pos < end && buf.get(*pos).is_some_and(|&b| b < 0x80) => {
                let s = *pos;
                *pos = next_byte(s);
                span(buf, s, *pos)?
            }
            LEN => {
                let (s, e) = read_len_at(buf, *pos, end)?;
                *pos = e;
                span(buf, s, e)?
            }
            SGROUP => {
                let s = *pos;
                let e = skip_group(
                    buf,
                    pos,
                    end,
                    number,
                    levels,
                    self.max_depth,
                    GroupFields::Unknown,
                )?;
                span(buf, s, e)?
            }
            EGROUP => return Err(end_without_start(at, number)),
            6 | 7 => return Err(invalid_wire_type(at, wt, number)),
            _ => {
                let s = *pos;
                skip_plain(buf, pos, end, wt)?;
                span(buf, s, *pos)?
            }
        };
        Ok((*pos, Slot::unknown((number << 3) | u32::from(wt), value)))
    }

    /// Read a packed run of repeated scalar field `f` (index `fi`) into one
    /// slot holding its values; values a closed enum does not list become
    /// one unknown-field slot for the run.
    fn packed(
        &mut self,
        f: &FieldTable,
        fi: u32,
        at: usize,
        pos: &mut usize,
        end: usize,
    ) -> Result<(), DecodeError> {
        let buf = self.buf;
        let (s, e) = read_len_at(buf, *pos, end)?;
        *pos = e;
        let count = packed_count(buf, s, e, f.kind.wire_type())?;
        if count == 0 {
            return Ok(());
        }
        self.items.take(count as usize, at)?;
        let values = self.alloc.alloc_slice_fill_copy(count as usize, 0u64, at)?;
        let closed = closed_enum(self.schema, f);
        let mut kept = 0usize;
        let mut rejects = false;
        let mut p = s;
        while p < e {
            let v = read_scalar(buf, &mut p, e, f.kind)?;
            if closed.is_some_and(|en| !en.contains(v as i32)) {
                rejects = true;
                continue;
            }
            let Some(out) = values.get_mut(kept) else {
                return Err(internal(p));
            };
            *out = v;
            kept = kept.saturating_add(1);
        }
        if kept > 0 {
            let Some(values) = values.get_mut(..kept) else {
                return Err(internal(at));
            };
            self.push(Slot::new(fi, Val::Scalars(values)), at)?;
        }
        if rejects {
            self.push(Slot::packed_rejects(fi, span(buf, s, e)?), at)?;
        }
        Ok(())
    }

    /// Move the slots of message `msg` out of the scratch into their final
    /// run in the arena, counting them against `max_items`.
    #[inline(always)]
    fn finish(
        &mut self,
        table: &'static MessageTable,
        msg: Msg,
        at: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let Some(pending) = self.scratch.get(msg.base..) else {
            return Err(internal(at));
        };
        // Canonical input has its known fields in number order, each once.
        // (Increasing words are reader order: see `Slot::word`.)
        if msg.must_gather() || !pending.is_sorted_by(|a, b| a.word() < b.word()) {
            if !msg.must_gather()
                && !msg.oneof_pair()
                && let Some(slots) = self.merge_adjacent(table, msg, at)?
            {
                return Ok(slots);
            }
            return self.gather(table, msg, at);
        }
        self.copy_out(msg, at)
    }

    /// The slots of message `msg`, in reader order (or in decode order,
    /// occurrences left to merge when the root ends side by side), moved
    /// out of the scratch: taken as the record when they are the whole
    /// scratch and the message may take it, otherwise copied.
    #[inline(always)]
    fn copy_out(&mut self, msg: Msg, at: usize) -> Result<&'a [Slot<'a>], DecodeError> {
        let Some(pending) = self.scratch.get(msg.base..) else {
            return Err(internal(at));
        };
        let n = pending.len();
        if self.checked {
            self.items.take(n, msg.start)?;
        }
        if n == 0 {
            return Ok(&[]);
        }
        if self.depth <= self.take_depth && msg.base == 0 {
            // The message's slots are the whole scratch: it becomes the
            // record, already in the arena and charged, instead of a copy.
            // The root's always can. So can the first sparse child of a
            // dense root (a `SyncActionValue`): nothing is pending below
            // it, and no ancestor pushes after it, so the scratch rarely
            // needs to grow again from nothing (a sibling of the same
            // kind), and when it does, the new buffers add no more to the
            // arena bound than the grown first buffer would have.
            // (Not under a sparse root: its slot for the child would then
            // start a new buffer.)
            self.take_depth = 1;
            let scratch = std::mem::replace(&mut self.scratch, ArenaVec::new_in(self.alloc.bump()));
            let slots = scratch.into_bump_slice();
            debug_assert!(record::in_decode_order(slots));
            return Ok(slots);
        }
        let slots = if self.checked {
            self.alloc.alloc_slice_copy(pending, at)?
        } else {
            self.alloc.bump().alloc_slice_copy(pending)
        };
        self.scratch.truncate(msg.base);
        debug_assert!(record::in_decode_order(slots));
        Ok(slots)
    }

    /// [`finish`](Self::finish) for slots out of field order, repeated
    /// values and unknown fields.
    #[inline(never)]
    fn gather(
        &mut self,
        table: &'static MessageTable,
        msg: Msg,
        at: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let alloc = self.alloc;
        if msg.marks & Msg::PENDING != 0 {
            self.signal |= signal::PENDING;
        }
        if msg.oneof_pair() {
            self.drop_displaced(table, msg.base, at)?;
        }
        let pending = pending(&mut self.scratch, msg.base, at)?;
        // Unknown fields (`UNKNOWN`, the largest index) sort last. Words
        // in order are reader order once runs are collected (unknown slots
        // of several numbers, in input order, are each their own run); a
        // run of unknown fields whose numbers go down takes the sort, which
        // keeps it in input order too.
        if !pending.is_sorted_by(|a, b| a.word() <= b.word()) {
            sort_by_field(alloc, pending, at)?;
        }
        self.gather_sorted(table, msg, at)
    }

    /// The record of message `msg`, when its slots are in reader order but
    /// for singular fields met several times in a row (what an encoder
    /// writes when it appends a message field the input had already, or a
    /// message's concatenation with another that ends with the same
    /// field): each such run is made one slot in place, a scalar's last
    /// occurrence or a message's occurrences merged (see
    /// [`crate::merge::merge_run`]; past the merge budget they stay side by
    /// side, merged when the root ends), and the slots are copied out as
    /// canonical ones are. `None` at the first slot out of order (or a
    /// repeated field's run, or unknown fields of one number in a row):
    /// the runs merged before it stay merged, the rest as it was, for the
    /// gather.
    #[cold]
    #[inline(never)]
    fn merge_adjacent(
        &mut self,
        table: &'static MessageTable,
        msg: Msg,
        at: usize,
    ) -> Result<Option<&'a [Slot<'a>]>, DecodeError> {
        let base = msg.base;
        let pending = pending(&mut self.scratch, base, at)?;
        // The first slot out of strict order must be a singular field's
        // second occurrence; otherwise (a repeated message field's second
        // element, most often) straight to the gather.
        let Some(first_twice) = pending
            .windows(2)
            .position(|pair| matches!(pair, [a, b] if a.word() >= b.word()))
        else {
            return Ok(None);
        };
        let twice = match pending.get(first_twice..) {
            Some([a, b, ..]) if a.word() == b.word() => table.fields.get(a.word() as usize),
            _ => None,
        };
        if twice.is_none_or(FieldTable::is_repeated) {
            return Ok(None);
        }
        // The slots before the first occurrence again are in strict order,
        // each its own run: the walk starts there.
        let n = pending.len();
        let (mut w, mut r) = (first_twice, first_twice);
        while let Some(&first) = pending.get(r) {
            let word = first.word();
            let mut e = r.saturating_add(1);
            while pending.get(e).is_some_and(|s| s.word() == word) {
                e = e.saturating_add(1);
            }
            if pending.get(e).is_some_and(|s| s.word() < word) {
                break;
            }
            let slot = if e.saturating_sub(r) == 1 {
                first
            } else {
                let Some(f) = table.fields.get(word as usize) else {
                    break;
                };
                if f.is_repeated() {
                    break;
                }
                let Some(run) = pending.get(r..e) else {
                    return Err(internal(at));
                };
                if !f.kind.is_message() {
                    run.last().copied().unwrap_or(first)
                } else if let Some(slot) = crate::merge::merge_run(
                    self.alloc,
                    self.schema,
                    f,
                    word,
                    run.iter(),
                    self.buf.len(),
                    &mut self.merge_spent,
                    at,
                )? {
                    slot
                } else {
                    // Side by side, for the merge when the root ends.
                    self.signal |= signal::PENDING;
                    pending.copy_within(r..e, w);
                    w = w.saturating_add(e.saturating_sub(r));
                    r = e;
                    continue;
                }
            };
            let Some(dst) = pending.get_mut(w) else {
                return Err(internal(at));
            };
            *dst = slot;
            w = w.saturating_add(1);
            r = e;
        }
        if r < n {
            // Out of order from `r`: the rest moves down behind the runs
            // merged, for the gather.
            if w < r {
                pending.copy_within(r..n, w);
            }
            self.scratch
                .truncate(base.saturating_add(w).saturating_add(n.saturating_sub(r)));
            return Ok(None);
        }
        self.scratch.truncate(base.saturating_add(w));
        self.copy_out(msg, at).map(Some)
    }

    /// Drop the oneof members a later member displaced from the message
    /// whose slots start at `base`: of each oneof, the member read last
    /// stays, and only its occurrences after the last occurrence of another
    /// member (protobuf's rule; for a scalar only the last counts anyway).
    /// Displaced members were read all the same, so what is malformed in
    /// them failed the decode, as in protobuf.
    #[cold]
    #[inline(never)]
    fn drop_displaced(
        &mut self,
        table: &'static MessageTable,
        base: usize,
        at: usize,
    ) -> Result<(), DecodeError> {
        let n = self.scratch.len().saturating_sub(base);
        let mut oneofs = Oneofs::new(self.alloc, table, n, at)?;
        let pending = pending(&mut self.scratch, base, at)?;
        for (k, slot) in pending.iter().enumerate().rev() {
            oneofs.note(slot, u32::try_from(k).unwrap_or(u32::MAX));
        }
        let mut w = 0usize;
        for k in 0..pending.len() {
            let Some(&slot) = pending.get(k) else {
                return Err(internal(at));
            };
            let pos = u32::try_from(k).unwrap_or(u32::MAX);
            if oneofs.keeps(&slot, pos) {
                let Some(dst) = pending.get_mut(w) else {
                    return Err(internal(at));
                };
                // A message member that displaced another: see
                // `Slot::with_reset`.
                *dst = if oneofs.displaced_any(&slot) {
                    slot.with_reset()
                } else {
                    slot
                };
                w = w.saturating_add(1);
            }
        }
        self.scratch.truncate(base.saturating_add(w));
        Ok(())
    }

    /// [`gather`](Self::gather) once the slots are in field order (as
    /// canonical encoders write them: a repeated field's values side by
    /// side), run by run, each repeated run collected by one pass over its
    /// slots.
    fn gather_sorted(
        &mut self,
        table: &'static MessageTable,
        msg: Msg,
        at: usize,
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let alloc = self.alloc;
        let base = msg.base;
        let pending = pending(&mut self.scratch, base, at)?;
        let n = pending.len();
        // One walk over the runs of equal fields. A run's final slot (or
        // slots, for unknown fields) is written back at `w`, never past the
        // run's start, so the runs not read yet stay as they are; the final
        // slots are then copied out in one piece, with no second walk to
        // size them first.
        let mut w = 0usize;
        let mut elements = 0usize;
        let mut r = 0usize;
        while let Some(&first) = pending.get(r) {
            let fi = first.word();
            let mut e = r.saturating_add(1);
            while pending.get(e).is_some_and(|s| s.word() == fi) {
                e = e.saturating_add(1);
            }
            let Some(run) = pending.get(r..e) else {
                return Err(internal(at));
            };
            let slot = match table.fields.get(fi as usize) {
                Some(f) if f.is_repeated() && f.kind.is_message() => {
                    elements = elements.saturating_add(run.len());
                    let list = collect_run(alloc, run, at, &[][..], Slot::as_msg)?;
                    let list = last_per_key(alloc, self.schema, f, list, at)?;
                    if msg.marks & Msg::PENDING != 0 && run.iter().any(Slot::is_pending) {
                        Slot::pending_list(fi, list)
                    } else {
                        Slot::new(fi, Val::Msgs(list))
                    }
                }
                Some(f) if f.is_repeated() => {
                    let val = match f.kind {
                        Kind::String if f.utf8 => {
                            elements = elements.saturating_add(run.len());
                            Val::Strs(collect_run(alloc, run, at, "", Slot::as_str)?)
                        }
                        Kind::String | Kind::Bytes => {
                            elements = elements.saturating_add(run.len());
                            Val::BytesList(collect_run(alloc, run, at, &[][..], Slot::as_bytes)?)
                        }
                        _ => {
                            // Packed runs counted their values as they
                            // were read.
                            let unpacked = run
                                .iter()
                                .filter(|s| !matches!(s.val(), Val::Scalars(_)))
                                .count();
                            elements = elements.saturating_add(unpacked);
                            collect_scalars(alloc, run, at)?
                        }
                    };
                    Slot::new(fi, val)
                }
                // A singular field: its last occurrence wins, except that a
                // message field's occurrences are merged, here (see
                // `merge.rs`) or, past the merge budget, when the root ends.
                Some(f) if !(f.kind.is_message() && run.len() > 1) => {
                    run.last().copied().unwrap_or(first)
                }
                Some(f)
                    if let Some(slot) = crate::merge::merge_run(
                        alloc,
                        self.schema,
                        f,
                        fi,
                        run.iter(),
                        self.buf.len(),
                        &mut self.merge_spent,
                        at,
                    )? =>
                {
                    slot
                }
                _ => {
                    // Unknown fields, kept in input order, and the
                    // occurrences of a singular message field kept side
                    // by side for the merge when the root ends.
                    if fi < UNKNOWN {
                        self.signal |= signal::PENDING;
                    }
                    let stop = w.saturating_add(e.saturating_sub(r));
                    pending.copy_within(r..e, w);
                    w = stop;
                    r = e;
                    continue;
                }
            };
            let Some(dst) = pending.get_mut(w) else {
                return Err(internal(at));
            };
            *dst = slot;
            w = w.saturating_add(1);
            r = e;
        }
        debug_assert!(r == n && w <= n);
        self.items.take(w.saturating_add(elements), msg.start)?;
        let Some(out) = pending.get(..w) else {
            return Err(internal(at));
        };
        let slots = alloc.alloc_slice_copy(out, at)?;
        self.scratch.truncate(base);
        debug_assert!(record::in_decode_order(slots));
        Ok(slots)
    }
}

/// The slots of `scratch` pending for the message whose first is at
/// `base` (a message being finished at `at`).
#[inline(always)]
fn pending<'s, 'a>(
    scratch: &'s mut ArenaVec<'a, Slot<'a>>,
    base: usize,
    at: usize,
) -> Result<&'s mut [Slot<'a>], DecodeError> {
    scratch.get_mut(base..).ok_or_else(|| internal(at))
}

/// A `string` (checked as UTF-8 when `utf8`) or `bytes` value at `s..e`.
/// Always inlined: the call to the cold error constructor would otherwise
/// keep it out of line on the hot path.
#[inline(always)]
fn string_value(buf: &[u8], s: usize, e: usize, utf8: bool) -> Result<Val<'_>, DecodeError> {
    let bytes = span(buf, s, e)?;
    if !utf8 {
        return Ok(Val::Bytes(bytes));
    }
    match quarry_core::utf8::to_str(bytes) {
        Some(text) => Ok(Val::Str(text)),
        None => Err(DecodeError::InvalidUtf8(quarry_core::InvalidUtf8::boxed(
            s, bytes,
        ))),
    }
}

/// A varint normalized as [`norm_varint`] does for the kind behind
/// `reader` (one of the varint readers of [`op`]).
#[inline(always)]
fn norm_by_reader(reader: u8, raw: u64) -> u64 {
    match reader {
        op::INT32 | op::ENUM => raw as i32 as i64 as u64,
        op::UINT32 => u64::from(raw as u32),
        op::BOOL => u64::from(raw != 0),
        op::SINT32 => norm_varint(Kind::SInt32, raw),
        op::SINT64 => norm_varint(Kind::SInt64, raw),
        _ => raw,
    }
}

/// A fixed-width value read as [`read_scalar`] does for the kind behind
/// `reader` (one of the fixed-width readers of [`op`]).
#[inline(always)]
fn read_fixed_by_reader(
    reader: u8,
    buf: &[u8],
    pos: &mut usize,
    end: usize,
) -> Result<u64, DecodeError> {
    Ok(match reader {
        op::FIXED64 => u64::from_le_bytes(read_fixed::<8>(buf, pos, end)?),
        op::SFIXED32 => i64::from(i32::from_le_bytes(read_fixed::<4>(buf, pos, end)?)) as u64,
        _ => u64::from(u32::from_le_bytes(read_fixed::<4>(buf, pos, end)?)),
    })
}

/// One past `pos`, for a `pos` known to index the input.
#[inline(always)]
fn next_byte(pos: usize) -> usize {
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "pos < buf.len() <= isize::MAX"
    )]
    {
        pos + 1
    }
}

/// An end-group tag of field `number` at `at` with no group open.
#[cold]
#[inline(never)]
fn end_without_start(at: usize, number: u32) -> DecodeError {
    DecodeError::invalid_value(
        at,
        "end-group tag without a start",
        format_args!("field {number}"),
    )
}

/// The error for a known field whose wire type does not match its kind:
/// an invalid wire type (6 or 7, which a one-byte tag is not checked for)
/// or a wrong one.
#[cold]
#[inline(never)]
fn mismatch(wt: u8, at: usize, number: u32) -> DecodeError {
    if wt > 5 {
        invalid_wire_type(at, wt, number)
    } else {
        wrong_wire_type(at, wt, number)
    }
}

/// The enum table of `f` if it is a closed enum field.
#[inline]
fn closed_enum(schema: &'static Schema, f: &FieldTable) -> Option<&'static EnumTable> {
    if f.kind != Kind::Enum {
        return None;
    }
    schema.enums.get(f.sub as usize).filter(|e| e.closed)
}

/// One value per slot of `run`, picked out of each slot's value, as an
/// exact-size array.
fn collect_run<'a, T: Copy>(
    alloc: &BoundedAlloc<'a>,
    run: &[Slot<'a>],
    at: usize,
    empty: T,
    pick: impl Fn(&Slot<'a>) -> Option<T>,
) -> Result<&'a mut [T], DecodeError> {
    // One pass: each value written once, picked as it is written.
    let list = alloc.alloc_slice_fill_with(run.len(), at, |i| {
        run.get(i).and_then(&pick).unwrap_or(empty)
    })?;
    Ok(list)
}

/// The values of a run of a repeated scalar field's slots (packed runs and
/// values one by one, in input order) as one exact-size array.
fn collect_scalars<'a>(
    alloc: &BoundedAlloc<'a>,
    run: &[Slot<'a>],
    at: usize,
) -> Result<Val<'a>, DecodeError> {
    // One packed run alone is already its array.
    if let [one] = run
        && let Val::Scalars(values) = one.val()
    {
        return Ok(Val::Scalars(values));
    }
    let total = run.iter().fold(0usize, |n, s| {
        n.saturating_add(match s.val() {
            Val::Scalars(values) => values.len(),
            _ => 1,
        })
    });
    let list = alloc.alloc_slice_fill_copy(total, 0u64, at)?;
    let mut w = 0usize;
    for s in run {
        let one;
        let values: &[u64] = match s.val() {
            Val::Scalars(values) => values,
            Val::Scalar(v) => {
                one = [v];
                &one
            }
            _ => &[],
        };
        let stop = w.saturating_add(values.len());
        let Some(dst) = list.get_mut(w..stop) else {
            return Err(internal(at));
        };
        dst.copy_from_slice(values);
        w = stop;
    }
    Ok(Val::Scalars(list))
}

/// `slots` sorted by (field, position): stable, without a heap buffer,
/// through a permutation in the arena applied in place. Out of line: the
/// gather's common case, slots in field order already, keeps none of its
/// registers.
#[cold]
#[inline(never)]
fn sort_by_field<'a>(
    alloc: &BoundedAlloc<'a>,
    slots: &mut [Slot<'a>],
    at: usize,
) -> Result<(), DecodeError> {
    let perm = alloc.alloc_slice_fill_with(slots.len(), at, |i| i as u32)?;
    crate::merge::heapsort(perm, &|i| {
        let field = slots.get(i as usize).map_or(UNKNOWN, Slot::field);
        u64::from(field) << 32 | u64::from(i)
    });
    permute(slots, perm, at)
}

/// `slots` rearranged in place so that position `k` holds what was at
/// `perm[k]` (a permutation of `0..slots.len()`): one cycle at a time, each
/// slot moved once. `perm` is spent: its entries are marked done as the
/// cycles are followed, which also ends the walk at a revisited entry
/// should `perm` not be a permutation.
fn permute(slots: &mut [Slot<'_>], perm: &mut [u32], at: usize) -> Result<(), DecodeError> {
    const DONE: u32 = u32::MAX;
    for start in 0..perm.len() {
        if perm.get(start) == Some(&DONE) {
            continue;
        }
        let Some(&held) = slots.get(start) else {
            return Err(internal(at));
        };
        let mut k = start;
        loop {
            let Some(entry) = perm.get_mut(k) else {
                return Err(internal(at));
            };
            let from = std::mem::replace(entry, DONE) as usize;
            let moved = if from == start {
                held
            } else {
                *slots.get(from).ok_or_else(|| internal(at))?
            };
            let Some(dst) = slots.get_mut(k) else {
                return Err(internal(at));
            };
            *dst = moved;
            if from == start {
                break;
            }
            k = from;
        }
    }
    Ok(())
}

/// The elements of repeated message field `f`, with only the last entry of
/// each key when `f` is a map (see `map.rs`); other fields' as they are.
#[inline]
fn last_per_key<'a>(
    alloc: &BoundedAlloc<'a>,
    schema: &'static Schema,
    f: &FieldTable,
    list: &'a mut [&'a [Slot<'a>]],
    at: usize,
) -> Result<&'a [&'a [Slot<'a>]], DecodeError> {
    match schema.messages.get(f.sub as usize) {
        Some(entry) if entry.map_entry && list.len() > 1 => {
            let start = crate::map::last_per_key(alloc, entry, list, at)?;
            Ok(list.get(start..).unwrap_or_default())
        }
        _ => Ok(list),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests of hand-made permutations")]
mod tests {
    use super::*;

    /// Slots numbered by field, so a rearrangement shows in their fields.
    fn slots(fields: &[u32]) -> Vec<Slot<'static>> {
        fields
            .iter()
            .map(|&f| Slot::new(f, Val::Scalar(u64::from(f))))
            .collect()
    }

    fn fields(slots: &[Slot<'_>]) -> Vec<u32> {
        slots.iter().map(Slot::field).collect()
    }

    #[test]
    fn permute_moves_each_slot_to_its_place() {
        // Position k takes what was at perm[k]: two cycles (0 2 4) and
        // (1 3), and 5 in place.
        let mut s = slots(&[10, 11, 12, 13, 14, 15]);
        let mut perm = [2, 3, 4, 1, 0, 5];
        permute(&mut s, &mut perm, 0).unwrap();
        assert_eq!(fields(&s), [12, 13, 14, 11, 10, 15]);
        assert!(perm.iter().all(|&p| p == u32::MAX));

        let mut s = slots(&[7, 8, 9]);
        permute(&mut s, &mut [2, 1, 0], 0).unwrap();
        assert_eq!(fields(&s), [9, 8, 7]);

        let mut s = slots(&[]);
        permute(&mut s, &mut [], 0).unwrap();
        assert!(s.is_empty());
    }

    #[test]
    fn permute_refuses_what_is_not_a_permutation() {
        // Entry 1 points past the slots; 0 and 2 point at each other's
        // cycle twice: errors, not panics or endless loops.
        let mut s = slots(&[1, 2, 3]);
        assert!(permute(&mut s, &mut [1, 7, 0], 0).is_err());
        let mut s = slots(&[1, 2, 3]);
        assert!(permute(&mut s, &mut [1, 1, 1], 0).is_err());
    }
}
