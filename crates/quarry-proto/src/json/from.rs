//! Protobuf's canonical JSON into a record, driven by the schema's tables:
//! the reverse of the printer, accepting what protobuf's `json_format`
//! parser accepts (see [`from_json`](super::from_json)).

use quarry_core::Arena;

use super::JsonParseError;
use super::lex::Json;
use super::well_known::{WellKnown, classify};
use crate::builder::{MapValue, RecordBuilder};
use crate::record::Record;
use crate::table::{FieldTable, Kind, Label, MessageRef};

type Parsed<T> = Result<T, JsonParseError>;

/// Deepest message nesting read: the encoder's limit
/// ([`DecodeOptions::max_depth`](quarry_core::DecodeOptions::max_depth) by
/// default), so what is read encodes, and deeper input is refused with its
/// JSON path.
const MAX_MESSAGE_DEPTH: u32 = crate::decode::DEFAULT_OPTIONS.max_depth;

/// Where in the JSON the value being converted is, and the arena records
/// are built in.
pub(super) struct Reader<'a> {
    pub(super) arena: &'a Arena,
    /// `$`, then `.member`, `[index]` and `["map key"]` segments.
    pub(super) path: String,
    pub(super) depth: u32,
}

/// One value of a singular field, as [`RecordBuilder`] and [`MapValue`]
/// take it.
enum One<'a> {
    Scalar(u64),
    Str(&'a str),
    Bytes(&'a [u8]),
    Msg(Record<'a>),
}

impl<'a> Reader<'a> {
    pub(super) fn fail(&self, what: impl Into<String>) -> JsonParseError {
        JsonParseError::Value {
            what: what.into(),
            path: self.path.clone(),
        }
    }

    /// One message: a well-known type's form, or an object of fields.
    pub(super) fn message(&mut self, message: MessageRef, v: &Json<'_>) -> Parsed<Record<'a>> {
        if self.depth >= MAX_MESSAGE_DEPTH {
            return Err(self.fail(format!(
                "messages nested deeper than {MAX_MESSAGE_DEPTH} levels"
            )));
        }
        self.depth += 1;
        let record = match classify(message.table().full_name) {
            Some(kind) => self.well_known(kind, message, v),
            None => match v {
                Json::Obj(members) => self.object(message, members, false),
                _ => Err(self.fail(format!(
                    "expected an object for {}",
                    message.table().full_name
                ))),
            },
        };
        self.depth -= 1;
        record
    }

    /// The members of an object as fields of `message` (`"@type"` skipped
    /// when `any`).
    pub(super) fn object(
        &mut self,
        message: MessageRef,
        members: &[(std::borrow::Cow<'_, str>, Json<'_>)],
        any: bool,
    ) -> Parsed<Record<'a>> {
        let table = message.table();
        let mut b = RecordBuilder::new(self.arena, message);
        let mut seen = vec![false; table.fields.len()];
        let mut oneofs = vec![false; table.oneofs.len()];
        for (key, value) in members {
            if any && key == "@type" {
                continue;
            }
            let len = self.path.len();
            self.path.push('.');
            self.path.push_str(key);
            let found = table
                .fields
                .iter()
                .position(|f| f.json_name == key)
                .or_else(|| table.fields.iter().position(|f| f.name == key));
            let Some(i) = found else {
                return Err(self.fail(format!("no field {key:?} in {}", table.full_name)));
            };
            let f = &table.fields[i];
            if std::mem::replace(&mut seen[i], true) {
                return Err(self.fail(format!("field {} given twice", f.name)));
            }
            if matches!(value, Json::Null) && !null_is_a_value(message, f) {
                self.path.truncate(len);
                continue;
            }
            if f.oneof != 0 {
                let o = usize::from(f.oneof - 1);
                if let Some(taken) = oneofs.get_mut(o)
                    && std::mem::replace(taken, true)
                {
                    return Err(self.fail(format!(
                        "oneof {} has more than one field set",
                        table.oneofs[o]
                    )));
                }
            }
            self.set_field(&mut b, message, i as u32, f, value)?;
            self.path.truncate(len);
        }
        Ok(b.build())
    }

    /// Set field `i` (`f`) of `b` to `v`.
    pub(super) fn set_field(
        &mut self,
        b: &mut RecordBuilder<'a>,
        message: MessageRef,
        i: u32,
        f: &FieldTable,
        v: &Json<'_>,
    ) -> Parsed<()> {
        if f.label != Label::Repeated {
            match self.one(message, f, v)? {
                One::Scalar(x) => b.set_scalar(i, x),
                One::Str(s) => b.set_str(i, s),
                One::Bytes(x) => b.set_bytes(i, x),
                One::Msg(r) => b.set_message(i, r),
            };
            return Ok(());
        }
        if f.kind.is_message() && message.sub_message(f).table().map_entry {
            return self.map(b, message, i, f, v);
        }
        let Json::Arr(items) = v else {
            return Err(self.fail("expected an array"));
        };
        let mut values = Vec::with_capacity(items.len());
        let len = self.path.len();
        for (n, item) in items.iter().enumerate() {
            use std::fmt::Write as _;
            let _ = write!(self.path, "[{n}]");
            if matches!(item, Json::Null) && !null_is_a_value(message, f) {
                return Err(self.fail("null in a repeated field"));
            }
            values.push(self.one(message, f, item)?);
            self.path.truncate(len);
        }
        match f.kind {
            Kind::String => b.set_strs(
                i,
                values.into_iter().map(|o| match o {
                    One::Str(s) => s,
                    _ => "",
                }),
            ),
            Kind::Bytes => b.set_bytes_list(
                i,
                values.into_iter().map(|o| match o {
                    One::Bytes(x) => x,
                    _ => &[],
                }),
            ),
            Kind::Message | Kind::Group => b.set_messages(
                i,
                values.into_iter().map(|o| match o {
                    One::Msg(r) => r,
                    _ => Record::default(),
                }),
            ),
            _ => b.set_scalars(
                i,
                values.into_iter().map(|o| match o {
                    One::Scalar(x) => x,
                    _ => 0,
                }),
            ),
        };
        Ok(())
    }

    /// A map field: an object keyed by the keys' JSON forms.
    fn map(
        &mut self,
        b: &mut RecordBuilder<'a>,
        message: MessageRef,
        i: u32,
        f: &FieldTable,
        v: &Json<'_>,
    ) -> Parsed<()> {
        let entry = message.sub_message(f);
        let table = entry.table();
        let (Some(kf), Some(vf)) = (
            table
                .field_index(1)
                .and_then(|k| table.fields.get(k as usize)),
            table
                .field_index(2)
                .and_then(|k| table.fields.get(k as usize)),
        ) else {
            return Err(self.fail(format!("{} is not a map entry", table.full_name)));
        };
        let Json::Obj(members) = v else {
            return Err(self.fail("expected an object for a map"));
        };
        let mut entries = Vec::with_capacity(members.len());
        let len = self.path.len();
        for (key, value) in members {
            self.path.push('[');
            super::write_str(&mut self.path, key);
            self.path.push(']');
            let k = self.map_key(kf, key)?;
            if matches!(value, Json::Null) && !null_is_a_value(entry, vf) {
                return Err(self.fail("null as a map value"));
            }
            let v = match self.one(entry, vf, value)? {
                One::Scalar(x) => MapValue::Scalar(x),
                One::Str(s) => MapValue::Str(s),
                One::Bytes(x) => MapValue::Bytes(x),
                One::Msg(r) => MapValue::Message(r),
            };
            entries.push((k, v));
            self.path.truncate(len);
        }
        b.set_map(i, entries);
        Ok(())
    }

    /// A map key from its JSON form (always a string).
    fn map_key(&self, f: &FieldTable, key: &str) -> Parsed<MapValue<'a>> {
        Ok(match f.kind {
            Kind::String => MapValue::Str(self.arena.bump().alloc_str(key)),
            Kind::Bool => match key {
                "true" => MapValue::Scalar(1),
                "false" => MapValue::Scalar(0),
                _ => return Err(self.fail("expected \"true\" or \"false\" as a bool map key")),
            },
            kind => MapValue::Scalar(self.integer(kind, key)?),
        })
    }

    /// One value of field `f` (of `message`): not an array, not a map.
    fn one(&mut self, message: MessageRef, f: &FieldTable, v: &Json<'_>) -> Parsed<One<'a>> {
        Ok(match f.kind {
            Kind::Message | Kind::Group => One::Msg(self.message(message.sub_message(f), v)?),
            Kind::String => match v {
                Json::Str(s) => One::Str(self.arena.bump().alloc_str(s)),
                _ => return Err(self.fail("expected a string")),
            },
            Kind::Bytes => match v {
                Json::Str(s) => One::Bytes(self.base64(s)?),
                _ => return Err(self.fail("expected a base64 string")),
            },
            Kind::Bool => match v {
                Json::Bool(x) => One::Scalar(u64::from(*x)),
                _ => return Err(self.fail("expected true or false")),
            },
            Kind::Float | Kind::Double => One::Scalar(self.float(f.kind, v)?),
            Kind::Enum => One::Scalar(self.enum_value(message, f, v)?),
            kind => match v {
                Json::Num(t) => One::Scalar(self.integer(kind, t)?),
                Json::Str(t) => One::Scalar(self.integer(kind, t)?),
                _ => return Err(self.fail(format!("expected an integer ({})", kind_name(kind)))),
            },
        })
    }

    /// An integer of `kind` from a JSON number's text (or a string holding
    /// one): an integer, or a number with no fraction in exponent form
    /// (`1e2`, `5.0`), in range. Normalized as `Record::scalar` reads it.
    pub(super) fn integer(&self, kind: Kind, text: &str) -> Parsed<u64> {
        let name = kind_name(kind);
        let Some(v) = parse_integer(text) else {
            return Err(self.fail(format!("expected an integer ({name}), got {text:?}")));
        };
        let (lo, hi): (i128, i128) = match kind {
            Kind::Int32 | Kind::SInt32 | Kind::SFixed32 | Kind::Enum => {
                (i32::MIN.into(), i32::MAX.into())
            }
            Kind::UInt32 | Kind::Fixed32 => (0, u32::MAX.into()),
            Kind::UInt64 | Kind::Fixed64 => (0, u64::MAX.into()),
            _ => (i64::MIN.into(), i64::MAX.into()),
        };
        if !(lo..=hi).contains(&v) {
            return Err(self.fail(format!("{text} is out of range for {name}")));
        }
        Ok(match kind {
            Kind::UInt32 | Kind::Fixed32 | Kind::UInt64 | Kind::Fixed64 => v as u64,
            _ => v as i64 as u64,
        })
    }

    /// A float or double (its bits) from a number, a numeric string, or
    /// `"NaN"`, `"Infinity"`, `"-Infinity"`.
    fn float(&self, kind: Kind, v: &Json<'_>) -> Parsed<u64> {
        let x = match v {
            Json::Num(t) => t.parse::<f64>().ok(),
            Json::Str(s) => match &**s {
                "NaN" => Some(f64::NAN),
                "Infinity" => Some(f64::INFINITY),
                "-Infinity" => Some(f64::NEG_INFINITY),
                t if is_json_number(t) => t.parse::<f64>().ok(),
                _ => None,
            },
            _ => None,
        };
        let Some(x) = x else {
            return Err(self.fail(format!("expected a number ({})", kind_name(kind))));
        };
        let finite_text = !matches!(v, Json::Str(s) if s == "Infinity" || s == "-Infinity");
        if kind == Kind::Float {
            // Rounded to the nearest float: beyond the largest float by
            // less than half a step still reads as it (3.4028235e38 is
            // how the shortest printers write it).
            let single = x as f32;
            if finite_text && single.is_infinite() {
                return Err(self.fail("out of range for float"));
            }
            return Ok(u64::from(single.to_bits()));
        }
        if finite_text && x.is_infinite() {
            return Err(self.fail("out of range for double"));
        }
        Ok(x.to_bits())
    }

    /// An enum value from its name, or its number (a closed enum's number
    /// must be one the enum lists), or `null` for `NullValue`.
    fn enum_value(&self, message: MessageRef, f: &FieldTable, v: &Json<'_>) -> Parsed<u64> {
        let Some(table) = message.schema.enums.get(f.sub as usize) else {
            return Err(self.fail("enum not in the schema"));
        };
        let number = match v {
            Json::Null if table.full_name == super::well_known::NULL_VALUE => 0,
            Json::Str(s) => match table.values.iter().find(|(_, n)| *n == &**s) {
                Some((number, _)) => *number,
                None if is_json_number(s) => self.integer(Kind::Enum, s)? as i32,
                None => {
                    return Err(self.fail(format!("no value {s:?} in enum {}", table.full_name)));
                }
            },
            Json::Num(t) => self.integer(Kind::Enum, t)? as i32,
            _ => return Err(self.fail(format!("expected a {} name", table.full_name))),
        };
        if table.closed && !table.contains(number) {
            return Err(self.fail(format!(
                "{number} is not a value of closed enum {}",
                table.full_name
            )));
        }
        Ok(i64::from(number) as u64)
    }

    /// Standard or URL-safe base64, padded or not, into the arena.
    fn base64(&self, text: &str) -> Parsed<&'a [u8]> {
        decode_base64(text)
            .map(|bytes| &*self.arena.bump().alloc_slice_copy(&bytes))
            .ok_or_else(|| self.fail("invalid base64"))
    }
}

/// A field whose JSON `null` is a value, not the field's absence:
/// `google.protobuf.Value` (a null value) and `NullValue`.
fn null_is_a_value(message: MessageRef, f: &FieldTable) -> bool {
    match f.kind {
        Kind::Message => {
            classify(message.sub_message(f).table().full_name) == Some(WellKnown::Value)
        }
        Kind::Enum => message
            .schema
            .enums
            .get(f.sub as usize)
            .is_some_and(|e| e.full_name == super::well_known::NULL_VALUE),
        _ => false,
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Int32 => "int32",
        Kind::SInt32 => "sint32",
        Kind::SFixed32 => "sfixed32",
        Kind::UInt32 => "uint32",
        Kind::Fixed32 => "fixed32",
        Kind::Int64 => "int64",
        Kind::SInt64 => "sint64",
        Kind::SFixed64 => "sfixed64",
        Kind::UInt64 => "uint64",
        Kind::Fixed64 => "fixed64",
        Kind::Float => "float",
        Kind::Double => "double",
        Kind::Enum => "enum",
        Kind::Bool => "bool",
        Kind::String => "string",
        Kind::Bytes => "bytes",
        Kind::Message | Kind::Group => "message",
    }
}

/// True if `t` is a JSON number, whole.
pub(super) fn is_json_number(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - s
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// The integer a JSON number's text denotes, if it denotes one within
/// ±2^64: exactly for integer literals, through `f64` for fractions and
/// exponents (which must leave no fraction).
fn parse_integer(text: &str) -> Option<i128> {
    if !is_json_number(text) {
        return None;
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        // Past 40 digits it cannot be in range; i128 would overflow.
        if digits.len() > 40 {
            return Some(i128::MAX);
        }
        return text.parse().ok();
    }
    let x: f64 = text.parse().ok()?;
    if x.fract() != 0.0 || !x.is_finite() {
        return None;
    }
    if x.abs() >= 18_446_744_073_709_551_616.0 {
        return Some(i128::MAX);
    }
    Some(x as i128)
}

/// Standard (`+/`) or URL-safe (`-_`) base64, with or without `=`
/// padding.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let body = text.trim_end_matches('=');
    let pad = text.len() - body.len();
    if pad > 2 || (pad > 0 && !text.len().is_multiple_of(4)) || body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in body.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_reads_rfc4648_vectors_in_both_alphabets() {
        for (text, want) in [
            ("", ""),
            ("Zg==", "f"),
            ("Zg", "f"),
            ("Zm8=", "fo"),
            ("Zm9v", "foo"),
            ("Zm9vYg==", "foob"),
            ("Zm9vYmE", "fooba"),
            ("Zm9vYmFy", "foobar"),
        ] {
            assert_eq!(decode_base64(text).unwrap(), want.as_bytes(), "{text}");
        }
        assert_eq!(decode_base64("-_-_").unwrap(), [0xFB, 0xFF, 0xBF]);
        assert_eq!(decode_base64("-_8=").unwrap(), [0xFB, 0xFF]);
        assert_eq!(decode_base64("+/+/").unwrap(), [0xFB, 0xFF, 0xBF]);
        for bad in ["Z", "Zg=", "Zg===", "Z!==", "Zm9v="] {
            assert_eq!(decode_base64(bad), None, "{bad}");
        }
    }

    #[test]
    fn integers_from_literals_and_whole_floats() {
        assert_eq!(parse_integer("12"), Some(12));
        assert_eq!(parse_integer("-0"), Some(0));
        assert_eq!(parse_integer("1e2"), Some(100));
        assert_eq!(parse_integer("5.0"), Some(5));
        assert_eq!(parse_integer("1.5"), None);
        assert_eq!(parse_integer(" 1"), None);
        assert_eq!(parse_integer("0x10"), None);
        assert_eq!(parse_integer("+1"), None);
        assert_eq!(parse_integer("18446744073709551615"), Some(u64::MAX.into()));
    }
}
