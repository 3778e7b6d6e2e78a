//! Encoding a decoded record back to bytes, into one allocation of exactly
//! the encoded length. Known fields go out in field-number order with
//! canonical varints and lengths, unknown fields after them as they came,
//! so canonically encoded input comes back byte for byte.
//!
//! Passes over the record are led by [`run`]: [`Measure`] adds up the
//! length ([`size`]), [`Write`] fills an output from its end towards its
//! start ([`back`]). A record that fits [`SCRATCH`] bytes takes one write
//! pass into a stack buffer and a copy out; a larger one is measured and
//! then written into its output. No pass recurses: the message a pass is
//! in stays in local variables and its ancestors go on an explicit
//! [`Stack`], so a record nested as deep as the decoder's `max_depth`
//! allowed encodes on any thread's stack.
//!
//! The passes do not use the text printer's [`walk`](crate::walk), whose
//! steps come one at a time through an enum: a tight loop over the fields
//! between two nested messages costs far less.

mod back;
mod back_buf;
mod size;
mod stack;

use crate::record::{Record, Slot, Val};
use crate::table::{FieldTable, Kind, MessageRef, MessageTable, Schema};
use crate::wire::{LEN, SGROUP};
use back_buf::BackBuf;
use stack::{Level, Stack};
use std::mem::MaybeUninit;

/// Bytes [`encode`] writes for `record` as a `message`.
///
/// One pass over the record and its nested messages, which adds up every
/// message's length from its fields'.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 1] = [FieldTable::new(1, "s", "s", Kind::String, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry_core::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, b"\x0a\x02hi")?;
/// assert_eq!(encoded_len(MessageRef::new(&S, 0), rec), 4);
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn encoded_len(message: MessageRef, record: Record<'_>) -> usize {
    let mut measure = Measure { len: 0 };
    run(&mut measure, message, record, &mut Stack::new());
    measure.len
}

/// Encode `record` as a `message`: exactly [`encoded_len`] bytes in one
/// allocation (a record nested more than 31 levels deep adds one, for the
/// passes' stack).
///
/// The bytes are written back to front, so a nested message's length is
/// known, from where its body ended, when its prefix is written, and
/// nothing recurses however deep the record nests. An encoding of up to
/// 1,023 bytes is written once, into a stack buffer, and copied into the
/// output; a larger one is measured first and written into the output
/// directly, after about 1 KiB of writing that is thrown away.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 1] = [FieldTable::new(1, "n", "n", Kind::SInt32, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry_core::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x03])?;
/// assert_eq!(rec.scalar(0), Some(-2i64 as u64));
/// assert_eq!(encode(MessageRef::new(&S, 0), rec), [0x08, 0x03]);
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn encode(message: MessageRef, record: Record<'_>) -> Vec<u8> {
    let mut scratch = [MaybeUninit::uninit(); SCRATCH];
    let mut stack = Stack::new();
    if let Some(bytes) = write_in_scratch(message, record, &mut scratch, &mut stack) {
        return bytes.to_vec();
    }
    let mut out = Vec::new();
    write_measured(message, record, &mut out, &mut stack, Vec::reserve_exact);
    out
}

/// Append the encoding of `record` as a `message` to `out`: the bytes of
/// [`encode`], with no allocation when `out` has room for them
/// (say, a buffer cleared after an earlier encode of a message at least as
/// large), one otherwise. `out` grows as `Vec::reserve` grows it.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 1] = [FieldTable::new(1, "s", "s", Kind::String, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry_core::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, b"\x0a\x02hi")?;
/// let mut out = b"frame:".to_vec();
/// encode_into(MessageRef::new(&S, 0), rec, &mut out);
/// assert_eq!(out, b"frame:\x0a\x02hi");
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn encode_into(message: MessageRef, record: Record<'_>, out: &mut Vec<u8>) {
    let mut scratch = [MaybeUninit::uninit(); SCRATCH];
    let mut stack = Stack::new();
    match write_in_scratch(message, record, &mut scratch, &mut stack) {
        Some(bytes) => out.extend_from_slice(bytes),
        None => write_measured(message, record, out, &mut stack, Vec::reserve),
    }
}

/// The one write pass into `scratch` (never zeroed: see [`back_buf`]):
/// the encoding if it fitted. Most records do.
#[inline(always)]
fn write_in_scratch<'s, 'r>(
    message: MessageRef,
    record: Record<'r>,
    scratch: &'s mut [MaybeUninit<u8>; SCRATCH],
    stack: &mut Stack<'r>,
) -> Option<&'s [u8]> {
    let mut buf = BackBuf::new(scratch);
    run(&mut Write { out: &mut buf }, message, record, stack);
    // At 0 it did not fit, or filled the scratch exactly.
    (buf.pos() > 0).then(|| buf.into_written())
}

/// A record that did not fit the scratch: measure it, make room at the end
/// of `out` with `reserve` (exact for a new output, amortized for a
/// caller's buffer) and write it there. `stack` is left as
/// [`write_in_scratch`] left it and emptied here.
fn write_measured<'r>(
    message: MessageRef,
    record: Record<'r>,
    out: &mut Vec<u8>,
    stack: &mut Stack<'r>,
    reserve: fn(&mut Vec<u8>, usize),
) {
    stack.clear();
    let mut measure = Measure { len: 0 };
    run(&mut measure, message, record, stack);
    // Into the output's spare capacity, not zeroed first (nor `calloc`ed,
    // which glibc never serves from its per-thread cache: 330
    // instructions more on a 92-byte message, callgrind). The stack is
    // empty again, its spill's buffer kept for this pass.
    back_buf::append_back_to_front(out, measure.len, reserve, |buf| {
        let mut write = Write { out: buf };
        run(&mut write, message, record, stack);
        debug_assert_eq!(buf.pos(), 0, "measure and write disagree");
    });
}

/// Bytes of the stack buffer the first write pass goes into.
///
/// A put that finds no room zeroes what is left instead and leaves the
/// cursor at 0, where every later put also finds none, so a cursor above
/// 0 at the end means every byte fitted. [`run`] stops at the next message
/// boundary once the cursor is at 0 ([`Pass::full`]), so a record too
/// large for the scratch costs about a scratch's worth of wasted writing.
const SCRATCH: usize = 1024;

/// One of the encoder's passes over a record, which [`run`] leads: it
/// reports each slot and each nested message's start and end, in field
/// order or, with [`BACKWARD`](Pass::BACKWARD), in exactly the reverse.
trait Pass {
    /// Visit every message's slots back to front.
    const BACKWARD: bool;
    /// A known field's slot that is not a nested message.
    fn leaf(
        &mut self,
        schema: &'static Schema,
        table: &MessageTable,
        f: &FieldTable,
        slot: &Slot<'_>,
    );
    /// An unknown field's slot.
    fn unknown(&mut self, schema: &'static Schema, table: &MessageTable, slot: &Slot<'_>);
    /// A value of message field `f` begins (in visiting order); what to
    /// give [`close`](Pass::close) when it ends.
    fn open(&mut self, f: &FieldTable) -> usize;
    /// The value of `f` that [`open`](Pass::open) returned `mark` for ends.
    fn close(&mut self, f: &FieldTable, mark: usize);
    /// Whether the pass ran out of room, so [`run`] can stop at the next
    /// nested message.
    fn full(&self) -> bool;
}

/// The first pass: adds up the bytes.
struct Measure {
    len: usize,
}

impl Pass for Measure {
    const BACKWARD: bool = false;

    #[inline(always)]
    fn leaf(
        &mut self,
        schema: &'static Schema,
        table: &MessageTable,
        f: &FieldTable,
        slot: &Slot<'_>,
    ) {
        self.len += size::leaf_len(schema, table, f, slot);
    }

    #[inline]
    fn unknown(&mut self, schema: &'static Schema, table: &MessageTable, slot: &Slot<'_>) {
        self.len += size::unknown_len(schema, table, slot);
    }

    #[inline]
    fn open(&mut self, _: &FieldTable) -> usize {
        self.len
    }

    #[inline]
    fn close(&mut self, f: &FieldTable, mark: usize) {
        self.len += size::prefix_len(f, self.len - mark);
    }

    #[inline(always)]
    fn full(&self) -> bool {
        false
    }
}

/// The second pass: fills `out` back to front, so that when a nested
/// message ends its body is written and its length known.
struct Write<'b, 'o> {
    out: &'b mut BackBuf<'o>,
}

impl Pass for Write<'_, '_> {
    const BACKWARD: bool = true;

    #[inline(always)]
    fn leaf(
        &mut self,
        schema: &'static Schema,
        table: &MessageTable,
        f: &FieldTable,
        slot: &Slot<'_>,
    ) {
        back::put_leaf(self.out, schema, table, f, slot);
    }

    #[inline]
    fn unknown(&mut self, schema: &'static Schema, table: &MessageTable, slot: &Slot<'_>) {
        back::put_unknown(self.out, schema, table, slot);
    }

    #[inline]
    fn open(&mut self, f: &FieldTable) -> usize {
        back::put_group_end(self.out, f);
        self.out.pos()
    }

    #[inline]
    fn close(&mut self, f: &FieldTable, body_end: usize) {
        if f.kind == Kind::Group {
            self.out.put_varint(size::tag(f.number, SGROUP));
        } else {
            let body = body_end.saturating_sub(self.out.pos()) as u64;
            self.out.put_varint(body);
            self.out.put_varint(size::tag(f.number, LEN));
        }
    }

    /// At 0 every byte is written (an output of exactly the encoded
    /// length), or a put found no room (the scratch).
    #[inline(always)]
    fn full(&self) -> bool {
        self.out.pos() == 0
    }
}

/// The first of `items` in `P`'s order and the rest.
#[inline(always)]
fn take<P: Pass, T>(items: &[T]) -> Option<(&T, &[T])> {
    if P::BACKWARD {
        items.split_last()
    } else {
        items.split_first()
    }
}

/// Lead `pass` over `record`; `stack` is empty before and after.
fn run<'r, P: Pass>(pass: &mut P, message: MessageRef, record: Record<'r>, stack: &mut Stack<'r>) {
    let schema = message.schema;
    let mut cur = Level::root(message, record);
    loop {
        if let Some((f, slot)) = leaves(pass, schema, cur.table, &mut cur.rest) {
            let (first, others) = match slot.val() {
                Val::Msg(slots) => (slots, &[][..]),
                Val::Msgs(elements) => match take::<P, _>(elements) {
                    Some((&first, others)) => (first, others),
                    None => continue,
                },
                _ => continue,
            };
            cur.elements = others;
            stack.push(cur);
            let mark = pass.open(f);
            if pass.full() {
                stack.clear();
                return;
            }
            cur = Level::nested(schema, f, first, mark);
            continue;
        }
        // The message ends: the root, or a nested one, whose parent is on
        // the stack.
        let (Some(f), Some(parent)) = (cur.field, stack.top()) else {
            return;
        };
        pass.close(f, cur.mark);
        if let Some((&next, others)) = take::<P, _>(parent.elements) {
            parent.elements = others;
            cur.rest = next;
            cur.mark = pass.open(f);
            if pass.full() {
                stack.clear();
                return;
            }
        } else if let Some(parent) = stack.pop() {
            cur = parent;
        }
    }
}

/// Hand `pass` the slots of `rest` (a message of type `table`) up to its
/// next nested message in the pass's order, which is returned with its
/// field; `None` when `rest` has no nested message left. The slots between
/// nested messages go through this loop, with only its own few values
/// live: in the loop of [`run`] they were spilled and reloaded for each
/// slot.
#[inline(always)]
fn leaves<'r, P: Pass>(
    pass: &mut P,
    schema: &'static Schema,
    table: &'static MessageTable,
    rest: &mut &'r [Slot<'r>],
) -> Option<(&'static FieldTable, &'r Slot<'r>)> {
    let mut slots = *rest;
    let found = loop {
        let Some((slot, others)) = take::<P, _>(slots) else {
            break None;
        };
        slots = others;
        // An unknown slot's word is past the end of every table.
        match table.fields.get(slot.word() as usize) {
            None => pass.unknown(schema, table, slot),
            Some(f) => match slot.val() {
                Val::Msg(_) | Val::Msgs(_) => break Some((f, slot)),
                _ => pass.leaf(schema, table, f, slot),
            },
        }
    };
    *rest = slots;
    found
}
