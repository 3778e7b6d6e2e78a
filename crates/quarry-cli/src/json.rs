//! A small JSON writer for the canonical output form: compact (no
//! whitespace), and strings escaped exactly as `serde_json` does by
//! default: `"` and `\` escaped, control characters below U+0020 written as
//! `\b` `\t` `\n` `\f` `\r` or `\u00xx` (lower-case hex), everything else,
//! U+007F and U+2028/U+2029 included, as literal UTF-8.

use std::fmt::Write;

/// Append `text` as a JSON string (quotes included).
pub fn string(out: &mut String, text: &str) {
    out.push('"');
    let mut plain_from = 0;
    for (i, byte) in text.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            0x00..=0x1F => "",
            _ => continue,
        };
        out.push_str(&text[plain_from..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{byte:04x}");
        } else {
            out.push_str(escape);
        }
        plain_from = i + 1;
    }
    out.push_str(&text[plain_from..]);
    out.push('"');
}

/// Append `bytes` as a JSON string of lower-case hex, two digits a byte.
pub fn hex_string(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2 + 2);
    out.push('"');
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0F)]));
    }
    out.push('"');
}

/// Append an unsigned integer.
pub fn number(out: &mut String, n: u64) {
    let _ = write!(out, "{n}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> String {
        let mut out = String::new();
        string(&mut out, text);
        out
    }

    #[test]
    fn escapes_like_serde_json() {
        let mut all_controls = String::new();
        for c in 0u8..0x20 {
            all_controls.push(char::from(c));
        }
        for text in [
            "",
            "plain",
            "quote \" backslash \\ slash /",
            &all_controls,
            "\u{7f} del",
            "line\u{2028}para\u{2029}",
            "héllo ✓ 😀",
            "\0mid\0",
        ] {
            assert_eq!(s(text), serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }

    #[test]
    fn hand_computed() {
        assert_eq!(s("a\"b\n\u{1}"), r#""a\"b\n\u0001""#);
        let mut out = String::new();
        hex_string(&mut out, &[0x00, 0xAB, 0x0f, 0xff]);
        assert_eq!(out, r#""00ab0fff""#);
        out.clear();
        number(&mut out, 65535);
        assert_eq!(out, "65535");
    }
}
