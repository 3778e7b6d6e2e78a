//! A JID user that arrives packed stays packed: it must still compare, hash,
//! render and convert exactly like the same user given as text.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use quarry::Arena;
use quarry_wa::{Jid, Server, Value};

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut h = DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// `<iq jid=AD_JID(domain 0, device 3, user packed)/>`; token 25 is `iq`,
/// token 12 is `jid`.
fn ad_jid_stanza(packed_tag: u8, header: u8, packed: &[u8]) -> Vec<u8> {
    let mut v = vec![0xF8, 0x03, 25, 12, 0xF7, 0x00, 0x03, packed_tag, header];
    v.extend_from_slice(packed);
    v
}

fn decoded_jid<'a>(arena: &'a Arena, bytes: &'a [u8]) -> Jid<'a> {
    let node = quarry_wa::decode(arena, bytes).expect("valid stanza");
    match node.attr("jid") {
        Some(Value::Jid(jid)) => jid,
        other => panic!("expected a JID, got {other:?}"),
    }
}

#[test]
fn an_odd_nibble_packed_user_reads_as_its_digits() {
    // "5511999990000" is 13 digits: 7 bytes, odd flag, pad nibble F.
    let bytes = ad_jid_stanza(0xFF, 0x87, &[0x55, 0x11, 0x99, 0x99, 0x90, 0x00, 0x0F]);
    let arena = Arena::new();
    let jid = decoded_jid(&arena, &bytes);
    let text = Jid::new("5511999990000", Server::Pn).with_device(3);

    assert_eq!(jid.user(), "5511999990000");
    assert_eq!(jid.user().len(), 13);
    assert!(!jid.user().is_empty());
    assert_eq!(
        jid.user().as_str(),
        None,
        "a packed user has no borrowed text"
    );
    assert_eq!(jid.user().to_text(), "5511999990000");
    assert_eq!(jid.user().to_string(), "5511999990000");
    assert_eq!(jid, "5511999990000:3@s.whatsapp.net");
    assert_ne!(jid, "5511999990000:3@lid");
    assert_ne!(jid, "551199999000:3@s.whatsapp.net");
    assert_eq!(jid.to_string(), "5511999990000:3@s.whatsapp.net");
    assert_eq!(jid.rendered_len(), "5511999990000:3@s.whatsapp.net".len());
    assert_eq!(jid, text);
    assert_eq!(jid.user(), text.user());
    assert_eq!(hash_of(&jid), hash_of(&text));
    assert_eq!(hash_of(&jid.user()), hash_of(&text.user()));
    assert_ne!(jid, text.with_device(4));
}

#[test]
fn an_even_hex_packed_user_reads_as_upper_case_hex() {
    let bytes = ad_jid_stanza(0xFB, 0x02, &[0xAB, 0x0F]);
    let arena = Arena::new();
    let jid = decoded_jid(&arena, &bytes);
    assert_eq!(jid.user(), "AB0F");
    assert_eq!(jid.user().len(), 4);
    assert_eq!(jid, Jid::new("AB0F", Server::Pn).with_device(3));
    assert_eq!(jid, "AB0F:3@s.whatsapp.net");
}

#[test]
fn a_text_user_borrows_its_text() {
    let jid = Jid::new("alice", Server::Lid);
    assert_eq!(jid.user().as_str(), Some("alice"));
    assert_eq!(jid.user().len(), 5);
    assert_eq!(jid, "alice@lid");
}

#[test]
fn a_packed_user_in_tag_position_renders_to_text() {
    // <AD_JID(1, 0, packed "12")/> as a tag: rendered into the arena.
    let bytes = [0xF8, 0x01, 0xF7, 0x01, 0x00, 0xFF, 0x01, 0x12];
    let arena = Arena::new();
    let node = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(node.tag(), "12@lid");
}

#[test]
fn re_encoding_writes_a_packed_user_back_verbatim() {
    // A non-canonical pad nibble (odd flag with a 3 instead of F) survives
    // a re-encode byte for byte, since the packed bytes are written back.
    let bytes = ad_jid_stanza(0xFF, 0x81, &[0x13]);
    let arena = Arena::new();
    let node = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(node.attr("jid").unwrap(), "1:3@s.whatsapp.net");
    assert_eq!(quarry_wa::encode_view(node).unwrap(), bytes);
}
