//! Protobuf's canonical JSON mapping, written as protobuf's own (C++) JSON
//! printer writes it with default options: compact, fields in field-number
//! order under their JSON names, fields without presence omitted when they
//! hold their default, 64-bit integers quoted, bytes in standard base64,
//! enums by name (by number when the enum does not list the value), floats
//! with `%.15g`/`%.17g` (`%.6g`/`%.9g` for `float`, always 9 digits for a
//! subnormal `float`), `"NaN"` and
//! `"Infinity"` quoted, and the same characters escaped (`<`, `>`,
//! controls and a few invisible code points as `\uXXXX`). Unknown fields are
//! not printed. The well-known types have their special forms (see
//! [below](#well-known-types)).
//!
//! # Well-known types
//!
//! `google.protobuf.Timestamp` prints as an RFC 3339 string and `Duration`
//! as `"1.5s"` (0, 3, 6 or 9 fraction digits), `FieldMask` as its paths in
//! lowerCamelCase joined by commas, the wrappers (`Int64Value`, …) as their
//! value, `Struct`, `Value` and `ListValue` as the JSON they hold
//! (`NullValue` as `null`; an empty `Value` is left out where it is a field,
//! a list element or a map value), and `Any` as an object with `"@type"`
//! and the packed message's fields (or `"value"` when the packed message is
//! itself well-known). The packed message is decoded here, so its type must
//! be in the schema. Where protobuf's C++ printer refuses (a timestamp past
//! year 9999 or with `nanos` outside 0 to 999,999,999, a duration's signs
//! disagreeing, `NaN` in a `Value`, a `FieldMask` path with upper case or
//! a control character, an `Any` without a type URL, …) this one returns a
//! [`JsonError`] too.
//!
//! Nesting recurses once per message level, at most [`MAX_JSON_DEPTH`]
//! levels (the packed messages of `Any` included).
//!
//! # Reading JSON
//!
//! [`from_json`] reads the same mapping back into a record, as protobuf's
//! `json_format` parser does with default options:
//!
//! - members by JSON name or proto field name; an unknown member, a field
//!   given twice (under either name), two members of one oneof, or a
//!   duplicate key in any object is an error; `null` leaves a field
//!   unset (except a `google.protobuf.Value`, where it is a null value,
//!   and a `NullValue` enum);
//! - integers as numbers or strings holding one, in range for the field's
//!   type; an exponent or a zero fraction (`1e2`, `5.0`) is accepted,
//!   any other fraction refused;
//! - `float`/`double` as numbers, numeric strings, `"NaN"`, `"Infinity"`
//!   or `"-Infinity"`; a finite number is rounded to the nearest value of
//!   the type, and refused where that is an infinity (so `3.4028235e38`,
//!   the largest `float` as the shortest printers write it, reads as that
//!   float, where protobuf's Python parser refuses it);
//! - enums by name or by number (also quoted); an unknown name is an
//!   error, as is a number a closed (proto2) enum does not list;
//! - `bool` only as `true`/`false` (as map keys, `"true"`/`"false"`);
//! - `bytes` as standard or URL-safe base64, padded or not;
//! - repeated fields as arrays (no `null` elements), maps as objects whose
//!   keys are the keys' JSON forms;
//! - every well-known type in the form the printer writes: `Timestamp`
//!   with any RFC 3339 offset (`Z` or `±HH:MM`), `Duration`, `FieldMask`,
//!   the wrappers, `Struct`, `Value`, `ListValue`, and `Any` (whose
//!   `"@type"` must name a message of the schema; the packed message is
//!   encoded into its `value`).
//!
//! JSON nested deeper than [`MAX_JSON_DEPTH`] arrays and objects, or
//! messages nested deeper than the encoder's limit (the decoder's default
//! [`DecodeOptions::max_depth`](quarry_core::DecodeOptions::max_depth),
//! 100, counting the root), is refused. Errors name
//! the byte offset of a syntax error, or else the JSON path of the value:
//! `$` for the root, then `.member` as the member is spelled in the input,
//! `[2]` for an array element and `["key"]` for a map entry
//! (`$.key.participants[2]`, `$.labels["a"]`).

mod from;
mod from_wkt;
mod lex;
mod well_known;

use std::fmt::Write as _;

use quarry_core::DecodeError;

use crate::float_text::{double_digits, float_digits};
use crate::record::{Record, Slot, UNKNOWN, Val};
use crate::table::{FieldTable, Kind, Label, MessageRef};

/// Deepest message nesting the printer follows, `Any` expansions included
/// (the decoder's default limit is 100; a schema's own nesting plus packed
/// messages stay well inside the thread's stack at this depth).
pub const MAX_JSON_DEPTH: u32 = 200;

/// Why a message has no JSON form. Protobuf's printer refuses the same
/// messages.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// A well-known type holds what its JSON form cannot carry.
    #[error("{type_name}: {what}")]
    WellKnown {
        /// The well-known type (`google.protobuf.Timestamp`, …).
        type_name: &'static str,
        /// What is wrong.
        what: &'static str,
    },
    /// An `Any` names a type the schema does not hold.
    #[error("google.protobuf.Any: type {url:?} is not in the schema")]
    UnknownAnyType {
        /// The `Any`'s type URL.
        url: String,
    },
    /// An `Any`'s value does not decode as the type it names.
    #[error("google.protobuf.Any: its {type_name} value: {error}")]
    AnyValue {
        /// The packed type.
        type_name: &'static str,
        /// The decode error, with the offset in the packed bytes.
        error: DecodeError,
    },
    /// Messages nested deeper than [`MAX_JSON_DEPTH`].
    #[error("messages nested deeper than {limit} levels")]
    TooDeep {
        /// [`MAX_JSON_DEPTH`].
        limit: u32,
    },
}

type Written = Result<(), JsonError>;

/// Why JSON text does not read as a message (see [reading
/// JSON](self#reading-json)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonParseError {
    /// The text is not JSON.
    #[error("{what} at byte {offset}")]
    Syntax {
        /// What is wrong.
        what: &'static str,
        /// Byte offset in the text.
        offset: usize,
    },
    /// The JSON does not hold a message of the type asked for.
    #[error("{what} at {path}")]
    Value {
        /// What is wrong.
        what: String,
        /// Where: `$`, then `.member`, `[index]` and `["map key"]`.
        path: String,
    },
}

/// The message of type `message` that JSON `text` holds, in protobuf's
/// canonical JSON mapping (what [`to_json`] writes, and the forms listed
/// under [reading JSON](self#reading-json)), built in `arena`.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 2] = [
///     FieldTable::new(1, "user_id", "userId", Kind::Int64, Label::Implicit),
///     FieldTable::new(2, "tags", "tags", Kind::String, Label::Repeated),
/// ];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry_core::Arena::new();
/// let rec = json::from_json(MessageRef::new(&S, 0), &arena, r#"{"user_id": 7, "tags": ["<", ""]}"#)?;
/// assert_eq!(encode(MessageRef::new(&S, 0), rec)?, [0x08, 0x07, 0x12, 0x01, b'<', 0x12, 0x00]);
/// let err = json::from_json(MessageRef::new(&S, 0), &arena, r#"{"tags": [1]}"#).unwrap_err();
/// assert_eq!(err.to_string(), "expected a string at $.tags[0]");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_json<'a>(
    message: MessageRef,
    arena: &'a quarry_core::Arena,
    text: &str,
) -> Result<Record<'a>, JsonParseError> {
    let json = lex::parse(text)?;
    let mut reader = from::Reader {
        arena,
        path: String::from("$"),
        depth: 0,
    };
    reader.message(message, &json)
}

/// The JSON of `record` as a `message`.
///
/// ```
/// # use quarry_proto::*;
/// static F: [FieldTable; 2] = [
///     FieldTable::new(1, "user_id", "userId", Kind::Int64, Label::Implicit),
///     FieldTable::new(2, "tags", "tags", Kind::String, Label::Repeated),
/// ];
/// static M: [MessageTable; 1] = [MessageTable::new("t.M", &F, &[])];
/// static S: Schema = Schema { messages: &M, enums: &[] };
/// let arena = quarry_core::Arena::new();
/// let bytes = [0x08, 0x07, 0x12, 0x01, b'<', 0x12, 0x00];
/// let rec = quarry_proto::decode(MessageRef::new(&S, 0), &arena, &bytes)?;
/// assert_eq!(
///     json::to_json(MessageRef::new(&S, 0), rec)?,
///     r#"{"userId":"7","tags":["\u003c",""]}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_json(message: MessageRef, record: Record<'_>) -> Result<String, JsonError> {
    let mut out = String::new();
    write_json(&mut out, message, record)?;
    Ok(out)
}

/// Append the JSON of `record` as a `message` to `out`. On error, `out`
/// holds what was written before it.
pub fn write_json(out: &mut String, message: MessageRef, record: Record<'_>) -> Written {
    Printer { out, depth: 0 }.message_or_null(message, record)
}

/// The output and how deep the message being printed is.
struct Printer<'o> {
    out: &'o mut String,
    depth: u32,
}

impl Printer<'_> {
    /// One message: a well-known type's form, or an object of its fields.
    fn message(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        if self.depth >= MAX_JSON_DEPTH {
            return Err(JsonError::TooDeep {
                limit: MAX_JSON_DEPTH,
            });
        }
        self.depth += 1;
        let written = match well_known::classify(message.table().full_name) {
            Some(kind) => self.well_known(kind, message, record),
            None => self.object(message, record),
        };
        self.depth -= 1;
        written
    }

    /// [`message`](Self::message) where a value must stand (the root,
    /// an `Any`'s `"value"`): a `google.protobuf.Value` that holds nothing
    /// writes nothing, so `null` stands in for it, as protobuf's Python
    /// printer writes it (C++ writes nothing at the root and stops on a
    /// check under an `Any`).
    fn message_or_null(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        let before = self.out.len();
        self.message(message, record)?;
        if self.out.len() == before {
            self.out.push_str("null");
        }
        Ok(())
    }

    /// `{` the fields `}`.
    fn object(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        self.out.push('{');
        let mut first = true;
        self.fields(message, record, &mut first)?;
        self.out.push('}');
        Ok(())
    }

    /// The members of the fields present, each preceded by a comma unless
    /// `first`.
    fn fields(&mut self, message: MessageRef, record: Record<'_>, first: &mut bool) -> Written {
        let table = message.table();
        for slot in record.present() {
            if slot.field() == UNKNOWN {
                break;
            }
            let Some(f) = table.fields.get(slot.field() as usize) else {
                continue;
            };
            if omitted(f, &slot.val()) || self.is_empty_value(message, f, &slot.val()) {
                continue;
            }
            if !*first {
                self.out.push(',');
            }
            *first = false;
            write_str(self.out, f.json_name);
            self.out.push(':');
            self.field(message, f, slot)?;
        }
        Ok(())
    }

    fn field(&mut self, message: MessageRef, f: &FieldTable, slot: &Slot<'_>) -> Written {
        let kind = f.kind;
        match &slot.val() {
            Val::Scalar(v) => write_scalar(self.out, message, f, *v),
            Val::Str(s) => write_str(self.out, s),
            Val::Bytes(b) if kind == Kind::String => {
                write_str(self.out, &String::from_utf8_lossy(b))
            }
            Val::Bytes(b) => write_base64(self.out, b),
            Val::Msg(_) | Val::Msgs(_) if f.is_repeated() => {
                return self.messages(message, f, slot);
            }
            Val::Msg(slots) => return self.message(message.sub_message(f), Record::new(slots)),
            Val::Scalars(list) => {
                write_list(self.out, list.iter(), |out, v| {
                    write_scalar(out, message, f, *v);
                    Ok(())
                })?;
            }
            Val::Strs(list) => write_list(self.out, list.iter(), |out, s| {
                write_str(out, s);
                Ok(())
            })?,
            Val::BytesList(list) if kind == Kind::String => {
                write_list(self.out, list.iter(), |out, b| {
                    write_str(out, &String::from_utf8_lossy(b));
                    Ok(())
                })?;
            }
            Val::BytesList(list) => write_list(self.out, list.iter(), |out, b| {
                write_base64(out, b);
                Ok(())
            })?,
            Val::Raw(_) | Val::PackedRejects(_) | Val::Msgs(_) | Val::Absent => {
                self.out.push_str("null");
            }
        }
        Ok(())
    }

    /// Repeated message or map field `f`: an array, or an object for a map.
    fn messages<'a>(&mut self, message: MessageRef, f: &FieldTable, slot: &'a Slot<'a>) -> Written {
        let list = slot.elements();
        let sub = message.sub_message(f);
        if sub.table().map_entry {
            return self.map(sub, list);
        }
        let skip_empty = well_known::is_value(sub);
        self.out.push('[');
        let mut first = true;
        for slots in list.iter() {
            let rec = Record::new(slots);
            if skip_empty && well_known::value_is_empty(sub, rec) {
                continue;
            }
            if !first {
                self.out.push(',');
            }
            first = false;
            self.message(sub, rec)?;
        }
        self.out.push(']');
        Ok(())
    }

    /// A singular `google.protobuf.Value` field holding no value: left out,
    /// as protobuf's printer does.
    fn is_empty_value(&self, message: MessageRef, f: &FieldTable, val: &Val<'_>) -> bool {
        match val {
            Val::Msg(slots) if f.kind.is_message() && !f.is_repeated() => {
                let sub = message.sub_message(f);
                well_known::is_value(sub) && well_known::value_is_empty(sub, Record::new(slots))
            }
            _ => false,
        }
    }

    /// A map field: an object keyed by the entries' keys, one member per
    /// key (the last entry's, as a map keeps), in key order, entries whose
    /// value is an empty `google.protobuf.Value` left out.
    fn map<'a>(&mut self, entry: MessageRef, list: &'a [&'a [Slot<'a>]]) -> Written {
        let table = entry.table();
        let key_field = table.field_index(1);
        let value_field = table.field_index(2);
        self.out.push('{');
        let mut first = true;
        for slots in crate::walk::map_in_key_order(entry, list, true) {
            let rec = Record::new(slots);
            let value = value_field.and_then(|v| {
                let f = table.fields.get(v as usize)?;
                Some((f, slots.iter().find(|s| s.field() == v && !s.is_absent())))
            });
            if let Some((f, slot)) = value
                && f.kind.is_message()
            {
                let sub = entry.sub_message(f);
                let empty = match slot.map(Slot::val) {
                    Some(Val::Msg(m)) => well_known::value_is_empty(sub, Record::new(m)),
                    _ => true,
                };
                if well_known::is_value(sub) && empty {
                    continue;
                }
            }
            if !first {
                self.out.push(',');
            }
            first = false;
            // Keys are always strings in JSON.
            match key_field.and_then(|k| Some((table.fields.get(k as usize)?, k))) {
                Some((f, k)) => match f.kind {
                    Kind::String => write_str(self.out, rec.str(k).unwrap_or("")),
                    Kind::Bool => self.out.push_str(if rec.scalar(k).unwrap_or(0) != 0 {
                        "\"true\""
                    } else {
                        "\"false\""
                    }),
                    _ => {
                        self.out.push('"');
                        write_integer(self.out, f.kind, rec.scalar(k).unwrap_or(0));
                        self.out.push('"');
                    }
                },
                None => self.out.push_str("\"\""),
            }
            self.out.push(':');
            match value {
                Some((f, Some(slot))) => self.field(entry, f, slot)?,
                Some((f, None)) => self.default(entry, f)?,
                None => self.out.push_str("null"),
            }
        }
        self.out.push('}');
        Ok(())
    }

    /// The value an absent map value, or an absent wrapper value, prints
    /// as.
    fn default(&mut self, message: MessageRef, f: &FieldTable) -> Written {
        match f.kind {
            Kind::String | Kind::Bytes => self.out.push_str("\"\""),
            Kind::Message | Kind::Group => {
                return self.message(message.sub_message(f), Record::default());
            }
            _ => write_scalar(self.out, message, f, 0),
        }
        Ok(())
    }
}

fn omitted(f: &FieldTable, val: &Val<'_>) -> bool {
    match val {
        Val::Scalar(v) => f.label == Label::Implicit && *v == 0,
        Val::Str(s) => f.label == Label::Implicit && s.is_empty(),
        Val::Bytes(b) => f.label == Label::Implicit && b.is_empty(),
        Val::Scalars(l) => l.is_empty(),
        Val::Strs(l) => l.is_empty(),
        Val::BytesList(l) => l.is_empty(),
        Val::Msgs(l) => l.is_empty(),
        Val::Msg(_) => false,
        Val::Raw(_) | Val::PackedRejects(_) | Val::Absent => true,
    }
}

fn write_list<T>(
    out: &mut String,
    items: impl Iterator<Item = T>,
    mut each: impl FnMut(&mut String, T) -> Written,
) -> Written {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item)?;
    }
    out.push(']');
    Ok(())
}

fn write_integer(out: &mut String, kind: Kind, v: u64) {
    let _ = match kind {
        Kind::UInt32 | Kind::Fixed32 | Kind::UInt64 | Kind::Fixed64 => write!(out, "{v}"),
        _ => write!(out, "{}", v as i64),
    };
}

fn write_scalar(out: &mut String, message: MessageRef, f: &FieldTable, v: u64) {
    match f.kind {
        Kind::Bool => out.push_str(if v != 0 { "true" } else { "false" }),
        Kind::Int64 | Kind::UInt64 | Kind::Fixed64 | Kind::SFixed64 | Kind::SInt64 => {
            out.push('"');
            write_integer(out, f.kind, v);
            out.push('"');
        }
        Kind::Double => write_double(out, f64::from_bits(v)),
        Kind::Float => write_float(out, f32::from_bits(v as u32)),
        Kind::Enum => {
            let table = message.schema.enums.get(f.sub as usize);
            // `google.protobuf.NullValue` is JSON's null, whatever its number.
            if table.is_some_and(|e| e.full_name == well_known::NULL_VALUE) {
                out.push_str("null");
                return;
            }
            match table.and_then(|e| e.name_of(v as i32)) {
                Some(name) => write_str(out, name),
                None => {
                    let _ = write!(out, "{}", v as i32);
                }
            }
        }
        kind => write_integer(out, kind, v),
    }
}

/// `"NaN"`, `"Infinity"` or `"-Infinity"` for non-finite values.
fn special(out: &mut String, v: f64) -> bool {
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v == f64::INFINITY {
        out.push_str("\"Infinity\"");
    } else if v == f64::NEG_INFINITY {
        out.push_str("\"-Infinity\"");
    } else {
        return false;
    }
    true
}

/// A double as protobuf's JSON printer writes it (see
/// [`double_digits`]).
fn write_double(out: &mut String, v: f64) {
    if !special(out, v) {
        out.push_str(&double_digits(v));
    }
}

/// A float as protobuf's JSON printer writes it (see [`float_digits`]).
fn write_float(out: &mut String, v: f32) {
    if !special(out, f64::from(v)) {
        out.push_str(&float_digits(v));
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding, quoted.
fn write_base64(out: &mut String, bytes: &[u8]) {
    out.push('"');
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = (u32::from(c[0]) << 16) | (u32::from(c[1]) << 8) | u32::from(c[2]);
        for shift in [18, 12, 6, 0] {
            out.push(BASE64[((n >> shift) & 63) as usize] as char);
        }
    }
    match *chunks.remainder() {
        [a] => {
            let n = u32::from(a) << 16;
            out.push(BASE64[((n >> 18) & 63) as usize] as char);
            out.push(BASE64[((n >> 12) & 63) as usize] as char);
            out.push_str("==");
        }
        [a, b] => {
            let n = (u32::from(a) << 16) | (u32::from(b) << 8);
            out.push(BASE64[((n >> 18) & 63) as usize] as char);
            out.push(BASE64[((n >> 12) & 63) as usize] as char);
            out.push(BASE64[((n >> 6) & 63) as usize] as char);
            out.push('=');
        }
        _ => {}
    }
    out.push('"');
}

/// Code points protobuf's printer writes as `\uXXXX` (besides the JSON
/// short escapes).
fn must_u_escape(c: u32) -> bool {
    matches!(
        c,
        0x3C | 0x3E
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0xAD
            | 0x6DD
            | 0x70F
            | 0x17B4
            | 0x17B5
            | 0xE0001
            | 0x00..=0x1F
            | 0x7F..=0x9F
            | 0x600..=0x603
            | 0x200B..=0x200F
            | 0x2028..=0x202E
            | 0x2060..=0x2064
            | 0x206A..=0x206F
            | 0x1D173..=0x1D17A
            | 0xE0020..=0xE007F
    )
}

/// A quoted, escaped JSON string.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\u{0C}' => out.push_str("\\f"),
            '\u{08}' => out.push_str("\\b"),
            '\\' => out.push_str("\\\\"),
            c if must_u_escape(c as u32) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, want) in [
            ("", "\"\""),
            ("f", "\"Zg==\""),
            ("fo", "\"Zm8=\""),
            ("foo", "\"Zm9v\""),
            ("foob", "\"Zm9vYg==\""),
            ("fooba", "\"Zm9vYmE=\""),
            ("foobar", "\"Zm9vYmFy\""),
        ] {
            let mut s = String::new();
            write_base64(&mut s, input.as_bytes());
            assert_eq!(s, want);
        }
    }

    #[test]
    fn escapes_follow_protobufs_writer() {
        let mut s = String::new();
        write_str(&mut s, "a\"b\\c\n<>\u{1}\u{2028}é\u{1D173}");
        assert_eq!(s, r#""a\"b\\c\n\u003c\u003e\u0001\u2028é\ud834\udd73""#);
    }
}
