//! Encoding a decoded record back to bytes: an exact size, then one
//! allocation of that size. Known fields go out in field-number order with
//! canonical varints and lengths, unknown fields after them as they came,
//! so canonically encoded input comes back byte for byte.
//!
//! Both passes recurse once per level of nesting, which the decoder bounded
//! by [`DecodeOptions::max_depth`](quarry::DecodeOptions::max_depth).

use crate::record::{Record, Slot, UNKNOWN, Val};
use crate::table::{FieldTable, Kind, Label, MessageRef};
use crate::wire::{EGROUP, I32, I64, LEN, SGROUP, VARINT, varint_len, write_varint, zigzag_encode};

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

#[inline]
fn write_scalar(out: &mut Vec<u8>, kind: Kind, v: u64) {
    match kind.wire_type() {
        I64 => out.extend_from_slice(&v.to_le_bytes()),
        I32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
        _ => write_varint(out, varint_of(kind, v)),
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
pub fn encoded_len(message: MessageRef, record: Record<'_>) -> usize {
    let table = message.table();
    let mut n = 0usize;
    for slot in record.present() {
        n += slot_len(message, table.fields.get(slot.field as usize), slot);
    }
    n
}

fn slot_len(message: MessageRef, f: Option<&FieldTable>, slot: &Slot<'_>) -> usize {
    let Some(f) = f.filter(|_| slot.field != UNKNOWN) else {
        return unknown_len(message, slot);
    };
    if skip_default(f, &slot.val) {
        return 0;
    }
    let kind = f.kind;
    let t = varint_len(tag(f.number, kind.wire_type()));
    let sub = message.sub_message(f);
    let msg_len = |rec: Record<'_>| {
        let body = encoded_len(sub, rec);
        if kind == Kind::Group {
            2 * t + body
        } else {
            t + varint_len(body as u64) + body
        }
    };
    match &slot.val {
        Val::Scalar(v) => t + scalar_len(kind, *v),
        Val::Str(s) => t + varint_len(s.len() as u64) + s.len(),
        Val::Bytes(b) => t + varint_len(b.len() as u64) + b.len(),
        Val::Msg(slots) => msg_len(Record::new(slots)),
        Val::Scalars([]) | Val::Absent => 0,
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
        Val::Msgs(list) => list.iter().map(|m| msg_len(Record::new(m))).sum(),
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
/// allocation.
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
    let len = encoded_len(message, record);
    let mut out = Vec::with_capacity(len);
    write_message(&mut out, message, record);
    debug_assert_eq!(out.len(), len);
    out
}

fn write_message(out: &mut Vec<u8>, message: MessageRef, record: Record<'_>) {
    let table = message.table();
    for slot in record.present() {
        match table.fields.get(slot.field as usize) {
            Some(f) if slot.field != UNKNOWN => write_slot(out, message, f, slot),
            _ => write_unknown(out, message, slot),
        }
    }
}

fn write_slot(out: &mut Vec<u8>, message: MessageRef, f: &FieldTable, slot: &Slot<'_>) {
    if skip_default(f, &slot.val) {
        return;
    }
    let kind = f.kind;
    let t = tag(f.number, kind.wire_type());
    let sub = message.sub_message(f);
    let write_msg = |out: &mut Vec<u8>, rec: Record<'_>| {
        write_varint(out, t);
        if kind == Kind::Group {
            write_message(out, sub, rec);
            write_varint(out, tag(f.number, EGROUP));
        } else {
            write_varint(out, encoded_len(sub, rec) as u64);
            write_message(out, sub, rec);
        }
    };
    let write_bytes = |out: &mut Vec<u8>, b: &[u8]| {
        write_varint(out, t);
        write_varint(out, b.len() as u64);
        out.extend_from_slice(b);
    };
    match &slot.val {
        Val::Scalar(v) => {
            write_varint(out, t);
            write_scalar(out, kind, *v);
        }
        Val::Str(s) => write_bytes(out, s.as_bytes()),
        Val::Bytes(b) => write_bytes(out, b),
        Val::Msg(slots) => write_msg(out, Record::new(slots)),
        Val::Scalars([]) | Val::Absent => {}
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
        Val::Msgs(list) => list.iter().for_each(|m| write_msg(out, Record::new(m))),
        Val::Raw(_) | Val::PackedRejects(_) => write_unknown(out, message, slot),
    }
}

fn write_unknown(out: &mut Vec<u8>, message: MessageRef, slot: &Slot<'_>) {
    match slot.val {
        Val::Raw(value) => {
            let t = u64::from(slot.aux);
            write_varint(out, t);
            match (slot.aux & 7) as u8 {
                LEN => {
                    write_varint(out, value.len() as u64);
                    out.extend_from_slice(value);
                }
                SGROUP => {
                    out.extend_from_slice(value);
                    write_varint(out, t + 1);
                }
                _ => out.extend_from_slice(value),
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
