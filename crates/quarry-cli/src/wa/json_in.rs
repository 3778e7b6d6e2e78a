//! The canonical JSON document read back into an [`OwnedNode`] for
//! `quarry wa encode --json`.
//!
//! Accepted: exactly the form `decode --json` prints, with members in any
//! order and any JSON whitespace; `attrs` may be left out (no attributes)
//! and so may `content` (no content); a JID's `device`, `agent` and
//! `integrator` may be left out (0); hex may be upper or lower case.
//! Anything else (an unknown member, a wrong type, a number out of range,
//! an unknown server) is an error naming the JSON path.

use quarry_wa::{OwnedContent, OwnedJid, OwnedNode, OwnedValue, Server};
use serde_json::{Map, Value};

use crate::exit::Failure;

/// Deepest JSON nesting accepted. A node level costs three (node object,
/// content object, `nodes` array) and a JID attribute four more below its
/// node, so 400 leaves room for the encoder's 128 node levels
/// (`3 * 127 + 1 + 4 = 386`), and the encoder reports a tree just past
/// that as too deep. The cap exists because the parser recurses: it keeps
/// a hostile document from overflowing the stack.
pub const MAX_NESTING: usize = 400;

/// Parse one JSON document into a node.
pub fn parse(bytes: &[u8]) -> Result<OwnedNode, Failure> {
    check_nesting(bytes)?;
    let invalid = |e: serde_json::Error| Failure::Invalid(format!("invalid JSON: {e}"));
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // Safe here: check_nesting bounded the depth above.
    de.disable_recursion_limit();
    let mut documents = de.into_iter::<Value>();
    let value = match documents.next() {
        Some(value) => value.map_err(invalid)?,
        None => return Err(Failure::Invalid("invalid JSON: no document".into())),
    };
    let first_end = documents.byte_offset();
    match documents.next() {
        None => {}
        Some(Ok(_)) => {
            return Err(Failure::Invalid(format!(
                "invalid JSON: more than one document (the first ends at byte {first_end})"
            )));
        }
        Some(Err(e)) => return Err(invalid(e)),
    }
    node(&value, &mut Path::root())
}

/// Reject nesting deeper than [`MAX_NESTING`] before the recursive parser
/// sees it. Brackets inside strings do not count.
fn check_nesting(bytes: &[u8]) -> Result<(), Failure> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (at, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Failure::Invalid(format!(
                        "JSON nested deeper than {MAX_NESTING} levels at byte {at}"
                    )));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Where in the document a value is, for error messages (`$.content.nodes[2].tag`).
struct Path(String);

impl Path {
    fn root() -> Self {
        Path("$".into())
    }

    /// Run `f` with `suffix` appended, then take it off again.
    fn with<T>(&mut self, suffix: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.0.len();
        self.0.push_str(suffix);
        let result = f(self);
        self.0.truncate(len);
        result
    }

    fn error(&self, what: impl std::fmt::Display) -> Failure {
        Failure::Invalid(format!("{}: {what}", self.0))
    }
}

fn object<'v>(
    value: &'v Value,
    path: &Path,
    what: &str,
) -> Result<&'v Map<String, Value>, Failure> {
    value
        .as_object()
        .ok_or_else(|| path.error(format!("expected {what} (an object)")))
}

fn string<'v>(value: &'v Value, path: &Path) -> Result<&'v str, Failure> {
    value
        .as_str()
        .ok_or_else(|| path.error("expected a string"))
}

/// The members of `map`, refusing any not in `known`.
fn check_members(map: &Map<String, Value>, known: &[&str], path: &Path) -> Result<(), Failure> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(path.error(format!(
            "unknown member {unknown:?} (expected {})",
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

fn node(value: &Value, path: &mut Path) -> Result<OwnedNode, Failure> {
    let map = object(value, path, "a node")?;
    check_members(map, &["tag", "attrs", "content"], path)?;
    let tag = match map.get("tag") {
        Some(tag) => path.with(".tag", |p| string(tag, p))?.to_owned(),
        None => return Err(path.error("missing member \"tag\"")),
    };
    let attrs = match map.get("attrs") {
        None => Vec::new(),
        Some(attrs) => path.with(".attrs", |p| {
            let list = attrs
                .as_array()
                .ok_or_else(|| p.error("expected an array"))?;
            list.iter()
                .enumerate()
                .map(|(i, pair)| p.with(&format!("[{i}]"), |p| attr(pair, p)))
                .collect::<Result<Vec<_>, _>>()
        })?,
    };
    let content = match map.get("content") {
        None | Some(Value::Null) => OwnedContent::None,
        Some(content) => path.with(".content", |p| self::content(content, p))?,
    };
    Ok(OwnedNode {
        tag: tag.into(),
        attrs: attrs.into(),
        content,
    })
}

fn attr(pair: &Value, path: &mut Path) -> Result<(String, OwnedValue), Failure> {
    let [key, value] = pair.as_array().map(Vec::as_slice).unwrap_or_default() else {
        return Err(path.error("expected [key, value]"));
    };
    let key = path.with("[0]", |p| string(key, p))?.to_owned();
    let value = path.with("[1]", |p| match value {
        Value::String(text) => Ok(OwnedValue::Str(text.into())),
        Value::Object(map) => {
            check_members(map, &["jid"], p)?;
            match map.get("jid") {
                Some(jid_value) => p.with(".jid", |p| jid(jid_value, p)).map(OwnedValue::Jid),
                None => Err(p.error("expected a string or {\"jid\": {...}}")),
            }
        }
        _ => Err(p.error("expected a string or {\"jid\": {...}}")),
    })?;
    Ok((key, value))
}

fn jid(value: &Value, path: &mut Path) -> Result<OwnedJid, Failure> {
    let map = object(value, path, "a JID")?;
    check_members(
        map,
        &["user", "server", "device", "agent", "integrator"],
        path,
    )?;
    let user = match map.get("user") {
        Some(user) => path.with(".user", |p| string(user, p))?.into(),
        None => return Err(path.error("missing member \"user\"")),
    };
    let server = match map.get("server") {
        Some(server) => path.with(".server", |p| {
            let name = string(server, p)?;
            Server::from_name(name).ok_or_else(|| p.error(format!("unknown server {name:?}")))
        })?,
        None => return Err(path.error("missing member \"server\"")),
    };
    let number = |name: &str, max: u16, path: &mut Path| -> Result<u16, Failure> {
        match map.get(name) {
            None => Ok(0),
            Some(n) => path.with(&format!(".{name}"), |p| {
                n.as_u64()
                    .and_then(|n| u16::try_from(n).ok())
                    .filter(|&n| n <= max)
                    .ok_or_else(|| p.error(format!("expected an integer from 0 to {max}")))
            }),
        }
    };
    let device = number("device", u16::MAX, path)?;
    let agent = number("agent", u16::from(u8::MAX), path)?;
    let integrator = number("integrator", u16::MAX, path)?;
    Ok(OwnedJid {
        user,
        server,
        agent: u8::try_from(agent).unwrap_or(u8::MAX),
        device,
        integrator,
    })
}

fn content(value: &Value, path: &mut Path) -> Result<OwnedContent, Failure> {
    let map = object(value, path, "null or {\"text\"|\"bytes\"|\"nodes\": ...}")?;
    let mut members = map.iter();
    let (Some((kind, inner)), None) = (members.next(), members.next()) else {
        return Err(path.error("expected exactly one of \"text\", \"bytes\", \"nodes\""));
    };
    path.with(&format!(".{kind}"), |p| match kind.as_str() {
        "text" => Ok(OwnedContent::Text(string(inner, p)?.to_owned())),
        "bytes" => hex(string(inner, p)?, p).map(OwnedContent::Bytes),
        "nodes" => {
            let list = inner
                .as_array()
                .ok_or_else(|| p.error("expected an array"))?;
            list.iter()
                .enumerate()
                .map(|(i, child)| p.with(&format!("[{i}]"), |p| node(child, p)))
                .collect::<Result<Vec<_>, _>>()
                .map(OwnedContent::Nodes)
        }
        _ => Err(p.error("expected \"text\", \"bytes\" or \"nodes\"")),
    })
}

fn hex(text: &str, path: &Path) -> Result<Vec<u8>, Failure> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    if !text.len().is_multiple_of(2) {
        return Err(path.error("hex of odd length"));
    }
    text.as_bytes()
        .chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| match (digit(pair[0]), digit(pair[1])) {
            (Some(hi), Some(lo)) => Ok(hi << 4 | lo),
            _ => Err(path.error(format!("not a hex digit at character {}", 2 * i))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(json: &str) -> OwnedNode {
        parse(json.as_bytes()).unwrap_or_else(|f| panic!("{json}: {f:?}"))
    }

    fn err(json: &str) -> String {
        match parse(json.as_bytes()) {
            Err(Failure::Invalid(message)) => message,
            other => panic!("{json}: {other:?}"),
        }
    }

    #[test]
    fn every_kind() {
        let node = ok(concat!(
            r#"{"tag":"message","attrs":[["type",""],["to",{"jid":{"user":"12","server":"lid","#,
            r#""device":3,"agent":0,"integrator":7}}]],"content":{"nodes":["#,
            r#"{"tag":"a","attrs":[],"content":{"bytes":"00aBff"}},"#,
            r#"{"tag":"b","attrs":[],"content":{"text":"hi\u0000"}},"#,
            r#"{"tag":"c","attrs":[],"content":{"nodes":[]}},"#,
            r#"{"content":null,"tag":"d"}]}}"#
        ));
        let mut jid = OwnedJid::new("12", Server::Lid);
        jid.device = 3;
        jid.integrator = 7;
        let expected = OwnedNode {
            tag: "message".into(),
            attrs: vec![
                ("type", OwnedValue::Str("".into())),
                ("to", OwnedValue::Jid(jid)),
            ]
            .into(),
            content: OwnedContent::Nodes(vec![
                OwnedNode::new("a").bytes(vec![0x00, 0xAB, 0xFF]),
                OwnedNode {
                    tag: "b".into(),
                    attrs: Default::default(),
                    content: OwnedContent::Text("hi\0".into()),
                },
                OwnedNode {
                    tag: "c".into(),
                    attrs: Default::default(),
                    content: OwnedContent::Nodes(vec![]),
                },
                OwnedNode::new("d"),
            ]),
        };
        assert_eq!(node, expected);
    }

    #[test]
    fn errors_name_the_path() {
        for (json, want) in [
            ("", "invalid JSON"),
            (
                "{} {}",
                "invalid JSON: more than one document (the first ends at byte 2)",
            ),
            ("{\"tag\":1}", "$.tag: expected a string"),
            ("{\"attrs\":[]}", "$: missing member \"tag\""),
            ("{\"tag\":\"a\",\"x\":1}", "$: unknown member \"x\""),
            (
                "{\"tag\":\"a\",\"attrs\":[[\"k\"]]}",
                "$.attrs[0]: expected [key, value]",
            ),
            (
                "{\"tag\":\"a\",\"attrs\":[[\"k\",{\"jid\":{\"user\":\"u\",\"server\":\"x.com\"}}]]}",
                "$.attrs[0][1].jid.server: unknown server \"x.com\"",
            ),
            (
                "{\"tag\":\"a\",\"attrs\":[[\"k\",{\"jid\":{\"user\":\"u\",\"server\":\"lid\",\"agent\":256}}]]}",
                "$.attrs[0][1].jid.agent: expected an integer from 0 to 255",
            ),
            (
                "{\"tag\":\"a\",\"content\":{\"bytes\":\"abc\"}}",
                "$.content.bytes: hex of odd length",
            ),
            (
                "{\"tag\":\"a\",\"content\":{\"bytes\":\"zz\"}}",
                "$.content.bytes: not a hex digit",
            ),
            (
                "{\"tag\":\"a\",\"content\":{}}",
                "$.content: expected exactly one",
            ),
            (
                "{\"tag\":\"a\",\"content\":{\"nodes\":[1]}}",
                "$.content.nodes[0]: expected a node",
            ),
        ] {
            let message = err(json);
            assert!(message.starts_with(want), "{json}: {message}");
        }
    }

    #[test]
    fn nesting_is_capped_outside_strings() {
        let deep = "[".repeat(MAX_NESTING + 1);
        assert!(err(&deep).starts_with("JSON nested deeper than 400 levels at byte 400"));
        // Brackets inside a string do not count.
        let text = format!("{{\"tag\":\"{}\\\"\"}}", "[".repeat(1000));
        assert_eq!(ok(&text).tag, format!("{}\"", "[".repeat(1000)));
    }

    #[test]
    fn deep_trees_within_the_cap_parse() {
        // 128 node levels: JSON nesting 3 * 127 + 1 = 382.
        let mut json = String::new();
        for _ in 0..127 {
            json.push_str("{\"tag\":\"n\",\"content\":{\"nodes\":[");
        }
        json.push_str("{\"tag\":\"leaf\"}");
        for _ in 0..127 {
            json.push_str("]}}");
        }
        let mut node = &ok(&json);
        let mut levels = 1;
        while let OwnedContent::Nodes(children) = &node.content {
            node = &children[0];
            levels += 1;
        }
        assert_eq!((levels, node.tag.as_str()), (128, "leaf"));
    }
}
