//! The protobuf text format, as `protoc --decode` prints it: one field per
//! line, nested messages in braces indented by two spaces, enums by name,
//! strings and bytes C-escaped (octal for bytes outside printable ASCII),
//! floats as `%g` with the shortest of 6/9 (`float`) or 15/17 (`double`)
//! digits that reads back, unknown fields by number.
//!
//! Nested messages are followed with an explicit stack, not by recursion,
//! so a record of any depth the decoder accepted prints on any thread's
//! stack.

use std::fmt::Write as _;

use crate::UnknownField;
use crate::json::format_g;
use crate::record::{Record, Slot, Val};
use crate::table::{FieldTable, Kind, Label, MessageRef};
use crate::walk::{Step, Walk};
use crate::wire::{I32, I64, LEN, SGROUP, VARINT};

/// The text format of `record` as a `message`.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 2] = [
///     FieldTable::new(1, "id", "id", Kind::Int32, Label::Implicit),
///     FieldTable::new(2, "name", "name", Kind::String, Label::Implicit),
/// ];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x07, 0x12, 0x01, b'h'])?;
/// assert_eq!(text::to_text(MessageRef::new(&S, 0), rec), "id: 7\nname: \"h\"\n");
/// # Ok::<(), quarry::DecodeError>(())
/// ```
pub fn to_text(message: MessageRef, record: Record<'_>) -> String {
    let mut out = String::new();
    let mut walk = Walk::<false>::new(message, record);
    while let Some(step) = walk.next() {
        let depth = walk.depth();
        match step {
            Step::Leaf {
                message,
                field: Some(f),
                slot,
            } => write_field(&mut out, message, f, slot, depth),
            Step::Leaf { message, slot, .. } => {
                write_unknown(&mut out, message, slot.as_unknown(), depth);
            }
            Step::Enter { message, field } => {
                // The walk is in the nested message already.
                let outer = depth.saturating_sub(1);
                indent(&mut out, outer);
                let _ = writeln!(out, "{} {{", field_name(message, field));
            }
            Step::Leave { field: Some(_), .. } => {
                indent(&mut out, depth);
                out.push_str("}\n");
            }
            Step::Leave { field: None, .. } => {}
        }
    }
    out
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// The lines of a known field's slot other than a nested message. Fields
/// with implicit presence leave out their default, as `protoc` does.
fn write_field(
    out: &mut String,
    message: MessageRef,
    f: &FieldTable,
    slot: &Slot<'_>,
    depth: usize,
) {
    let name = field_name(message, f);
    let implicit = f.label == Label::Implicit;
    match slot.val {
        Val::Scalar(v) if !(implicit && v == 0) => line(out, depth, &name, &scalar(message, f, v)),
        Val::Str(s) if !(implicit && s.is_empty()) => line(out, depth, &name, &quote(s.as_bytes())),
        Val::Bytes(b) if !(implicit && b.is_empty()) => line(out, depth, &name, &quote(b)),
        Val::Scalars(list) => {
            for &v in list {
                line(out, depth, &name, &scalar(message, f, v));
            }
        }
        Val::Strs(list) => {
            for s in list {
                line(out, depth, &name, &quote(s.as_bytes()));
            }
        }
        Val::BytesList(list) => {
            for b in list {
                line(out, depth, &name, &quote(b));
            }
        }
        Val::Raw(_) | Val::PackedRejects(_) => {
            write_unknown(out, message, slot.as_unknown(), depth)
        }
        _ => {}
    }
}

/// Groups print under their type's name, everything else under the field's.
fn field_name(message: MessageRef, f: &FieldTable) -> String {
    if f.kind == Kind::Group {
        let full = message.sub_message(f).table().full_name;
        return full.rsplit('.').next().unwrap_or(full).to_string();
    }
    f.name.to_string()
}

fn line(out: &mut String, depth: usize, name: &str, value: &str) {
    indent(out, depth);
    let _ = writeln!(out, "{name}: {value}");
}

fn write_unknown(out: &mut String, message: MessageRef, u: UnknownField<'_>, depth: usize) {
    match u {
        UnknownField::Raw { tag, value } => {
            let number = tag >> 3;
            let text = match (tag & 7) as u8 {
                VARINT => {
                    let mut pos = 0;
                    let v = crate::wire::read_varint(value, &mut pos, value.len()).unwrap_or(0);
                    v.to_string()
                }
                I64 => {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(value.get(..8).unwrap_or(&[0; 8]));
                    format!("0x{:016x}", u64::from_le_bytes(b))
                }
                I32 => {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(value.get(..4).unwrap_or(&[0; 4]));
                    format!("0x{:08x}", u32::from_le_bytes(b))
                }
                LEN | SGROUP => quote(value),
                _ => String::new(),
            };
            line(out, depth, &number.to_string(), &text);
        }
        UnknownField::PackedEnumRejects {
            field_index,
            payload,
        } => {
            let Some(f) = message.table().fields.get(field_index as usize) else {
                return;
            };
            let en = message.schema.enums.get(f.sub as usize);
            let mut pos = 0;
            while let Ok(v) = crate::wire::read_varint(payload, &mut pos, payload.len()) {
                if en.is_some_and(|e| !e.contains(v as i32)) {
                    line(out, depth, &f.number.to_string(), &v.to_string());
                }
                if pos >= payload.len() {
                    break;
                }
            }
        }
    }
}

fn scalar(message: MessageRef, f: &FieldTable, v: u64) -> String {
    match f.kind {
        Kind::Bool => (if v != 0 { "true" } else { "false" }).to_string(),
        Kind::UInt32 | Kind::Fixed32 | Kind::UInt64 | Kind::Fixed64 => v.to_string(),
        Kind::Double => float_text(f64::from_bits(v), 15, 17, |s| {
            s.parse::<f64>().ok() == Some(f64::from_bits(v))
        }),
        Kind::Float => {
            let x = f32::from_bits(v as u32);
            float_text(f64::from(x), 6, 9, |s| s.parse::<f32>().ok() == Some(x))
        }
        Kind::Enum => message
            .schema
            .enums
            .get(f.sub as usize)
            .and_then(|e| e.name_of(v as i32))
            .map_or_else(|| (v as i32).to_string(), str::to_string),
        _ => (v as i64).to_string(),
    }
}

fn float_text(x: f64, short: usize, long: usize, reads_back: impl Fn(&str) -> bool) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format_g(x, short);
    if reads_back(&s) { s } else { format_g(x, long) }
}

/// A double-quoted, C-escaped string.
fn quote(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for &b in bytes {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7E => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}
