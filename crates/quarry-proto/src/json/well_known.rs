//! The JSON forms of protobuf's well-known types (`google.protobuf.*`),
//! as protobuf's own printer writes them, and the values it refuses.

use std::fmt::Write as _;

use super::{JsonError, Printer, Written, write_str};
use crate::decode::{DEFAULT_OPTIONS, Decoder, Reserve};
use crate::record::Record;
use crate::table::{FieldTable, MessageRef};

/// The enum whose every value prints as JSON's `null`.
pub(super) const NULL_VALUE: &str = "google.protobuf.NullValue";

const ANY: &str = "google.protobuf.Any";
const TIMESTAMP: &str = "google.protobuf.Timestamp";
const DURATION: &str = "google.protobuf.Duration";
const FIELD_MASK: &str = "google.protobuf.FieldMask";
const VALUE: &str = "google.protobuf.Value";

/// A message type with a JSON form of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WellKnown {
    Any,
    Timestamp,
    Duration,
    FieldMask,
    Struct,
    Value,
    ListValue,
    /// `DoubleValue`, `Int64Value`, … : field 1's value alone.
    Wrapper,
}

/// Which well-known type `full_name` is, if any.
pub(super) fn classify(full_name: &str) -> Option<WellKnown> {
    let short = full_name.strip_prefix("google.protobuf.")?;
    Some(match short {
        "Any" => WellKnown::Any,
        "Timestamp" => WellKnown::Timestamp,
        "Duration" => WellKnown::Duration,
        "FieldMask" => WellKnown::FieldMask,
        "Struct" => WellKnown::Struct,
        "Value" => WellKnown::Value,
        "ListValue" => WellKnown::ListValue,
        "DoubleValue" | "FloatValue" | "Int64Value" | "UInt64Value" | "Int32Value"
        | "UInt32Value" | "BoolValue" | "StringValue" | "BytesValue" => WellKnown::Wrapper,
        _ => return None,
    })
}

/// True for `google.protobuf.Value`.
pub(super) fn is_value(message: MessageRef) -> bool {
    message.table().full_name == VALUE
}

/// A `google.protobuf.Value` with none of its kinds (fields 1 to 6) set,
/// which protobuf's printer leaves out wherever it is not the root.
pub(super) fn value_is_empty(value: MessageRef, record: Record<'_>) -> bool {
    (1..=6).all(|number| field(value, number).is_none_or(|(i, _)| !record.has(i)))
}

/// The index and table of field `number` of `message`.
fn field(message: MessageRef, number: u32) -> Option<(u32, &'static FieldTable)> {
    let table = message.table();
    let i = table.field_index(number)?;
    Some((i, table.fields.get(i as usize)?))
}

/// Field `number` of `record` as a normalized scalar (0 when absent).
fn scalar(message: MessageRef, record: Record<'_>, number: u32) -> u64 {
    field(message, number)
        .and_then(|(i, _)| record.scalar(i))
        .unwrap_or(0)
}

fn refuse(type_name: &'static str, what: &'static str) -> JsonError {
    JsonError::WellKnown { type_name, what }
}

/// Seconds from 0001-01-01T00:00:00Z to the Unix epoch.
const SECONDS_BEFORE_EPOCH: i64 = 62_135_596_800;
/// The last second of 9999-12-31, Unix time.
const LAST_SECOND: i64 = 253_402_300_799;
/// Durations reach ±10,000 years (of 365.25 days).
const MAX_DURATION_SECONDS: i64 = 3_652_500 * 86_400;

/// Nanoseconds as protobuf prints a fraction: 9, 6 or 3 digits, the fewest
/// that hold the value (`nanos` is not 0).
fn write_fraction(out: &mut String, nanos: i32) {
    let mut frac = nanos.unsigned_abs();
    let mut digits = 9usize;
    while frac.is_multiple_of(1000) && digits >= 3 {
        frac /= 1000;
        digits -= 3;
    }
    let _ = write!(out, ".{frac:0digits$}");
}

/// The proleptic Gregorian date of `days` after 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl Printer<'_> {
    /// A well-known type's form.
    pub(super) fn well_known(
        &mut self,
        kind: WellKnown,
        message: MessageRef,
        record: Record<'_>,
    ) -> Written {
        match kind {
            WellKnown::Timestamp => self.timestamp(message, record),
            WellKnown::Duration => self.duration(message, record),
            WellKnown::FieldMask => self.field_mask(message, record),
            // An absent wrapper value prints its default; an absent map
            // or list, an empty one.
            WellKnown::Wrapper => self.field_one(message, record, None),
            WellKnown::Struct => self.field_one(message, record, Some("{}")),
            WellKnown::ListValue => self.field_one(message, record, Some("[]")),
            WellKnown::Value => self.value(message, record),
            WellKnown::Any => self.any(message, record),
        }
    }

    /// Field 1 alone (the wrappers, `Struct`, `ListValue`): its value, or
    /// `absent` (the field's default when `None`) when it is not set.
    fn field_one(
        &mut self,
        message: MessageRef,
        record: Record<'_>,
        absent: Option<&str>,
    ) -> Written {
        let Some((i, f)) = field(message, 1) else {
            return self.object(message, record);
        };
        match (record.present().find(|s| s.field() == i), absent) {
            (Some(slot), _) => self.field(message, f, slot),
            (None, Some(text)) => {
                self.out.push_str(text);
                Ok(())
            }
            (None, None) => self.default(message, f),
        }
    }

    /// `"2009-02-13T23:31:30Z"`, with a fraction when nanos are not 0.
    fn timestamp(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        let seconds = scalar(message, record, 1) as i64;
        let nanos = scalar(message, record, 2) as i64 as i32;
        if seconds < -SECONDS_BEFORE_EPOCH {
            return Err(refuse(
                TIMESTAMP,
                "minimum acceptable time value is 0001-01-01T00:00:00Z",
            ));
        }
        if seconds > LAST_SECOND {
            return Err(refuse(
                TIMESTAMP,
                "maximum acceptable time value is 9999-12-31T23:59:59Z",
            ));
        }
        if !(0..=999_999_999).contains(&nanos) {
            return Err(refuse(
                TIMESTAMP,
                "nanos must be in range [0, +999,999,999]",
            ));
        }
        let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
        let (year, month, day) = civil_from_days(days);
        let _ = write!(
            self.out,
            "\"{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
            second_of_day / 3600,
            second_of_day / 60 % 60,
            second_of_day % 60
        );
        if nanos != 0 {
            write_fraction(self.out, nanos);
        }
        self.out.push_str("Z\"");
        Ok(())
    }

    /// `"1.5s"`, `"-0.000000001s"`, `"3s"`.
    fn duration(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        let seconds = scalar(message, record, 1) as i64;
        let nanos = scalar(message, record, 2) as i64 as i32;
        if !(-MAX_DURATION_SECONDS..=MAX_DURATION_SECONDS).contains(&seconds)
            || !(-999_999_999..=999_999_999).contains(&nanos)
        {
            return Err(refuse(DURATION, "duration out of range"));
        }
        if seconds != 0 && nanos != 0 && (seconds < 0) != (nanos < 0) {
            return Err(refuse(DURATION, "nanos and seconds signs do not match"));
        }
        if nanos == 0 {
            let _ = write!(self.out, "\"{seconds}s\"");
            return Ok(());
        }
        let sign = if seconds < 0 || nanos < 0 { "-" } else { "" };
        let _ = write!(self.out, "\"{sign}{}", seconds.unsigned_abs());
        write_fraction(self.out, nanos);
        self.out.push_str("s\"");
        Ok(())
    }

    /// The paths in lowerCamelCase, joined by commas, in one string.
    fn field_mask(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        let paths = field(message, 1).map_or(&[][..], |(i, _)| record.strs(i));
        let mut text = String::new();
        for (n, path) in paths.iter().enumerate() {
            if n > 0 {
                text.push(',');
            }
            // A lower-case letter after `_` is upper-cased and the `_`
            // dropped; digits, lower-case letters and `.` stay; anything
            // else (upper case, `__`) has no JSON form.
            let mut after_underscore = false;
            for c in path.chars() {
                if c.is_ascii_lowercase() && after_underscore {
                    text.push(c.to_ascii_uppercase());
                } else if c.is_ascii_digit() || c.is_ascii_lowercase() || c == '.' {
                    text.push(c);
                } else if c == '_' && !after_underscore {
                    after_underscore = true;
                    continue;
                } else {
                    return Err(refuse(FIELD_MASK, "unexpected character in FieldMask"));
                }
                after_underscore = false;
            }
        }
        write_str(self.out, &text);
        Ok(())
    }

    /// The JSON a `google.protobuf.Value` holds; nothing when it holds
    /// none (its callers leave such values out below the root).
    fn value(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        for number in 1..=6 {
            let Some((i, f)) = field(message, number) else {
                continue;
            };
            let Some(slot) = record.present().find(|s| s.field() == i) else {
                continue;
            };
            match number {
                1 => self.out.push_str("null"),
                2 => {
                    let v = f64::from_bits(record.scalar(i).unwrap_or(0));
                    if v.is_nan() {
                        return Err(refuse(
                            VALUE,
                            "cannot hold NaN (it would read back as a string)",
                        ));
                    }
                    if v.is_infinite() {
                        return Err(refuse(
                            VALUE,
                            "cannot hold an infinity (it would read back as a string)",
                        ));
                    }
                    self.field(message, f, slot)?;
                }
                _ => self.field(message, f, slot)?,
            }
            return Ok(());
        }
        Ok(())
    }

    /// `{"@type": url, fields…}`, or `{"@type": url, "value": …}` when the
    /// packed type is itself well-known. The packed bytes are decoded here,
    /// with what is left of the printer's depth as the limit.
    fn any(&mut self, message: MessageRef, record: Record<'_>) -> Written {
        let url = field(message, 1)
            .and_then(|(i, _)| record.str(i))
            .unwrap_or("");
        let value = field(message, 2)
            .and_then(|(i, _)| record.bytes(i))
            .unwrap_or(&[]);
        match (url.is_empty(), value.is_empty()) {
            (true, true) => {
                self.out.push_str("{}");
                return Ok(());
            }
            (true, false) => return Err(refuse(ANY, "broken Any: missing type URL")),
            // No value is how an empty message packs: it prints as one, as
            // protobuf's C++ and Python printers print it.
            (false, _) => {}
        }
        // As protobuf's C++ printer: a host, a `/`, then the type's full
        // name (Python's printer takes whatever follows the last `/`).
        let Some((_, name)) = url.rsplit_once('/').filter(|(host, _)| !host.is_empty()) else {
            return Err(refuse(
                ANY,
                "@type must contain at least one / and a nonempty host",
            ));
        };
        let schema = message.schema;
        let Some(index) = schema.messages.iter().position(|m| m.full_name == name) else {
            return Err(JsonError::UnknownAnyType {
                url: url.to_owned(),
            });
        };
        let packed = MessageRef::new(schema, index as u32);
        let decoder = Decoder {
            options: quarry_core::DecodeOptions {
                max_depth: DEFAULT_OPTIONS
                    .max_depth
                    .min(super::MAX_JSON_DEPTH.saturating_sub(self.depth)),
                ..DEFAULT_OPTIONS
            },
            reserve: Reserve::Estimate,
        };
        let arena = quarry_core::Arena::new();
        let inner = decoder
            .decode(packed, &arena, value)
            .map_err(|error| JsonError::AnyValue {
                type_name: packed.table().full_name,
                error,
            })?;
        self.out.push_str("{\"@type\":");
        write_str(self.out, url);
        if classify(name).is_some() {
            self.out.push_str(",\"value\":");
            self.message_or_null(packed, inner)?;
        } else {
            let mut first = false;
            self.fields(packed, inner, &mut first)?;
        }
        self.out.push('}');
        Ok(())
    }
}
