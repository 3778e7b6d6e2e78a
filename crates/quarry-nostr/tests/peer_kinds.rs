//! rust-nostr 0.45's expectations on kinds (`event/kind.rs` tests), in
//! quarry's vocabulary: a `Kind` is a number with names and classes.

use quarry_nostr::Kind;

#[test]
fn named_kinds_are_their_numbers() {
    assert_eq!(Kind(20100), Kind::from(20100));
    assert_eq!(Kind::TEXT_NOTE, Kind(1));
    assert_eq!(Kind(30017), Kind::SET_STALL);
    assert_eq!(Kind(30018), Kind::SET_PRODUCT);
    assert_ne!(Kind(20100), Kind(2000));
    assert_ne!(Kind::AUTHENTICATION, Kind::ENCRYPTED_DIRECT_MESSAGE);
    assert_ne!(Kind::TEXT_NOTE, Kind(2));
    // NIP-01's, NIP-02's, NIP-42's and NIP-65's numbers.
    for (kind, n) in [
        (Kind::METADATA, 0),
        (Kind::CONTACT_LIST, 3),
        (Kind::EVENT_DELETION, 5),
        (Kind::REPOST, 6),
        (Kind::REACTION, 7),
        (Kind::RELAY_LIST, 10002),
        (Kind::AUTHENTICATION, 22242),
        (Kind::LONG_FORM_TEXT_NOTE, 30023),
    ] {
        assert_eq!(kind.as_u16(), n);
        assert_eq!(u16::from(kind), n);
        assert_eq!(kind, n);
    }
}

#[test]
fn kinds_parse_and_print_as_decimal_numbers() {
    assert_eq!("0".parse::<Kind>().unwrap(), Kind::METADATA);
    assert_eq!("1".parse::<Kind>().unwrap(), Kind::TEXT_NOTE);
    assert_eq!("1621".parse::<Kind>().unwrap(), Kind(1621));
    assert_eq!("20100".parse::<Kind>().unwrap(), Kind(20100));
    assert!("65536".parse::<Kind>().is_err());
    assert!("-1".parse::<Kind>().is_err());
    assert_eq!(Kind::METADATA.to_string(), "0");
}

#[test]
fn classes_without_an_event() {
    assert!(Kind(32122).is_addressable());
    assert!(!Kind::TEXT_NOTE.is_addressable());
    // The edges of NIP-01's ranges.
    let class = |k: u16| {
        let k = Kind(k);
        (
            k.is_regular(),
            k.is_replaceable(),
            k.is_ephemeral(),
            k.is_addressable(),
        )
    };
    for (k, expected) in [
        (0, (false, true, false, false)),
        (1, (true, false, false, false)),
        (2, (true, false, false, false)),
        (3, (false, true, false, false)),
        (4, (true, false, false, false)),
        (44, (true, false, false, false)),
        (45, (false, false, false, false)),
        (999, (false, false, false, false)),
        (1000, (true, false, false, false)),
        (9999, (true, false, false, false)),
        (10000, (false, true, false, false)),
        (19999, (false, true, false, false)),
        (20000, (false, false, true, false)),
        (29999, (false, false, true, false)),
        (30000, (false, false, false, true)),
        (39999, (false, false, false, true)),
        (40000, (false, false, false, false)),
        (65535, (false, false, false, false)),
    ] {
        assert_eq!(class(k), expected, "kind {k}");
    }
}

#[test]
fn where_the_classes_differ_from_the_peers() {
    // docs/nostr.md, "Deliberate differences": rust-nostr calls every kind
    // below 10,000 that it does not call replaceable regular, and calls
    // channel metadata (41) replaceable; NIP-01 puts 41 in the regular
    // range and 45 to 999 in none.
    let peer = |k: u16| nostr::event::Kind::from_u16(k);
    assert!(peer(41).is_replaceable() && !Kind(41).is_replaceable());
    assert!(Kind(41).is_regular());
    assert!(peer(500).is_regular() && !Kind(500).is_regular());
    // Everywhere else they agree.
    for k in (0..=u16::MAX).filter(|&k| k != 41 && !(45..1000).contains(&k)) {
        let ours = Kind(k);
        let theirs = peer(k);
        assert_eq!(ours.is_regular(), theirs.is_regular(), "{k}");
        assert_eq!(ours.is_replaceable(), theirs.is_replaceable(), "{k}");
        assert_eq!(ours.is_ephemeral(), theirs.is_ephemeral(), "{k}");
        assert_eq!(ours.is_addressable(), theirs.is_addressable(), "{k}");
    }
}

#[test]
fn every_named_kind_has_the_peers_number() {
    // Each of quarry's names, and rust-nostr's variant of that name.
    let pairs = [
        (Kind::METADATA, nostr::event::Kind::Metadata),
        (Kind::TEXT_NOTE, nostr::event::Kind::TextNote),
        (Kind::CONTACT_LIST, nostr::event::Kind::ContactList),
        (
            Kind::ENCRYPTED_DIRECT_MESSAGE,
            nostr::event::Kind::EncryptedDirectMessage,
        ),
        (Kind::EVENT_DELETION, nostr::event::Kind::EventDeletion),
        (Kind::REPOST, nostr::event::Kind::Repost),
        (Kind::REACTION, nostr::event::Kind::Reaction),
        (Kind::CHANNEL_METADATA, nostr::event::Kind::ChannelMetadata),
        (Kind::SEAL, nostr::event::Kind::Seal),
        (Kind::GIFT_WRAP, nostr::event::Kind::GiftWrap),
        (Kind::ZAP_RECEIPT, nostr::event::Kind::ZapReceipt),
        (Kind::MUTE_LIST, nostr::event::Kind::MuteList),
        (Kind::RELAY_LIST, nostr::event::Kind::RelayList),
        (Kind::AUTHENTICATION, nostr::event::Kind::Authentication),
        (Kind::NOSTR_CONNECT, nostr::event::Kind::NostrConnect),
        (
            Kind::LONG_FORM_TEXT_NOTE,
            nostr::event::Kind::LongFormTextNote,
        ),
        (Kind::RELAY_DISCOVERY, nostr::event::Kind::RelayDiscovery),
    ];
    for (ours, theirs) in pairs {
        assert_eq!(ours.as_u16(), theirs.as_u16(), "{theirs:?}");
    }
}
