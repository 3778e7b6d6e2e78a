//! A typed attribute reader that collects errors instead of stopping at the
//! first, the way protocol handlers read a stanza's attributes.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them; each remaining spot is an audited `expect`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use std::borrow::Cow;

use crate::jid::Jid;
use crate::node::{Attrs, Value};

/// One attribute that was missing or did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttrError {
    /// A required attribute is absent.
    #[error("required attribute {0:?} not found")]
    Missing(String),
    /// An attribute is present but not of the expected kind.
    #[error("attribute {key:?}: cannot read {value:?} as {expected}")]
    Invalid {
        /// The attribute's key.
        key: String,
        /// Its value as text.
        value: String,
        /// What was expected (`"bool"`, `"u64"`, `"JID"`, …).
        expected: &'static str,
    },
}

/// All the attribute errors one reader collected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} attribute error(s), first: {}",
    .0.len(),
    .0.first().map(ToString::to_string).unwrap_or_default()
)]
pub struct AttrErrors(pub Vec<AttrError>);

/// Reads typed attributes and collects every failure; check with
/// [`finish`](Self::finish) or [`ok`](Self::ok). Nothing allocates unless
/// an error is recorded (or a JID is read as text).
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let dict = quarry_wa::Dictionary::v3();
/// let t = |s| match dict.lookup(s) { Some(quarry_wa::Token::Single(b)) => b, _ => unreachable!() };
/// // <receipt id="1" t="17"/>: ids and numbers arrive nibble-packed
/// let bytes = [0xF8, 5, t("receipt"), t("id"), 0xFF, 0x81, 0x1F, t("t"), 0xFF, 0x01, 0x17];
/// let node = quarry_wa::decode(&arena, &bytes).unwrap();
/// let mut attrs = node.attrs().parser();
/// assert_eq!(attrs.optional_u64("t"), Some(17));
/// assert_eq!(attrs.required_string("id").as_deref(), Some("1"));
/// assert_eq!(attrs.required_string("from"), None);
/// assert!(attrs.finish().is_err());
/// ```
pub struct AttrParser<'a> {
    attrs: Attrs<'a>,
    errors: Vec<AttrError>,
}

/// WhatsApp's boolean spellings (the same set whatsmeow accepts).
fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "true" | "True" | "t" | "T" | "TRUE" => Some(true),
        "0" | "false" | "False" | "f" | "F" | "FALSE" => Some(false),
        _ => None,
    }
}

impl<'a> AttrParser<'a> {
    /// A reader over `attrs`.
    pub fn new(attrs: Attrs<'a>) -> Self {
        Self {
            attrs,
            errors: Vec::new(),
        }
    }

    /// True when nothing failed so far.
    pub fn ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors so far, if any.
    pub fn finish(self) -> Result<(), AttrErrors> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(AttrErrors(self.errors))
        }
    }

    /// The errors collected so far.
    pub fn errors(&self) -> &[AttrError] {
        &self.errors
    }

    fn get(&mut self, key: &str, required: bool) -> Option<Value<'a>> {
        let value = self.attrs.get(key);
        if value.is_none() && required {
            self.errors.push(AttrError::Missing(key.to_owned()));
        }
        value
    }

    fn invalid(&mut self, key: &str, value: Value<'_>, expected: &'static str) {
        self.errors.push(AttrError::Invalid {
            key: key.to_owned(),
            value: value.to_string(),
            expected,
        });
    }

    /// The raw value of `key`, if present.
    pub fn value(&mut self, key: &str) -> Option<Value<'a>> {
        self.get(key, false)
    }

    /// `key` as text (a JID value is rendered, which allocates).
    pub fn optional_string(&mut self, key: &str) -> Option<Cow<'a, str>> {
        self.get(key, false).map(Value::to_text)
    }

    /// `key` as text; records [`AttrError::Missing`] when absent.
    pub fn required_string(&mut self, key: &str) -> Option<Cow<'a, str>> {
        self.get(key, true).map(Value::to_text)
    }

    fn jid_of(&mut self, key: &str, required: bool) -> Option<Jid<'a>> {
        match self.get(key, required)? {
            Value::Jid(jid) => Some(jid),
            value @ Value::Str(text) => match Jid::parse(text) {
                Ok(jid) => Some(jid),
                Err(_) => {
                    self.invalid(key, value, "JID");
                    None
                }
            },
        }
    }

    /// `key` as a JID (structured on the wire, or text that parses as one).
    pub fn optional_jid(&mut self, key: &str) -> Option<Jid<'a>> {
        self.jid_of(key, false)
    }

    /// `key` as a JID; records an error when absent or not a JID.
    pub fn required_jid(&mut self, key: &str) -> Option<Jid<'a>> {
        self.jid_of(key, true)
    }

    /// `key` as a JID with the device dropped (`user@server`).
    pub fn non_ad_jid(&mut self, key: &str) -> Option<Jid<'a>> {
        self.required_jid(key).map(|j| j.to_non_ad())
    }

    fn parsed<T>(
        &mut self,
        key: &str,
        required: bool,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let value = self.get(key, required)?;
        let parsed = value.as_str().and_then(parse);
        if parsed.is_none() {
            self.invalid(key, value, expected);
        }
        parsed
    }

    /// `key` as a boolean (`1`/`0`, `true`/`false`, `t`/`f`, …).
    pub fn optional_bool(&mut self, key: &str) -> Option<bool> {
        self.parsed(key, false, "bool", parse_bool)
    }

    /// `key` as a boolean; records an error when absent.
    pub fn required_bool(&mut self, key: &str) -> Option<bool> {
        self.parsed(key, true, "bool", parse_bool)
    }

    /// `key` as a `u64`.
    pub fn optional_u64(&mut self, key: &str) -> Option<u64> {
        self.parsed(key, false, "u64", |s| s.parse().ok())
    }

    /// `key` as a `u64`; records an error when absent.
    pub fn required_u64(&mut self, key: &str) -> Option<u64> {
        self.parsed(key, true, "u64", |s| s.parse().ok())
    }

    /// `key` as Unix seconds.
    pub fn optional_unix_time(&mut self, key: &str) -> Option<i64> {
        self.parsed(key, false, "unix time", |s| s.parse().ok())
    }

    /// `key` as Unix seconds; records an error when absent.
    pub fn unix_time(&mut self, key: &str) -> Option<i64> {
        self.parsed(key, true, "unix time", |s| s.parse().ok())
    }

    /// `key` as Unix milliseconds.
    pub fn optional_unix_milli(&mut self, key: &str) -> Option<i64> {
        self.parsed(key, false, "unix milliseconds", |s| s.parse().ok())
    }

    /// `key` as Unix milliseconds; records an error when absent.
    pub fn unix_milli(&mut self, key: &str) -> Option<i64> {
        self.parsed(key, true, "unix milliseconds", |s| s.parse().ok())
    }
}
