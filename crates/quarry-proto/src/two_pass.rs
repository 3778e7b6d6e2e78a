//! The two-pass decoder, for input that repeats a singular message field.
//!
//! Each message is read in two passes over its own bytes (not its
//! children's): a counting pass that finds which fields are present, how
//! many values each repeated field has and which singular message fields
//! occur more than once, then a filling pass that writes every value into
//! slots allocated at their exact size. Occurrences of a singular message
//! field are decoded as one message read from several spans, which is what
//! protobuf's merge semantics ask for, in time linear in the input.
//! [`one_pass`](crate::one_pass) hands input here when it meets such a
//! repetition; canonical encoders never write one.
//!
//! Children are entered through an explicit stack, never by recursion, so
//! depth is bounded by [`DecodeOptions::max_depth`] and nothing else.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect` (issue 7).
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use quarry::bumpalo::collections::Vec as ArenaVec;
use quarry::{BoundedAlloc, DecodeError, DecodeOptions};

use crate::decode::{INLINE_FRAMES, INLINE_SCRATCH};
use crate::record::{self, Record, UNKNOWN};
use crate::table::{FieldTable, Kind, MessageRef, MessageTable, Schema};
use crate::values::{
    GroupFields, internal, levels_below, norm_varint, packed_count, read_scalar, skip_group,
    skip_plain, span, too_deep, wrong_wire_type,
};
use crate::wire::{EGROUP, LEN, SGROUP, VARINT, read_len, read_tag, read_varint};

/// A slot while its message is being filled: the arrays of repeated
/// fields are written in place, element by element, so they are held
/// mutably until the message ends and [`freeze`] turns the slots into
/// [`record::Slot`]s.
struct Slot<'a> {
    field: u32,
    /// For an unknown field its tag; while decoding, the fill cursor of a
    /// repeated field; for packed closed-enum rejects, the field index.
    aux: u32,
    val: Val<'a>,
}

/// [`record::Val`] with mutable arrays.
enum Val<'a> {
    Scalar(u64),
    Str(&'a str),
    Bytes(&'a [u8]),
    Msg(&'a [record::Slot<'a>]),
    Scalars(&'a mut [u64]),
    Strs(&'a mut [&'a str]),
    BytesList(&'a mut [&'a [u8]]),
    Msgs(&'a mut [&'a [record::Slot<'a>]]),
    Raw(&'a [u8]),
    PackedRejects(&'a [u8]),
    /// The occurrences of a singular message field that count, waiting
    /// while its earlier occurrences (displaced by another member of its
    /// oneof) are read: the next occurrence the loop meets reads these.
    Kept(&'a [(usize, usize)]),
}

/// Move a filled array out of its slot, read-only from now on.
fn take_list<'a, T>(list: &mut &'a mut [T]) -> &'a [T] {
    let taken: &'a mut [T] = std::mem::take(list);
    taken
}

/// The final slots of a filled message, in a new arena array (24 bytes
/// each against the 32 of the working slots, so this adds three quarters
/// to what the two-pass decoder writes for slots; see
/// [`max_arena_bytes`](crate::max_arena_bytes)).
fn freeze<'a>(
    alloc: &BoundedAlloc<'a>,
    slots: &'a mut [Slot<'a>],
    at: usize,
) -> Result<&'a [record::Slot<'a>], DecodeError> {
    // Every message field that had occurrences waiting was read (a later
    // occurrence always follows the ones displaced).
    if slots.iter().any(|s| matches!(s.val, Val::Kept(_))) {
        return Err(internal(at));
    }
    alloc.charge_slice::<record::Slot<'a>>(slots.len(), at)?;
    let frozen = alloc
        .bump()
        .alloc_slice_fill_iter(slots.iter_mut().map(|s| {
            let (field, val) = (s.field, &mut s.val);
            let val = match val {
                Val::Scalar(v) => record::Val::Scalar(*v),
                Val::Str(v) => record::Val::Str(v),
                Val::Bytes(v) => record::Val::Bytes(v),
                Val::Msg(v) => record::Val::Msg(v),
                Val::Scalars(v) => record::Val::Scalars(take_list(v)),
                Val::Strs(v) => record::Val::Strs(take_list(v)),
                Val::BytesList(v) => record::Val::BytesList(take_list(v)),
                Val::Msgs(v) => record::Val::Msgs(take_list(v)),
                Val::Raw(v) => return record::Slot::unknown(s.aux, v),
                Val::PackedRejects(v) => return record::Slot::packed_rejects(s.aux, v),
                // Rejected above.
                Val::Kept(_) => record::Val::Msg(&[]),
            };
            record::Slot::new(field, val)
        }));
    debug_assert!(record::in_reader_order(frozen));
    Ok(frozen)
}

/// Decode `input` with the two-pass decoder.
#[inline(never)]
pub(crate) fn decode<'a>(
    message: MessageRef,
    alloc: &BoundedAlloc<'a>,
    input: &'a [u8],
    options: &DecodeOptions,
) -> Result<Record<'a>, DecodeError> {
    let mut d = Dec {
        buf: input,
        schema: message.schema,
        alloc,
        items: 0,
        max_items: options.max_items,
        max_depth: options.max_depth,
        spill: None,
    };
    // No message has more fields present than half its bytes, so a short
    // input is counted in a short scratch: clearing all of
    // INLINE_SCRATCH entries (1.5 KiB) cost about 200 instructions a
    // decode, a third of a small message's.
    if input.len() / 2 <= SHORT_SCRATCH {
        let mut scratch = [Entry::EMPTY; SHORT_SCRATCH];
        d.run(message.index, &mut scratch)
    } else {
        let mut scratch = [Entry::EMPTY; INLINE_SCRATCH];
        d.run(message.index, &mut scratch)
    }
}

/// The scratch of inputs of at most twice this many bytes.
const SHORT_SCRATCH: usize = 64;

/// What the counting pass learns about one present field.
#[derive(Clone, Copy, Debug)]
struct Entry {
    field: u32,
    /// Values (repeated) or occurrences (singular).
    count: u32,
    /// Ordinal of the field's last tag in the message.
    last: u32,
}

impl Entry {
    const EMPTY: Self = Self {
        field: 0,
        count: 0,
        last: 0,
    };
}

/// The byte ranges a message's fields are read from: one, or several when
/// occurrences of a singular message field are merged.
#[derive(Clone, Copy, Debug)]
enum Spans<'a> {
    One,
    Many(&'a [(usize, usize)]),
}

/// Byte ranges of occurrences of one field, in input order.
type SpanList<'a> = &'a [(usize, usize)];

/// A singular message slot whose child is pending.
const SINGULAR: u32 = u32::MAX;
/// `aux` of a singular message slot after its merged occurrences were read.
const MERGED: u32 = u32::MAX;
/// The slot index of [`Frame::pending`] for a child that is read only to
/// check it, as protobuf reads every member of a oneof, those a later
/// member displaces too: its record is dropped.
const DISCARD: u32 = u32::MAX;

struct Frame<'a> {
    table: &'static MessageTable,
    spans: Spans<'a>,
    span_idx: u32,
    /// Start of the message's range when it has one span.
    origin: usize,
    pos: usize,
    end: usize,
    slots: &'a mut [Slot<'a>],
    known: u32,
    next_unknown: u32,
    cursor: u32,
    /// `(slot, element)` of the child being decoded.
    pending: (u32, u32),
}

/// What reading one field asks of the main loop.
enum Step<'a> {
    Next,
    Enter {
        msg: u32,
        spans: Spans<'a>,
        /// Where the field's tag starts (depth errors point here).
        at: usize,
        start: usize,
        end: usize,
    },
}

struct Stack<'a> {
    inline: [Option<Frame<'a>>; INLINE_FRAMES],
    len: usize,
    spill: Option<ArenaVec<'a, Frame<'a>>>,
}

impl<'a> Stack<'a> {
    fn new() -> Self {
        Self {
            inline: [const { None }; INLINE_FRAMES],
            len: 0,
            spill: None,
        }
    }

    fn push(&mut self, frame: Frame<'a>, alloc: &BoundedAlloc<'a>) -> Result<(), DecodeError> {
        if let Some(slot) = self.inline.get_mut(self.len) {
            *slot = Some(frame);
        } else {
            // Charged four times: the spill doubles as it grows (capacity
            // under 2 frames per push) and every buffer it outgrew stays in
            // the arena (together less than the capacity again), so what is
            // charged covers what is written and the arena cap holds.
            alloc.charge(size_of::<Frame<'a>>().saturating_mul(4), frame.pos)?;
            self.spill
                .get_or_insert_with(|| ArenaVec::new_in(alloc.bump()))
                .push(frame);
        }
        // Every frame is held in memory (inline or charged to the arena).
        self.len = self.len.saturating_add(1);
        Ok(())
    }

    fn pop(&mut self) -> Option<Frame<'a>> {
        self.len = self.len.checked_sub(1)?;
        match self.inline.get_mut(self.len) {
            Some(slot) => slot.take(),
            None => self.spill.as_mut().and_then(|s| s.pop()),
        }
    }

    #[inline]
    fn top(&mut self) -> Option<&mut Frame<'a>> {
        let last = self.len.checked_sub(1)?;
        match self.inline.get_mut(last) {
            Some(slot) => slot.as_mut(),
            None => self.spill.as_mut().and_then(|s| s.last_mut()),
        }
    }
}

struct Dec<'a, 's> {
    buf: &'a [u8],
    schema: &'static Schema,
    alloc: &'s BoundedAlloc<'a>,
    items: u32,
    max_items: u32,
    max_depth: u32,
    spill: Option<&'a mut [Entry]>,
}

impl<'a> Dec<'a, '_> {
    fn run(&mut self, root: u32, scratch: &mut [Entry]) -> Result<Record<'a>, DecodeError> {
        let mut stack = Stack::new();
        let root_frame = self.enter(scratch, root, Spans::One, 0, self.buf.len(), 0)?;
        stack.push(root_frame, self.alloc)?;
        loop {
            let depth = stack.len as u32;
            let Some(top) = stack.top() else {
                return Err(internal(0));
            };
            if top.pos >= top.end {
                if let Spans::Many(spans) = top.spans
                    && let Some(&(s, e)) = spans.get((top.span_idx as usize).saturating_add(1))
                {
                    top.span_idx = top.span_idx.saturating_add(1);
                    top.pos = s;
                    top.end = e;
                    continue;
                }
                let Some(done) = stack.pop() else {
                    return Err(internal(0));
                };
                if done.next_unknown as usize != done.slots.len() {
                    return Err(internal(done.end));
                }
                if stack
                    .top()
                    .is_some_and(|parent| parent.pending.0 == DISCARD)
                {
                    continue;
                }
                let slots = freeze(self.alloc, done.slots, done.end)?;
                match stack.top() {
                    None => return Ok(Record::new(slots)),
                    Some(parent) => {
                        let (slot, elem) = parent.pending;
                        let Some(s) = parent.slots.get_mut(slot as usize) else {
                            return Err(internal(done.end));
                        };
                        match &mut s.val {
                            Val::Msgs(list) if elem != SINGULAR => {
                                match list.get_mut(elem as usize) {
                                    Some(e) => *e = slots,
                                    None => return Err(internal(done.end)),
                                }
                            }
                            v => *v = Val::Msg(slots),
                        }
                    }
                }
                continue;
            }
            match self.field(top, depth)? {
                Step::Next => {}
                Step::Enter {
                    msg,
                    spans,
                    at,
                    start,
                    end,
                } => {
                    if depth > self.max_depth {
                        return Err(DecodeError::DepthLimit {
                            offset: at,
                            limit: self.max_depth,
                        });
                    }
                    let child = self.enter(scratch, msg, spans, start, end, depth)?;
                    stack.push(child, self.alloc)?;
                }
            }
        }
    }

    #[inline]
    fn count_items(&mut self, n: u32, offset: usize) -> Result<(), DecodeError> {
        match self.items.checked_add(n) {
            Some(total) if total <= self.max_items => {
                self.items = total;
                Ok(())
            }
            _ => Err(DecodeError::ItemLimit {
                offset,
                limit: self.max_items,
            }),
        }
    }

    #[inline]
    fn is_closed_enum(&self, f: &FieldTable) -> bool {
        f.kind == Kind::Enum
            && self
                .schema
                .enums
                .get(f.sub as usize)
                .is_some_and(|e| e.closed)
    }

    #[inline]
    fn enum_accepts(&self, f: &FieldTable, raw: u64) -> bool {
        self.schema
            .enums
            .get(f.sub as usize)
            .is_none_or(|e| e.contains(raw as i32))
    }

    /// Count a message's fields over `spans` (or `start..end`), allocate its
    /// slots, and return the frame that fills them.
    fn enter(
        &mut self,
        inline: &mut [Entry],
        msg: u32,
        spans: Spans<'a>,
        start: usize,
        end: usize,
        depth: u32,
    ) -> Result<Frame<'a>, DecodeError> {
        let Some(table) = self.schema.messages.get(msg as usize) else {
            return Err(internal(start));
        };
        // Every field takes at least two bytes (a tag and a value byte, or
        // a group's two tags), so a message has at most half its length in
        // distinct present fields: the inline scratch suffices unless both
        // the table and the message are wide.
        let span_bytes = match spans {
            Spans::One => end.saturating_sub(start),
            Spans::Many(list) => list.iter().fold(0usize, |acc, &(s, e)| {
                acc.saturating_add(e.saturating_sub(s))
            }),
        };
        let wide = table.fields.len().min(span_bytes / 2) > inline.len();
        if wide
            && self
                .spill
                .as_ref()
                .is_none_or(|s| s.len() < table.fields.len())
        {
            self.spill = Some(self.alloc.alloc_slice_fill_copy(
                table.fields.len(),
                Entry::EMPTY,
                start,
            )?);
        }
        // The spill is taken out of `self` while it is borrowed.
        let mut scratch = std::mem::take(&mut self.spill);
        let entries: &mut [Entry] = match (&mut scratch, wide) {
            (Some(s), true) => s,
            _ => inline,
        };
        let counted = {
            let ctx = CountCtx {
                buf: self.buf,
                schema: self.schema,
                max_depth: self.max_depth,
                depth,
            };
            match spans {
                Spans::One => ctx.count(table, entries, start, end, Counted::default()),
                Spans::Many(list) => {
                    let mut acc = Ok(Counted::default());
                    for &(s, e) in list {
                        acc = acc.and_then(|a| ctx.count(table, entries, s, e, a));
                    }
                    acc
                }
            }
        };
        let result = counted.and_then(|c| self.alloc_slots(table, entries, c, start));
        if wide {
            self.spill = scratch;
        }
        let (slots, known) = result?;
        let (pos, end) = match spans {
            Spans::One => (start, end),
            Spans::Many(list) => list.first().copied().unwrap_or((start, start)),
        };
        Ok(Frame {
            table,
            spans,
            span_idx: 0,
            origin: start,
            pos,
            end,
            slots,
            known,
            next_unknown: known,
            cursor: 0,
            pending: (0, SINGULAR),
        })
    }

    fn alloc_slots(
        &mut self,
        table: &'static MessageTable,
        entries: &mut [Entry],
        counted: Counted,
        offset: usize,
    ) -> Result<(&'a mut [Slot<'a>], u32), DecodeError> {
        let Some(known) = entries.get_mut(..counted.known as usize) else {
            return Err(internal(offset));
        };
        let n = if counted.oneof_members > 1 && !table.oneofs.is_empty() {
            prune_oneofs(table, known)
        } else {
            known.len()
        };
        let Some(entries) = entries.get(..n) else {
            return Err(internal(offset));
        };
        let total = n.saturating_add(counted.unknown as usize);
        let mut items = u32::try_from(total).map_err(|_| DecodeError::ItemLimit {
            offset,
            limit: self.max_items,
        })?;
        for e in entries {
            if table
                .fields
                .get(e.field as usize)
                .is_some_and(|f| f.is_repeated())
            {
                items = items.saturating_add(e.count);
            }
        }
        self.count_items(items, offset)?;
        let alloc = self.alloc;
        let slots = alloc.alloc_slice_try_fill_with(total, offset, |i| {
            let Some(e) = entries.get(i) else {
                return Ok(Slot {
                    field: UNKNOWN,
                    aux: 0,
                    val: Val::Raw(&[]),
                });
            };
            let Some(f) = table.fields.get(e.field as usize) else {
                return Err(internal(offset));
            };
            let count = e.count as usize;
            let (aux, val) = if f.is_repeated() {
                let val = match f.kind {
                    Kind::String if f.utf8 => {
                        Val::Strs(alloc.alloc_slice_fill_copy(count, "", offset)?)
                    }
                    Kind::String | Kind::Bytes => {
                        Val::BytesList(alloc.alloc_slice_fill_copy(count, &[][..], offset)?)
                    }
                    Kind::Message | Kind::Group => {
                        Val::Msgs(alloc.alloc_slice_fill_copy(count, &[][..], offset)?)
                    }
                    _ => Val::Scalars(alloc.alloc_slice_fill_copy(count, 0u64, offset)?),
                };
                (0, val)
            } else if f.kind.is_message() {
                (e.count, Val::Msg(&[]))
            } else {
                (0, Val::Scalar(0))
            };
            Ok(Slot {
                field: e.field,
                aux,
                val,
            })
        })?;
        Ok((slots, n as u32))
    }

    /// Find the slot of known field `fi` among the frame's known slots.
    #[inline]
    fn slot_of(frame: &mut Frame<'a>, fi: u32) -> Option<usize> {
        let known = frame.slots.get(..frame.known as usize)?;
        let cur = frame.cursor as usize;
        for probe in [cur, cur.saturating_add(1)] {
            if known.get(probe).is_some_and(|s| s.field == fi) {
                frame.cursor = probe as u32;
                return Some(probe);
            }
        }
        let found = known.binary_search_by_key(&fi, |s| s.field).ok()?;
        frame.cursor = found as u32;
        Some(found)
    }

    #[inline]
    fn push_unknown(
        frame: &mut Frame<'a>,
        aux: u32,
        val: Val<'a>,
        at: usize,
    ) -> Result<(), DecodeError> {
        let Some(slot) = frame.slots.get_mut(frame.next_unknown as usize) else {
            return Err(internal(at));
        };
        slot.aux = aux;
        slot.val = val;
        frame.next_unknown = frame.next_unknown.saturating_add(1);
        Ok(())
    }

    /// Read one field of `frame` into its slot.
    #[inline]
    fn field(&mut self, frame: &mut Frame<'a>, depth: u32) -> Result<Step<'a>, DecodeError> {
        let buf = self.buf;
        let end = frame.end;
        let at = frame.pos;
        let mut pos = at;
        let (number, wt) = read_tag(buf, &mut pos, end)?;
        let vstart = pos;
        let Some(fi) = frame.table.field_index(number) else {
            return self.unknown(frame, number, wt, at, pos, depth);
        };
        let table = frame.table;
        let Some(f) = table.fields.get(fi as usize) else {
            return Err(internal(at));
        };
        let kind = f.kind;
        let slot = Self::slot_of(frame, fi);
        let step = if wt == kind.wire_type() {
            match kind {
                Kind::String | Kind::Bytes => {
                    let (s, e) = read_len(buf, &mut pos, end)?;
                    let bytes = span(buf, s, e)?;
                    // Checked even for a displaced oneof member, as
                    // protobuf reads it before the next member replaces it.
                    let val = if kind == Kind::String && f.utf8 {
                        Val::Str(
                            quarry::utf8::to_str(bytes)
                                .ok_or(DecodeError::InvalidUtf8 { offset: s })?,
                        )
                    } else {
                        Val::Bytes(bytes)
                    };
                    if let Some(i) = slot {
                        let sl = slot_mut(frame.slots, i, at)?;
                        match (&mut sl.val, val) {
                            (Val::Strs(list), Val::Str(v)) => push(list, &mut sl.aux, v, at)?,
                            (Val::BytesList(list), Val::Bytes(v)) => {
                                push(list, &mut sl.aux, v, at)?
                            }
                            (Val::BytesList(list), Val::Str(v)) => {
                                push(list, &mut sl.aux, v.as_bytes(), at)?
                            }
                            (old, val) => *old = val,
                        }
                    }
                    Step::Next
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
                        // `pos` is past the end tag now.
                        (s, e)
                    } else {
                        read_len(buf, &mut pos, end)?
                    };
                    frame.pos = pos;
                    if kind == Kind::Message
                        && f.is_repeated()
                        && rejected_map_entry(self.schema, buf, f, s, e)
                    {
                        let raw = span(buf, s, e)?;
                        Self::push_unknown(frame, number << 3 | u32::from(LEN), Val::Raw(raw), at)?;
                        return Ok(Step::Next);
                    }
                    // The body is read one level down (for a displaced member,
                    // only to be checked).
                    let enter = |spans| Step::Enter {
                        msg: f.sub,
                        at,
                        spans,
                        start: s,
                        end: e,
                    };
                    let Some(i) = slot else {
                        // A oneof member another member displaced: read
                        // and dropped (protobuf rejects it when it is
                        // malformed).
                        frame.pending = (DISCARD, SINGULAR);
                        return Ok(enter(Spans::One));
                    };
                    let sl = slot_mut(frame.slots, i, at)?;
                    if let Val::Msgs(list) = &sl.val {
                        let elem = sl.aux;
                        if elem as usize >= list.len() {
                            return Err(internal(at));
                        }
                        sl.aux = elem.saturating_add(1);
                        frame.pending = (i as u32, elem);
                        return Ok(enter(Spans::One));
                    }
                    match sl.aux {
                        MERGED => {
                            let Val::Kept(kept) = sl.val else {
                                return Ok(Step::Next);
                            };
                            // The displaced occurrences were read: now the
                            // ones that count.
                            sl.val = Val::Msg(&[]);
                            frame.pending = (i as u32, SINGULAR);
                            return Ok(enter(Spans::Many(kept)));
                        }
                        1 => {
                            frame.pending = (i as u32, SINGULAR);
                            return Ok(enter(Spans::One));
                        }
                        n => {
                            let (displaced, kept) = self.merge_spans(frame, fi, n, depth)?;
                            let Some(sl) = frame.slots.get_mut(i) else {
                                return Err(internal(at));
                            };
                            sl.aux = MERGED;
                            // Occurrences before the last member that
                            // displaced this one are read first, as one
                            // message, and dropped; the next occurrence
                            // reads those that count.
                            let spans = if displaced.is_empty() {
                                frame.pending = (i as u32, SINGULAR);
                                kept
                            } else {
                                sl.val = Val::Kept(kept);
                                frame.pending = (DISCARD, SINGULAR);
                                displaced
                            };
                            return Ok(enter(Spans::Many(spans)));
                        }
                    }
                }
                _ => {
                    let v = read_scalar(buf, &mut pos, end, kind)?;
                    if kind == Kind::Enum && !self.enum_accepts(f, v) && self.is_closed_enum(f) {
                        // In a map entry that ends with a listed value, an
                        // earlier unlisted one is dropped, as protobuf keeps
                        // no unknown fields in an entry (kept, it would
                        // re-encode after the listed value and turn the
                        // entry unknown).
                        if !table.map_entry {
                            let raw = span(buf, vstart, pos)?;
                            Self::push_unknown(frame, number << 3, Val::Raw(raw), at)?;
                        }
                    } else if let Some(i) = slot {
                        let sl = slot_mut(frame.slots, i, at)?;
                        match &mut sl.val {
                            Val::Scalars(list) => push(list, &mut sl.aux, v, at)?,
                            old => *old = Val::Scalar(v),
                        }
                    }
                    Step::Next
                }
            }
        } else if wt == LEN && f.is_repeated() && kind.packable() {
            let (s, e) = read_len(buf, &mut pos, end)?;
            let closed = self.is_closed_enum(f);
            let mut rejects = false;
            let mut p = s;
            while p < e {
                let v = read_scalar(buf, &mut p, e, kind)?;
                if closed && !self.enum_accepts(f, v) {
                    rejects = true;
                    continue;
                }
                let Some(i) = slot else {
                    return Err(internal(at));
                };
                let sl = slot_mut(frame.slots, i, at)?;
                match &mut sl.val {
                    Val::Scalars(list) => push(list, &mut sl.aux, v, at)?,
                    _ => return Err(internal(at)),
                }
            }
            if rejects {
                Self::push_unknown(frame, fi, Val::PackedRejects(span(buf, s, e)?), at)?;
            }
            Step::Next
        } else {
            return Err(wrong_wire_type(at));
        };
        frame.pos = pos;
        Ok(step)
    }

    /// Store an unknown field (tag already read at `at`, value at `pos`).
    #[cold]
    fn unknown(
        &mut self,
        frame: &mut Frame<'a>,
        number: u32,
        wt: u8,
        at: usize,
        mut pos: usize,
        depth: u32,
    ) -> Result<Step<'a>, DecodeError> {
        let buf = self.buf;
        let end = frame.end;
        // An unknown field is a level of its own to prost, whatever its
        // wire type (see `levels_below`).
        let levels = levels_below(self.max_depth, depth);
        if levels == 0 {
            return Err(too_deep(at, self.max_depth));
        }
        let value = match wt {
            LEN => {
                let (s, e) = read_len(buf, &mut pos, end)?;
                span(buf, s, e)?
            }
            SGROUP => {
                let s = pos;
                let e = skip_group(
                    buf,
                    &mut pos,
                    end,
                    number,
                    levels,
                    self.max_depth,
                    GroupFields::Unknown,
                )?;
                span(buf, s, e)?
            }
            EGROUP => {
                return Err(DecodeError::Malformed {
                    offset: at,
                    what: "end-group tag without a start",
                });
            }
            _ => {
                let s = pos;
                skip_plain(buf, &mut pos, end, wt)?;
                span(buf, s, pos)?
            }
        };
        Self::push_unknown(frame, (number << 3) | u32::from(wt), Val::Raw(value), at)?;
        frame.pos = pos;
        Ok(Step::Next)
    }

    /// The spans of the occurrences of singular message field `fi`, in
    /// two runs: those another member of its oneof displaced (before that
    /// member's last occurrence; none for a field outside a oneof), and
    /// those that count.
    #[cold]
    fn merge_spans(
        &mut self,
        frame: &Frame<'a>,
        fi: u32,
        max: u32,
        depth: u32,
    ) -> Result<(SpanList<'a>, SpanList<'a>), DecodeError> {
        let buf = self.buf;
        let table = frame.table;
        let Some(f) = table.fields.get(fi as usize) else {
            return Err(internal(frame.pos));
        };
        let out = self
            .alloc
            .alloc_slice_fill_copy(max as usize, (0usize, 0usize), frame.pos)?;
        let mut n = 0usize;
        // Occurrences before this index were displaced.
        let mut first_kept = 0usize;
        let whole: &[(usize, usize)] = match frame.spans {
            Spans::One => &[],
            Spans::Many(list) => list,
        };
        let single = [(frame.origin, frame.end)];
        let ranges = if whole.is_empty() { &single[..] } else { whole };
        for &(s, e) in ranges {
            let mut pos = s;
            while pos < e {
                let (number, wt) = read_tag(buf, &mut pos, e)?;
                let other = table
                    .field_index(number)
                    .and_then(|j| table.fields.get(j as usize));
                if number == f.number {
                    let span = if wt == SGROUP {
                        let b = pos;
                        // The counting pass checked every level of
                        // these bytes already; this scan only finds ends.
                        let stop = skip_group(
                            buf,
                            &mut pos,
                            e,
                            number,
                            levels_below(self.max_depth, depth),
                            self.max_depth,
                            GroupFields::Known,
                        )?;
                        (b, stop)
                    } else {
                        read_len(buf, &mut pos, e)?
                    };
                    let Some(slot) = out.get_mut(n) else {
                        return Err(internal(pos));
                    };
                    *slot = span;
                    n = n.saturating_add(1);
                    continue;
                }
                if let Some(g) = other
                    && f.oneof != 0
                    && g.oneof == f.oneof
                {
                    let mut p = pos;
                    let valid = if g.kind == Kind::Enum && wt == VARINT {
                        let v = read_varint(buf, &mut p, e)?;
                        !self.is_closed_enum(g) || self.enum_accepts(g, norm_varint(Kind::Enum, v))
                    } else {
                        true
                    };
                    if valid {
                        first_kept = n;
                    }
                }
                if wt == SGROUP {
                    skip_group(
                        buf,
                        &mut pos,
                        e,
                        number,
                        levels_below(self.max_depth, depth),
                        self.max_depth,
                        GroupFields::Known,
                    )?;
                } else if wt == EGROUP {
                    return Err(DecodeError::Malformed {
                        offset: pos,
                        what: "end-group tag without a start",
                    });
                } else {
                    skip_plain(buf, &mut pos, e, wt)?;
                }
            }
        }
        let out: &'a [(usize, usize)] = out;
        let Some(all) = out.get(..n) else {
            return Err(internal(frame.pos));
        };
        Ok(all.split_at(first_kept.min(n)))
    }
}

/// The slot `slot_of` found; out of range would be a decoder bug.
#[inline]
fn slot_mut<'f, 'a>(
    slots: &'f mut [Slot<'a>],
    i: usize,
    at: usize,
) -> Result<&'f mut Slot<'a>, DecodeError> {
    slots.get_mut(i).ok_or_else(|| internal(at))
}

#[inline]
fn push<T>(list: &mut [T], cursor: &mut u32, v: T, at: usize) -> Result<(), DecodeError> {
    let Some(slot) = list.get_mut(*cursor as usize) else {
        return Err(internal(at));
    };
    *slot = v;
    #[expect(
        clippy::arithmetic_side_effects,
        reason = "*cursor indexes `list`, whose length is a u32 count, so it is below u32::MAX"
    )]
    {
        *cursor += 1;
    }
    Ok(())
}

/// True when `s..e`, an element of repeated message field `f`, is a map
/// entry to keep whole as an unknown field of the map's message: the map's
/// values are a closed enum and the entry's value (its last occurrence)
/// is one the enum does not list. That is what protobuf does (C++ looks at
/// the entry's final value; `protoc --decode` prints such an entry among
/// the unknown fields). An entry that does not read as fields, or whose
/// string key is not UTF-8, is left to its own decode to report.
fn rejected_map_entry(schema: &Schema, buf: &[u8], f: &FieldTable, s: usize, e: usize) -> bool {
    let Some(entry) = schema.messages.get(f.sub as usize) else {
        return false;
    };
    if !entry.map_entry {
        return false;
    }
    let Some(value) = entry
        .field_index(2)
        .and_then(|i| entry.fields.get(i as usize))
    else {
        return false;
    };
    let Some(values) = (value.kind == Kind::Enum)
        .then(|| schema.enums.get(value.sub as usize))
        .flatten()
        .filter(|en| en.closed)
    else {
        return false;
    };
    let mut last = None;
    let mut pos = s;
    while pos < e {
        let Ok((number, wt)) = read_tag(buf, &mut pos, e) else {
            return false;
        };
        if number == 2 && wt == VARINT {
            match read_varint(buf, &mut pos, e) {
                Ok(v) => last = Some(norm_varint(Kind::Enum, v)),
                Err(_) => return false,
            }
        } else if number == 1 && wt == LEN {
            // A string key must still be UTF-8: a bad one is the entry
            // decode's error, whatever the value.
            let utf8 = entry
                .field_index(1)
                .and_then(|i| entry.fields.get(i as usize))
                .is_some_and(|k| k.kind == Kind::String && k.utf8);
            match read_len(buf, &mut pos, e) {
                Ok((ks, ke)) => {
                    if utf8 && span(buf, ks, ke).map_or(true, |k| quarry::utf8::to_str(k).is_none())
                    {
                        return false;
                    }
                }
                Err(_) => return false,
            }
        } else if wt == SGROUP || wt == EGROUP || skip_plain(buf, &mut pos, e, wt).is_err() {
            return false;
        }
    }
    last.is_some_and(|v| !values.contains(v as i32))
}

/// What the counting pass found in a message.
#[derive(Clone, Copy, Debug, Default)]
struct Counted {
    /// Distinct known fields (entries written).
    known: u32,
    /// Unknown-field slots needed.
    unknown: u32,
    /// Tags of oneof members seen.
    oneof_members: u32,
    /// Tags seen so far.
    seq: u32,
    /// Index of the entry last touched.
    cursor: u32,
}

/// The read-only context of the counting pass.
#[derive(Clone, Copy)]
struct CountCtx<'a> {
    buf: &'a [u8],
    schema: &'static Schema,
    max_depth: u32,
    depth: u32,
}

impl CountCtx<'_> {
    /// [`levels_below`] the counted message (`depth` here is its
    /// parent's, 0 for the root).
    fn levels(&self) -> u32 {
        levels_below(self.max_depth, self.depth.saturating_add(1))
    }

    fn closed_enum(&self, f: &FieldTable) -> Option<&'static crate::table::EnumTable> {
        if f.kind != Kind::Enum {
            return None;
        }
        self.schema.enums.get(f.sub as usize).filter(|e| e.closed)
    }

    /// Count the fields of `table` in `start..end` into `entries`, on top of
    /// `acc`.
    fn count(
        &self,
        table: &MessageTable,
        entries: &mut [Entry],
        start: usize,
        end: usize,
        acc: Counted,
    ) -> Result<Counted, DecodeError> {
        let buf = self.buf;
        let mut c = acc;
        let mut pos = start;
        while pos < end {
            let at = pos;
            let (number, wt) = read_tag(buf, &mut pos, end)?;
            let seq = c.seq;
            c.seq = c.seq.wrapping_add(1);
            let Some(fi) = table.field_index(number) else {
                let levels = self.levels();
                if levels == 0 {
                    return Err(too_deep(at, self.max_depth));
                }
                match wt {
                    SGROUP => {
                        skip_group(
                            buf,
                            &mut pos,
                            end,
                            number,
                            levels,
                            self.max_depth,
                            GroupFields::Unknown,
                        )?;
                    }
                    EGROUP => {
                        return Err(DecodeError::Malformed {
                            offset: at,
                            what: "end-group tag without a start",
                        });
                    }
                    _ => skip_plain(buf, &mut pos, end, wt)?,
                }
                c.unknown = c.unknown.saturating_add(1);
                continue;
            };
            let Some(f) = table.fields.get(fi as usize) else {
                return Err(internal(at));
            };
            let add: u32 = if wt == f.kind.wire_type() {
                // A nested message or group (map entries included) is the
                // next level down: none is left under the deepest
                // message.
                if matches!(f.kind, Kind::Message | Kind::Group) && self.levels() == 0 {
                    return Err(too_deep(at, self.max_depth));
                }
                match f.kind {
                    Kind::Group => {
                        skip_group(
                            buf,
                            &mut pos,
                            end,
                            number,
                            self.levels(),
                            self.max_depth,
                            GroupFields::Known,
                        )?;
                        1
                    }
                    Kind::Message | Kind::String | Kind::Bytes => {
                        let (s, e) = read_len(buf, &mut pos, end)?;
                        if f.kind == Kind::Message
                            && f.is_repeated()
                            && rejected_map_entry(self.schema, buf, f, s, e)
                        {
                            c.unknown = c.unknown.saturating_add(1);
                            0
                        } else {
                            1
                        }
                    }
                    kind => {
                        let v = read_scalar(buf, &mut pos, end, kind)?;
                        match self.closed_enum(f) {
                            // A map entry keeps no unknown fields (see
                            // `rejected_map_entry`).
                            Some(e) if !e.contains(v as i32) => {
                                if !table.map_entry {
                                    c.unknown = c.unknown.saturating_add(1);
                                }
                                0
                            }
                            _ => 1,
                        }
                    }
                }
            } else if wt == LEN && f.is_repeated() && f.kind.packable() {
                let (s, e) = read_len(buf, &mut pos, end)?;
                if let Some(en) = self.closed_enum(f) {
                    let mut p = s;
                    let mut valid = 0u32;
                    let mut rejects = false;
                    while p < e {
                        let v = read_scalar(buf, &mut p, e, f.kind)?;
                        if en.contains(v as i32) {
                            valid = valid.saturating_add(1);
                        } else {
                            rejects = true;
                        }
                    }
                    if rejects {
                        c.unknown = c.unknown.saturating_add(1);
                    }
                    valid
                } else {
                    packed_count(buf, s, e, f.kind.wire_type())?
                }
            } else {
                return Err(wrong_wire_type(at));
            };
            if add == 0 {
                continue;
            }
            if f.oneof != 0 {
                c.oneof_members = c.oneof_members.saturating_add(1);
            }
            upsert(entries, &mut c, fi, add, seq, at)?;
        }
        Ok(c)
    }
}

/// Add `add` values of field `fi` to the sorted entries.
#[inline]
fn upsert(
    entries: &mut [Entry],
    c: &mut Counted,
    fi: u32,
    add: u32,
    seq: u32,
    at: usize,
) -> Result<(), DecodeError> {
    let n = c.known as usize;
    let cur = c.cursor as usize;
    let Some(known) = entries.get(..n) else {
        return Err(internal(at));
    };
    let idx = if known.get(cur).is_some_and(|e| e.field == fi) {
        cur
    } else if known.last().is_none_or(|e| e.field < fi) {
        let Some(e) = entries.get_mut(n) else {
            return Err(internal(at));
        };
        *e = Entry {
            field: fi,
            count: 0,
            last: seq,
        };
        c.known = c.known.saturating_add(1);
        n
    } else {
        match known.binary_search_by_key(&fi, |e| e.field) {
            Ok(i) => i,
            Err(i) => {
                // Shift i..n up by one; n < entries.len() keeps it in bounds.
                let Some(window) = entries.get_mut(i..=n) else {
                    return Err(internal(at));
                };
                window.rotate_right(1);
                if let Some(first) = window.first_mut() {
                    *first = Entry {
                        field: fi,
                        count: 0,
                        last: seq,
                    };
                }
                c.known = c.known.saturating_add(1);
                i
            }
        }
    };
    let Some(e) = entries.get_mut(idx) else {
        return Err(internal(at));
    };
    e.count = e.count.saturating_add(add);
    e.last = seq;
    c.cursor = idx as u32;
    Ok(())
}

/// Keep, of each oneof, only the member seen last; return the new entry
/// count. A surviving message member that displaced another is marked for
/// the merge path (count at least 2), which reads only its occurrences after
/// the last displaced one.
#[cold]
fn prune_oneofs(table: &MessageTable, entries: &mut [Entry]) -> usize {
    let oneof_of = |e: &Entry| table.fields.get(e.field as usize).map_or(0, |f| f.oneof);
    let mut keep = 0usize;
    for i in 0..entries.len() {
        let Some(&e) = entries.get(i) else { break };
        let Some(f) = table.fields.get(e.field as usize) else {
            continue;
        };
        if f.oneof != 0 {
            let mut winner = true;
            let mut displaced = false;
            for other in entries.iter() {
                if other.field != e.field && oneof_of(other) == f.oneof {
                    if other.last > e.last {
                        winner = false;
                    } else {
                        displaced = true;
                    }
                }
            }
            if !winner {
                continue;
            }
            let mut e = e;
            if displaced && f.kind.is_message() {
                e.count = e.count.max(2);
            }
            if let Some(slot) = entries.get_mut(keep) {
                *slot = e;
            }
        } else if let Some(slot) = entries.get_mut(keep) {
            *slot = e;
        }
        // keep <= i < entries.len()
        keep = keep.saturating_add(1);
    }
    keep
}
