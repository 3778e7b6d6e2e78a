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

use crate::jid::{Jid, Server};
use crate::node::{Attrs, Value};
use crate::owned::OwnedValue;

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

/// Reads typed attributes of a decoded node ([`Node::attr_parser`](crate::Node::attr_parser),
/// [`Attrs::parser`]) or of a built one
/// ([`OwnedNode::attr_parser`](crate::OwnedNode::attr_parser)), with the
/// same methods for both.
///
/// Readers named like WhatsApp's own parser behave like it:
/// * `optional_*` give `None` when the attribute is absent and record an
///   error only when it is present but does not parse;
/// * `required_*` return a `Result` and record nothing, for `?`;
/// * [`jid`](Self::jid), [`non_ad_jid`](Self::non_ad_jid),
///   [`bool`](Self::bool), [`unix_time`](Self::unix_time) and
///   [`unix_milli`](Self::unix_milli) read a required attribute, record an
///   error when it is missing or bad and give a default value instead; check
///   with [`finish`](Self::finish) or [`ok`](Self::ok).
///
/// Nothing allocates unless an error is recorded (or a JID is read as
/// text).
///
/// ```
/// let arena = quarry_core::Arena::new();
/// let dict = quarry_wa::Dictionary::v3();
/// let t = |s| match dict.lookup(s) { Some(quarry_wa::Token::Single(b)) => b, _ => unreachable!() };
/// // <receipt id="1" t="17"/>: ids and numbers arrive nibble-packed
/// let bytes = [0xF8, 5, t("receipt"), t("id"), 0xFF, 0x81, 0x1F, t("t"), 0xFF, 0x01, 0x17];
/// let node = quarry_wa::decode(&arena, &bytes).unwrap();
/// let mut attrs = node.attr_parser();
/// assert_eq!(attrs.optional_u64("t"), Some(17));
/// assert_eq!(attrs.required_string("id").unwrap(), "1");
/// assert!(attrs.required_string("from").is_err());
/// assert!(attrs.ok());
/// assert_eq!(attrs.unix_time("from"), 0);
/// assert!(attrs.finish().is_err());
///
/// // The same reader over a node being built:
/// let built = quarry_wa::OwnedNode::new("receipt").attr("id", "1").attr("t", 17u64);
/// let mut attrs = built.attr_parser();
/// assert_eq!(attrs.optional_u64("t"), Some(17));
/// assert_eq!(attrs.required_string("id").unwrap(), "1");
/// ```
pub struct AttrParser<'a> {
    source: Source<'a>,
    errors: Vec<AttrError>,
}

/// Where the attributes are: a decoded node's or a built node's.
#[derive(Clone, Copy)]
enum Source<'a> {
    View(Attrs<'a>),
    Owned(&'a [(crate::owned::AttrKey, OwnedValue)]),
}

impl<'a> Source<'a> {
    fn get(self, key: &str) -> Option<Value<'a>> {
        match self {
            Source::View(attrs) => attrs.get(key),
            Source::Owned(list) => list
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_view()),
        }
    }
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
    /// A reader over a decoded node's `attrs`.
    pub fn new(attrs: Attrs<'a>) -> Self {
        Self {
            source: Source::View(attrs),
            errors: Vec::new(),
        }
    }

    /// A reader over a built node's attributes.
    pub fn from_owned(attrs: &'a [(crate::owned::AttrKey, OwnedValue)]) -> Self {
        Self {
            source: Source::Owned(attrs),
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
        let value = self.source.get(key);
        if value.is_none() && required {
            self.errors.push(AttrError::Missing(key.to_owned()));
        }
        value
    }

    fn invalid_error(key: &str, value: Value<'_>, expected: &'static str) -> AttrError {
        AttrError::Invalid {
            key: key.to_owned(),
            value: value.to_string(),
            expected,
        }
    }

    fn invalid(&mut self, key: &str, value: Value<'_>, expected: &'static str) {
        self.errors.push(Self::invalid_error(key, value, expected));
    }

    /// The raw value of `key`, if present.
    pub fn value(&mut self, key: &str) -> Option<Value<'a>> {
        self.get(key, false)
    }

    /// `key` as text (a JID value is rendered, which allocates).
    pub fn optional_string(&mut self, key: &str) -> Option<Cow<'a, str>> {
        self.get(key, false).map(Value::to_text)
    }

    /// `key` as text, or [`AttrError::Missing`] (not recorded).
    pub fn required_string(&mut self, key: &str) -> Result<Cow<'a, str>, AttrError> {
        self.optional_string(key)
            .ok_or_else(|| AttrError::Missing(key.to_owned()))
    }

    fn jid_of(&mut self, key: &str, required: bool) -> Option<Jid<'a>> {
        let value = self.get(key, required)?;
        let jid = value.to_jid();
        if jid.is_none() {
            self.invalid(key, value, "JID");
        }
        jid
    }

    /// `key` as a JID (structured on the wire, or text that parses as one);
    /// records an error when present but not a JID.
    pub fn optional_jid(&mut self, key: &str) -> Option<Jid<'a>> {
        self.jid_of(key, false)
    }

    /// `key` as a JID: `Ok(None)` when absent, an error (not recorded) when
    /// present but not a JID.
    pub fn optional_jid_result(&mut self, key: &str) -> Result<Option<Jid<'a>>, AttrError> {
        match self.source.get(key) {
            None => Ok(None),
            Some(value) => value
                .to_jid()
                .map(Some)
                .ok_or_else(|| Self::invalid_error(key, value, "JID")),
        }
    }

    /// `key` as a JID, or an error (not recorded) when absent or not a JID.
    pub fn required_jid(&mut self, key: &str) -> Result<Jid<'a>, AttrError> {
        self.optional_jid_result(key)?
            .ok_or_else(|| AttrError::Missing(key.to_owned()))
    }

    /// `key` as a JID; when absent or not a JID, an error is recorded and
    /// the result is the empty JID (`s.whatsapp.net`, user "").
    pub fn jid(&mut self, key: &str) -> Jid<'a> {
        self.jid_of(key, true).unwrap_or(Jid::new("", Server::Pn))
    }

    /// [`jid`](Self::jid) without device and agent.
    pub fn non_ad_jid(&mut self, key: &str) -> Jid<'a> {
        self.jid(key).to_non_ad()
    }

    fn parsed<T>(
        &mut self,
        key: &str,
        required: bool,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let value = self.get(key, required)?;
        let parsed = parse(&value.to_text());
        if parsed.is_none() {
            self.invalid(key, value, expected);
        }
        parsed
    }

    fn required_parsed<T>(
        &mut self,
        key: &str,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, AttrError> {
        let value = self
            .source
            .get(key)
            .ok_or_else(|| AttrError::Missing(key.to_owned()))?;
        parse(&value.to_text()).ok_or_else(|| Self::invalid_error(key, value, expected))
    }

    /// `key` as a boolean (`1`/`0`, `true`/`false`, `t`/`f`, …); `None`
    /// when absent.
    pub fn optional_bool_value(&mut self, key: &str) -> Option<bool> {
        self.parsed(key, false, "bool", parse_bool)
    }

    /// `key` as a boolean, `false` when absent (or not a boolean, which is
    /// recorded).
    pub fn optional_bool(&mut self, key: &str) -> bool {
        self.optional_bool_value(key).unwrap_or(false)
    }

    /// `key` as a boolean; when absent or not a boolean, an error is
    /// recorded and the result is `false`.
    pub fn bool(&mut self, key: &str) -> bool {
        self.parsed(key, true, "bool", parse_bool).unwrap_or(false)
    }

    /// `key` as a boolean, or an error (not recorded).
    pub fn required_bool(&mut self, key: &str) -> Result<bool, AttrError> {
        self.required_parsed(key, "bool", parse_bool)
    }

    /// `key` as a `u64`.
    pub fn optional_u64(&mut self, key: &str) -> Option<u64> {
        self.parsed(key, false, "u64", |s| s.parse().ok())
    }

    /// `key` as a `u64`, or an error (not recorded).
    pub fn required_u64(&mut self, key: &str) -> Result<u64, AttrError> {
        self.required_parsed(key, "u64", |s| s.parse().ok())
    }

    /// `key` as Unix seconds.
    pub fn optional_unix_time(&mut self, key: &str) -> Option<i64> {
        self.parsed(key, false, "unix time", |s| s.parse().ok())
    }

    /// `key` as Unix seconds; when absent or not a number, an error is
    /// recorded and the result is 0.
    pub fn unix_time(&mut self, key: &str) -> i64 {
        self.parsed(key, true, "unix time", |s| s.parse().ok())
            .unwrap_or(0)
    }

    /// `key` as Unix milliseconds.
    pub fn optional_unix_milli(&mut self, key: &str) -> Option<i64> {
        self.parsed(key, false, "unix milliseconds", |s| s.parse().ok())
    }

    /// `key` as Unix milliseconds; when absent or not a number, an error
    /// is recorded and the result is 0.
    pub fn unix_milli(&mut self, key: &str) -> i64 {
        self.parsed(key, true, "unix milliseconds", |s| s.parse().ok())
            .unwrap_or(0)
    }
}
