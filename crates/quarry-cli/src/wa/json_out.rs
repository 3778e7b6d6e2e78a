//! A decoded node as the canonical JSON document:
//!
//! ```text
//! {"tag":s,"attrs":[[key,value],...],"content":null|{"text":s}|{"bytes":hex}|{"nodes":[...]}}
//! ```
//!
//! An attribute value is a string, or for a JID
//! `{"jid":{"user":s,"server":s,"device":n,"agent":n,"integrator":n}}`.

use quarry_wa::{Content, Jid, Node, Value};

use crate::json;

/// Append `node` as one compact JSON document (no trailing newline).
///
/// Recursive, one level per node level: the decoder bounds the depth
/// (`DecodeOptions::max_depth`, 128 by default).
pub fn write_node(out: &mut String, node: Node<'_>) {
    out.push_str("{\"tag\":");
    json::string(out, node.tag());
    out.push_str(",\"attrs\":[");
    for (i, (key, value)) in node.attrs().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        json::string(out, key);
        out.push(',');
        match value {
            Value::Str(text) => json::string(out, text),
            Value::Jid(jid) => write_jid(out, jid),
        }
        out.push(']');
    }
    out.push_str("],\"content\":");
    match node.content() {
        Content::None => out.push_str("null"),
        Content::Text(text) => {
            out.push_str("{\"text\":");
            json::string(out, text);
            out.push('}');
        }
        Content::Bytes(bytes) => {
            out.push_str("{\"bytes\":");
            json::hex_string(out, bytes);
            out.push('}');
        }
        Content::Nodes(children) => {
            out.push_str("{\"nodes\":[");
            for (i, child) in children.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(out, child);
            }
            out.push_str("]}");
        }
    }
    out.push('}');
}

fn write_jid(out: &mut String, jid: Jid<'_>) {
    out.push_str("{\"jid\":{\"user\":");
    json::string(out, &jid.user().to_text());
    out.push_str(",\"server\":");
    json::string(out, jid.server().as_str());
    out.push_str(",\"device\":");
    json::number(out, u64::from(jid.device()));
    out.push_str(",\"agent\":");
    json::number(out, u64::from(jid.agent()));
    out.push_str(",\"integrator\":");
    json::number(out, u64::from(jid.integrator()));
    out.push_str("}}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_of(bytes: &[u8]) -> String {
        let arena = quarry_core::Arena::new();
        let mut out = String::new();
        write_node(&mut out, quarry_wa::decode(&arena, bytes).unwrap());
        out
    }

    // Hand-computed vectors; token 19 = "message", 4 = "type", 29 = "enc",
    // 3 = "s.whatsapp.net" (spec section 4 and the v3 dictionary).
    #[test]
    fn hand_computed_documents() {
        assert_eq!(
            json_of(&[0xF8, 1, 19]),
            r#"{"tag":"message","attrs":[],"content":null}"#
        );
        assert_eq!(
            json_of(&[0xF8, 3, 19, 4, 0]),
            r#"{"tag":"message","attrs":[["type",""]],"content":null}"#
        );
        assert_eq!(
            json_of(&[0xF8, 2, 19, 0xF8, 0]),
            r#"{"tag":"message","attrs":[],"content":{"nodes":[]}}"#
        );
        assert_eq!(
            json_of(&[0xF8, 2, 19, 0xFC, 2, 0xAB, 0x01]),
            r#"{"tag":"message","attrs":[],"content":{"bytes":"ab01"}}"#
        );
        assert_eq!(
            json_of(&[0xF8, 2, 19, 29]),
            r#"{"tag":"message","attrs":[],"content":{"text":"enc"}}"#
        );
        // AD_JID: domain 0, device 2, user NIBBLE_8 "12"
        assert_eq!(
            json_of(&[0xF8, 3, 19, 4, 0xF7, 0, 2, 0xFF, 0x01, 0x12]),
            concat!(
                r#"{"tag":"message","attrs":[["type",{"jid":{"user":"12","server":"s.whatsapp.net","#,
                r#""device":2,"agent":0,"integrator":0}}]],"content":null}"#
            )
        );
        // JID_PAIR in content position: rendered to text.
        assert_eq!(
            json_of(&[0xF8, 2, 19, 0xFA, 0xFF, 0x01, 0x12, 3]),
            r#"{"tag":"message","attrs":[],"content":{"text":"12@s.whatsapp.net"}}"#
        );
    }
}
