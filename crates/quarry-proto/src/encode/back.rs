//! Writing a record's pieces into the output back to front: each put
//! ends where the bytes after it begin.

use super::back_buf::{BackBuf, Fwd};
use super::size::{rejects, tag, unknown_len, varint_of};
use crate::record::{Slot, UnknownField, Val};
use crate::table::{FieldTable, Kind, Label, MessageTable, Schema};
use crate::wire::{EGROUP, LEN, SGROUP, VARINT};

/// A group's end tag, written before its body (back to front).
#[inline]
pub(super) fn put_group_end(out: &mut BackBuf<'_>, f: &FieldTable) {
    if f.kind == Kind::Group {
        out.put_varint(tag(f.number, EGROUP));
    }
}

/// Inlined into [`put_leaf`]'s callers, as the puts of strings and bytes
/// are: no call per scalar field.
#[inline(always)]
fn put_scalar(out: &mut BackBuf<'_>, kind: Kind, v: u64) {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::SFixed64 => out.put(&v.to_le_bytes()),
        Kind::Float | Kind::Fixed32 | Kind::SFixed32 => out.put(&(v as u32).to_le_bytes()),
        _ => out.put_varint(varint_of(kind, v)),
    }
}

/// A length-delimited value of field `number`.
#[inline(always)]
fn put_delimited(out: &mut BackBuf<'_>, number: u32, bytes: &[u8]) {
    out.put(bytes);
    out.put_tag_varint(tag(number, LEN), bytes.len() as u64);
}

/// Known field `f`'s slot, when it is not a nested message.
#[inline(always)]
pub(super) fn put_leaf(
    out: &mut BackBuf<'_>,
    schema: &'static Schema,
    table: &MessageTable,
    f: &FieldTable,
    slot: &Slot<'_>,
) {
    let implicit = f.label == Label::Implicit;
    match slot.val() {
        Val::Scalar(v) if implicit && v == 0 => {}
        Val::Scalar(v) => {
            let t = tag(f.number, f.kind.wire_type());
            match f.kind {
                Kind::Double
                | Kind::Fixed64
                | Kind::SFixed64
                | Kind::Float
                | Kind::Fixed32
                | Kind::SFixed32 => {
                    put_scalar(out, f.kind, v);
                    out.put_varint(t);
                }
                kind => out.put_tag_varint(t, varint_of(kind, v)),
            }
        }
        Val::Str(s) if implicit && s.is_empty() => {}
        Val::Str(s) => put_delimited(out, f.number, s.as_bytes()),
        Val::Bytes(b) if implicit && b.is_empty() => {}
        Val::Bytes(b) => put_delimited(out, f.number, b),
        _ => put_list(out, schema, table, f, slot),
    }
}

/// [`put_leaf`] of the rarer slots: repeated fields, unknown values.
fn put_list(
    out: &mut BackBuf<'_>,
    schema: &'static Schema,
    table: &MessageTable,
    f: &FieldTable,
    slot: &Slot<'_>,
) {
    let kind = f.kind;
    match slot.val() {
        Val::Scalars([]) => {}
        Val::Scalars(list) if f.packed => {
            let end = out.pos();
            for &v in list.iter().rev() {
                put_scalar(out, kind, v);
            }
            out.put_varint(end.saturating_sub(out.pos()) as u64);
            out.put_varint(tag(f.number, LEN));
        }
        Val::Scalars(list) => {
            let t = tag(f.number, kind.wire_type());
            for &v in list.iter().rev() {
                put_scalar(out, kind, v);
                out.put_varint(t);
            }
        }
        Val::Strs(list) => {
            for s in list.iter().rev() {
                put_delimited(out, f.number, s.as_bytes());
            }
        }
        Val::BytesList(list) => {
            for b in list.iter().rev() {
                put_delimited(out, f.number, b);
            }
        }
        Val::Raw(_) | Val::PackedRejects(_) => put_unknown(out, schema, table, slot),
        Val::Scalar(_) | Val::Str(_) | Val::Bytes(_) | Val::Msg(_) | Val::Msgs(_) | Val::Absent => {
        }
    }
}

/// An unknown field's slot, written front to back in the
/// [`unknown_len`] bytes it takes (a packed run's rejects are found in
/// input order).
pub(super) fn put_unknown(
    out: &mut BackBuf<'_>,
    schema: &'static Schema,
    table: &MessageTable,
    slot: &Slot<'_>,
) {
    out.put_forward(unknown_len(schema, table, slot), |fwd| {
        write_unknown(fwd, schema, table, slot);
        debug_assert!(fwd.is_full(), "unknown_len and write_unknown disagree");
    });
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
    match slot.as_unknown() {
        UnknownField::Raw { tag: t, value } => {
            let t = u64::from(t);
            write_varint(out, t);
            match (t & 7) as u8 {
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
        UnknownField::PackedEnumRejects {
            field_index,
            payload,
        } => {
            let Some(f) = table.fields.get(field_index as usize) else {
                return;
            };
            for v in rejects(schema, f, payload) {
                write_varint(out, tag(f.number, VARINT));
                write_varint(out, v);
            }
        }
    }
}
