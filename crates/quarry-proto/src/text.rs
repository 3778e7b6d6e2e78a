//! The protobuf text format, as `protoc --decode` prints it: one field per
//! line, nested messages in braces indented by two spaces, enums by name,
//! strings and bytes C-escaped (octal for bytes outside printable ASCII),
//! floats as `%g` with the shortest of 6/9 (`float`) or 15/17 (`double`)
//! digits that reads back (9 for a subnormal `float`, as protobuf's
//! `strtof` check has it), unknown fields by number.
//!
//! Nested messages are followed with an explicit stack, not by recursion,
//! so a record of any depth the decoder accepted prints on any thread's
//! stack.

use std::fmt::Write as _;

use crate::UnknownField;
use crate::float_text::{double_digits, float_digits};
use crate::record::{Record, Slot, Val};
use crate::table::{FieldTable, Kind, Label, MessageRef};
use crate::values::{GroupFields, skip_group, skip_plain};
use crate::walk::{Step, Walk};
use crate::wire::{EGROUP, I32, I64, LEN, SGROUP, VARINT, read_tag};

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
/// let arena = quarry_core::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x07, 0x12, 0x01, b'h'])?;
/// assert_eq!(text::to_text(MessageRef::new(&S, 0), rec), "id: 7\nname: \"h\"\n");
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn to_text(message: MessageRef, record: Record<'_>) -> String {
    let mut out = String::new();
    let mut walk = Walk::new(message, record).sorting_maps();
    while let Some(step) = walk.next() {
        let depth = walk.depth();
        match step {
            Step::Leaf {
                message,
                field: Some(f),
                slot,
            } => write_field(&mut out, message, f, slot, depth),
            Step::Leaf { message, slot, .. } => {
                // Protobuf keeps no unknown fields in a map entry: `protoc
                // --decode` prints none there.
                if !message.table().map_entry {
                    write_unknown(&mut out, message, slot.as_unknown(), depth);
                }
            }
            Step::Enter {
                message,
                field,
                record,
            } => {
                // The walk is in the nested message already.
                indent(&mut out, depth.saturating_sub(1));
                let _ = writeln!(out, "{} {{", field_name(message, field));
                let entry = message.sub_message(field);
                if entry.table().map_entry {
                    // A map entry prints its key and value even when the
                    // input left them out (at their defaults), as protobuf's
                    // printer does: the key now, the value before the
                    // entry's closing brace (the mark says so).
                    let absent = |number| {
                        entry
                            .table()
                            .field_index(number)
                            .is_none_or(|i| !record.has(i))
                    };
                    if absent(1) {
                        write_default(&mut out, entry, 1, depth);
                    }
                    walk.set_mark(usize::from(absent(2)));
                }
            }
            Step::Leave {
                field: Some(field),
                mark,
            } => {
                // Only map entries set a mark: their value is absent.
                if mark == 1
                    && let Some(parent) = walk.message()
                {
                    write_default(&mut out, parent.sub_message(field), 2, depth + 1);
                }
                indent(&mut out, depth);
                out.push_str("}\n");
            }
            Step::Leave { field: None, .. } => {}
        }
    }
    out
}

/// `record` as `{:?}` shows it: the message's full name, then its text
/// format in braces, on one line (`{:#?}`: one field per line, as
/// [`to_text`] writes it). What generated views print for `Debug`.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 2] = [
///     FieldTable::new(1, "id", "id", Kind::Int32, Label::Implicit),
///     FieldTable::new(2, "name", "name", Kind::String, Label::Implicit),
/// ];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// struct Shown<'a>(Record<'a>);
/// impl std::fmt::Debug for Shown<'_> {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         text::fmt_debug(MessageRef::new(&S, 0), self.0, f)
///     }
/// }
/// let arena = quarry_core::Arena::new();
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &[0x08, 0x07, 0x12, 0x01, b'h'])?;
/// assert_eq!(format!("{:?}", Shown(rec)), r#"t.M { id: 7 name: "h" }"#);
/// assert_eq!(format!("{:#?}", Shown(rec)), "t.M {\n  id: 7\n  name: \"h\"\n}");
/// assert_eq!(format!("{:?}", Shown(Record::default())), "t.M {}");
/// # Ok::<(), quarry_core::DecodeError>(())
/// ```
pub fn fmt_debug(
    message: MessageRef,
    record: Record<'_>,
    f: &mut std::fmt::Formatter<'_>,
) -> std::fmt::Result {
    let text = to_text(message, record);
    f.write_str(message.table().full_name)?;
    if text.is_empty() {
        return f.write_str(" {}");
    }
    f.write_str(" {")?;
    // Strings and bytes are escaped, so every line break is the printer's.
    for line in text.lines() {
        if f.alternate() {
            f.write_str("\n  ")?;
            f.write_str(line)?;
        } else {
            f.write_str(" ")?;
            f.write_str(line.trim_start())?;
        }
    }
    f.write_str(if f.alternate() { "\n}" } else { " }" })
}

/// The line(s) of field `number` of a map entry at its default.
fn write_default(out: &mut String, entry: MessageRef, number: u32, depth: usize) {
    let table = entry.table();
    let Some(f) = table
        .field_index(number)
        .and_then(|i| table.fields.get(i as usize))
    else {
        return;
    };
    let name = field_name(entry, f);
    match f.kind {
        Kind::Message | Kind::Group => {
            indent(out, depth);
            let _ = writeln!(out, "{name} {{");
            indent(out, depth);
            out.push_str("}\n");
        }
        Kind::String | Kind::Bytes => line(out, depth, &name, "\"\""),
        _ => line(out, depth, &name, &scalar(entry, f, 0)),
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// The lines of a known field's slot other than a nested message. Fields
/// with implicit presence leave out their default, as `protoc` does, except
/// in a map entry.
fn write_field(
    out: &mut String,
    message: MessageRef,
    f: &FieldTable,
    slot: &Slot<'_>,
    depth: usize,
) {
    let name = field_name(message, f);
    // A map entry prints its key and value even at their defaults.
    let implicit = f.label == Label::Implicit && !message.table().map_entry;
    match slot.val() {
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

/// Groups print under their type's name, everything else (extension
/// groups included, named `[pkg.ext]`) under the field's.
fn field_name(message: MessageRef, f: &FieldTable) -> String {
    if f.kind == Kind::Group && !f.name.starts_with('[') {
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
            UnknownPrinter { out, depth }.field(tag >> 3, (tag & 7) as u8, value);
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

/// How many levels of length-delimited unknown fields inside one another
/// protobuf's printer tries to print as messages (its
/// `kUnknownFieldRecursionLimit`); deeper ones print as strings.
const UNKNOWN_MESSAGE_LEVELS: i32 = 10;

/// Prints unknown fields as protobuf's printer does: a varint in decimal,
/// fixed values in hex, a group as a nested block, and a length-delimited
/// value as a nested block when its bytes read as fields (within
/// [`UNKNOWN_MESSAGE_LEVELS`]), as a string otherwise.
struct UnknownPrinter<'o> {
    out: &'o mut String,
    /// Indentation of the field the printer starts with.
    depth: usize,
}

/// A nested block of unknown fields being printed.
struct Block<'v> {
    /// Its fields not printed yet.
    rest: &'v [u8],
    /// What is left of [`UNKNOWN_MESSAGE_LEVELS`] inside it.
    budget: i32,
}

impl UnknownPrinter<'_> {
    /// Print unknown field `number` of wire type `wt` with `value` (the
    /// bytes after the tag, as [`UnknownField::Raw`] holds them), and
    /// whatever it nests, with an explicit stack: groups nest as deep as
    /// the decoder allowed.
    fn field(&mut self, number: u32, wt: u8, value: &[u8]) {
        let mut blocks: Vec<Block<'_>> = Vec::new();
        self.one(number, wt, value, UNKNOWN_MESSAGE_LEVELS, &mut blocks);
        while let Some(top) = blocks.last_mut() {
            let budget = top.budget;
            let Some((number, wt, value, rest)) = next_field(top.rest) else {
                // The block is done (or holds what no longer reads as
                // fields, which the checks before it was opened rule
                // out).
                blocks.pop();
                indent(self.out, self.depth + blocks.len());
                self.out.push_str("}\n");
                continue;
            };
            top.rest = rest;
            self.one(number, wt, value, budget, &mut blocks);
        }
    }

    /// Print one field at the current nesting; a block opens on `blocks`.
    fn one<'v>(
        &mut self,
        number: u32,
        wt: u8,
        value: &'v [u8],
        budget: i32,
        blocks: &mut Vec<Block<'v>>,
    ) {
        let depth = self.depth + blocks.len();
        let name = number.to_string();
        let text = match wt {
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
            LEN if value.is_empty() || budget <= 0 || !reads_as_fields(value, budget) => {
                quote(value)
            }
            LEN | SGROUP => {
                indent(self.out, depth);
                let _ = writeln!(self.out, "{name} {{");
                blocks.push(Block {
                    rest: value,
                    budget: budget - 1,
                });
                return;
            }
            _ => String::new(),
        };
        line(self.out, depth, &name, &text);
    }
}

/// The first field of `bytes`: its number, wire type, value (as
/// [`UnknownField::Raw`] holds it) and the bytes after it.
fn next_field(bytes: &[u8]) -> Option<(u32, u8, &[u8], &[u8])> {
    let end = bytes.len();
    let mut pos = 0;
    let (number, wt) = read_tag(bytes, &mut pos, end).ok()?;
    let start = pos;
    let value_end = match wt {
        SGROUP => {
            let body_end = skip_group(
                bytes,
                &mut pos,
                end,
                number,
                u32::MAX,
                u32::MAX,
                GroupFields::Unknown,
            )
            .ok()?;
            let value = bytes.get(start..body_end)?;
            return Some((number, wt, value, bytes.get(pos..)?));
        }
        LEN => {
            let (s, e) = crate::wire::read_len(bytes, &mut pos, end).ok()?;
            let value = bytes.get(s..e)?;
            return Some((number, wt, value, bytes.get(e..)?));
        }
        _ => {
            skip_plain(bytes, &mut pos, end, wt).ok()?;
            pos
        }
    };
    Some((
        number,
        wt,
        bytes.get(start..value_end)?,
        bytes.get(value_end..)?,
    ))
}

/// True if `payload` reads, to its end, as protobuf fields: valid tags, no
/// end-group without its start, groups closed by their own number and
/// nested at most `max_groups` deep. (What protobuf's printer checks by
/// parsing the bytes as an unknown field set under that recursion limit.)
fn reads_as_fields(payload: &[u8], max_groups: i32) -> bool {
    let end = payload.len();
    let mut pos = 0;
    // Group numbers open; `max_groups` is at most UNKNOWN_MESSAGE_LEVELS.
    let mut open = [0u32; UNKNOWN_MESSAGE_LEVELS as usize];
    let mut depth = 0usize;
    while pos < end {
        let Ok((number, wt)) = read_tag(payload, &mut pos, end) else {
            return false;
        };
        match wt {
            SGROUP => {
                if depth as i32 >= max_groups {
                    return false;
                }
                let Some(slot) = open.get_mut(depth) else {
                    return false;
                };
                *slot = number;
                depth += 1;
            }
            EGROUP => {
                let Some(d) = depth.checked_sub(1) else {
                    return false;
                };
                if open.get(d) != Some(&number) {
                    return false;
                }
                depth = d;
            }
            _ => {
                if skip_plain(payload, &mut pos, end, wt).is_err() {
                    return false;
                }
            }
        }
    }
    depth == 0
}

fn scalar(message: MessageRef, f: &FieldTable, v: u64) -> String {
    match f.kind {
        Kind::Bool => (if v != 0 { "true" } else { "false" }).to_string(),
        Kind::UInt32 | Kind::Fixed32 | Kind::UInt64 | Kind::Fixed64 => v.to_string(),
        Kind::Double => float_text(f64::from_bits(v), double_digits),
        Kind::Float => float_text(f32::from_bits(v as u32), float_digits),
        Kind::Enum => message
            .schema
            .enums
            .get(f.sub as usize)
            .and_then(|e| e.name_of(v as i32))
            .map_or_else(|| (v as i32).to_string(), str::to_string),
        _ => (v as i64).to_string(),
    }
}

/// `nan`, `inf` and `-inf` as protobuf's text printer writes them; finite
/// values as `digits` does.
fn float_text<F: Into<f64> + Copy>(x: F, digits: fn(F) -> String) -> String {
    let wide: f64 = x.into();
    if wide.is_nan() {
        "nan".into()
    } else if wide.is_infinite() {
        if wide > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        digits(x)
    }
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
