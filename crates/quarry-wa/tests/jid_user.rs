//! A JID user that arrives packed stays packed: it must still compare, hash,
//! render and convert exactly like the same user given as text.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use quarry_core::Arena;
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
        jid.user().as_unpacked_str(),
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
    assert_eq!(jid.user().as_unpacked_str(), Some("alice"));
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
    assert_eq!(quarry_wa::encode(node).unwrap(), bytes);
}

/// The pad nibble of an odd-length packed user is dropped unread (as
/// wacore-binary drops it): users that differ only there are one user.
#[test]
fn odd_packed_users_differing_only_in_the_pad_nibble_are_equal() {
    let arena = Arena::new();
    let (one_0, one_f) = (
        ad_jid_stanza(0xFF, 0x81, &[0x10]),
        ad_jid_stanza(0xFF, 0x81, &[0x1F]),
    );
    let (a, b) = (decoded_jid(&arena, &one_0), decoded_jid(&arena, &one_f));
    let text = Jid::new("1", Server::Pn).with_device(3);
    assert_eq!(a.user(), "1");
    assert_eq!(b.user(), "1");
    assert_eq!(a, text);
    assert_eq!(b, text);
    assert_eq!(a.user(), b.user());
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
    assert_eq!(hash_of(&a.user()), hash_of(&b.user()));
}

mod wire_forms {
    use super::*;
    use proptest::prelude::*;

    /// NIBBLE_8's alphabet (nibbles 0..=11) and HEX_8's, from the spec.
    const NIBBLE_ALPHABET: &[u8] = b"0123456789-.";
    const HEX_ALPHABET: &[u8] = b"0123456789ABCDEF";

    /// A user as the wire may carry it: its alphabet, its characters as
    /// nibble values, and the pad nibble an odd length ends with (any
    /// nibble the decoder accepts: not 12..=14 for NIBBLE_8).
    #[derive(Clone, Debug)]
    struct Wire {
        nibble: bool,
        nibbles: Vec<u8>,
        pad: u8,
    }

    impl Wire {
        fn text(&self) -> String {
            let alphabet = if self.nibble {
                NIBBLE_ALPHABET
            } else {
                HEX_ALPHABET
            };
            self.nibbles
                .iter()
                .map(|&n| char::from(alphabet[usize::from(n)]))
                .collect()
        }

        fn stanza(&self) -> Vec<u8> {
            let odd = self.nibbles.len() % 2 == 1;
            let packed: Vec<u8> = self
                .nibbles
                .chunks(2)
                .map(|pair| pair[0] << 4 | pair.get(1).copied().unwrap_or(self.pad))
                .collect();
            let header = packed.len() as u8 | if odd { 0x80 } else { 0 };
            ad_jid_stanza(if self.nibble { 0xFF } else { 0xFB }, header, &packed)
        }
    }

    fn wire(nibble: bool) -> impl Strategy<Value = Wire> {
        let top = if nibble { 11u8 } else { 15 };
        let pads = if nibble {
            prop::sample::select(vec![0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15]).boxed()
        } else {
            (0u8..=15).boxed()
        };
        (prop::collection::vec(0..=top, 1..24), pads).prop_map(move |(nibbles, pad)| Wire {
            nibble,
            nibbles,
            pad,
        })
    }

    /// Two wire users, often the same characters under other pads or the
    /// other alphabet, so equal pairs are common.
    fn pair() -> impl Strategy<Value = (Wire, Wire)> {
        (any::<bool>(), any::<bool>())
            .prop_flat_map(|(n1, n2)| (wire(n1), wire(n2), any::<bool>(), 0u8..=15))
            .prop_map(|(a, mut b, same, pad)| {
                if same {
                    // Same characters where both alphabets have them.
                    let shared = a.nibbles.iter().all(|&n| n <= 9) || a.nibble == b.nibble;
                    if shared {
                        b.nibbles = a.nibbles.clone();
                    }
                    if !b.nibble || !(12..=14).contains(&pad) {
                        b.pad = pad;
                    }
                }
                (a, b)
            })
    }

    proptest! {
        // Miri (CI runs this file under it) interprets every case: a few
        // there, the default number natively.
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 8 } else { 256 },
            ..ProptestConfig::default()
        })]

        #[test]
        fn equality_and_hashing_follow_the_text((a, b) in pair()) {
            let arena = Arena::new();
            let (sa, sb) = (a.stanza(), b.stanza());
            let (ja, jb) = (decoded_jid(&arena, &sa), decoded_jid(&arena, &sb));
            let (ta, tb) = (a.text(), b.text());
            let (xa, xb) = (Jid::new(&ta, Server::Pn).with_device(3), Jid::new(&tb, Server::Pn).with_device(3));
            // Each wire user is its text.
            prop_assert_eq!(ja.user(), ta.as_str());
            prop_assert_eq!(ja, xa);
            prop_assert_eq!(hash_of(&ja), hash_of(&xa));
            prop_assert_eq!(hash_of(&ja.user()), hash_of(&xa.user()));
            prop_assert_eq!(jb, xb);
            prop_assert_eq!(hash_of(&jb), hash_of(&xb));
            // Reflexive, symmetric, and equal exactly when the texts are.
            prop_assert_eq!(ja, ja);
            prop_assert_eq!(ja == jb, ta == tb);
            prop_assert_eq!(jb == ja, ta == tb);
            prop_assert_eq!(ja.user() == jb.user(), ta == tb);
            prop_assert_eq!(ja == xb, ta == tb);
            if ja == jb {
                prop_assert_eq!(hash_of(&ja), hash_of(&jb));
                prop_assert_eq!(hash_of(&ja.user()), hash_of(&jb.user()));
            }
        }
    }
}

/// The decoder writes each attribute record where its value is read, into
/// memory it set aside uninitialized (CI runs this file under Miri for
/// that): every kind of value reads back whole, next to the others, and a
/// list that fails part way leaves nothing half-read behind for the next
/// decode into the same arena.
#[test]
fn attribute_records_of_every_value_kind_read_back_whole() {
    let dict = quarry_wa::Dictionary::v3();
    let t = |s| match dict.lookup(s) {
        Some(quarry_wa::Token::Single(b)) => b,
        _ => unreachable!("{s} is a single-byte token"),
    };
    let mut bytes = vec![0xF8, 17, t("iq")];
    // type="get": a token value.
    bytes.extend([t("type"), t("get")]);
    // to="": LIST_EMPTY.
    bytes.extend([t("to"), 0x00]);
    // from=JID_PAIR("12", g.us).
    bytes.extend([t("from"), 0xFA, 0xFF, 0x01, 0x12, t("g.us")]);
    // participant=AD_JID(lid, device 7, "345").
    bytes.extend([t("participant"), 0xF7, 0x01, 0x07, 0xFF, 0x82, 0x34, 0x5F]);
    // id=HEX_8 "3EB0" (two bytes).
    bytes.extend([t("id"), 0xFB, 0x02, 0x3E, 0xB0]);
    // t=NIBBLE_8 "1733000123" (five bytes, the 16-byte block path).
    bytes.extend([t("t"), 0xFF, 0x05, 0x17, 0x33, 0x00, 0x01, 0x23]);
    // notify=BINARY_8 "João".
    bytes.extend([t("notify"), 0xFC, 0x05]);
    bytes.extend("João".as_bytes());
    // value=NIBBLE_8 "7" (one byte, odd).
    bytes.extend([t("value"), 0xFF, 0x81, 0x7F]);

    let mut arena = Arena::new();
    {
        let node = quarry_wa::decode(&arena, &bytes).expect("valid stanza");
        let attrs: Vec<(String, String)> = node
            .attrs()
            .iter()
            .map(|(k, v)| (k.to_owned(), v.to_string()))
            .collect();
        let want = [
            ("type", "get"),
            ("to", ""),
            ("from", "12@g.us"),
            ("participant", "345:7@lid"),
            ("id", "3EB0"),
            ("t", "1733000123"),
            ("notify", "João"),
            ("value", "7"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(attrs, want);
        assert!(matches!(node.attr("from"), Some(Value::Jid(_))));
        assert!(matches!(node.attr("participant"), Some(Value::Jid(_))));
    }

    // The fourth value is a JID_PAIR whose server byte names no server:
    // the decode fails there, after three records were written.
    let mut bad = bytes.clone();
    let at = 3 + 2 + 2 + 5;
    assert_eq!(bad[at], t("g.us"));
    bad[at] = t("type");
    arena.reset();
    let err = quarry_wa::decode(&arena, &bad).unwrap_err();
    assert_eq!(err.offset(), at);
    arena.reset();
    let node = quarry_wa::decode(&arena, &bytes).expect("valid stanza");
    assert_eq!(node.attrs().len(), 8);
    assert_eq!(node.attr("from").unwrap(), "12@g.us");
}
