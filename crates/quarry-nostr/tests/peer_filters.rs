//! rust-nostr 0.45's expectations on filters (its `filter` module's
//! tests) in quarry's vocabulary: `FilterBuilder` for `Filter::new()…`,
//! `decode_filter` for `Filter::from_json`, `encode_into_as(…,
//! FilterLists::Sets)` for `as_json`; plus the peer parsing and writing
//! each filter quarry builds or reads.

use nostr::prelude::Filter as PeerFilter;
use quarry_core::Arena;
use quarry_nostr::{EventBuilder, Filter, FilterBuilder, FilterLists, Kind};

const ID: &str = "70b10f70c1318967eddf12527799411b1a9780ad9c43858f5e5fcd45486a13a5";
const PUBKEY: &str = "379e863e8357163b5bce5d2688dc4f1dcc2d505222fb8d74db600f30535dfdfe";

fn key(hex: &str) -> [u8; 32] {
    let mut out = [0; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

fn sets(f: Filter<'_>) -> String {
    let mut out = Vec::new();
    f.encode_into_as(&mut out, FilterLists::Sets);
    String::from_utf8(out).unwrap()
}

/// The JSON quarry writes for `f` is the JSON the peer writes for it.
fn peer_agrees(f: Filter<'_>) {
    let json = sets(f);
    let theirs = PeerFilter::from_json(&json).unwrap();
    assert_eq!(theirs.as_json(), json);
}

#[test]
fn kinds_concatenate_as_a_set() {
    let arena = Arena::new();
    let f = FilterBuilder::new(&arena)
        .kind(Kind::METADATA)
        .kind(Kind::TEXT_NOTE)
        .kind(Kind::CONTACT_LIST)
        .kinds([
            Kind::ENCRYPTED_DIRECT_MESSAGE,
            Kind::METADATA,
            Kind::LONG_FORM_TEXT_NOTE,
        ])
        .build();
    let g = FilterBuilder::new(&arena)
        .kinds([
            Kind::METADATA,
            Kind::TEXT_NOTE,
            Kind::CONTACT_LIST,
            Kind::ENCRYPTED_DIRECT_MESSAGE,
            Kind::LONG_FORM_TEXT_NOTE,
        ])
        .build();
    assert_eq!(f, g);
    assert_eq!(f.kinds(), Some(&[0u16, 1, 3, 4, 30023][..]));
    peer_agrees(f);
}

#[test]
fn empty_lists_are_written() {
    let arena = Arena::new();
    let f = FilterBuilder::new(&arena).authors([]).build();
    assert_eq!(sets(f), r#"{"authors":[]}"#);
    let f = FilterBuilder::new(&arena).pubkeys([]).build();
    assert_eq!(sets(f), r##"{"#p":[]}"##);
    peer_agrees(f);
}

#[test]
fn serialization() {
    let arena = Arena::new();
    let f = FilterBuilder::new(&arena)
        .identifier("identifier")
        .search("test")
        .custom_tag(b'j', "test1")
        .custom_tag(b'p', PUBKEY)
        .custom_tag(b'z', "rating")
        .build();
    let json = format!(
        r##"{{"search":"test","#d":["identifier"],"#j":["test1"],"#p":["{PUBKEY}"],"#z":["rating"]}}"##
    );
    assert_eq!(sets(f), json);
    assert_eq!(f.encode(), json.as_bytes(), "built in letter order already");
    let f = FilterBuilder::new(&arena).custom_tag(b'P', PUBKEY).build();
    assert_eq!(sets(f), format!(r##"{{"#P":["{PUBKEY}"]}}"##));
    peer_agrees(f);
}

#[test]
fn deserialization() {
    let arena = Arena::new();
    let json = format!(
        r##"{{"#a":["...", "test"],"#e":["{ID}"],"#p":["{PUBKEY}"],"search":"test","ids":["{ID}"]}}"##
    );
    let f = quarry_nostr::decode_filter(&arena, json.as_bytes()).unwrap();
    assert!(f.ids().unwrap().contains(&key(ID)));
    assert_eq!(f.search(), Some("test"));
    assert_eq!(f.tag_values(b'e'), Some(&[ID][..]));
    assert_eq!(f.tag_values(b'p'), Some(&[PUBKEY][..]));
    assert_eq!(f.tag_values(b'a'), Some(&["...", "test"][..]));
    let theirs = PeerFilter::from_json(&json).unwrap();
    assert_eq!(theirs.as_json(), sets(f));

    let search = FilterBuilder::new(&arena).search("test").build();
    for ignored in [
        r##"{"#":["..."],"search":"test"}"##,
        r##"{"aa":["..."],"search":"test"}"##,
        r##"{"#ab":["x"],"search":"test"}"##,
        r##"{"t":["x"],"search":"test"}"##,
        r##"{"":["x"],"search":"test"}"##,
    ] {
        let f = quarry_nostr::decode_filter(&arena, ignored.as_bytes()).unwrap();
        assert_eq!(f, search, "{ignored}");
    }
    for refused in [
        r##"{"#1":["x"]}"##,
        r##"{"#_":["x"]}"##,
        r##"{"# ":["x"]}"##,
        r###"{"##":["x"]}"###,
    ] {
        assert!(
            quarry_nostr::decode_filter(&arena, refused.as_bytes()).is_err(),
            "{refused}"
        );
        assert!(PeerFilter::from_json(refused).is_err());
    }
    let both = quarry_nostr::decode_filter(&arena, br##"{"#t":["x"],"#T":["y"]}"##).unwrap();
    assert_eq!(both.tag_lists().count(), 2);
    assert_eq!(sets(both), r##"{"#t":["x"],"#T":["y"]}"##);
}

#[test]
fn emptiness() {
    let arena = Arena::new();
    assert!(
        !FilterBuilder::new(&arena)
            .identifier("test")
            .build()
            .is_empty()
    );
    assert!(FilterBuilder::new(&arena).build().is_empty());
    assert!(
        quarry_nostr::decode_filter(&arena, b"{}")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn matching_events() {
    let arena = Arena::new();
    let p = key("b2d670de53b27691c0c3400225b65c35a26d06093bcc41f48ffc71e0907f9d4a");
    let e = key("7469af3be8c8e06e1b50ef1caceba30392ddc0b6614507398b7d7daa4c218e96");
    let author = key(PUBKEY);
    // The peer's event is made with an id of its choosing; quarry builds
    // it, so its id is its hash: the id conditions use that.
    let event = EventBuilder::text_note(&arena, "test")
        .public_key(&p)
        .event(&e)
        .created_at(1612809991)
        .build(&author);
    let bare = EventBuilder::text_note(&arena, "test")
        .created_at(1612809992)
        .build(&author);
    let id = *event.id();
    let f = |b: FilterBuilder<'_>| b.build().matches(event);
    let new = || FilterBuilder::new(&arena);
    assert!(f(new().id(&id)));
    assert!(!f(new().id(&id).kind(Kind::METADATA)));
    assert!(f(new()
        .author(&author)
        .kind(Kind::TEXT_NOTE)
        .since(1612808000)));
    assert!(!f(new()
        .author(&author)
        .kind(Kind::TEXT_NOTE)
        .since(1700000000)));
    assert!(f(new().pubkey(&p).kind(Kind::TEXT_NOTE)));
    assert!(f(new().pubkey(&p).event(&e)));
    assert!(f(new().events([&e, &key(ID)])));
    assert!(!f(new().events([&key(ID)])));
    let hashtag = new().hashtag("this-should-not-match").build();
    assert!(!hashtag.matches(event) && !hashtag.matches(bare));
    assert!(f(new().search("test")));
}

#[test]
fn search_matches_without_ascii_case() {
    let arena = Arena::new();
    let profile =
        EventBuilder::new(&arena, Kind::METADATA, r#"{"name":"Yuki Kishimoto"}"#).build(&[1; 32]);
    for q in ["Yuki kishi", "yuki kishimoto", ""] {
        assert!(
            FilterBuilder::new(&arena)
                .search(q)
                .build()
                .matches(profile),
            "{q}"
        );
    }
}

#[test]
fn tags_become_conditions() {
    let arena = Arena::new();
    let event = EventBuilder::text_note(&arena, "")
        .hashtag("rust")
        .hashtag("nostr")
        .tag(["i", "github:yukibtc", "69d9980b6e6b5d77a3e1e369ccaca9ba"])
        .expiration(0)
        .tag(["x"])
        .build(&[1; 32]);
    let tags = event.tags();
    let t = FilterBuilder::new(&arena).tag(tags.get(0).unwrap()).build();
    assert_eq!(
        t,
        FilterBuilder::new(&arena).custom_tag(b't', "rust").build()
    );
    assert_eq!(t, FilterBuilder::new(&arena).hashtag("rust").build());
    let i = FilterBuilder::new(&arena).tag(tags.get(2).unwrap()).build();
    assert_eq!(
        i,
        FilterBuilder::new(&arena)
            .custom_tag(b'i', "github:yukibtc")
            .build()
    );
    let both = FilterBuilder::new(&arena)
        .tag(tags.get(0).unwrap())
        .tag(tags.get(1).unwrap())
        .build();
    assert_eq!(
        both,
        FilterBuilder::new(&arena)
            .hashtags(["rust", "nostr"])
            .build()
    );
    assert!(
        FilterBuilder::new(&arena)
            .tag(tags.get(3).unwrap())
            .build()
            .is_empty()
    );
    assert!(
        FilterBuilder::new(&arena)
            .tag(tags.get(4).unwrap())
            .build()
            .is_empty()
    );
}

#[test]
fn a_bare_filter_counts_its_object_at_depth_one() {
    // serde_json's limit, 128, counts the outermost object: 127 levels pass.
    let arena = Arena::new();
    let nested = |n: usize| format!(r#"{{"x":{}1{}}}"#, "[".repeat(n), "]".repeat(n));
    assert!(quarry_nostr::decode_filter(&arena, nested(126).as_bytes()).is_ok());
    assert!(PeerFilter::from_json(nested(126)).is_ok());
    assert!(quarry_nostr::decode_filter(&arena, nested(127).as_bytes()).is_err());
    assert!(PeerFilter::from_json(nested(127)).is_err());
}
