//! protobuf's canonical JSON as prost-reflect prints it, and a comparison
//! of two JSON values that allows for how differently printers write the
//! same number.

use prost_reflect::{DynamicMessage, SerializeOptions};

/// prost-reflect's canonical JSON of `msg`: default options (camelCase
/// names, enum names, 64-bit integers as strings, default values left out).
pub fn peer_json(msg: &DynamicMessage) -> serde_json::Value {
    let mut ser = serde_json::Serializer::new(Vec::new());
    msg.serialize_with_options(&mut ser, &SerializeOptions::new())
        .expect("serializable");
    serde_json::from_slice(&ser.into_inner()).expect("JSON")
}

/// The `float` fields of the test schemas and of WhatsApp's (JSON names):
/// their values are compared as `f32`, since protobuf's printer writes a
/// float with the digits C's `%.9g` needs and serde_json with the fewest
/// that read back as that float; both are the same `f32`, not the same
/// `f64`.
const FLOAT_FIELDS: [&str; 7] = [
    "fFloat",
    "dFloat",
    "rFloat",
    "speedInMps",
    "floatData",
    "dimLevel",
    "weight",
];

/// Where `a` (quarry's JSON) first differs from `b` (the peer's), a JSON
/// path and both values, or `None` if they hold the same.
pub fn first_difference(a: &serde_json::Value, b: &serde_json::Value) -> Option<String> {
    difference_at(a, b, String::from("$"), false)
}

/// [`first_difference`] below `at`; `float32`: numbers here are `float`
/// field values.
fn difference_at(
    a: &serde_json::Value,
    b: &serde_json::Value,
    at: String,
    float32: bool,
) -> Option<String> {
    use serde_json::Value::{Array, Number, Object};
    match (a, b) {
        (Object(x), Object(y)) => {
            let keys: std::collections::BTreeSet<_> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(v), Some(w)) => {
                    let float32 = FLOAT_FIELDS.contains(&k.as_str());
                    difference_at(v, w, format!("{at}.{k}"), float32)
                }
                // A proto3 `float` or `double` without presence holding
                // -0.0: protobuf's printers print it (its bits are not
                // zero), prost-reflect takes it for the default.
                (Some(Number(v)), None)
                    if v.as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative()) =>
                {
                    None
                }
                (v, w) => Some(format!("{at}.{k}: {v:?} vs {w:?}")),
            })
        }
        (Array(x), Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| difference_at(v, w, format!("{at}[{i}]"), float32)),
        // The same number written two ways (`0` and `0.0`, `1e300` and
        // `1e+300`): protobuf's printer and serde_json format doubles
        // differently, and JSON does not tell them apart.
        (Number(x), Number(y)) if float32 => {
            let (x, y) = (x.as_f64().map(|v| v as f32), y.as_f64().map(|v| v as f32));
            (x != y).then(|| format!("{at}: {a} vs {b} (as float)"))
        }
        (Number(x), Number(y)) if x.is_f64() || y.is_f64() => {
            (x.as_f64() != y.as_f64()).then(|| format!("{at}: {a} vs {b}"))
        }
        _ => (a != b).then(|| format!("{at}: {a} vs {b}")),
    }
}
