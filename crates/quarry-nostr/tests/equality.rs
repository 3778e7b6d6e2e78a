//! Views compare by value: the same event or message written differently
//! (whitespace, member order, escapes, hex case) and decoded into another
//! arena is equal; a change in any one member is not.

use quarry_core::Arena;
use quarry_nostr::{ClientMessage, Decoder, IdCheck, Message, SAMPLE_EVENT};

/// Ids are not checked, so members can change without re-signing.
const LAX: Decoder = Decoder {
    id_check: IdCheck::Skip,
    ..Decoder::new()
};

/// `SAMPLE_EVENT` with its members reordered, spaced, its hex upper-case
/// and its content's `n`s escaped: the same event, other bytes.
fn rewritten() -> String {
    let (_, rest) = SAMPLE_EVENT.split_once(r#""content":"#).unwrap();
    let (content, rest) = rest.split_once(r#","sig":"#).unwrap();
    let sig = rest.trim_end_matches('}');
    let head = &SAMPLE_EVENT[1..SAMPLE_EVENT.find(r#","content""#).unwrap()];
    let content = content.replace('n', "\\u006e");
    format!(
        "{{ \"sig\" : {} , \"content\":{content}, {} }}",
        sig.to_uppercase(),
        head.replace(",\"kind\"", " ,\n\"kind\"")
    )
}

#[test]
fn the_same_event_written_otherwise_is_equal() {
    let other = rewritten();
    assert_ne!(other.as_bytes(), SAMPLE_EVENT.as_bytes());
    let (one, two) = (Arena::new(), Arena::new());
    let a = quarry_nostr::decode_event(&one, SAMPLE_EVENT.as_bytes()).unwrap();
    let b = quarry_nostr::decode_event(&two, other.as_bytes()).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.tags(), b.tags());
    assert_ne!(a.raw(), b.raw());
}

#[test]
fn a_change_in_any_member_is_unequal() {
    let arena = Arena::new();
    let a = LAX.decode_event(&arena, SAMPLE_EVENT.as_bytes()).unwrap();
    let changes = [
        ("id", "10a841dc", "10a841dd"),
        ("pubkey", "989c0b76", "989c0b77"),
        ("sig", "531b4834", "531b4835"),
        ("created_at", "1673347337", "1673347338"),
        ("kind", r#""kind":1"#, r#""kind":2"#),
        ("content", "Walled", "walled"),
        ("tag name", r#"["e","#, r#"["q","#),
        ("tag value", r#""3da97944"#, r#""3da97945"#),
        (
            "extra tag element",
            r#"5526bce"]"#,
            r#"5526bce","wss://r"]"#,
        ),
        (
            "one tag fewer",
            r#"],["p","bf2376e17ba4ec269d10fcc996a4746b451152be9031fa48e74553dde5526bce"]]"#,
            "]]",
        ),
    ];
    for (what, from, to) in changes {
        assert!(SAMPLE_EVENT.contains(from), "{what}");
        let changed = SAMPLE_EVENT.replacen(from, to, 1);
        let other = Arena::new();
        let b = LAX.decode_event(&other, changed.as_bytes()).unwrap();
        assert_ne!(a, b, "{what}");
        assert_ne!(b, a, "{what}");
    }
}

#[test]
fn messages_and_filters_compare_by_value() {
    let req = br##"["REQ","s",{"kinds":[1,7],"#t":["a"],"limit":5},{"authors":[]}]"##;
    let spaced = br##"[ "REQ" , "s" , { "limit" : 5 , "kinds" : [ 1 , 7 ] , "#t" : [ "\u0061" ] } , { "authors" : [ ] } ]"##;
    let (one, two) = (Arena::new(), Arena::new());
    let a = quarry_nostr::decode_client_message(&one, req).unwrap();
    let b = quarry_nostr::decode_client_message(&two, spaced).unwrap();
    assert_eq!(a, b);
    assert_eq!(Message::Client(a), Message::Client(b));

    let others: [&[u8]; 6] = [
        br##"["REQ","t",{"kinds":[1,7],"#t":["a"],"limit":5},{"authors":[]}]"##,
        br##"["REQ","s",{"kinds":[7,1],"#t":["a"],"limit":5},{"authors":[]}]"##,
        br##"["REQ","s",{"kinds":[1,7],"#t":["b"],"limit":5},{"authors":[]}]"##,
        br##"["REQ","s",{"kinds":[1,7],"#t":["a"],"limit":6},{"authors":[]}]"##,
        br##"["REQ","s",{"kinds":[1,7],"#t":["a"],"limit":5}]"##,
        br##"["COUNT","s",{"kinds":[1,7],"#t":["a"],"limit":5},{"authors":[]}]"##,
    ];
    for other in others {
        let arena = Arena::new();
        let c = quarry_nostr::decode_client_message(&arena, other).unwrap();
        assert_ne!(a, c, "{}", String::from_utf8_lossy(other));
    }
    let (ClientMessage::Req { filters: x, .. }, ClientMessage::Req { filters: y, .. }) = (a, b)
    else {
        panic!("both are REQ");
    };
    assert_eq!(x.get(0), y.get(0));
    assert_ne!(x.get(0), x.get(1));
}
