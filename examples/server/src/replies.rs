//! The relay's answers, written as NIP-01 JSON text.

use quarry_nostr::write_json_string;

/// The answers to one client message, in order; each becomes one WebSocket
/// text message.
///
/// ```
/// let mut replies = quarry_server::Replies::default();
/// replies.ok(&[0xab; 32], false, "invalid: bad id");
/// replies.eose("sub\"1");
/// let texts: Vec<&str> = replies.iter().collect();
/// assert_eq!(texts[0], format!(r#"["OK","{}",false,"invalid: bad id"]"#, "ab".repeat(32)));
/// assert_eq!(texts[1], r#"["EOSE","sub\"1"]"#);
/// ```
#[derive(Debug, Default)]
pub struct Replies {
    texts: Vec<Vec<u8>>,
}

impl Replies {
    fn begin(&mut self, verb: &str) -> &mut Vec<u8> {
        let mut text = Vec::with_capacity(verb.len() + 96);
        text.extend_from_slice(b"[\"");
        text.extend_from_slice(verb.as_bytes());
        text.push(b'"');
        self.texts.push(text);
        self.texts.last_mut().expect("just pushed")
    }

    /// `["OK", <id hex>, <accepted>, <message>]`.
    pub fn ok(&mut self, id: &[u8; 32], accepted: bool, message: &str) {
        let text = self.begin("OK");
        text.extend_from_slice(b",\"");
        put_hex(text, id);
        text.extend_from_slice(if accepted { b"\",true," } else { b"\",false," });
        write_json_string(text, message);
        text.push(b']');
    }

    /// `["NOTICE", <message>]`.
    pub fn notice(&mut self, message: &str) {
        let text = self.begin("NOTICE");
        text.push(b',');
        write_json_string(text, message);
        text.push(b']');
    }

    /// `["EOSE", <sub_id>]`.
    pub fn eose(&mut self, sub_id: &str) {
        let text = self.begin("EOSE");
        text.push(b',');
        write_json_string(text, sub_id);
        text.push(b']');
    }

    /// `["CLOSED", <sub_id>, <message>]`.
    pub fn closed(&mut self, sub_id: &str, message: &str) {
        let text = self.begin("CLOSED");
        text.push(b',');
        write_json_string(text, sub_id);
        text.push(b',');
        write_json_string(text, message);
        text.push(b']');
    }

    /// `["EVENT", <sub_id>, <event JSON>]`; `event` is written as given.
    pub fn event(&mut self, sub_id: &str, event: &[u8]) {
        let text = self.begin("EVENT");
        text.reserve(sub_id.len() + event.len() + 8);
        text.push(b',');
        write_json_string(text, sub_id);
        text.push(b',');
        text.extend_from_slice(event);
        text.push(b']');
    }

    /// Number of answers.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// True when there is no answer.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The answers as text.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.texts
            .iter()
            .map(|t| std::str::from_utf8(t).unwrap_or("<not UTF-8>"))
    }

    /// Take the answers out as owned strings, leaving this empty for the
    /// next message.
    pub fn drain(&mut self) -> impl Iterator<Item = String> + '_ {
        self.texts
            .drain(..)
            // Answers are built from `&str`s and JSON punctuation, so the
            // lossy branch is never taken; it keeps a bug from panicking.
            .map(|t| {
                String::from_utf8(t)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            })
    }
}

fn put_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 15)]);
    }
}
