//! How many bytes each piece of a record encodes to: what the measuring
//! pass adds up.

use crate::record::{Slot, UnknownField, Val};
use crate::table::{FieldTable, Kind, Label, MessageTable, Schema};
use crate::wire::{LEN, SGROUP, VARINT, varint_len, zigzag_encode};

/// The encoding of a varint-kind value as stored (see
/// [`Record::scalar`](crate::Record::scalar)).
#[inline]
pub(super) fn varint_of(kind: Kind, v: u64) -> u64 {
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
pub(super) fn tag(number: u32, wt: u8) -> u64 {
    (u64::from(number) << 3) | u64::from(wt)
}

/// Bytes of a tag of field `number` (the wire type does not change it).
#[inline]
pub(super) fn tag_len(number: u32) -> usize {
    varint_len(u64::from(number) << 3)
}

#[inline]
pub(super) fn scalar_len(kind: Kind, v: u64) -> usize {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::SFixed64 => 8,
        Kind::Float | Kind::Fixed32 | Kind::SFixed32 => 4,
        _ => varint_len(varint_of(kind, v)),
    }
}

/// Values of a packed closed-enum run that the enum does not list.
pub(super) fn rejects<'x>(
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

/// Bytes of the tag and length prefix of message field `f` around a body
/// of `body` bytes, or of a group's start and end tags.
pub(super) fn prefix_len(f: &FieldTable, body: usize) -> usize {
    let t = tag_len(f.number);
    if f.kind == Kind::Group {
        2 * t
    } else {
        t + varint_len(body as u64)
    }
}

/// Bytes of group field `f`'s end tag (0 for a message field), which
/// [`prefix_len`] counts.
pub(super) fn group_end_len(f: &FieldTable) -> usize {
    if f.kind == Kind::Group {
        tag_len(f.number)
    } else {
        0
    }
}

/// Bytes known field `f`'s slot takes when it is not a nested message.
#[inline(always)]
pub(super) fn leaf_len(
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
    match slot.val() {
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
    match slot.val() {
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

pub(super) fn unknown_len(schema: &'static Schema, table: &MessageTable, slot: &Slot<'_>) -> usize {
    match slot.as_unknown() {
        UnknownField::Raw { tag: t, value } => {
            let t = u64::from(t);
            let wt = (t & 7) as u8;
            varint_len(t)
                + match wt {
                    LEN => varint_len(value.len() as u64) + value.len(),
                    SGROUP => value.len() + varint_len(t + 1),
                    _ => value.len(),
                }
        }
        UnknownField::PackedEnumRejects {
            field_index,
            payload,
        } => {
            let Some(f) = table.fields.get(field_index as usize) else {
                return 0;
            };
            let t = varint_len(tag(f.number, VARINT));
            rejects(schema, f, payload).map(|v| t + varint_len(v)).sum()
        }
    }
}
