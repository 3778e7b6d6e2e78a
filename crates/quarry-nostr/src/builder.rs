//! Building events: kind, content, tags and `created_at` written into an
//! arena, the id hashed from the canonical serialization as it is written
//! (no JSON string in between), then signed (feature `sig`) or left
//! unsigned. The result is the same [`Event`] view a decode gives.

use std::time::{SystemTime, UNIX_EPOCH};

use quarry_core::Arena;
use quarry_core::bumpalo::collections::Vec as ArenaVec;

use crate::canonical::{self, CanonParts};
use crate::event::{Event, EventRec, IdState, TagSpan, Tags, TagsRepr, letter_bit};
use crate::hex;
use crate::kind::Kind;
use crate::options::ControlChars;

/// Arena bytes [`EventBuilder::new`] makes room for besides the content:
/// the event record and the tag tables and text of a few dozen short tags.
pub const BUILDER_RESERVE: usize = 2048;

/// Builds an event into an arena, as rust-nostr's `EventBuilder` does into
/// owned strings: kind and content first, then tags and `created_at`, then
/// [`build`](Self::build) with a public key (unsigned) or
/// `sign` with a key pair (feature `sig`).
///
/// Every string is copied into the arena (tag values written as hex
/// there), so building, signing and encoding an event into a reused arena
/// and a reused buffer allocates nothing, and into fresh ones one
/// allocation each.
///
/// ```
/// use quarry_nostr::{EventBuilder, Kind};
///
/// let arena = quarry_core::Arena::new();
/// let pubkey = [0x79; 32];
/// let event = EventBuilder::new(&arena, Kind::TEXT_NOTE, "hello")
///     .hashtag("Nostr")
///     .public_key(&[0xbf; 32])
///     .created_at(1_700_000_000)
///     .build(&pubkey);
/// assert_eq!(event.kind(), 1);
/// assert_eq!(event.tags().len(), 2);
/// assert_eq!(event.tags().get(0).unwrap().value(), Some("nostr"));
/// assert!(event.verify_id());
/// let json = String::from_utf8(event.encode()).unwrap();
/// assert!(json.contains(r#""tags":[["t","nostr"],["p","bfbf"#));
/// ```
pub struct EventBuilder<'a> {
    arena: &'a Arena,
    kind: u16,
    content: &'a str,
    created_at: Option<u64>,
    elems: ArenaVec<'a, &'a str>,
    spans: ArenaVec<'a, TagSpan>,
    letters: u64,
}

impl<'a> EventBuilder<'a> {
    /// An event of `kind` with `content` (copied into `arena`), no tags,
    /// `created_at` the current time unless [`created_at`](Self::created_at)
    /// sets it.
    ///
    /// It makes sure the arena's current chunk has room for the content
    /// plus [`BUILDER_RESERVE`] bytes (at most one allocation, none in a
    /// reused arena with room), so a small event's tags do not take
    /// further chunks.
    pub fn new(arena: &'a Arena, kind: impl Into<Kind>, content: &str) -> Self {
        arena.reserve(content.len().saturating_add(BUILDER_RESERVE));
        let bump = arena.bump();
        Self {
            arena,
            kind: kind.into().as_u16(),
            content: bump.alloc_str(content),
            created_at: None,
            elems: ArenaVec::new_in(bump),
            spans: ArenaVec::new_in(bump),
            letters: 0,
        }
    }

    /// A text note (kind 1), rust-nostr's `EventBuilder::text_note`.
    pub fn text_note(arena: &'a Arena, content: &str) -> Self {
        Self::new(arena, Kind::TEXT_NOTE, content)
    }

    /// Unix seconds (rust-nostr's `custom_created_at`).
    pub fn created_at(mut self, secs: u64) -> Self {
        self.created_at = Some(secs);
        self
    }

    /// A tag of any elements, the name first (rust-nostr's `Tag::parse` or
    /// `Tag::custom`). A list with no element adds no tag: NIP-01 tags
    /// are non-empty, and decoders refuse `[]`.
    pub fn tag<'s>(mut self, elems: impl IntoIterator<Item = &'s str>) -> Self {
        let bump = self.arena.bump();
        let start = self.elems.len();
        for e in elems {
            self.elems.push(bump.alloc_str(e));
        }
        self.close_tag(start);
        self
    }

    /// Every tag of `tags`, as [`tag`](Self::tag) adds one: for copying the
    /// tags of another event.
    pub fn tags<'t>(mut self, tags: impl IntoIterator<Item = crate::Tag<'t>>) -> Self {
        for t in tags {
            self = self.tag(t.iter());
        }
        self
    }

    /// `[name, values…]` (rust-nostr's `Tag::custom(TagKind::custom(name),
    /// values)`).
    pub fn custom<'s>(self, name: &'s str, values: impl IntoIterator<Item = &'s str>) -> Self {
        self.tag(std::iter::once(name).chain(values))
    }

    /// `["p", <hex of pubkey>]`: a mention of a public key (NIP-01,
    /// rust-nostr's `Tag::public_key`).
    pub fn public_key(self, pubkey: &[u8; 32]) -> Self {
        self.hex_tag("p", pubkey)
    }

    /// `["e", <hex of id>]`: a reference to an event (NIP-01, rust-nostr's
    /// `Tag::event`).
    pub fn event(self, id: &[u8; 32]) -> Self {
        self.hex_tag("e", id)
    }

    /// `["t", <hashtag in lower case>]` (NIP-24; rust-nostr's
    /// `Tag::hashtag` lower-cases it too).
    pub fn hashtag(self, hashtag: &str) -> Self {
        if hashtag.is_ascii() {
            let lower = self.arena.bump().alloc_str(hashtag);
            lower.make_ascii_lowercase();
            let lower: &str = lower;
            self.tag(["t", lower])
        } else {
            self.tag(["t", hashtag.to_lowercase().as_str()])
        }
    }

    /// `["d", identifier]`: an addressable event's identifier (NIP-01,
    /// rust-nostr's `Tag::identifier`).
    pub fn identifier(self, identifier: &str) -> Self {
        self.tag(["d", identifier])
    }

    /// `["expiration", "<secs>"]` (NIP-40, rust-nostr's `Tag::expiration`).
    pub fn expiration(self, secs: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut v = secs;
        loop {
            at -= 1;
            digits[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        let text = std::str::from_utf8(&digits[at..]).unwrap_or_default();
        self.tag(["expiration", text])
    }

    /// `["-"]`: only the author may publish the event (NIP-70, rust-nostr's
    /// `Tag::protected`).
    pub fn protected(self) -> Self {
        self.tag(["-"])
    }

    /// `["challenge", challenge]` (NIP-42; with kind 22242 and a `relay`
    /// tag, an AUTH event).
    pub fn challenge(self, challenge: &str) -> Self {
        self.tag(["challenge", challenge])
    }

    fn hex_tag(mut self, name: &'static str, bytes: &[u8; 32]) -> Self {
        let hex: [u8; 64] = hex::encode(bytes);
        let text = std::str::from_utf8(&hex).unwrap_or_default();
        let start = self.elems.len();
        self.elems.push(name);
        self.elems.push(self.arena.bump().alloc_str(text));
        self.close_tag(start);
        self
    }

    fn close_tag(&mut self, start: usize) {
        let len = self.elems.len() - start;
        if len == 0 {
            return;
        }
        if let Some(name) = self.elems.get(start) {
            self.letters |= letter_bit(name);
        }
        self.spans.push(TagSpan {
            start: u32::try_from(start).unwrap_or(u32::MAX),
            len: u32::try_from(len).unwrap_or(u32::MAX),
        });
    }

    /// The unsigned event of `pubkey` (rust-nostr's `build`, which gives an
    /// `UnsignedEvent`): the id computed, the signature 64 zero bytes,
    /// which `Event::verify_signature` (feature `sig`) refuses.
    pub fn build(self, pubkey: &[u8; 32]) -> Event<'a> {
        self.finish(pubkey, |_| [0; 64])
    }

    fn finish(self, pubkey: &[u8; 32], sign: impl FnOnce(&[u8; 32]) -> [u8; 64]) -> Event<'a> {
        let created_at = self.created_at.unwrap_or_else(now);
        let elems = self.elems.into_bump_slice();
        let spans = self.spans.into_bump_slice();
        let tags = TagsRepr::Flat { elems, spans };
        let id = canonical::hash(
            &CanonParts {
                pubkey,
                created_at,
                kind: self.kind,
                tags: Tags::new(tags, self.letters),
                tags_raw: &[],
                content: self.content,
                content_raw: &[],
            },
            ControlChars::Escape,
        );
        let sig = sign(&id);
        let rec = self.arena.bump().alloc(EventRec {
            id,
            pubkey: *pubkey,
            sig,
            created_at,
            kind: self.kind,
            id_state: IdState::Valid,
            content: self.content,
            tags,
            letters: self.letters,
            raw: &[],
        });
        Event::from_rec(rec)
    }
}

#[cfg(feature = "sig")]
impl<'a> EventBuilder<'a> {
    /// Sign with `keys` (BIP-340), rust-nostr's `sign_with_keys`. The
    /// nonce comes from the key and the id alone (BIP-340 with no
    /// auxiliary randomness): the same event signs to the same signature.
    /// [`sign_with_aux_rand`](Self::sign_with_aux_rand) mixes in fresh
    /// randomness, as rust-nostr does, against side channels.
    ///
    /// ```
    /// use quarry_nostr::{EventBuilder, secp256k1};
    ///
    /// let secret = secp256k1::SecretKey::from_byte_array(&[7; 32]).unwrap();
    /// let keys = secp256k1::Keypair::from_secret_key(secp256k1::SECP256K1, &secret);
    /// let arena = quarry_core::Arena::new();
    /// let event = EventBuilder::text_note(&arena, "hi").sign(&keys);
    /// assert!(event.verify());
    /// ```
    pub fn sign(self, keys: &secp256k1::Keypair) -> Event<'a> {
        let pubkey = keys.x_only_public_key().0.serialize();
        self.finish(&pubkey, |id| {
            secp256k1::SECP256K1
                .sign_schnorr_no_aux_rand(id, keys)
                .to_byte_array()
        })
    }

    /// Sign with `keys` and `aux_rand`, BIP-340's auxiliary random data:
    /// 32 fresh random bytes per signature protect the nonce against side
    /// channels; the same bytes give the same signature.
    pub fn sign_with_aux_rand(self, keys: &secp256k1::Keypair, aux_rand: &[u8; 32]) -> Event<'a> {
        let pubkey = keys.x_only_public_key().0.serialize();
        self.finish(&pubkey, |id| {
            secp256k1::SECP256K1
                .sign_schnorr_with_aux_rand(id, keys, aux_rand)
                .to_byte_array()
        })
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
