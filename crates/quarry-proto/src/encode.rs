//! Encoding a decoded record back to bytes: an exact size, then one
//! allocation of that size. Known fields go out in field-number order with
//! canonical varints and lengths, unknown fields after them as they came,
//! so canonically encoded input comes back byte for byte.
//!
//! Neither pass recurses: both walk the record with an explicit stack (see
//! [`walk`](crate::walk)), so a record nested as deep as the decoder's
//! `max_depth` allowed encodes on any thread's stack.

use crate::record::{Record, Slot, UNKNOWN, Val};
use crate::table::{FieldTable, Kind, Label, MessageRef};
use crate::walk::{Step, Walk};
use crate::wire::{EGROUP, I32, I64, LEN, SGROUP, VARINT, varint_len, zigzag_encode};

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

#[inline]
fn scalar_len(kind: Kind, v: u64) -> usize {
    match kind.wire_type() {
        I64 => 8,
        I32 => 4,
        _ => varint_len(varint_of(kind, v)),
    }
}

/// Values of a packed closed-enum run that the enum does not list.
fn rejects<'x>(
    message: MessageRef,
    f: &'x FieldTable,
    payload: &'x [u8],
) -> impl Iterator<Item = u64> + 'x {
    let en = message.schema.enums.get(f.sub as usize);
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

fn skip_default(f: &FieldTable, val: &Val<'_>) -> bool {
    f.label == Label::Implicit
        && match val {
            Val::Scalar(v) => *v == 0,
            Val::Str(s) => s.is_empty(),
            Val::Bytes(b) => b.is_empty(),
            _ => false,
        }
}

/// Bytes [`encode_to_vec`] writes for `record` as a `message`.
///
/// One walk over the record and its nested messages, which adds up every
/// message's length from its fields'.
pub fn encoded_len(message: MessageRef, record: Record<'_>) -> usize {
    measure(&mut Walk::new(message, record))
}

/// The length of the record `walk` walks. The walk is borrowed, not
/// moved: it holds its inline levels, a few kilobytes a `memcpy` would copy.
fn measure(walk: &mut Walk<'_, false>) -> usize {
    while let Some(step) = walk.next() {
        let add = match step {
            Step::Leaf {
                message,
                field,
                slot,
            } => leaf_len(message, field, slot),
            Step::Enter { .. } => continue,
            Step::Leave {
                field: Some(f),
                mark: body,
            } => framed_len(f, body),
            Step::Leave { field: None, mark } => return mark,
        };
        let total = walk.mark() + add;
        walk.set_mark(total);
    }
    0
}

/// Bytes message field `f` takes with a body of `body` bytes: tag and
/// length prefix, or a group's start and end tags.
fn framed_len(f: &FieldTable, body: usize) -> usize {
    let t = varint_len(tag(f.number, f.kind.wire_type()));
    if f.kind == Kind::Group {
        2 * t + body
    } else {
        t + varint_len(body as u64) + body
    }
}

/// Bytes a slot other than a nested message takes: a known field's
/// (`f`), or an unknown field's.
fn leaf_len(message: MessageRef, f: Option<&FieldTable>, slot: &Slot<'_>) -> usize {
    let Some(f) = f.filter(|_| slot.field != UNKNOWN) else {
        return unknown_len(message, slot);
    };
    if skip_default(f, &slot.val) {
        return 0;
    }
    let kind = f.kind;
    let t = varint_len(tag(f.number, kind.wire_type()));
    match &slot.val {
        Val::Scalar(v) => t + scalar_len(kind, *v),
        Val::Str(s) => t + varint_len(s.len() as u64) + s.len(),
        Val::Bytes(b) => t + varint_len(b.len() as u64) + b.len(),
        Val::Scalars([]) | Val::Absent | Val::Msg(_) | Val::Msgs(_) => 0,
        Val::Scalars(list) => {
            let body: usize = list.iter().map(|&v| scalar_len(kind, v)).sum();
            if f.packed {
                let t = varint_len(tag(f.number, LEN));
                t + varint_len(body as u64) + body
            } else {
                t * list.len() + body
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
        Val::Raw(_) | Val::PackedRejects(_) => unknown_len(message, slot),
    }
}

fn unknown_len(message: MessageRef, slot: &Slot<'_>) -> usize {
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
            let Some(f) = message.table().fields.get(slot.aux as usize) else {
                return 0;
            };
            let t = varint_len(tag(f.number, VARINT));
            rejects(message, f, payload)
                .map(|v| t + varint_len(v))
                .sum()
        }
        _ => 0,
    }
}

/// Encode `record` as a `message`: exactly [`encoded_len`] bytes in one
/// allocation (a record nested more than 31 levels deep adds one, for the
/// walk's stack).
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
    let mut measuring = Walk::new(message, record);
    let len = measure(&mut measuring);
    let spill = measuring.into_spill();
    #[expect(
        clippy::slow_vector_initialization,
        reason = "`vec![0; len]` is `calloc`, which glibc never serves from its \
                  per-thread cache: 330 instructions more on a 92-byte message \
                  (callgrind); it wins only where the kernel zeroes fresh pages"
    )]
    let mut out = Vec::with_capacity(len);
    out.resize(len, 0u8);
    let mut back = Back {
        buf: &mut out,
        pos: len,
    };
    let mut walk = Walk::<true>::reusing(message, record, spill);
    while let Some(step) = walk.next() {
        match step {
            Step::Leaf {
                message,
                field,
                slot,
            } => {
                let n = leaf_len(message, field, slot);
                let mut fwd = back.claim(n);
                match field.filter(|_| slot.field != UNKNOWN) {
                    Some(f) => write_leaf(&mut fwd, message, f, slot),
                    None => write_unknown(&mut fwd, message, slot),
                }
                debug_assert!(fwd.is_full(), "leaf_len and write_leaf disagree");
            }
            Step::Enter { field, .. } => {
                if field.kind == Kind::Group {
                    back.varint(tag(field.number, EGROUP));
                }
                walk.set_mark(back.pos);
            }
            Step::Leave {
                field: Some(f),
                mark: body_end,
            } => {
                if f.kind != Kind::Group {
                    back.varint(body_end.saturating_sub(back.pos) as u64);
                }
                back.varint(tag(f.number, f.kind.wire_type()));
            }
            Step::Leave { field: None, .. } => {}
        }
    }
    debug_assert_eq!(back.pos, 0, "encoded_len and encode_to_vec disagree");
    out
}

/// The output, filled from its end towards its start.
struct Back<'o> {
    buf: &'o mut [u8],
    /// Bytes before this are not written yet.
    pos: usize,
}

impl Back<'_> {
    /// The `n` bytes before what is written, to be filled front to back.
    fn claim(&mut self, n: usize) -> Fwd<'_> {
        let end = self.pos;
        self.pos = end.saturating_sub(n);
        Fwd {
            buf: self.buf.get_mut(self.pos..end).unwrap_or_default(),
            at: 0,
        }
    }

    fn varint(&mut self, v: u64) {
        write_varint(&mut self.claim(varint_len(v)), v);
    }
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

/// Byte by byte into the output: building the varint in a local array and
/// copying that would call `memcpy` for each one- or two-byte value.
#[inline]
fn write_varint(out: &mut Fwd<'_>, mut v: u64) {
    while v >= 0x80 {
        out.byte((v as u8) | 0x80);
        v >>= 7;
    }
    out.byte(v as u8);
}

fn write_scalar(out: &mut Fwd<'_>, kind: Kind, v: u64) {
    match kind.wire_type() {
        I64 => out.put(&v.to_le_bytes()),
        I32 => out.put(&(v as u32).to_le_bytes()),
        _ => write_varint(out, varint_of(kind, v)),
    }
}

/// Write a known field's slot other than a nested message.
fn write_leaf(out: &mut Fwd<'_>, message: MessageRef, f: &FieldTable, slot: &Slot<'_>) {
    if skip_default(f, &slot.val) {
        return;
    }
    let kind = f.kind;
    let t = tag(f.number, kind.wire_type());
    let write_bytes = |out: &mut Fwd<'_>, b: &[u8]| {
        write_varint(out, t);
        write_varint(out, b.len() as u64);
        out.put(b);
    };
    match &slot.val {
        Val::Scalar(v) => {
            write_varint(out, t);
            write_scalar(out, kind, *v);
        }
        Val::Str(s) => write_bytes(out, s.as_bytes()),
        Val::Bytes(b) => write_bytes(out, b),
        Val::Scalars([]) | Val::Absent | Val::Msg(_) | Val::Msgs(_) => {}
        Val::Scalars(list) => {
            if f.packed {
                let body: usize = list.iter().map(|&v| scalar_len(kind, v)).sum();
                write_varint(out, tag(f.number, LEN));
                write_varint(out, body as u64);
                for &v in list.iter() {
                    write_scalar(out, kind, v);
                }
            } else {
                for &v in list.iter() {
                    write_varint(out, t);
                    write_scalar(out, kind, v);
                }
            }
        }
        Val::Strs(list) => list.iter().for_each(|s| write_bytes(out, s.as_bytes())),
        Val::BytesList(list) => list.iter().for_each(|b| write_bytes(out, b)),
        Val::Raw(_) | Val::PackedRejects(_) => write_unknown(out, message, slot),
    }
}

fn write_unknown(out: &mut Fwd<'_>, message: MessageRef, slot: &Slot<'_>) {
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
            let Some(f) = message.table().fields.get(slot.aux as usize) else {
                return;
            };
            for v in rejects(message, f, payload) {
                write_varint(out, tag(f.number, VARINT));
                write_varint(out, v);
            }
        }
        _ => {}
    }
}
