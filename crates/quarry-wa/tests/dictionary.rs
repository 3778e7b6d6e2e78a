//! quarry's v3 token dictionary against the one inside `wacore-binary` 0.7,
//! index by index, and the reverse lookup against both tables.

use quarry_wa::{Dictionary, Token};
use wacore_binary::token::{get_double_token, get_single_token};

#[test]
fn single_tokens_equal_the_peers_index_by_index() {
    let dict = Dictionary::v3();
    // Index 0 is the placeholder that LIST_EMPTY shadows: the peer stores ""
    // there, quarry reports no token. Neither decoder ever reads it.
    assert_eq!(get_single_token(0), Some(""));
    assert_eq!(dict.single(0), None);
    for index in 1..=255u8 {
        assert_eq!(
            dict.single(index),
            get_single_token(index),
            "single-byte token {index}"
        );
    }
    // The same Some/None pattern: 1..=235 are tokens, 236.. are not.
    assert!((1..=235u8).all(|i| dict.single(i).is_some()));
    assert!((236..=255u8).all(|i| dict.single(i).is_none()));
}

#[test]
fn double_tokens_equal_the_peers_index_by_index() {
    let dict = Dictionary::v3();
    for table in 0..=4u8 {
        for index in 0..=255u8 {
            assert_eq!(
                dict.double(table, index),
                get_double_token(table, index),
                "double-byte token {table}/{index}"
            );
        }
    }
    assert!((0..4u8).all(|t| (0..=255u8).all(|i| dict.double(t, i).is_some())));
    assert!((0..=255u8).all(|i| dict.double(4, i).is_none()));
}

#[test]
fn lookup_maps_every_token_back_to_its_code() {
    let dict = Dictionary::v3();
    let mut seen = std::collections::HashSet::new();
    for index in 1..=235u8 {
        let token = get_single_token(index).unwrap();
        assert!(seen.insert(token), "token {token:?} repeats");
        assert_eq!(dict.lookup(token), Some(Token::Single(index)), "{token:?}");
    }
    for table in 0..4u8 {
        for index in 0..=255u8 {
            let token = get_double_token(table, index).unwrap();
            assert!(seen.insert(token), "token {token:?} repeats");
            assert_eq!(
                dict.lookup(token),
                Some(Token::Double(table, index)),
                "{token:?}"
            );
        }
    }
    assert_eq!(seen.len(), 235 + 4 * 256);
}

#[test]
fn lookup_agrees_with_the_peers_reverse_index() {
    use wacore_binary::token::{TokenKind, index_of_token};
    let dict = Dictionary::v3();
    let probes = [
        "",
        "message",
        "s.whatsapp.net",
        "Message",
        "message ",
        "not-a-token",
        "g.us",
        "0",
        "1",
        "xmlstreamend",
    ];
    for probe in probes {
        let peer = index_of_token(probe).map(|kind| match kind {
            TokenKind::Single(i) => Token::Single(i),
            TokenKind::Double(d, i) => Token::Double(d, i),
        });
        assert_eq!(dict.lookup(probe), peer, "{probe:?}");
    }
}

#[test]
fn spec_facts_about_the_table_hold() {
    // wabinary spec section 4: tokens are ASCII, NUL-free, at most 48 bytes,
    // index 9 = notification, index 19 = message (the 2025-era ordering).
    let dict = Dictionary::v3();
    assert_eq!(dict.single(9), Some("notification"));
    assert_eq!(dict.single(19), Some("message"));
    assert_eq!(dict.single(3), Some("s.whatsapp.net"));
    let all = (1..=235u8)
        .filter_map(|i| dict.single(i))
        .chain((0..4u8).flat_map(|t| (0..=255u8).filter_map(move |i| dict.double(t, i))));
    let mut longest = 0;
    for token in all {
        assert!(!token.is_empty());
        assert!(token.bytes().all(|b| b.is_ascii() && b != 0), "{token:?}");
        longest = longest.max(token.len());
    }
    assert_eq!(longest, 48);
}

/// A JID's server slot read through the dictionary in use: every
/// single-byte token that spells one of the twelve servers decodes, in the
/// v3 table and in a reordered one, and any other token is refused at its
/// offset.
#[test]
fn the_server_slot_follows_the_dictionary_in_use() {
    use quarry_core::Arena;
    use quarry_wa::{Decoder, Server};

    // <message to=JID_PAIR(no user, server token)/>: F8 03 <message> <to> FA 00 <server>
    let bytes_for = |dict: &Dictionary, server: u8| {
        let t = |s| match dict.lookup(s) {
            Some(Token::Single(b)) => b,
            other => panic!("{s}: {other:?}"),
        };
        vec![0xF8, 3, t("message"), t("to"), 0xFA, 0x00, server]
    };
    // The v3 table with "s.whatsapp.net" and "message" swapped.
    static SWAPPED: std::sync::LazyLock<[&'static str; 236]> = std::sync::LazyLock::new(|| {
        let v3 = Dictionary::v3();
        let mut single = [""; 236];
        for (i, slot) in single.iter_mut().enumerate().skip(1) {
            *slot = v3.single(i as u8).unwrap();
        }
        let (a, b) = (
            single.iter().position(|&s| s == "s.whatsapp.net").unwrap(),
            single.iter().position(|&s| s == "message").unwrap(),
        );
        single.swap(a, b);
        single
    });
    static DOUBLE: std::sync::LazyLock<[[&'static str; 256]; 4]> = std::sync::LazyLock::new(|| {
        std::array::from_fn(|t| {
            std::array::from_fn(|i| Dictionary::v3().double(t as u8, i as u8).unwrap())
        })
    });
    let swapped: &'static Dictionary =
        Box::leak(Box::new(Dictionary::from_tables(&SWAPPED, &DOUBLE)));
    for dict in [Dictionary::v3(), swapped] {
        let decoder = Decoder {
            dictionary: dict,
            ..Decoder::new()
        };
        let mut servers = Vec::new();
        for byte in 1..=235u8 {
            let token = dict.single(byte).unwrap();
            let arena = Arena::new();
            let input = bytes_for(dict, byte);
            match (Server::from_name(token), decoder.decode(&arena, &input)) {
                (Some(server), Ok(node)) => {
                    let jid = node.attr("to").and_then(|v| v.as_jid()).unwrap();
                    assert_eq!(jid.server(), server, "{token}");
                    // An empty user: the JID is its server alone.
                    assert_eq!(jid.to_string(), token);
                    servers.push(server);
                }
                (None, Err(err)) => assert_eq!(
                    err.to_string(),
                    format!(
                        "unexpected byte {byte:#04x} (not one of the twelve JID servers) at byte 6"
                    ),
                    "{token}"
                ),
                (want, got) => panic!("{token}: {want:?} but {got:?}"),
            }
        }
        // Every server whose name is a single-byte token, once.
        let single = Server::ALL
            .iter()
            .filter(|s| matches!(dict.lookup(s.as_str()), Some(Token::Single(_))))
            .count();
        assert!(
            single >= 4,
            "s.whatsapp.net, lid, g.us and broadcast at least"
        );
        assert_eq!(servers.len(), single);
    }
}
