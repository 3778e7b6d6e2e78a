//! Test events: signed with real keys through rust-nostr, in the six
//! shapes of the spec's measurement table.
#![allow(dead_code)]

use nostr::event::{Event, Kind, Tag, UnsignedEvent};
use nostr::key::Keys;
use nostr::types::Timestamp;

/// Deterministic keys from a seed byte (1..=255).
pub fn keys(seed: u8) -> Keys {
    let mut bytes = [seed.max(1); 32];
    bytes[0] = 1; // below the curve order whatever the seed
    let sk = secp256k1::SecretKey::from_byte_array(&bytes).expect("valid key");
    Keys::new(sk.into())
}

/// A signed event; the id is rust-nostr's `compute_id`.
pub fn sign(keys: &Keys, created_at: u64, kind: u16, tags: &[Vec<String>], content: &str) -> Event {
    let tags: Vec<Tag> = tags
        .iter()
        .map(|t| Tag::parse(t.iter().cloned()).expect("non-empty tag"))
        .collect();
    let unsigned = UnsignedEvent::new(
        keys.public_key(),
        Timestamp::from_secs(created_at),
        Kind::from_u16(kind),
        tags,
        content,
    );
    let id = unsigned.compute_id();
    let secp: &secp256k1::Secp256k1<secp256k1::All> = secp256k1::global::SECP256K1;
    let sig = keys.sign_schnorr_with_aux_rand(secp, id.as_bytes(), &[0u8; 32]);
    unsigned.add_signature(sig).expect("signature matches")
}

fn hex64(seed: u8) -> String {
    format!("{seed:02x}").repeat(32)
}

fn tag(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The six shapes of the spec's table: (name, tags, elements).
pub const SHAPES: [(&str, usize, usize); 6] = [
    ("plain note", 0, 0),
    ("1 hashtag", 1, 2),
    ("reply + 1 mention", 2, 6),
    ("reply + 3 mentions", 4, 10),
    ("12-tag thread", 12, 30),
    ("30-tag heavy", 30, 80),
];

/// An event of shape `i` (index into [`SHAPES`]); `n` varies ids and
/// content so that many distinct events of one shape can be made.
pub fn shape(i: usize, n: u32) -> Event {
    let keys = keys(7);
    let relay = "wss://relay.damus.io";
    let e = |s: u8, marker: &str| tag(&["e", &hex64(s), relay, marker, &hex64(s ^ 0x55)]);
    let p = |s: u8| tag(&["p", &hex64(s)]);
    let (tags, content): (Vec<Vec<String>>, String) = match i {
        0 => (
            vec![],
            format!("gm nostr, plain note number {n:06} with a little text!!"),
        ),
        1 => (
            vec![tag(&["t", "nostr"])],
            format!("gm #nostr, note number {n:06} with one hashtag attached"),
        ),
        2 => (
            vec![tag(&["e", &hex64(1), "", "reply"]), p(2)],
            format!("replying to you, reply number {n:06}, have a nice day :)"),
        ),
        3 => (
            vec![tag(&["e", &hex64(1), "", "reply"]), p(2), p(3), p(4)],
            format!("replying to all three of you, reply {n:06}; see you!"),
        ),
        4 => {
            let mut t = vec![e(1, "root"), e(2, "reply")];
            t.extend((10..18).map(p));
            t.push(tag(&["t", "nostr"]));
            t.push(tag(&["t", "thread"]));
            (t, format!("deep in a thread, post {n:06}: agreed!"))
        }
        _ => {
            let mut t = vec![e(1, "root"), e(2, "reply")];
            t.extend((10..30).map(p));
            for k in 0..6 {
                t.push(tag(&["r", &format!("wss://relay{k}.example.com"), "read"]));
            }
            for k in 0..2 {
                t.push(tag(&[
                    "imeta",
                    &format!("url https://image.example.com/{k}/photo-{n:06}.jpg"),
                    "m image/jpeg",
                    "dim 1920x1080",
                    &format!("x {}", hex64(40 + k)),
                    "blurhash eVF$^OI:${M{o#*0-nNFxakD-?xVM}WEWB%iNKxvR-oetmo#R-aen$",
                ]));
            }
            (
                t,
                format!(
                    "a long post {n:06} with pictures and many mentions, because some \
                     posts in a busy thread tag everyone who ever replied; relays see \
                     these all day and clients render them in timelines. \u{1F980} \
                     caf\u{e9} \"quoted\"\nsecond line"
                ),
            )
        }
    };
    sign(&keys, 1_700_000_000 + u64::from(n), 1, &tags, &content)
}

/// `["EVENT","sub1",<event>]` as rust-nostr serializes the event.
pub fn relay_event(event: &Event) -> Vec<u8> {
    format!(r#"["EVENT","sub1",{}]"#, event.as_json()).into_bytes()
}

/// The doc event of the crate (valid id and signature), as a String.
pub fn valid_event() -> String {
    shape(4, 0).as_json()
}

/// Decode `input` as a bare event and as a message of either direction;
/// both must fail (never panic) with an offset inside the input (or at its
/// end). Returns the event decode's error.
pub fn must_fail(input: &[u8]) -> quarry_core::DecodeError {
    let arena = quarry_core::Arena::new();
    let e = quarry_nostr::decode_event(&arena, input).expect_err("accepted malformed input");
    assert!(e.offset() <= input.len(), "{e} beyond {}", input.len());
    if let Err(m) = quarry_nostr::decode_message(&arena, input) {
        assert!(m.offset() <= input.len(), "{m} beyond {}", input.len());
    }
    e
}

/// What was wrong and the offset, of a `Malformed`, an `InvalidValue` or
/// an `UnexpectedByte` (its context), or panic.
pub fn malformed(e: &quarry_core::DecodeError) -> (&'static str, usize) {
    match *e {
        quarry_core::DecodeError::Malformed { offset, what } => (what, offset),
        quarry_core::DecodeError::InvalidValue(ref v) => (v.what, v.offset),
        quarry_core::DecodeError::UnexpectedByte {
            offset, context, ..
        } => (context, offset),
        ref other => panic!("expected Malformed, InvalidValue or UnexpectedByte, got {other:?}"),
    }
}

/// The offending value an `InvalidValue` names, or panic.
pub fn value(e: &quarry_core::DecodeError) -> &str {
    match e {
        quarry_core::DecodeError::InvalidValue(v) => &v.value,
        other => panic!("expected InvalidValue, got {other:?}"),
    }
}

/// `json` with the first `from` replaced by `to`.
pub fn edit(json: &str, from: &str, to: &str) -> String {
    assert!(json.contains(from), "{from} not in {json}");
    json.replacen(from, to, 1)
}
