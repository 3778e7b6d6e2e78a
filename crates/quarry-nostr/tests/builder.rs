//! Building and signing events: what `EventBuilder` makes is an event
//! rust-nostr parses and verifies, with the id rust-nostr's own builder
//! computes for the same kind, content, tags and time; quarry's decoder
//! reads it back equal; and building, signing and encoding allocate a
//! counted, fixed number of times.

use nostr::prelude::{
    EventBuilder as PeerBuilder, EventId, FinalizeUnsignedEvent, Kind as PeerKind, PublicKey,
    Tag as PeerTag, Timestamp, UnsignedEvent,
};
use quarry_core::Arena;
use quarry_nostr::{EventBuilder, Kind, secp256k1};

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

fn keypair(seed: u8) -> secp256k1::Keypair {
    let secret = secp256k1::SecretKey::from_byte_array(&[seed; 32]).unwrap();
    secp256k1::Keypair::from_secret_key(secp256k1::SECP256K1, &secret)
}

const MENTION: [u8; 32] = [0xbf; 32];
const REPLY_TO: [u8; 32] = [0x3d; 32];

/// Every tag helper once, with content that needs escapes.
fn full<'a>(arena: &'a Arena) -> EventBuilder<'a> {
    EventBuilder::new(arena, Kind::TEXT_NOTE, "line one\n\"two\"\t\u{1} é ✓")
        .public_key(&MENTION)
        .event(&REPLY_TO)
        .hashtag("NoStr")
        .identifier("slug")
        .custom("r", ["wss://relay.example", "read"])
        .expiration(1_900_000_000)
        .protected()
        .tag(["alt", "a note"])
        .created_at(1_700_000_000)
}

/// The same event through rust-nostr's builder.
fn peer_full(pubkey: PublicKey) -> UnsignedEvent {
    PeerBuilder::new(PeerKind::TextNote, "line one\n\"two\"\t\u{1} é ✓")
        .tags([
            PeerTag::public_key(PublicKey::from_slice(&MENTION).unwrap()),
            PeerTag::event(EventId::from_slice(&REPLY_TO).unwrap()),
            PeerTag::hashtag("NoStr"),
            PeerTag::identifier("slug"),
            PeerTag::parse(["r", "wss://relay.example", "read"]).unwrap(),
            PeerTag::expiration(Timestamp::from_secs(1_900_000_000)),
            PeerTag::protected(),
            PeerTag::parse(["alt", "a note"]).unwrap(),
        ])
        .custom_created_at(Timestamp::from_secs(1_700_000_000))
        .finalize_unsigned(pubkey)
}

#[test]
fn a_signed_event_is_one_rust_nostr_parses_and_verifies() {
    let keys = keypair(7);
    let arena = Arena::new();
    let event = full(&arena).sign(&keys);
    assert!(event.verify());
    assert_eq!(event.id_valid(), Some(true));
    let json = String::from_utf8(event.encode()).unwrap();

    let theirs = nostr::prelude::Event::from_json(&json).unwrap();
    theirs.verify().unwrap();
    assert_eq!(theirs.id.as_bytes(), event.id());
    assert_eq!(theirs.as_json(), json, "rust-nostr writes it back the same");

    // The id is the one rust-nostr's own builder computes.
    let pubkey = PublicKey::from_slice(&keys.x_only_public_key().0.serialize()).unwrap();
    let mut unsigned = peer_full(pubkey);
    unsigned.ensure_id();
    assert_eq!(unsigned.id.unwrap().as_bytes(), event.id());
    assert_eq!(theirs.tags, unsigned.tags);

    // quarry's decoder reads it back, equal, id checked.
    let other = Arena::new();
    let back = quarry_nostr::decode_event(&other, json.as_bytes()).unwrap();
    assert_eq!(back, event);
    assert!(back.verify_signature());
}

#[test]
fn tags_by_kind_are_the_peers_tags() {
    let arena = Arena::new();
    let event = full(&arena).build(&[1; 32]);
    let ours: Vec<Vec<&str>> = event.tags().iter().map(|t| t.iter().collect()).collect();
    let pubkey = PublicKey::from_slice(&keypair(7).x_only_public_key().0.serialize()).unwrap();
    let theirs: Vec<Vec<String>> = peer_full(pubkey)
        .tags
        .iter()
        .map(|t| t.as_slice().to_vec())
        .collect();
    assert_eq!(ours, theirs);
    assert_eq!(ours[2], ["t", "nostr"], "hashtags in lower case");
    assert_eq!(
        ours[0],
        [
            "p",
            "bfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbf"
        ]
    );
    assert_eq!(ours[5], ["expiration", "1900000000"]);
    assert_eq!(ours[6], ["-"]);
}

#[test]
fn an_unsigned_event_has_its_id_and_no_signature() {
    let arena = Arena::new();
    let event = EventBuilder::text_note(&arena, "hello")
        .created_at(1)
        .build(&keypair(3).x_only_public_key().0.serialize());
    assert_eq!(event.sig(), &[0; 64]);
    assert!(event.verify_id());
    assert!(!event.verify_signature());
    // Without created_at, the clock's time.
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let now = EventBuilder::text_note(&arena, "").build(&[1; 32]);
    assert!(now.created_at() >= before && now.created_at() <= before + 5);
    // An empty tag is not added: decoders refuse `[]`.
    let e = EventBuilder::text_note(&arena, "")
        .tag([])
        .created_at(1)
        .build(&[1; 32]);
    assert!(e.tags().is_empty());
}

#[test]
fn signing_is_deterministic_unless_given_randomness() {
    let keys = keypair(9);
    let (a, b) = (Arena::new(), Arena::new());
    let one = full(&a).sign(&keys);
    let two = full(&b).sign(&keys);
    assert_eq!(one.sig(), two.sig());
    let three = full(&b).sign_with_aux_rand(&keys, &[0x55; 32]);
    let four = full(&b).sign_with_aux_rand(&keys, &[0x56; 32]);
    assert_ne!(three.sig(), four.sig());
    assert!(three.verify() && four.verify());
    assert_eq!(three.id(), one.id());
}

#[test]
fn a_custom_kind_round_trips_through_the_peer() {
    // rust-nostr's `test_custom_kind`.
    let arena = Arena::new();
    let event = EventBuilder::new(&arena, 123, "my content").sign(&keypair(5));
    let theirs = nostr::prelude::Event::from_json(event.encode()).unwrap();
    assert_eq!(theirs.kind, PeerKind::Custom(123));
    assert_eq!(event.kind(), 123);
}

#[test]
fn build_sign_and_encode_allocate_a_counted_number_of_times() {
    let keys = keypair(7);
    // Warm the global context and the clock.
    let _ = full(&Arena::new()).sign(&keys);
    let mut arena = Arena::with_capacity(4096);
    let mut out = Vec::new();
    let (fresh, len) = quarry_testkit::count_allocs(|| {
        full(&arena).sign(&keys).encode_into(&mut out);
        out.len()
    });
    assert!(len > 0);
    // The output buffer's one reservation; the arena has room.
    assert_eq!(fresh, 1, "into an arena with room and an empty buffer");
    for _ in 0..3 {
        arena.reset();
        out.clear();
        let (reused, _) =
            quarry_testkit::count_allocs(|| full(&arena).sign(&keys).encode_into(&mut out));
        assert_eq!(reused, 0, "into a reset arena and a reused buffer");
    }
    // From nothing: the arena's one chunk (`EventBuilder::new` reserves
    // room for the whole event) and the buffer.
    let (from_nothing, _) = quarry_testkit::count_allocs(|| {
        let arena = Arena::new();
        let json = full(&arena).sign(&keys).encode();
        json.len()
    });
    assert_eq!(from_nothing, 2, "a new arena and a new buffer");
}

#[test]
fn the_peers_builder_and_tag_vectors() {
    // `round_trip`: an event signed with this key reads back equal.
    let secret = secp256k1::SecretKey::from_byte_array(&[
        0x6b, 0x91, 0x1f, 0xd3, 0x7c, 0xdf, 0x5c, 0x81, 0xd4, 0xc0, 0xad, 0xb1, 0xab, 0x7f, 0xa8,
        0x22, 0xed, 0x25, 0x3a, 0xb0, 0xad, 0x9a, 0xa1, 0x8d, 0x77, 0x25, 0x7c, 0x88, 0xb2, 0x9b,
        0x71, 0x8e,
    ])
    .unwrap();
    let keys = secp256k1::Keypair::from_secret_key(secp256k1::SECP256K1, &secret);
    let arena = Arena::new();
    let event = EventBuilder::new(&arena, Kind::TEXT_NOTE, "hello").sign(&keys);
    let json = event.encode();
    let other = Arena::new();
    assert_eq!(quarry_nostr::decode_event(&other, &json).unwrap(), event);
    // Tag contents: the value is element 1, whatever the name.
    let e = EventBuilder::text_note(&arena, "")
        .tag(["aaaaaa", "bbbbbb"])
        .tag([
            "custom-p",
            "f86c44a2de95d9149b51c6a29afeabba264c18e2fa7c49de93424a0c56947785",
        ])
        .custom("r", ["wss://atlas.nostr.land", ""])
        .build(&[1; 32]);
    let tags = e.tags();
    assert_eq!(tags.get(0).unwrap().value(), Some("bbbbbb"));
    assert_eq!(
        tags.get(1).unwrap().value(),
        Some("f86c44a2de95d9149b51c6a29afeabba264c18e2fa7c49de93424a0c56947785")
    );
    assert_eq!(
        tags.get(2).unwrap().iter().collect::<Vec<_>>(),
        ["r", "wss://atlas.nostr.land", ""]
    );
    // `test_deserialize_tag_from_event`: the first tag of the peer's kind-4
    // event is the public-key tag of 13adc511….
    let json = r#"{"content":"uRuvYr585B80L6rSJiHocw==?iv=oh6LVqdsYYol3JfFnXTbPA==","created_at":1640839235,"id":"2be17aa3031bdcb006f0fce80c146dea9c1c0268b0af2398bb673365c6444d45","kind":4,"pubkey":"f86c44a2de95d9149b51c6a29afeabba264c18e2fa7c49de93424a0c56947785","sig":"a5d9290ef9659083c490b303eb7ee41356d8778ff19f2f91776c8dc4443388a64ffcf336e61af4c25c05ac3ae952d1ced889ed655b67790891222aaa15b99fdd","tags":[["p","13adc511de7e1cfcf1c6b7f6365fb5a03442d7bcacf565ea57fa7770912c023d"]]}"#;
    let decoded = quarry_nostr::decode_event(&other, json.as_bytes()).unwrap();
    let built = EventBuilder::text_note(&arena, "")
        .public_key(&decoded.tags().get(0).unwrap().as_id(1).unwrap())
        .build(&[1; 32]);
    assert_eq!(decoded.tags().get(0), built.tags().get(0));
}
