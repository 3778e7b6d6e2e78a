//! Map fields with repeated keys: the last entry of each key wins, as in
//! protobuf and prost. Inputs are concatenations of prost-encoded messages
//! of one entry each (protobuf appends the entries of concatenated
//! messages), so a key repeats where a piece repeats it; the expectations
//! are prost's decode of the same bytes and values written out by hand.

use std::collections::HashMap;

use prost::Message as _;
use quarry_core::Arena;
use quarry_proto_tests::pb::{test2, test3};
use quarry_proto_tests::views::{quarry::test2::All2View, quarry::test3::All3View};

/// All2 with one `m_str_int` entry.
fn str_int(k: &str, v: i32) -> Vec<u8> {
    test2::All2 {
        m_str_int: HashMap::from([(k.to_owned(), v)]),
        ..Default::default()
    }
    .encode_to_vec()
}

/// All2 with one `m_int_msg` entry whose value has `id`.
fn int_msg(k: i64, id: i32) -> Vec<u8> {
    test2::All2 {
        m_int_msg: HashMap::from([(
            k,
            test2::Nested {
                id: Some(id),
                ..Default::default()
            },
        )]),
        ..Default::default()
    }
    .encode_to_vec()
}

/// All2 with one `m_bool_bytes` entry.
fn bool_bytes(k: bool, v: &[u8]) -> Vec<u8> {
    test2::All2 {
        m_bool_bytes: HashMap::from([(k, v.to_vec())]),
        ..Default::default()
    }
    .encode_to_vec()
}

/// All3 with one `m_str` entry.
fn str_str(k: &str, v: &str) -> Vec<u8> {
    test3::All3 {
        m_str: HashMap::from([(k.to_owned(), v.to_owned())]),
        ..Default::default()
    }
    .encode_to_vec()
}

/// All3 with one `m_inner` entry whose value has `text`.
fn sint_inner(k: i64, text: &str) -> Vec<u8> {
    test3::All3 {
        m_inner: HashMap::from([(
            k,
            test3::Inner {
                text: text.to_owned(),
                ..Default::default()
            },
        )]),
        ..Default::default()
    }
    .encode_to_vec()
}

/// The keys of an iteration, each once, else a panic naming the key.
fn assert_unique<K: std::hash::Hash + Eq + std::fmt::Debug + Copy>(keys: impl Iterator<Item = K>) {
    let mut seen = std::collections::HashSet::new();
    for k in keys {
        assert!(seen.insert(k), "key {k:?} yielded twice");
    }
}

#[test]
fn string_keys_scalar_values_last_entry_wins() {
    let bytes = [
        str_int("a", 1),
        str_int("b", 2),
        str_int("a", 3),
        str_int("c", 4),
        str_int("b", 5),
    ]
    .concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    // Each key once, in the order of its last entry.
    let got: Vec<(&str, i32)> = view.m_str_int().collect();
    assert_eq!(got, [("a", 3), ("c", 4), ("b", 5)]);
    assert_eq!(view.m_str_int().len(), 3);
    assert_eq!(view.m_str_int().get("a"), Some(3));
    assert_eq!(view.m_str_int().get("b"), Some(5));
    assert_eq!(view.m_str_int().get("c"), Some(4));
    assert_eq!(view.m_str_int().get("d"), None);
    assert_eq!(view.m_str_int().get(""), None);
    assert!(view.m_str_int().contains_key("a"));
    // prost's map of the same bytes.
    let theirs = test2::All2::decode(&bytes[..]).unwrap();
    assert_eq!(view.to_prost(), theirs);
    let ours: HashMap<String, i32> = view.m_str_int().map(|(k, v)| (k.to_owned(), v)).collect();
    assert_eq!(ours, theirs.m_str_int);
    // The encoder writes what the record holds: each key once, in the
    // order iterated, which is what prost reads back.
    let again = view.encode().unwrap();
    // (prost writes `f_required`, field 21, in every piece: 3 bytes.)
    let mut expect = str_int("a", 3);
    expect.extend(&str_int("c", 4)[3..]);
    expect.extend(&str_int("b", 5)[3..]);
    assert_eq!(again, expect);
}

#[test]
fn int_keys_message_values_replace_not_merge() {
    let bytes = [int_msg(7, 1), int_msg(-2, 2), int_msg(7, 3), int_msg(0, 4)].concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    let got: Vec<(i64, i32)> = view.m_int_msg().map(|(k, v)| (k, v.id())).collect();
    assert_eq!(got, [(-2, 2), (7, 3), (0, 4)]);
    assert_eq!(view.m_int_msg().get(7).map(|v| v.id()), Some(3));
    assert_eq!(view.m_int_msg().get(-2).map(|v| v.id()), Some(2));
    assert_eq!(view.m_int_msg().get(0).map(|v| v.id()), Some(4));
    assert!(view.m_int_msg().get(1).is_none());
    assert_eq!(
        view.to_prost().m_int_msg,
        test2::All2::decode(&bytes[..]).unwrap().m_int_msg
    );
}

#[test]
fn bool_keys_last_entry_wins() {
    let bytes = [
        bool_bytes(true, b"x"),
        bool_bytes(false, b""),
        bool_bytes(true, b"yz"),
        bool_bytes(false, b"w"),
    ]
    .concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    let got: Vec<(bool, &[u8])> = view.m_bool_bytes().collect();
    assert_eq!(got, [(true, &b"yz"[..]), (false, &b"w"[..])]);
    assert_eq!(view.m_bool_bytes().get(true), Some(&b"yz"[..]));
    assert_eq!(view.m_bool_bytes().get(false), Some(&b"w"[..]));
    assert_eq!(
        view.to_prost().m_bool_bytes,
        test2::All2::decode(&bytes[..]).unwrap().m_bool_bytes
    );
    // A bool key written as varint 2 is `true` too.
    let two = [0xA2, 0x03, 0x05, 0x08, 0x02, 0x12, 0x01, b'q'];
    let bytes = [bool_bytes(true, b"x"), two.to_vec()].concat();
    let view = All2View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.m_bool_bytes().collect::<Vec<_>>(), [(true, &b"q"[..])]);
}

#[test]
fn entries_without_key_or_value_take_defaults() {
    // m_str (field 50): an empty entry (key "", value ""), then "" -> "v".
    let empty = [0x92, 0x03, 0x00];
    let bytes = [empty.to_vec(), str_str("", "v"), str_str("k", "")].concat();
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.m_str().collect::<Vec<_>>(), [("", "v"), ("k", "")]);
    assert_eq!(view.m_str().get(""), Some("v"));
    assert_eq!(
        view.to_prost().m_str,
        test3::All3::decode(&bytes[..]).unwrap().m_str
    );
}

#[test]
fn maps_merged_from_several_occurrences_keep_one_entry_per_key() {
    // `child` (All3, field 90) twice: the occurrences merge, their map
    // entries are concatenated, and the later "a" and 5 win.
    let child = |m: Vec<u8>| {
        let mut out = vec![0xD2, 0x05];
        out.push(m.len() as u8);
        out.extend(m);
        out
    };
    let first = [str_str("a", "1"), str_str("b", "2"), sint_inner(5, "x")].concat();
    let second = [str_str("a", "3"), sint_inner(5, "y"), sint_inner(-5, "z")].concat();
    let bytes = [child(first), child(second)].concat();
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    let c = view.child().unwrap();
    assert_eq!(c.m_str().collect::<Vec<_>>(), [("b", "2"), ("a", "3")]);
    let inner: Vec<(i64, &str)> = c.m_inner().map(|(k, v)| (k, v.text())).collect();
    assert_eq!(inner, [(5, "y"), (-5, "z")]);
    assert_eq!(c.m_inner().get(5).map(|v| v.text()), Some("y"));
    assert_eq!(view.to_prost(), test3::All3::decode(&bytes[..]).unwrap());
}

#[test]
fn printers_show_each_key_once() {
    let bytes = [str_str("a", "1"), str_str("b", "2"), str_str("a", "3")].concat();
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.to_json().unwrap(), r#"{"mStr":{"a":"3","b":"2"}}"#);
    let text = format!("{view:#?}");
    assert_eq!(text.matches("key: \"a\"").count(), 1, "{text}");
    assert!(text.contains("value: \"3\""), "{text}");
    assert!(!text.contains("value: \"1\""), "{text}");
}

/// Maps of `n` entries over `keys` distinct keys, in a scrambled order
/// (or ascending), through every path of the de-duplication: pairwise,
/// already sorted, hashed on the stack and on the heap.
fn large_map_agrees(n: usize, keys: usize, ascending: bool) {
    let mut pieces = Vec::with_capacity(n);
    for i in 0..n {
        let k = if ascending {
            i % keys
        } else {
            (i.wrapping_mul(7919) ^ (i >> 3)) % keys
        };
        pieces.push(str_int(&format!("key{k:05}"), i as i32));
        pieces.push(int_msg(k as i64 - (keys as i64 / 2), i as i32));
    }
    let bytes = pieces.concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    let theirs = test2::All2::decode(&bytes[..]).unwrap();
    assert_unique(view.m_str_int().map(|(k, _)| k));
    assert_unique(view.m_int_msg().map(|(k, _)| k));
    assert_eq!(view.m_str_int().len(), theirs.m_str_int.len());
    assert_eq!(view.m_int_msg().len(), theirs.m_int_msg.len());
    assert_eq!(view.to_prost(), theirs);
    for (k, v) in &theirs.m_str_int {
        assert_eq!(view.m_str_int().get(k), Some(*v), "{k}");
    }
    for (k, v) in &theirs.m_int_msg {
        assert_eq!(view.m_int_msg().get(*k).map(|m| m.id()), v.id, "{k}");
    }
    assert_eq!(view.m_str_int().get("nope"), None);
    // Re-encoded: each key once, and prost reads the same map back.
    let again = view.encode().unwrap();
    let view2 = All2View::decode(&arena, &again).unwrap();
    assert_eq!(view2.m_str_int().len(), theirs.m_str_int.len());
    assert_eq!(test2::All2::decode(&again[..]).unwrap(), theirs);
}

#[test]
fn large_maps_agree_with_prost() {
    for (n, keys, ascending) in [
        (3, 2, false),
        (16, 5, false),
        (17, 17, true),
        (17, 17, false),
        (17, 9, true),
        (1000, 1000, false),
        (1000, 300, false),
        (1024, 1024, false),
        (1025, 1025, false),
        (3000, 1200, false),
        (3000, 3000, true),
    ] {
        large_map_agrees(n, keys, ascending);
    }
}
