//! JSON text (RFC 8259) into a tree, for [`from_json`](super::from_json):
//! strict (no comments, no trailing commas, no lone surrogates, no
//! duplicate keys in an object), nesting bounded by
//! [`MAX_JSON_DEPTH`].

use std::borrow::Cow;
use std::collections::HashSet;

use super::{JsonParseError, MAX_JSON_DEPTH};

/// A JSON value. Numbers keep their text, so integers convert exactly.
#[derive(Debug, PartialEq)]
pub(super) enum Json<'t> {
    Null,
    Bool(bool),
    Num(&'t str),
    Str(Cow<'t, str>),
    Arr(Vec<Json<'t>>),
    Obj(Vec<(Cow<'t, str>, Json<'t>)>),
}

/// Parse `text`, one value with optional white space around it.
pub(super) fn parse(text: &str) -> Result<Json<'_>, JsonParseError> {
    let mut lexer = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    lexer.space();
    let value = lexer.value(0)?;
    lexer.space();
    if lexer.pos != lexer.bytes.len() {
        return Err(lexer.fail("text after the JSON value"));
    }
    Ok(value)
}

struct Lexer<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
}

impl<'t> Lexer<'t> {
    fn fail(&self, what: &'static str) -> JsonParseError {
        JsonParseError::Syntax {
            what,
            offset: self.pos,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8, what: &'static str) -> Result<(), JsonParseError> {
        self.space();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.fail(what))
        }
    }

    fn value(&mut self, depth: u32) -> Result<Json<'t>, JsonParseError> {
        self.space();
        match self.peek() {
            None => Err(self.fail("unexpected end of JSON")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.fail("expected a JSON value")),
        }
    }

    fn word(&mut self, word: &'static str, value: Json<'t>) -> Result<Json<'t>, JsonParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.fail("expected a JSON value"))
        }
    }

    fn nest(&self, depth: u32) -> Result<u32, JsonParseError> {
        if depth >= MAX_JSON_DEPTH {
            Err(self.fail("JSON nested too deep"))
        } else {
            Ok(depth + 1)
        }
    }

    fn array(&mut self, depth: u32) -> Result<Json<'t>, JsonParseError> {
        let depth = self.nest(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Arr(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Arr(items));
                }
                _ => return Err(self.fail("expected , or ]")),
            }
        }
    }

    fn object(&mut self, depth: u32) -> Result<Json<'t>, JsonParseError> {
        let depth = self.nest(depth)?;
        self.pos += 1;
        let mut members = Vec::new();
        let mut keys = HashSet::new();
        self.space();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Obj(members));
        }
        loop {
            self.space();
            if self.peek() != Some(b'"') {
                return Err(self.fail("expected a string key"));
            }
            let at = self.pos;
            let key = self.string()?;
            if !keys.insert(key.clone()) {
                return Err(JsonParseError::Syntax {
                    what: "duplicate key",
                    offset: at,
                });
            }
            self.expect(b':', "expected :")?;
            let value = self.value(depth)?;
            members.push((key, value));
            self.space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Obj(members));
                }
                _ => return Err(self.fail("expected , or }")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json<'t>, JsonParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.fail("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.fail("expected a digit"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.fail("expected a digit"));
            }
        }
        Ok(Json::Num(&self.text[start..self.pos]))
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, JsonParseError> {
        let Some(hex) = self.bytes.get(self.pos..self.pos + 4) else {
            return Err(self.fail("bad \\u escape"));
        };
        let mut v = 0;
        for &h in hex {
            let d = match h {
                b'0'..=b'9' => h - b'0',
                b'a'..=b'f' => h - b'a' + 10,
                b'A'..=b'F' => h - b'A' + 10,
                _ => return Err(self.fail("bad \\u escape")),
            };
            v = v * 16 + u32::from(d);
        }
        self.pos += 4;
        Ok(v)
    }

    /// A string, at its opening quote.
    fn string(&mut self) -> Result<Cow<'t, str>, JsonParseError> {
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes.
        loop {
            match self.peek() {
                None => return Err(self.fail("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Borrowed(&self.text[start..self.pos - 1]));
                }
                Some(b'\\') => break,
                Some(0..=0x1F) => return Err(self.fail("control character in a string")),
                Some(_) => self.pos += 1,
            }
        }
        let mut out = String::from(&self.text[start..self.pos]);
        loop {
            let run = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run..self.pos]);
            match self.peek() {
                None => return Err(self.fail("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{08}',
                        Some(b'f') => '\u{0C}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let at = self.pos;
                            let unit = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&unit) {
                                if !self.bytes[self.pos..].starts_with(b"\\u") {
                                    return Err(JsonParseError::Syntax {
                                        what: "lone surrogate in \\u escape",
                                        offset: at,
                                    });
                                }
                                self.pos += 2;
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return Err(JsonParseError::Syntax {
                                        what: "lone surrogate in \\u escape",
                                        offset: at,
                                    });
                                }
                                0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                unit
                            };
                            match char::from_u32(c) {
                                Some(c) => out.push(c),
                                None => {
                                    return Err(JsonParseError::Syntax {
                                        what: "lone surrogate in \\u escape",
                                        offset: at,
                                    });
                                }
                            }
                            continue;
                        }
                        _ => return Err(self.fail("bad escape")),
                    };
                    out.push(escaped);
                    self.pos += 1;
                }
                Some(_) => return Err(self.fail("control character in a string")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc8259_values() {
        assert_eq!(
            parse(r#" {"a": [1, -2.5e3, true, null], "b\u00e9\n": "x\ud834\udd1e"} "#).unwrap(),
            Json::Obj(vec![
                (
                    "a".into(),
                    Json::Arr(vec![
                        Json::Num("1"),
                        Json::Num("-2.5e3"),
                        Json::Bool(true),
                        Json::Null
                    ])
                ),
                ("bé\n".into(), Json::Str("x\u{1D11E}".into())),
            ])
        );
    }

    #[test]
    fn refuses_what_rfc8259_refuses() {
        for (text, what, offset) in [
            ("", "unexpected end of JSON", 0),
            ("[1,]", "expected a JSON value", 3),
            ("01", "text after the JSON value", 1),
            ("1.", "expected a digit", 2),
            ("\"\\ud800\"", "lone surrogate in \\u escape", 3),
            ("\"\\udc00\"", "lone surrogate in \\u escape", 3),
            ("{\"a\":1,\"a\":2}", "duplicate key", 7),
            ("\"a\u{1}\"", "control character in a string", 2),
            ("[1 2]", "expected , or ]", 3),
            ("nul", "expected a JSON value", 0),
            ("\"\\x\"", "bad escape", 2),
        ] {
            assert_eq!(
                parse(text),
                Err(JsonParseError::Syntax { what, offset }),
                "{text:?}"
            );
        }
        let deep = "[".repeat(MAX_JSON_DEPTH as usize + 1);
        assert_eq!(
            parse(&deep),
            Err(JsonParseError::Syntax {
                what: "JSON nested too deep",
                offset: MAX_JSON_DEPTH as usize
            })
        );
    }
}
