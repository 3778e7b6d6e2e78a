//! Writing a record's pieces into the output back to front: each put
//! ends where the bytes after it begin and returns where it starts.

use super::size::{rejects, tag, unknown_len, varint_of};
use crate::record::{Slot, Val};
use crate::table::{FieldTable, Kind, Label, MessageTable, Schema};
use crate::wire::{EGROUP, LEN, SGROUP, VARINT, varint_len};

/// A group's end tag, written before its body (back to front).
#[inline]
pub(super) fn put_group_end(out: &mut [u8], pos: usize, f: &FieldTable) -> usize {
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
pub(super) fn put_varint(out: &mut [u8], pos: usize, mut v: u64) -> usize {
    // Most tags and lengths take one byte: no length to work out.
    if v < 0x80 {
        let Some(start) = pos.checked_sub(1) else {
            return 0;
        };
        if let Some(b) = out.get_mut(start) {
            *b = v as u8;
        }
        return start;
    }
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
pub(super) fn put_leaf(
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
pub(super) fn put_unknown(
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
