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
//! The encoder holds records to the decoder's limits: nesting past
//! `max_depth` ([`DEFAULT_OPTIONS`] unless the caller passes a decoder) is a
//! [`DecodeError::DepthLimit`], at the offset where decoding the encoding
//! would report it, and an encoding longer than protobuf's limit
//! ([`MAX_ENCODED_LEN`]) is refused before anything is allocated for it.
//!
//! The passes do not use the text printer's [`walk`](crate::walk), whose
//! steps come one at a time through an enum: a tight loop over the fields
//! between two nested messages costs far less.

mod back;
mod back_buf;
mod size;
mod stack;

use crate::decode::{DEFAULT_OPTIONS, Decoder};
use crate::record::{Record, Slot, Val};
use crate::table::{FieldTable, Kind, MessageRef, MessageTable, Schema};
use crate::wire::{LEN, SGROUP};
use back_buf::BackBuf;
use quarry_core::DecodeError;
use stack::{Level, Stack};
use std::mem::MaybeUninit;

/// The longest encoding protobuf allows: 2 GiB less one byte (lengths on
/// the wire are signed 32-bit in its C++ and Java runtimes). A longer one
/// is refused: [`encode`] and [`encode_into`] return an error and write
/// nothing.
pub const MAX_ENCODED_LEN: usize = i32::MAX as usize;

/// Bytes [`encode`] writes for `record` as a `message`, whatever its
/// depth and length (it checks no limit).
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
    run(&mut measure, message, record, &mut Stack::new(), u32::MAX);
    measure.len
}

/// Encode `record` as a `message`: exactly [`encoded_len`] bytes in one
/// allocation (a record nested more than 31 levels deep adds one, for the
/// passes' stack), under the decoder's default limits
/// ([`DEFAULT_OPTIONS`]).
///
/// The bytes are written back to front, so a nested message's length is
/// known, from where its body ended, when its prefix is written, and
/// nothing recurses however deep the record nests. An encoding of up to
/// 1,023 bytes is written once, into a stack buffer, and copied into the
/// output; a larger one is measured first and written into the output
/// directly, after about 1 KiB of writing that is thrown away.
///
/// # Errors
///
/// What a decode of the encoding with [`DEFAULT_OPTIONS`] would refuse for
/// its nesting: a message more than `max_depth` levels below the root, or
/// an unknown field in a message at that depth, is a
/// [`DecodeError::DepthLimit`] at the byte of the encoding where the
/// decoder would report it. An encoding longer than [`MAX_ENCODED_LEN`] is
/// a [`DecodeError::InvalidValue`] at that byte, naming the length. A
/// record the decoder made under the default options, and one built with
/// the generated builders that nests no deeper, encodes without error.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 1] = [FieldTable::new(1, "n", "n", Kind::SInt32, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry_core::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x03])?;
/// assert_eq!(rec.scalar(0), Some(-2i64 as u64));
/// assert_eq!(encode(MessageRef::new(&S, 0), rec)?, [0x08, 0x03]);
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn encode(message: MessageRef, record: Record<'_>) -> Result<Vec<u8>, DecodeError> {
    encode_to_vec(message, record, DEFAULT_OPTIONS.max_depth)
}

/// [`encode`] under the depth limit of `decoder` (the decoder a record was
/// decoded with, say, to send back a record nested deeper than the default
/// allows): `decoder.options.max_depth`. No other option bounds encoding.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 1] = [FieldTable::new(1, "n", "n", Kind::Int32, Label::Implicit)];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry_core::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x01])?;
/// let decoder = Decoder {
///     options: DecodeOptions { max_depth: 1_000, ..DEFAULT_OPTIONS },
///     ..Decoder::new()
/// };
/// assert_eq!(encode_with(&decoder, MessageRef::new(&S, 0), rec)?, [0x08, 0x01]);
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
///
/// # Errors
///
/// Those of [`encode`], at `decoder.options.max_depth`.
pub fn encode_with(
    decoder: &Decoder,
    message: MessageRef,
    record: Record<'_>,
) -> Result<Vec<u8>, DecodeError> {
    encode_to_vec(message, record, decoder.options.max_depth)
}

/// [`encode`] and [`encode_with`].
#[inline(always)]
fn encode_to_vec(
    message: MessageRef,
    record: Record<'_>,
    max_depth: u32,
) -> Result<Vec<u8>, DecodeError> {
    let mut scratch = [MaybeUninit::uninit(); SCRATCH];
    let mut stack = Stack::new();
    match write_in_scratch(message, record, &mut scratch, &mut stack, max_depth) {
        Scratch::Fitted(bytes) => return Ok(bytes.to_vec()),
        Scratch::TooDeep => return Err(too_deep(message, record, max_depth)),
        Scratch::Full => {}
    }
    let mut out = Vec::new();
    write_measured(
        message,
        record,
        &mut out,
        &mut stack,
        Vec::reserve_exact,
        max_depth,
    )?;
    Ok(out)
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
/// encode_into(MessageRef::new(&S, 0), rec, &mut out)?;
/// assert_eq!(out, b"frame:\x0a\x02hi");
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
///
/// # Errors
///
/// Those of [`encode`]; `out` is then as it was.
pub fn encode_into(
    message: MessageRef,
    record: Record<'_>,
    out: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    encode_into_at_depth(message, record, out, DEFAULT_OPTIONS.max_depth)
}

/// [`encode_into`] under the depth limit of `decoder`, as [`encode_with`].
///
/// # Errors
///
/// Those of [`encode`], at `decoder.options.max_depth`; `out` is then as
/// it was.
pub fn encode_into_with(
    decoder: &Decoder,
    message: MessageRef,
    record: Record<'_>,
    out: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    encode_into_at_depth(message, record, out, decoder.options.max_depth)
}

/// [`encode_into`] and [`encode_into_with`].
#[inline(always)]
fn encode_into_at_depth(
    message: MessageRef,
    record: Record<'_>,
    out: &mut Vec<u8>,
    max_depth: u32,
) -> Result<(), DecodeError> {
    let mut scratch = [MaybeUninit::uninit(); SCRATCH];
    let mut stack = Stack::new();
    match write_in_scratch(message, record, &mut scratch, &mut stack, max_depth) {
        Scratch::Fitted(bytes) => {
            out.extend_from_slice(bytes);
            Ok(())
        }
        Scratch::TooDeep => Err(too_deep(message, record, max_depth)),
        Scratch::Full => write_measured(message, record, out, &mut stack, Vec::reserve, max_depth),
    }
}

/// What the write pass into the scratch came to.
enum Scratch<'s> {
    /// The whole encoding.
    Fitted(&'s [u8]),
    /// It did not fit.
    Full,
    /// The record nests past the depth limit.
    TooDeep,
}

/// The one write pass into `scratch` (never zeroed: see [`back_buf`]).
/// Most records fit.
#[inline(always)]
fn write_in_scratch<'s, 'r>(
    message: MessageRef,
    record: Record<'r>,
    scratch: &'s mut [MaybeUninit<u8>; SCRATCH],
    stack: &mut Stack<'r>,
    max_depth: u32,
) -> Scratch<'s> {
    let mut buf = BackBuf::new(scratch);
    if !run(
        &mut Write { out: &mut buf },
        message,
        record,
        stack,
        max_depth,
    ) {
        return Scratch::TooDeep;
    }
    // At 0 it did not fit, or filled the scratch exactly.
    if buf.pos() > 0 {
        Scratch::Fitted(buf.into_written())
    } else {
        Scratch::Full
    }
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
    max_depth: u32,
) -> Result<(), DecodeError> {
    stack.clear();
    let mut measure = Measure { len: 0 };
    if !run(&mut measure, message, record, stack, max_depth) {
        return Err(too_deep(message, record, max_depth));
    }
    if measure.len > MAX_ENCODED_LEN {
        return Err(too_long(measure.len));
    }
    // Into the output's spare capacity, not zeroed first (nor `calloc`ed,
    // which glibc never serves from its per-thread cache: 330
    // instructions more on a 92-byte message, callgrind). The stack is
    // empty again, its spill's buffer kept for this pass.
    back_buf::append_back_to_front(out, measure.len, reserve, |buf| {
        let mut write = Write { out: buf };
        let within = run(&mut write, message, record, stack, max_depth);
        debug_assert!(within, "measure and write disagree on depth");
        debug_assert_eq!(buf.pos(), 0, "measure and write disagree");
    });
    Ok(())
}

/// The error of an encoding `len` bytes long, past [`MAX_ENCODED_LEN`].
#[cold]
#[inline(never)]
fn too_long(len: usize) -> DecodeError {
    DecodeError::invalid_value(
        MAX_ENCODED_LEN,
        "encoding longer than protobuf's 2 GiB limit, in bytes",
        len,
    )
}

/// The error of `record`, which nests deeper than `max_depth`.
#[cold]
#[inline(never)]
fn too_deep(message: MessageRef, record: Record<'_>, max_depth: u32) -> DecodeError {
    DecodeError::DepthLimit {
        offset: too_deep_offset(message, record, max_depth),
        limit: max_depth,
    }
}

/// Where, in `record`'s encoding, a decode under `max_depth` meets the
/// first field past the limit (its tag): the offsets of the fields before
/// it and of the prefixes of the messages around it, added up in the
/// decoder's order. Down the way to that field, each nested message met is
/// measured twice (its length, and whether it holds the field), so this
/// costs up to the record's size times the limit; it runs only on the way
/// to the error, without recursing.
fn too_deep_offset(message: MessageRef, record: Record<'_>, max_depth: u32) -> usize {
    let schema = message.schema;
    let mut stack = Stack::new();
    let mut table = Level::root(message, record).table;
    let mut slots = record.slots();
    let mut depth = 0u32;
    let mut offset = 0usize;
    'message: loop {
        for slot in slots {
            let Some(f) = table.fields.get(slot.word() as usize) else {
                if depth >= max_depth && matches!(slot.val(), Val::Raw(_)) {
                    return offset;
                }
                offset += size::unknown_len(schema, table, slot);
                continue;
            };
            let (one, many) = match slot.val() {
                Val::Msg(value) => (Some(value), &[][..]),
                Val::Msgs(elements) => (None, elements),
                _ => {
                    offset += size::leaf_len(schema, table, f, slot);
                    continue;
                }
            };
            let sub = MessageRef::new(schema, f.sub);
            for value in one.into_iter().chain(many.iter().copied()) {
                if depth >= max_depth {
                    return offset;
                }
                let mut body = Measure { len: 0 };
                run(&mut body, sub, Record::new(value), &mut stack, u32::MAX);
                let within = run(
                    &mut Measure { len: 0 },
                    sub,
                    Record::new(value),
                    &mut stack,
                    max_depth - depth - 1,
                );
                if !within {
                    // The field is in there: past this value's prefix.
                    offset += size::prefix_len(f, body.len) - size::group_end_len(f);
                    table = Level::nested(schema, f, value, 0).table;
                    slots = value;
                    depth += 1;
                    continue 'message;
                }
                offset += size::prefix_len(f, body.len) + body.len;
            }
        }
        // Not reached for a record `run` refused under `max_depth`.
        return offset;
    }
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
            self.out.put_tag_varint(size::tag(f.number, LEN), body);
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

/// Lead `pass` over `record`; `stack` is empty before and after. `false`
/// when the record nests deeper than `max_depth` allows (as the decoder
/// counts: a message more than `max_depth` levels below the root, or an
/// unknown field in a message `max_depth` levels below it); the pass then
/// stopped there.
fn run<'r, P: Pass>(
    pass: &mut P,
    message: MessageRef,
    record: Record<'r>,
    stack: &mut Stack<'r>,
    max_depth: u32,
) -> bool {
    let schema = message.schema;
    let mut cur = Level::root(message, record);
    // Levels below the root `cur` is; `stack` holds its ancestors.
    let mut depth = 0u32;
    loop {
        match leaves(pass, schema, cur.table, &mut cur.rest, depth < max_depth) {
            Next::Nested(f, slot) => {
                let (first, others) = match slot.val() {
                    Val::Msg(slots) => (slots, &[][..]),
                    Val::Msgs(elements) => match take::<P, _>(elements) {
                        Some((&first, others)) => (first, others),
                        None => continue,
                    },
                    _ => continue,
                };
                if depth >= max_depth {
                    stack.clear();
                    return false;
                }
                cur.elements = others;
                stack.push(cur);
                let mark = pass.open(f);
                if pass.full() {
                    stack.clear();
                    return true;
                }
                cur = Level::nested(schema, f, first, mark);
                depth += 1;
                continue;
            }
            Next::TooDeep => {
                stack.clear();
                return false;
            }
            Next::End => {}
        }
        // The message ends: the root, or a nested one, whose parent is on
        // the stack.
        let (Some(f), Some(parent)) = (cur.field, stack.top()) else {
            return true;
        };
        pass.close(f, cur.mark);
        if let Some((&next, others)) = take::<P, _>(parent.elements) {
            parent.elements = others;
            cur.rest = next;
            cur.mark = pass.open(f);
            if pass.full() {
                stack.clear();
                return true;
            }
        } else if let Some(parent) = stack.pop() {
            cur = parent;
            depth -= 1;
        }
    }
}

/// Where [`leaves`] stopped.
enum Next<'r> {
    /// At a nested message: its field and slot.
    Nested(&'static FieldTable, &'r Slot<'r>),
    /// At the end of the message.
    End,
    /// At an unknown field where no level is left for one.
    TooDeep,
}

/// Hand `pass` the slots of `rest` (a message of type `table`) up to its
/// next nested message in the pass's order, which is returned with its
/// field. An unknown field is [`Next::TooDeep`] unless `room` (the
/// message is above the depth limit). The slots between nested messages
/// go through this loop, with only its own few values live: in the loop
/// of [`run`] they were spilled and reloaded for each slot.
#[inline(always)]
fn leaves<'r, P: Pass>(
    pass: &mut P,
    schema: &'static Schema,
    table: &'static MessageTable,
    rest: &mut &'r [Slot<'r>],
    room: bool,
) -> Next<'r> {
    let mut slots = *rest;
    let found = loop {
        let Some((slot, others)) = take::<P, _>(slots) else {
            break Next::End;
        };
        slots = others;
        // An unknown slot's word is past the end of every table.
        match table.fields.get(slot.word() as usize) {
            // A packed run's rejects go out as values of their known
            // field, which need no level.
            None if !room && matches!(slot.val(), Val::Raw(_)) => break Next::TooDeep,
            None => pass.unknown(schema, table, slot),
            Some(f) => match slot.val() {
                Val::Msg(_) | Val::Msgs(_) => break Next::Nested(f, slot),
                _ => pass.leaf(schema, table, f, slot),
            },
        }
    };
    *rest = slots;
    found
}
