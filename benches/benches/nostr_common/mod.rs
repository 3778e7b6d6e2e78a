//! Nostr bench inputs and the measured operations, shared by the criterion
//! and iai-callgrind benches and the nostr report binary (each includes
//! this file as a module), so every tool measures the same functions on the
//! same bytes.
//!
//! Inputs: `["EVENT","sub1",<event>]` relay messages in the six shapes of
//! the spec's table, signed with a real key through rust-nostr and
//! serialized by it; the wire-shaped corpus ([`corpus`]), decoded message
//! by message and counted in total; and `["REQ",...]` client messages in three shapes a
//! relay reads (see [`req`]), built and serialized by rust-nostr.
#![allow(dead_code, missing_docs)]

use std::borrow::Cow;
use std::hint::black_box;

use nostr::event::{Event, EventId, FinalizeUnsignedEvent, Kind, Tag, UnsignedEvent};
use nostr::filter::Filter;
use nostr::key::{Keys, PublicKey};
use nostr::message::{
    ClientMessage as PeerClientMessage, RelayMessage as PeerMessage, SubscriptionId,
};
use nostr::types::Timestamp;
use quarry_core::Arena;
use quarry_nostr::{ClientMessage, Decoder, IdCheck, RelayMessage};

/// Shape names, as in the spec's table.
pub const SHAPES: [&str; 6] = [
    "plain", "hashtag", "reply1", "reply3", "thread12", "heavy30",
];

fn keys(seed: u8) -> Keys {
    let mut sk = [7u8; 32];
    sk[0] = seed;
    Keys::new(secp256k1::SecretKey::from_byte_array(&sk).unwrap().into())
}

fn sign(tags: Vec<Vec<String>>, content: String) -> Event {
    let keys = keys(1);
    let tags: Vec<Tag> = tags.into_iter().map(|t| Tag::parse(t).unwrap()).collect();
    let unsigned = UnsignedEvent::new(
        keys.public_key(),
        Timestamp::from_secs(1_700_000_000),
        Kind::from_u16(1),
        tags,
        content,
    );
    let id = unsigned.compute_id();
    let secp: &secp256k1::Secp256k1<secp256k1::All> = secp256k1::global::SECP256K1;
    let sig = keys.sign_schnorr_with_aux_rand(secp, id.as_bytes(), &[0u8; 32]);
    unsigned.add_signature(sig).unwrap()
}

fn t(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn hex64(seed: u8) -> String {
    format!("{seed:02x}").repeat(32)
}

/// The event of shape `name` (tags/elements as in the spec: 0/0, 1/2, 2/6,
/// 4/10, 12/30, 30/80).
pub fn event(name: &str) -> Event {
    let (tags, content) = parts(name);
    sign(tags, content)
}

/// The tags and content of shape `name`'s event.
pub fn parts(name: &str) -> (Vec<Vec<String>>, String) {
    let relay = "wss://relay.damus.io";
    let e = |s: u8, m: &str| t(&["e", &hex64(s), relay, m, &hex64(s ^ 0x55)]);
    let p = |s: u8| t(&["p", &hex64(s)]);
    let words = |n: usize| "lorem ipsum dolor sit amet, ".repeat(n);
    match name {
        "plain" => (vec![], words(2)),
        "hashtag" => (vec![t(&["t", "nostr"])], words(2)),
        "reply1" => (vec![t(&["e", &hex64(1), "", "reply"]), p(2)], words(3)),
        "reply3" => (
            vec![t(&["e", &hex64(1), "", "reply"]), p(2), p(3), p(4)],
            words(5),
        ),
        "thread12" => {
            let mut v = vec![e(1, "root"), e(2, "reply")];
            v.extend((10..18).map(p));
            v.push(t(&["t", "nostr"]));
            v.push(t(&["t", "thread"]));
            (v, words(2))
        }
        _ => {
            let mut v = vec![e(1, "root"), e(2, "reply")];
            v.extend((10..30).map(p));
            for k in 0..6 {
                v.push(t(&["r", &format!("wss://relay{k}.example.com"), "read"]));
            }
            for k in 0..2u8 {
                v.push(t(&[
                    "imeta",
                    &format!("url https://image.example.com/{k}/photo.jpg"),
                    "m image/jpeg",
                    "dim 1920x1080",
                    &format!("x {}", hex64(40 + k)),
                    "blurhash eVF$^OI:${M{o#*0-nNFxakD-?xVM}WEWB%iNKxvR-oetmo#R-aen$",
                ]));
            }
            (v, words(8) + "\u{1F980} caf\u{e9} \"quoted\"\nsecond line")
        }
    }
}

/// `["EVENT","sub1",<event>]` as rust-nostr serializes it.
pub fn message(name: &str) -> Vec<u8> {
    format!(r#"["EVENT","sub1",{}]"#, event(name).as_json()).into_bytes()
}

/// The wire-shaped corpus (`quarry_benches::nostr_corpus`): 722
/// `["EVENT","sub1",<event>]` messages as rust-nostr serializes them, built
/// once per process.
pub fn corpus() -> &'static [Vec<u8>] {
    static CORPUS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(quarry_benches::nostr_corpus::messages)
}

/// The messages of `name`: the corpus for `"corpus"`, else the one message
/// of that shape.
pub fn inputs(name: &str) -> Vec<Vec<u8>> {
    if name == "corpus" {
        corpus().to_vec()
    } else {
        vec![message(name)]
    }
}

/// Client REQ shapes, smallest first.
pub const REQ_SHAPES: [&str; 3] = ["req_profile", "req_thread", "req_feed"];

/// The `["REQ",...]` of shape `name`, as rust-nostr serializes it:
/// `req_profile`, one author's metadata, follows and relays (one filter:
/// 3 kinds, 1 author, a limit); `req_thread`, a note and everything that
/// references it (two filters: 1 id; 4 kinds, 1 `#e`, a limit);
/// `req_feed`, a home timeline (one filter: 2 kinds, 50 authors, since, a
/// limit).
pub fn req(name: &str) -> Vec<u8> {
    req_message(name).as_json().into_bytes()
}

/// The `["REQ",...]` of shape `name` as rust-nostr builds it (see [`req`]).
fn req_message(name: &str) -> PeerClientMessage<'static> {
    let id = EventId::from_hex(&hex64(1)).unwrap();
    let author = |seed: u8| -> PublicKey { keys(seed).public_key() };
    let (sub, filters) = match name {
        "req_profile" => (
            "profile",
            vec![
                Filter::new()
                    .kinds([0, 3, 10002].map(Kind::from_u16))
                    .author(author(2))
                    .limit(3),
            ],
        ),
        "req_thread" => (
            "thread",
            vec![
                Filter::new().id(id),
                Filter::new()
                    .kinds([1, 6, 7, 9735].map(Kind::from_u16))
                    .event(id)
                    .limit(500),
            ],
        ),
        _ => (
            "feed",
            vec![
                Filter::new()
                    .kinds([1, 6].map(Kind::from_u16))
                    .authors((10..60).map(author))
                    .since(Timestamp::from_secs(1_700_000_000))
                    .limit(200),
            ],
        ),
    };
    PeerClientMessage::req(SubscriptionId::new(sub), filters)
}

/// rust-nostr: `ClientMessage::from_json` of a REQ plus drop; the number
/// of filters.
#[inline(never)]
pub fn peer_parse_req(bytes: &[u8]) -> usize {
    match black_box(PeerClientMessage::from_json(bytes).unwrap()) {
        PeerClientMessage::Req { filters, .. } => filters.len(),
        _ => 0,
    }
}

/// quarry: `decode_client_message` of a REQ into `arena`; the number of
/// filters.
fn quarry_req(arena: &Arena, bytes: &[u8]) -> usize {
    match black_box(VERIFY.decode_client_message(arena, bytes).unwrap()) {
        ClientMessage::Req { filters, .. } => filters.len(),
        _ => 0,
    }
}

/// quarry, a REQ into a fresh arena (created and dropped here).
#[inline(never)]
pub fn quarry_req_fresh(bytes: &[u8]) -> usize {
    quarry_req(&quarry_nostr::arena_for(bytes), bytes)
}

/// quarry, a REQ into a reused arena (reset first).
#[inline(never)]
pub fn quarry_req_reused(arena: &mut Arena, bytes: &[u8]) -> usize {
    arena.reset();
    quarry_req(arena, bytes)
}

pub const VERIFY: Decoder = Decoder::new();
pub const NO_VERIFY: Decoder = Decoder {
    id_check: IdCheck::Skip,
    ..Decoder::new()
};

/// rust-nostr: `RelayMessage::from_json` plus drop.
#[inline(never)]
pub fn peer_parse(bytes: &[u8]) -> bool {
    let msg = PeerMessage::from_json(bytes).unwrap();
    black_box(&msg);
    matches!(msg, PeerMessage::Event { .. })
}

/// rust-nostr: `RelayMessage::from_json`, then `verify_id()` on the event.
#[inline(never)]
pub fn peer_parse_verify_id(bytes: &[u8]) -> bool {
    match PeerMessage::from_json(bytes).unwrap() {
        PeerMessage::Event { event, .. } => event.verify_id(),
        _ => false,
    }
}

/// quarry into a fresh arena (created and dropped here).
#[inline(never)]
pub fn quarry_fresh(decoder: &Decoder, bytes: &[u8]) -> usize {
    let arena = quarry_nostr::arena_for(bytes);
    match decoder.decode_relay_message(&arena, bytes).unwrap() {
        RelayMessage::Event { event, .. } => black_box(event.tags().len()),
        _ => 0,
    }
}

/// quarry into a reused arena (reset first).
#[inline(never)]
pub fn quarry_reused(decoder: &Decoder, arena: &mut Arena, bytes: &[u8]) -> usize {
    arena.reset();
    match decoder.decode_relay_message(arena, bytes).unwrap() {
        RelayMessage::Event { event, .. } => black_box(event.tags().len()),
        _ => 0,
    }
}

/// An arena that has decoded `bytes` once.
pub fn warmed_arena(bytes: &[u8]) -> Arena {
    let mut arena = Arena::new();
    quarry_reused(&VERIFY, &mut arena, bytes);
    arena
}

/// The event of shape `name` as rust-nostr holds it, kept for the process
/// (the input of the encode benches).
pub fn peer_event(name: &str) -> &'static Event {
    Box::leak(Box::new(event(name)))
}

/// The event of shape `name` decoded by quarry, its arena and input kept
/// for the process (the input of the encode benches).
pub fn quarry_event(name: &str) -> quarry_nostr::Event<'static> {
    let arena: &'static Arena = Box::leak(Box::new(Arena::new()));
    let json: &'static [u8] = Box::leak(event(name).as_json().into_bytes().into_boxed_slice());
    VERIFY.decode_event(arena, json).unwrap()
}

/// rust-nostr: `Event::as_json` (serde_json), plus drop.
pub fn peer_encode(event: &Event) -> usize {
    let json = black_box(event.as_json());
    json.len()
}

/// quarry: `Event::encode_into` into a new `Vec`, plus drop.
pub fn quarry_encode(event: quarry_nostr::Event<'_>) -> usize {
    let mut out = Vec::new();
    event.encode_into(&mut out);
    black_box(out).len()
}

/// The `["EVENT","sub1",<event>]` of shape `name` as a relay holding
/// rust-nostr's `Event` sends it: a `RelayMessage` borrowing the event, kept
/// for the process (the input of the relay-message encode benches).
pub fn peer_relay_message(name: &str) -> &'static PeerMessage<'static> {
    Box::leak(Box::new(PeerMessage::Event {
        subscription_id: Cow::Owned(SubscriptionId::new("sub1")),
        event: Cow::Borrowed(peer_event(name)),
    }))
}

/// The `["EVENT","sub1",<event>]` of shape `name` decoded by quarry, its
/// arena and input kept for the process.
pub fn quarry_relay_message(name: &str) -> RelayMessage<'static> {
    let arena: &'static Arena = Box::leak(Box::new(Arena::new()));
    let json: &'static [u8] = Box::leak(message(name).into_boxed_slice());
    VERIFY.decode_relay_message(arena, json).unwrap()
}

/// rust-nostr: `RelayMessage::as_json` (serde_json), plus drop.
pub fn peer_encode_relay(msg: &PeerMessage<'_>) -> usize {
    black_box(msg.as_json()).len()
}

/// quarry: `RelayMessage::encode_into` into a new `Vec`, plus drop.
pub fn quarry_encode_relay(msg: &RelayMessage<'_>) -> usize {
    let mut out = Vec::new();
    msg.encode_into(&mut out);
    black_box(out).len()
}

/// The REQ of shape `name` as a rust-nostr client builds it before sending
/// it, kept for the process (the input of the REQ encode benches).
pub fn peer_req_message(name: &str) -> &'static PeerClientMessage<'static> {
    Box::leak(Box::new(req_message(name)))
}

/// The REQ of shape `name` decoded by quarry, its arena and input kept for
/// the process.
pub fn quarry_req_message(name: &str) -> ClientMessage<'static> {
    let arena: &'static Arena = Box::leak(Box::new(Arena::new()));
    let json: &'static [u8] = Box::leak(req(name).into_boxed_slice());
    VERIFY.decode_client_message(arena, json).unwrap()
}

/// rust-nostr: `ClientMessage::as_json` (serde_json), plus drop.
pub fn peer_encode_req(msg: &PeerClientMessage<'_>) -> usize {
    black_box(msg.as_json()).len()
}

/// quarry: `ClientMessage::encode_into` into a new `Vec`, plus drop.
pub fn quarry_encode_req(msg: &ClientMessage<'_>) -> usize {
    let mut out = Vec::new();
    msg.encode_into(&mut out);
    black_box(out).len()
}

/// What the build benches start from: shape `name`'s tags and content,
/// and the signing key, as rust-nostr's `Keys` and as a key pair.
pub struct BuildInput {
    pub tags: Vec<Vec<String>>,
    pub content: String,
    pub keys: Keys,
    pub keypair: secp256k1::Keypair,
}

pub fn build_input(name: &str) -> BuildInput {
    let (tags, content) = parts(name);
    let keys = keys(1);
    let keypair = secp256k1::Keypair::from_secret_key(
        secp256k1::global::SECP256K1,
        &secp256k1::SecretKey::from_byte_array(&keys.secret_key().to_secret_bytes()).unwrap(),
    );
    BuildInput {
        tags,
        content,
        keys,
        keypair,
    }
}

/// Fixed BIP-340 auxiliary randomness on both sides, so that signatures,
/// allocations and instruction counts repeat.
const AUX: [u8; 32] = [0; 32];

/// rust-nostr: `EventBuilder` with the tags parsed from strings and
/// `created_at` set, `finalize_unsigned`, the id, a BIP-340 signature with
/// fixed auxiliary data and `add_signature` (what `finalize(&keys)` does
/// with fresh data: `add_signature` hashes the event again and verifies
/// the signature), then `as_json`. Returns the JSON's length.
pub fn peer_build_sign_encode(input: &BuildInput) -> usize {
    black_box(peer_build_json(input)).len()
}

/// The JSON [`peer_build_sign_encode`] writes.
pub fn peer_build_json(input: &BuildInput) -> String {
    let tags = input
        .tags
        .iter()
        .map(|t| Tag::parse(t.iter().cloned()).unwrap());
    let unsigned = nostr::event::EventBuilder::new(Kind::TextNote, input.content.as_str())
        .tags(tags)
        .custom_created_at(Timestamp::from_secs(1_700_000_000))
        .finalize_unsigned(input.keys.public_key());
    let id = unsigned.compute_id();
    let secp: &secp256k1::Secp256k1<secp256k1::All> = secp256k1::global::SECP256K1;
    let sig = input
        .keys
        .sign_schnorr_with_aux_rand(secp, id.as_bytes(), &AUX);
    unsigned.add_signature(sig).unwrap().as_json()
}

/// quarry: `EventBuilder` into `arena` with the same tags and content,
/// `sign_with_aux_rand` with the same auxiliary data, then `encode_into`
/// `out`. Returns the JSON's length.
pub fn quarry_build_sign_encode(arena: &Arena, input: &BuildInput, out: &mut Vec<u8>) -> usize {
    let mut b =
        quarry_nostr::EventBuilder::new(arena, quarry_nostr::Kind::TEXT_NOTE, &input.content)
            .created_at(1_700_000_000);
    for t in &input.tags {
        b = b.tag(t.iter().map(String::as_str));
    }
    b.sign_with_aux_rand(&input.keypair, &AUX).encode_into(out);
    black_box(out.len())
}

/// [`quarry_build_sign_encode`] into a fresh arena and a fresh buffer.
pub fn quarry_build_fresh(input: &BuildInput) -> usize {
    let arena = Arena::new();
    let mut out = Vec::new();
    quarry_build_sign_encode(&arena, input, &mut out)
}

/// [`quarry_build_sign_encode`] into a reset arena and a cleared buffer.
pub fn quarry_build_reused(arena: &mut Arena, input: &BuildInput, out: &mut Vec<u8>) -> usize {
    arena.reset();
    out.clear();
    quarry_build_sign_encode(arena, input, out)
}
