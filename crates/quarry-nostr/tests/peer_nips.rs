//! rust-nostr 0.45's expectations on the NIP helpers (its `event`,
//! `event/tag/list.rs`, `nips/nip13`, `nips/nip40`, `nips/nip70` and
//! `message/relay.rs` tests), in quarry's vocabulary: the peer's input
//! events and its expected values.

use quarry_core::Arena;
use quarry_nostr::{
    Coordinate, Decoder, EventBuilder, IdCheck, Kind, MachineReadablePrefix as Prefix,
};

/// A text note with the protected tag `["-"]`.
const PROTECTED: &str = r#"{"id":"cb8feca582979d91fe90455867b34dbf4d65e4b86e86b3c68c368ca9f9eef6f2","pubkey":"79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798","created_at":1707409439,"kind":1,"tags":[["-"]],"content":"hello members of the secret group","sig":"fa163f5cfb75d77d9b6269011872ee22b34fb48d23251e9879bb1e4ccbdd8aaaf4b6dc5f5084a65ef42c52fbcde8f3178bac3ba207de827ec513a6aa39fa684c"}"#;
/// A kind-0 metadata event.
const METADATA: &str = r#"{"id":"8b19ce08cc0b20fd6c30e73b102fd3092c4f95f1c2a23d44064f9634b4593da5","pubkey":"2f35aaff0c870f0510a8bed198e1f8c35e95c996148f2d0c0fb1825b05b8dd35","created_at":1731251995,"kind":0,"tags":[],"content":"{\"name\":\"username\",\"display_name\":\"My Username\",\"about\":\"Description\",\"picture\":\"https://example.com/avatar.png\",\"banner\":\"https://example.com/banner.png\",\"nip05\":\"username@example.com\",\"lud16\":\"pay@yukikishimoto.com\"}","sig":"b26e4dfea18d4ecb072c665f9ed34b66d8dd9a45093790ea17cb618d85319587aa094f5c091efa3e237cd50976884e02c64c2f2b187c3ebdc4f773b2d74a61a4"}"#;
/// A kind-4 event with a `p` tag, not protected.
const DIRECT: &str = r#"{"content":"uRuvYr585B80L6rSJiHocw==?iv=oh6LVqdsYYol3JfFnXTbPA==","created_at":1640839235,"id":"2be17aa3031bdcb006f0fce80c146dea9c1c0268b0af2398bb673365c6444d45","kind":4,"pubkey":"f86c44a2de95d9149b51c6a29afeabba264c18e2fa7c49de93424a0c56947785","sig":"a5d9290ef9659083c490b303eb7ee41356d8778ff19f2f91776c8dc4443388a64ffcf336e61af4c25c05ac3ae952d1ced889ed655b67790891222aaa15b99fdd","tags":[["p","13adc511de7e1cfcf1c6b7f6365fb5a03442d7bcacf565ea57fa7770912c023d"]]}"#;
/// A kind-30000 event whose `d` is "1".
const FOLLOW_SET: &str = r#"{"id":"3dfdbb371de782f51812dc4809ea1104d80e143cec1091a4be07f518ef09e3d7","pubkey":"b8aef32a5421205c1f89ad09e2d93873df68a8611b247f62af005655eadc0efb","created_at":1728728536,"kind":30000,"sig":"0395c41fd95d52b534eaa29c82cd9437130cf63e67117b1587914375fdfb878137287a1d15653161f91ea919afb06358784217409a9ff0323261f683b2936829","content":"older_param_replaceable","tags":[["d","1"]]}"#;
/// A reaction whose `e` tag has five elements, and a `p` tag.
const REACTION: &str = r#"{
              "content": "+",
              "created_at": 1716508454,
              "id": "3e9e9c2fbf263590860a9c60a7de6b0d166230a5a15aa8dcdb70f537cec9807a",
              "kind": 7,
              "pubkey": "3bbddb5c7233ad993b41cb639e63122120f391b8580a9b83aae33c648230e0a3",
              "sig": "3f2ba6d713e4851500b81de2d2ef44b72f1eff061898bf8488e74f7e4ed141b0dadab4c3a9c6b237f3a6db83171bd41eafd7ab973f6fb067a4305e95abeadeee",
              "tags": [
                [
                  "e",
                  "e1e786c60ed884b6e784712aaf70e63b848b7403ef651b52b701d87739ea1808",
                  "",
                  "",
                  "04c915daefee38317fa734444acee390a8269fe5810b2241e5e6dd343dfbecc9"
                ],
                [
                  "p",
                  "04c915daefee38317fa734444acee390a8269fe5810b2241e5e6dd343dfbecc9"
                ]
              ]
            }"#;
/// Two events whose ids the peer verifies.
const VERIFIED: [&str; 2] = [
    r#"{"content":"","created_at":1698412975,"id":"f55c30722f056e330d8a7a6a9ba1522f7522c0f1ced1c93d78ea833c78a3d6ec","kind":3,"pubkey":"f831caf722214748c72db4829986bd0cbb2bb8b3aeade1c959624a52a9629046","sig":"5092a9ffaecdae7d7794706f085ff5852befdf79df424cc3419bb797bf515ae05d4f19404cb8324b8b4380a4bd497763ac7b0f3b1b63ef4d3baa17e5f5901808","tags":[["p","4ddeb9109a8cd29ba279a637f5ec344f2479ee07df1f4043f3fe26d8948cfef9","",""],["p","bb6fd06e156929649a73e6b278af5e648214a69d88943702f1fb627c02179b95","",""],["p","b8b8210f33888fdbf5cedee9edf13c3e9638612698fe6408aff8609059053420","",""],["p","9dcee4fabcd690dc1da9abdba94afebf82e1e7614f4ea92d61d52ef9cd74e083","",""],["p","3eea9e831fefdaa8df35187a204d82edb589a36b170955ac5ca6b88340befaa0","",""],["p","885238ab4568f271b572bf48b9d6f99fa07644731f288259bd395998ee24754e","",""],["p","568a25c71fba591e39bebe309794d5c15d27dbfa7114cacb9f3586ea1314d126","",""]]}"#,
    r#"{"content":"Think about this.\n\nThe most powerful centralized institutions in the world have been replaced by a protocol that protects the individual. #bitcoin\n\nDo you doubt that we can replace everything else?\n\nBullish on the future of humanity\nnostr:nevent1qqs9ljegkuk2m2ewfjlhxy054n6ld5dfngwzuep0ddhs64gc49q0nmqpzdmhxue69uhhyetvv9ukzcnvv5hx7un8qgsw3mfhnrr0l6ll5zzsrtpeufckv2lazc8k3ru5c3wkjtv8vlwngksrqsqqqqqpttgr27","created_at":1703184271,"id":"38acf9b08d06859e49237688a9fd6558c448766f47457236c2331f93538992c6","kind":1,"pubkey":"e8ed3798c6ffebffa08501ac39e271662bfd160f688f94c45d692d8767dd345a","sig":"f76d5ecc8e7de688ac12b9d19edaacdcffb8f0c8fa2a44c00767363af3f04dbc069542ddc5d2f63c94cb5e6ce701589d538cf2db3b1f1211a96596fabb6ecafe","tags":[["e","5fcb28b72cadab2e4cbf7311f4acf5f6d1a99a1c2e642f6b6f0d5518a940f9ec","","mention"],["p","e8ed3798c6ffebffa08501ac39e271662bfd160f688f94c45d692d8767dd345a","","mention"],["t","bitcoin"],["t","bitcoin"]]}"#,
];
/// An event with members NIP-01 does not name.
const UNKNOWN_MEMBERS: &str = r##"{
               "citedNotesCache": [],
               "citedUsersCache": [
                 "aac07d95089ce6adf08b9156d43c1a4ab594c6130b7dcb12ec199008c5819a2f"
               ],
               "content": "#JoininBox is a minimalistic, security focused Linux environment for #JoinMarket with a terminal based graphical menu.\n\nnostr:npub14tq8m9ggnnn2muytj9tdg0q6f26ef3snpd7ukyhvrxgq33vpnghs8shy62 👍🧡\n\nhttps://www.nobsbitcoin.com/joininbox-v0-8-0/",
               "created_at": 1687070234,
               "id": "c8acc12a232ea6caedfaaf0c52148635de6ffd312c3f432c6eca11720c102e54",
               "kind": 1,
               "pubkey": "27154fb873badf69c3ea83a0da6e65d6a150d2bf8f7320fc3314248d74645c64",
               "sig": "e27062b1b7187ffa0b521dab23fff6c6b62c00fd1b029e28368d7d070dfb225f7e598e3b1c6b1e2335b286ec3702492bce152035105b934f594cd7323d84f0ee",
               "tags": [["t","joininbox"],["t","joinmarket"],["p","aac07d95089ce6adf08b9156d43c1a4ab594c6130b7dcb12ec199008c5819a2f"]]
        }"##;

fn decode<'a>(arena: &'a Arena, json: &'a str) -> quarry_nostr::Event<'a> {
    // Some of the peer's vectors carry an id that is not the hash of their
    // content (the peer never checks): read with the verdict reported
    // (docs/nostr.md, "Deliberate differences").
    const REPORT: Decoder = Decoder {
        id_check: IdCheck::Report,
        ..Decoder::new()
    };
    REPORT.decode_event(arena, json.as_bytes()).unwrap()
}

#[test]
fn coordinates_of_replaceable_and_addressable_events() {
    let arena = Arena::new();
    assert!(
        decode(&arena, PROTECTED).coordinate().is_none(),
        "a text note"
    );
    let c = decode(&arena, METADATA).coordinate().unwrap();
    assert_eq!(c.kind, Kind::METADATA);
    assert_eq!(
        c.to_string(),
        "0:2f35aaff0c870f0510a8bed198e1f8c35e95c996148f2d0c0fb1825b05b8dd35:"
    );
    assert_eq!(c.identifier, "");
    let set = decode(&arena, FOLLOW_SET);
    assert_eq!(set.tags().identifier(), Some("1"));
    let c = set.coordinate().unwrap();
    assert_eq!((c.kind, c.identifier), (Kind(30000), "1"));
    assert_eq!(Coordinate::parse(&c.to_string()), Some(c));
}

#[test]
fn protected_events() {
    let arena = Arena::new();
    assert_eq!(decode(&arena, PROTECTED).id_valid(), Some(false));
    assert!(decode(&arena, PROTECTED).is_protected());
    assert!(!decode(&arena, DIRECT).is_protected());
    // A tag "-" with a value is not NIP-70's.
    let e = EventBuilder::text_note(&arena, "")
        .tag(["-", "x"])
        .build(&[1; 32]);
    assert!(!e.is_protected());
}

#[test]
fn tag_accessors() {
    let arena = Arena::new();
    let reaction = decode(&arena, REACTION);
    assert_eq!(reaction.tags().event_ids().count(), 1);
    assert_eq!(reaction.tags().public_keys().count(), 1);
    assert_eq!(
        reaction.tags().event_ids().next().unwrap()[..4],
        [0xe1, 0xe7, 0x86, 0xc6]
    );
    let unknown = decode(&arena, UNKNOWN_MEMBERS);
    assert_eq!(
        unknown.tags().hashtags().collect::<Vec<_>>(),
        ["joininbox", "joinmarket"]
    );
    // The peer's `test_collect`: identifiers 1..4, the one whose value is 3.
    let mut b = EventBuilder::text_note(&arena, "");
    for d in ["1", "2", "3", "4"] {
        b = b.identifier(d);
    }
    let e = b.build(&[1; 32]);
    let three: Vec<_> = e.tags().iter().filter(|t| t.value() == Some("3")).collect();
    assert_eq!(three.len(), 1);
    assert_eq!(e.tags().identifier(), Some("1"), "the first d tag");
    let auth = EventBuilder::new(&arena, Kind::AUTHENTICATION, "")
        .challenge("abc")
        .tag(["relay", "wss://r"])
        .build(&[1; 32]);
    assert_eq!(auth.tags().challenge(), Some("abc"));
    assert_eq!(e.tags().challenge(), None);
}

#[test]
fn expiration() {
    let arena = Arena::new();
    // The peer's nip40 vectors: a number, text, a missing value.
    for (tag, expected) in [
        (vec!["expiration", "1600000000"], Some(1_600_000_000)),
        (vec!["expiration", "hello"], None),
        (vec!["expiration"], None),
        (vec!["expiration", "-5"], None),
        (vec!["expiration", ""], None),
    ] {
        let e = EventBuilder::text_note(&arena, "")
            .tag(tag.iter().copied())
            .build(&[1; 32]);
        assert_eq!(e.tags().expiration(), expected, "{tag:?}");
    }
    // The peer's event tests: expired in the past, not in the future, not
    // without the tag.
    let past = EventBuilder::text_note(&arena, "my content")
        .expiration(1_600_000_000)
        .build(&[1; 32]);
    assert!(past.is_expired());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let future = EventBuilder::text_note(&arena, "my content")
        .expiration(now * 2)
        .build(&[1; 32]);
    assert!(!future.is_expired());
    let none = EventBuilder::text_note(&arena, "my content").build(&[1; 32]);
    assert!(!none.is_expired());
    // At the second itself it has not expired: the time must be past it.
    assert!(!past.is_expired_at(1_600_000_000));
    assert!(past.is_expired_at(1_600_000_001));
}

#[test]
fn leading_zero_bits_and_pow() {
    // The peer's nip13 vectors: the first hex digit of an otherwise all-f
    // hash, and the all-zero hash capped at 255.
    assert_eq!(quarry_nostr::leading_zero_bits(&[0; 32]), 255);
    for (digit, bits) in [
        (0x0, 4),
        (0x1, 3),
        (0x2, 2),
        (0x3, 2),
        (0x4, 1),
        (0x7, 1),
        (0x8, 0),
        (0xf, 0),
    ] {
        let mut hash = [0xff; 32];
        hash[0] = (digit << 4) | 0xf;
        assert_eq!(quarry_nostr::leading_zero_bits(&hash), bits, "{digit:x}");
    }
    let mut hash = [0xff; 32];
    hash[..2].copy_from_slice(&[0, 0x1f]);
    assert_eq!(quarry_nostr::leading_zero_bits(&hash), 11);
    // NIP-13's example id: 000006d8c378af1779d2feebc7603a125d99eca0ccf1085959b307f64e5dd358, 21 bits.
    let arena = Arena::new();
    let json = r#"{"id":"000006d8c378af1779d2feebc7603a125d99eca0ccf1085959b307f64e5dd358","pubkey":"a48380f4cfcc1ad5378294fcac36439770f9c878dd880ffa94bb74ea54a6f243","created_at":1651794653,"kind":1,"tags":[["nonce","776797","20"]],"content":"It's just me mining my own business","sig":"284622fc0a3f4f1303455d5175f7ba962a3300d136085b9566801bc2e0699de0c7e31e44c81fb40ad9049173742e904713c3594a1da0fc5d2382a25c11aba977"}"#;
    let e = decode(&arena, json);
    assert!(e.check_pow(21));
    assert!(!e.check_pow(22));
    assert!(e.verify());
}

#[test]
fn machine_readable_prefixes() {
    for (text, prefix, word) in [
        ("duplicate: have it", Prefix::Duplicate, "duplicate"),
        ("pow: difficulty 25>=24", Prefix::Pow, "pow"),
        ("blocked: you are banned", Prefix::Blocked, "blocked"),
        (
            "rate-limited: slow down",
            Prefix::RateLimited,
            "rate-limited",
        ),
        ("invalid: bad sig", Prefix::Invalid, "invalid"),
        ("error: could not connect", Prefix::Error, "error"),
        ("unsupported: NIP-50", Prefix::Unsupported, "unsupported"),
        (
            "auth-required: who are you",
            Prefix::AuthRequired,
            "auth-required",
        ),
        ("restricted: members only", Prefix::Restricted, "restricted"),
        ("busy:", Prefix::Custom("busy"), "busy"),
    ] {
        assert_eq!(Prefix::parse(text), Some(prefix), "{text}");
        assert_eq!(prefix.as_str(), word);
        assert_eq!(prefix.to_string(), word);
    }
    for text in ["", "stored", ": no word", "two words: no", "tab\tword: no"] {
        assert_eq!(Prefix::parse(text), None, "{text:?}");
    }
    let arena = Arena::new();
    let closed = br#"["CLOSED","random-subscription-id","auth-required: sign in"]"#;
    let msg = quarry_nostr::decode_relay_message(&arena, closed).unwrap();
    assert_eq!(msg.prefix(), Some(Prefix::AuthRequired));
    let notice = quarry_nostr::decode_relay_message(&arena, br#"["NOTICE","error: x"]"#).unwrap();
    assert_eq!(notice.prefix(), None, "only OK and CLOSED carry one");
}

#[test]
fn ids_the_peer_verifies_verify() {
    let arena = Arena::new();
    for json in VERIFIED {
        assert_eq!(decode(&arena, json).id_valid(), Some(true));
    }
}

#[test]
fn an_event_with_unknown_members_writes_back_without_them() {
    let arena = Arena::new();
    let e = decode(&arena, UNKNOWN_MEMBERS);
    let out = String::from_utf8(e.encode()).unwrap();
    assert!(out.starts_with(r##"{"id":"c8acc12a232ea6caedfaaf0c52148635de6ffd312c3f432c6eca11720c102e54","pubkey":"27154fb873badf69c3ea83a0da6e65d6a150d2bf8f7320fc3314248d74645c64","created_at":1687070234,"kind":1,"tags":[["t","joininbox"],["t","joinmarket"],["p","aac07d95089ce6adf08b9156d43c1a4ab594c6130b7dcb12ec199008c5819a2f"]],"content":"#JoininBox"##));
    assert!(!out.contains("citedNotesCache"));
}
