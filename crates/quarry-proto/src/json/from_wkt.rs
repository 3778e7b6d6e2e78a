//! The JSON forms of the well-known types read back: the reverse of
//! [`well_known`](super::well_known), with the same limits.

use super::JsonParseError;
use super::from::Reader;
use super::lex::Json;
use super::well_known::{WellKnown, classify};
use crate::builder::RecordBuilder;
use crate::record::Record;
use crate::table::{FieldTable, Kind, Label, MessageRef, MessageTable};

type Parsed<T> = Result<T, JsonParseError>;

/// Seconds from 0001-01-01T00:00:00Z to the Unix epoch.
const SECONDS_BEFORE_EPOCH: i64 = 62_135_596_800;
/// The last second of 9999-12-31, Unix time.
const LAST_SECOND: i64 = 253_402_300_799;
/// Durations reach ±10,000 years (of 365.25 days).
const MAX_DURATION_SECONDS: i64 = 3_652_500 * 86_400;

/// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// `n` ASCII digits at `at` of `b`.
fn num(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let d = b.get(at..at + n)?;
    d.iter().try_fold(0u32, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

/// A fraction's digits (1 to 9) as nanoseconds.
fn nanos_of(digits: &[u8]) -> Option<i32> {
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n = 0i32;
    for i in 0..9 {
        n = n * 10 + digits.get(i).map_or(0, |c| i32::from(c - b'0'));
    }
    Some(n)
}

/// An RFC 3339 date-time (`Z` or a `±HH:MM` offset, 0 to 9 fraction
/// digits) as Unix seconds and nanos.
fn parse_timestamp(text: &str) -> Option<(i64, i32)> {
    let b = text.as_bytes();
    let year = i64::from(num(b, 0, 4)?);
    let (month, day) = (num(b, 5, 2)?, num(b, 8, 2)?);
    let (hour, minute, second) = (num(b, 11, 2)?, num(b, 14, 2)?, num(b, 17, 2)?);
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let month_days = [
        31,
        if is_leap(year) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if year == 0
        || !(1..=12).contains(&month)
        || day == 0
        || day > month_days[month as usize - 1]
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut at = 19;
    let mut nanos = 0;
    if b.get(at) == Some(&b'.') {
        let end = b[at + 1..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(b.len(), |p| at + 1 + p);
        nanos = nanos_of(&b[at + 1..end])?;
        at = end;
    }
    let offset = match b.get(at..)? {
        b"Z" => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let h = num(&[*h1, *h2], 0, 2)?;
            let m = num(&[*m1, *m2], 0, 2)?;
            if h > 23 || m > 59 {
                return None;
            }
            let s = i64::from(h * 3600 + m * 60);
            if *sign == b'-' { -s } else { s }
        }
        _ => return None,
    };
    let seconds = days_from_civil(year, month, day) * 86_400
        + i64::from(hour * 3600 + minute * 60 + second)
        - offset;
    Some((seconds, nanos))
}

/// `"1.5s"`, `"-0.000000001s"`: seconds and nanos of the same sign.
fn parse_duration(text: &str) -> Option<(i64, i32)> {
    let body = text.strip_suffix('s')?;
    let (negative, body) = match body.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let (whole, frac) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    if whole.is_empty() || whole.len() > 12 || !whole.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let seconds: i64 = whole.parse().ok()?;
    let nanos = match frac {
        Some(f) => nanos_of(f.as_bytes())?,
        None => 0,
    };
    if seconds > MAX_DURATION_SECONDS {
        return None;
    }
    Some(if negative {
        (-seconds, -nanos)
    } else {
        (seconds, nanos)
    })
}

/// A FieldMask path from lowerCamelCase to the field names' snake_case.
fn snake_path(path: &str) -> Option<String> {
    let mut out = String::with_capacity(path.len() + 4);
    for c in path.chars() {
        if c == '_' {
            return None;
        }
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// True if field `i` of `table` is singular and of one of `kinds` (a
/// schema may define its own `google.protobuf.*` types).
fn singular(table: &MessageTable, i: u32, kinds: &[Kind]) -> bool {
    table
        .fields
        .get(i as usize)
        .is_some_and(|f| f.label != Label::Repeated && kinds.contains(&f.kind))
}

impl<'a> Reader<'a> {
    /// A well-known type from its JSON form.
    pub(super) fn well_known(
        &mut self,
        kind: WellKnown,
        message: MessageRef,
        v: &Json<'_>,
    ) -> Parsed<Record<'a>> {
        let name = message.table().full_name;
        let mut b = RecordBuilder::new(self.arena, message);
        let table = message.table();
        let index = |number: u32| {
            table
                .field_index(number)
                .filter(|&i| table.fields.get(i as usize).is_some())
        };
        match kind {
            WellKnown::Timestamp | WellKnown::Duration => {
                let Json::Str(text) = v else {
                    return Err(self.fail(format!("expected a string for {name}")));
                };
                let parsed = if kind == WellKnown::Timestamp {
                    parse_timestamp(text)
                        .filter(|(s, _)| (-SECONDS_BEFORE_EPOCH..=LAST_SECOND).contains(s))
                } else {
                    parse_duration(text)
                };
                let Some((seconds, nanos)) = parsed else {
                    return Err(self.fail(format!("invalid {name} {text:?}")));
                };
                let (Some(s), Some(n)) = (index(1), index(2)) else {
                    return Err(self.fail(format!("{name} lacks seconds or nanos")));
                };
                if !singular(table, s, &[Kind::Int64]) || !singular(table, n, &[Kind::Int32]) {
                    return Err(self.fail(format!("{name} is not protobuf's")));
                }
                b.set_scalar(s, seconds as u64);
                b.set_scalar(n, i64::from(nanos) as u64);
            }
            WellKnown::FieldMask => {
                let Json::Str(text) = v else {
                    return Err(self.fail(format!("expected a string for {name}")));
                };
                let mut paths = Vec::new();
                if !text.is_empty() {
                    for path in text.split(',') {
                        let Some(p) = snake_path(path) else {
                            return Err(self.fail(format!("invalid FieldMask path {path:?}")));
                        };
                        paths.push(&*self.arena.bump().alloc_str(&p));
                    }
                }
                match index(1) {
                    Some(i)
                        if table.fields[i as usize].kind == Kind::String
                            && table.fields[i as usize].is_repeated() =>
                    {
                        b.set_strs(i, paths);
                    }
                    _ => return Err(self.fail(format!("{name} is not protobuf's"))),
                }
            }
            WellKnown::Wrapper | WellKnown::Struct | WellKnown::ListValue => {
                let Some(i) = index(1) else {
                    return Err(self.fail(format!("{name} has no field 1")));
                };
                let f = &table.fields[i as usize];
                let ok = match kind {
                    WellKnown::Struct => matches!(v, Json::Obj(_)),
                    WellKnown::ListValue => matches!(v, Json::Arr(_)),
                    _ => !matches!(v, Json::Null),
                };
                if !ok {
                    return Err(self.fail(format!("expected the JSON form of {name}")));
                }
                return self.field_of(b, message, i, f, v);
            }
            WellKnown::Value => {
                let number = match v {
                    Json::Null => 1,
                    Json::Num(_) => 2,
                    Json::Str(_) => 3,
                    Json::Bool(_) => 4,
                    Json::Obj(_) => 5,
                    Json::Arr(_) => 6,
                };
                let Some(i) = index(number) else {
                    return Err(self.fail(format!("{name} has no field {number}")));
                };
                let f = &table.fields[i as usize];
                if let Json::Num(t) = v
                    && f.kind == Kind::Double
                {
                    let x: f64 = t.parse().unwrap_or(f64::NAN);
                    if !x.is_finite() {
                        return Err(self.fail("number out of range for a google.protobuf.Value"));
                    }
                    b.set_scalar(i, x.to_bits());
                    return Ok(b.build());
                }
                return self.field_of(b, message, i, f, v);
            }
            WellKnown::Any => return self.any(message, v),
        }
        Ok(b.build())
    }

    /// `{"@type": url, fields…}` or `{"@type": url, "value": …}`: the
    /// packed message built and encoded into the `Any`'s `value`.
    fn any(&mut self, message: MessageRef, v: &Json<'_>) -> Parsed<Record<'a>> {
        let Json::Obj(members) = v else {
            return Err(self.fail("expected an object for google.protobuf.Any"));
        };
        let mut b = RecordBuilder::new(self.arena, message);
        if members.is_empty() {
            return Ok(b.build());
        }
        let Some(url) = members.iter().find(|(k, _)| k == "@type").map(|(_, v)| v) else {
            return Err(self.fail("google.protobuf.Any without \"@type\""));
        };
        let Json::Str(url) = url else {
            return Err(self.fail("\"@type\" is not a string"));
        };
        let Some((_, type_name)) = url.rsplit_once('/').filter(|(h, _)| !h.is_empty()) else {
            return Err(self.fail(format!(
                "\"@type\" {url:?} has no / and host before the type name"
            )));
        };
        let schema = message.schema;
        let Some(at) = schema
            .messages
            .iter()
            .position(|m| m.full_name == type_name)
        else {
            return Err(self.fail(format!("\"@type\" {url:?}: type not in the schema")));
        };
        let packed = MessageRef::new(schema, at as u32);
        self.depth += 1;
        let inner = if classify(type_name).is_some() {
            let value = members
                .iter()
                .find(|(k, _)| k == "value")
                .map_or(&Json::Null, |(_, v)| v);
            if let Some((k, _)) = members.iter().find(|(k, _)| k != "@type" && k != "value") {
                return Err(self.fail(format!("unexpected member {k:?} in an Any of {type_name}")));
            }
            let len = self.path.len();
            self.path.push_str(".value");
            let r = self.message(packed, value);
            self.path.truncate(len);
            r
        } else {
            self.object(packed, members, true)
        };
        self.depth -= 1;
        let inner = inner?;
        let bytes = crate::encode(packed, inner)
            .map_err(|e| self.fail(format!("cannot encode the packed {type_name}: {e}")))?;
        let table = message.table();
        match (table.field_index(1), table.field_index(2)) {
            (Some(u), Some(val))
                if singular(table, u, &[Kind::String]) && singular(table, val, &[Kind::Bytes]) =>
            {
                b.set_str(u, self.arena.bump().alloc_str(url));
                b.set_bytes(val, self.arena.bump().alloc_slice_copy(&bytes));
                Ok(b.build())
            }
            _ => Err(self.fail("google.protobuf.Any is not protobuf's")),
        }
    }

    /// Set field `i` of `b` from `v` and build.
    fn field_of(
        &mut self,
        mut b: RecordBuilder<'a>,
        message: MessageRef,
        i: u32,
        f: &FieldTable,
        v: &Json<'_>,
    ) -> Parsed<Record<'a>> {
        self.set_field(&mut b, message, i, f, v)?;
        Ok(b.build())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_rfc3339() {
        // Seconds worked out by hand: 2009-02-13T23:31:30Z is Unix time
        // 1234567890; 0001-01-01 and 9999-12-31T23:59:59 are the bounds.
        assert_eq!(
            parse_timestamp("2009-02-13T23:31:30Z"),
            Some((1_234_567_890, 0))
        );
        assert_eq!(
            parse_timestamp("2009-02-14T00:31:30.5+01:00"),
            Some((1_234_567_890, 500_000_000))
        );
        assert_eq!(
            parse_timestamp("1969-12-31T23:59:59.000000001Z"),
            Some((-1, 1))
        );
        assert_eq!(
            parse_timestamp("0001-01-01T00:00:00Z"),
            Some((-SECONDS_BEFORE_EPOCH, 0))
        );
        assert_eq!(
            parse_timestamp("9999-12-31T23:59:59Z"),
            Some((LAST_SECOND, 0))
        );
        assert_eq!(
            parse_timestamp("2024-02-29T00:00:00Z"),
            Some((1_709_164_800, 0))
        );
        for bad in [
            "2023-02-29T00:00:00Z",
            "2009-02-13 23:31:30Z",
            "2009-02-13T23:31:30",
            "2009-02-13T24:00:00Z",
            "2009-02-13T23:31:30.Z",
            "2009-02-13T23:31:30.1234567890Z",
            "0000-01-01T00:00:00Z",
            "2009-02-13T23:31:30+1:00",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn durations_read_seconds_and_a_fraction() {
        assert_eq!(parse_duration("1.5s"), Some((1, 500_000_000)));
        assert_eq!(parse_duration("-0.000000001s"), Some((0, -1)));
        assert_eq!(parse_duration("-3s"), Some((-3, 0)));
        assert_eq!(
            parse_duration("315576000000.999999999s"),
            Some((MAX_DURATION_SECONDS, 999_999_999))
        );
        for bad in [
            "1",
            "s",
            "1.s",
            "+1s",
            "1.0000000001s",
            "315576000001s",
            " 1s",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_cut_and_byte_of_a_timestamp_reads_without_panicking() {
        for text in ["2009-02-13T23:31:30.123456789+05:30", "-315576000000.5s"] {
            for end in 0..=text.len() {
                let cut = &text[..end];
                let _ = (parse_timestamp(cut), parse_duration(cut));
                for at in 0..end {
                    for byte in [b'0', b'9', b'.', b'-', b':', b'Z', 0xC3] {
                        let mut b = cut.as_bytes().to_vec();
                        b[at] = byte;
                        let s = String::from_utf8_lossy(&b);
                        let _ = (parse_timestamp(&s), parse_duration(&s), snake_path(&s));
                    }
                }
            }
        }
    }
}
