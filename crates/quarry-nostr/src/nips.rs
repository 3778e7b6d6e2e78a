//! NIP helpers on decoded (or built) views, under rust-nostr's names: tag
//! accessors, expiration (NIP-40), protected events (NIP-70), coordinates
//! of replaceable and addressable events (NIP-01), proof of work (NIP-13)
//! and the machine-readable prefixes of OK and CLOSED messages (NIP-01).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::event::{Event, Tag, Tags};
use crate::hex;
use crate::kind::Kind;
use crate::message::RelayMessage;

impl<'a> Tags<'a> {
    /// The ids of the `e` tags whose value is 64 hex digits, in order
    /// (rust-nostr's `Tags::event_ids`).
    pub fn event_ids(self) -> impl Iterator<Item = [u8; 32]> + use<'a> {
        self.keys_of("e")
    }

    /// The keys of the `p` tags whose value is 64 hex digits, in order
    /// (rust-nostr's `Tags::public_keys`).
    pub fn public_keys(self) -> impl Iterator<Item = [u8; 32]> + use<'a> {
        self.keys_of("p")
    }

    fn keys_of(self, name: &'static str) -> impl Iterator<Item = [u8; 32]> + use<'a> {
        self.iter()
            .filter(move |t| t.name() == name)
            .filter_map(|t| t.as_id(1))
    }

    /// The values of the `t` tags, in order (rust-nostr's
    /// `Tags::hashtags`).
    pub fn hashtags(self) -> impl Iterator<Item = &'a str> {
        self.iter()
            .filter(|t| t.name() == "t")
            .filter_map(|t| t.value())
    }

    /// The value of the first `d` tag, an addressable event's identifier
    /// (rust-nostr's `Tags::identifier`).
    pub fn identifier(self) -> Option<&'a str> {
        self.first("d")?.value()
    }

    /// The first `expiration` tag's time (NIP-40), when its value is a
    /// decimal number of seconds (rust-nostr's `Tags::expiration`).
    pub fn expiration(self) -> Option<u64> {
        let v = self.first("expiration")?.value()?;
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        v.parse().ok()
    }

    /// The value of the first `challenge` tag (NIP-42, rust-nostr's
    /// `Tags::challenge`).
    pub fn challenge(self) -> Option<&'a str> {
        self.first("challenge")?.value()
    }
}

impl Tag<'_> {
    /// `["-"]`: the NIP-70 protected tag (rust-nostr's `Tag::is_protected`).
    pub fn is_protected(self) -> bool {
        self.len() == 1 && self.name() == "-"
    }
}

/// Where a replaceable or addressable event lives: kind, author and `d`
/// identifier (NIP-01's `<kind>:<pubkey>:<d>`, the value of an `a` tag;
/// rust-nostr's `Coordinate`).
///
/// ```
/// use quarry_nostr::{EventBuilder, Kind};
///
/// let arena = quarry_core::Arena::new();
/// let event = EventBuilder::new(&arena, Kind::LONG_FORM_TEXT_NOTE, "…")
///     .identifier("my-article")
///     .build(&[0xab; 32]);
/// let c = event.coordinate().unwrap();
/// assert_eq!(c.identifier, "my-article");
/// assert_eq!(c.to_string(), format!("30023:{}:my-article", "ab".repeat(32)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coordinate<'a> {
    /// The kind.
    pub kind: Kind,
    /// The author's public key.
    pub public_key: [u8; 32],
    /// The `d` tag's value; empty for replaceable events and addressable
    /// ones without a `d` tag.
    pub identifier: &'a str,
}

impl<'a> Coordinate<'a> {
    /// Read `<kind>:<64 hex digits>:<identifier>` (the identifier may hold
    /// colons, or be empty). `None` for anything else (rust-nostr's
    /// `Coordinate::parse` on that form).
    ///
    /// ```
    /// let text = format!("30023:{}:a:b", "ab".repeat(32));
    /// let c = quarry_nostr::Coordinate::parse(&text).unwrap();
    /// assert_eq!((c.kind.as_u16(), c.identifier), (30023, "a:b"));
    /// assert!(quarry_nostr::Coordinate::parse("30023:ab:x").is_none());
    /// ```
    pub fn parse(text: &'a str) -> Option<Self> {
        let (kind, rest) = text.split_once(':')?;
        let (key, identifier) = rest.split_once(':')?;
        if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Self {
            kind: Kind(kind.parse().ok()?),
            public_key: hex::decode::<32>(key.as_bytes())?,
            identifier,
        })
    }
}

impl fmt::Display for Coordinate<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key: [u8; 64] = hex::encode(&self.public_key);
        write!(
            f,
            "{}:{}:{}",
            self.kind,
            String::from_utf8_lossy(&key),
            self.identifier
        )
    }
}

impl<'a> Tags<'a> {
    /// The coordinates of the `a` tags that parse as one, in order
    /// (rust-nostr's `Tags::coordinates`).
    pub fn coordinates(self) -> impl Iterator<Item = Coordinate<'a>> {
        self.iter()
            .filter(|t| t.name() == "a")
            .filter_map(|t| Coordinate::parse(t.value()?))
    }
}

/// Leading zero bits of `hash` (NIP-13's difficulty), capped at 255 for
/// an all-zero hash (rust-nostr's `nip13::get_leading_zero_bits`).
///
/// ```
/// assert_eq!(quarry_nostr::leading_zero_bits(&[0, 0, 0x0f, 0xff]), 20);
/// assert_eq!(quarry_nostr::leading_zero_bits(&[0x80]), 0);
/// ```
pub fn leading_zero_bits(hash: &[u8]) -> u8 {
    let mut bits = 0u32;
    for &b in hash {
        bits += b.leading_zeros();
        if b != 0 {
            break;
        }
    }
    u8::try_from(bits).unwrap_or(u8::MAX)
}

impl<'a> Event<'a> {
    /// Whether the id has at least `difficulty` leading zero bits (NIP-13,
    /// rust-nostr's `Event::check_pow`). The id is taken as it stands:
    /// check it first ([`IdCheck`](crate::IdCheck)) where that matters.
    pub fn check_pow(self, difficulty: u8) -> bool {
        leading_zero_bits(self.id()) >= difficulty
    }

    /// Whether the `expiration` tag (NIP-40) is before `now` (Unix
    /// seconds): rust-nostr's `is_expired_at`. No tag, or a value that is
    /// not a number, never expires.
    pub fn is_expired_at(self, now: u64) -> bool {
        self.tags().expiration().is_some_and(|t| t < now)
    }

    /// [`is_expired_at`](Self::is_expired_at) the system clock's time.
    pub fn is_expired(self) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.is_expired_at(now)
    }

    /// Whether the event carries NIP-70's `["-"]` tag: relays accept it
    /// only from its author (rust-nostr's `is_protected`).
    pub fn is_protected(self) -> bool {
        self.tags().iter().any(Tag::is_protected)
    }

    /// The coordinate of a replaceable or addressable event, `None` for
    /// other kinds (rust-nostr's `Event::coordinate`; the classes as
    /// [`Kind`] draws them).
    pub fn coordinate(self) -> Option<Coordinate<'a>> {
        let kind = Kind(self.kind());
        (kind.is_replaceable() || kind.is_addressable()).then(|| Coordinate {
            kind,
            public_key: *self.pubkey(),
            identifier: self.tags().identifier().unwrap_or_default(),
        })
    }
}

/// The machine-readable prefix of an OK or CLOSED message's text
/// (NIP-01): the word before `": "`, rust-nostr's
/// `MachineReadablePrefix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MachineReadablePrefix<'a> {
    /// `duplicate:` the relay has the event already.
    Duplicate,
    /// `pow:` not enough proof of work.
    Pow,
    /// `blocked:` the author or client is blocked.
    Blocked,
    /// `rate-limited:` too many requests.
    RateLimited,
    /// `invalid:` the event or request is invalid.
    Invalid,
    /// `restricted:` not allowed (NIP-42's or other policy).
    Restricted,
    /// `unsupported:` the relay does not support what was asked (rust-nostr
    /// names it too).
    Unsupported,
    /// `error:` the relay failed.
    Error,
    /// `auth-required:` authenticate first (NIP-42).
    AuthRequired,
    /// Another single word (no ASCII whitespace) before a colon, as
    /// rust-nostr reads one.
    Custom(&'a str),
}

impl<'a> MachineReadablePrefix<'a> {
    /// The prefix `message` starts with: its text up to the first `:`,
    /// one of NIP-01's words or [`Custom`](Self::Custom), when it is a
    /// non-empty word without ASCII whitespace (rust-nostr's
    /// `MachineReadablePrefix::parse`).
    ///
    /// ```
    /// use quarry_nostr::MachineReadablePrefix as P;
    ///
    /// assert_eq!(P::parse("duplicate: already have it"), Some(P::Duplicate));
    /// assert_eq!(P::parse("auth-required:"), Some(P::AuthRequired));
    /// assert_eq!(P::parse("stored"), None);
    /// assert_eq!(P::parse("busy: try later"), Some(P::Custom("busy")));
    /// assert_eq!(P::parse("two words: no"), None);
    /// assert_eq!(P::Pow.as_str(), "pow");
    /// ```
    pub fn parse(message: &'a str) -> Option<Self> {
        let (word, _) = message.split_once(':')?;
        Some(match word {
            "duplicate" => Self::Duplicate,
            "pow" => Self::Pow,
            "blocked" => Self::Blocked,
            "rate-limited" => Self::RateLimited,
            "invalid" => Self::Invalid,
            "restricted" => Self::Restricted,
            "unsupported" => Self::Unsupported,
            "error" => Self::Error,
            "auth-required" => Self::AuthRequired,
            w if !w.is_empty() && !w.bytes().any(|b| b.is_ascii_whitespace()) => Self::Custom(w),
            _ => return None,
        })
    }

    /// The prefix's word, without its colon (rust-nostr's `as_str`).
    pub fn as_str(self) -> &'a str {
        match self {
            Self::Duplicate => "duplicate",
            Self::Pow => "pow",
            Self::Blocked => "blocked",
            Self::RateLimited => "rate-limited",
            Self::Invalid => "invalid",
            Self::Restricted => "restricted",
            Self::Unsupported => "unsupported",
            Self::Error => "error",
            Self::AuthRequired => "auth-required",
            Self::Custom(word) => word,
        }
    }
}

impl fmt::Display for MachineReadablePrefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'a> RelayMessage<'a> {
    /// The machine-readable prefix of an OK's or CLOSED's message, `None`
    /// for other messages and for texts without one.
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let ok = br#"["OK","b1a649ebe8b435ec71d3784793f3bbf4b93e64e17568a741aecd4c7ddeafce30",false,"pow: difficulty 25>=24"]"#;
    /// let msg = quarry_nostr::decode_relay_message(&arena, ok)?;
    /// assert_eq!(msg.prefix(), Some(quarry_nostr::MachineReadablePrefix::Pow));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn prefix(&self) -> Option<MachineReadablePrefix<'a>> {
        match *self {
            RelayMessage::Ok { message, .. } | RelayMessage::Closed { message, .. } => {
                MachineReadablePrefix::parse(message)
            }
            _ => None,
        }
    }
}
