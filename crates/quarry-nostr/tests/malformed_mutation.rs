//! Random byte mutations of valid events and messages: every result is
//! either a decode or a typed error inside the input, never a panic. An
//! accepted mutation of an event with the default decoder must still have
//! a matching id (the hash is over what was decoded).

mod common;

use proptest::prelude::*;
use quarry_core::Arena;
use quarry_nostr::{Decoder, IdCheck};

fn seeds() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = (0..common::SHAPES.len())
        .map(|i| common::relay_event(&common::shape(i, 9)))
        .collect();
    v.push(br##"["REQ","s",{"kinds":[1],"#p":["a","b"],"limit":1},{"authors":[]}]"##.to_vec());
    v.push(br#"["COUNT","s",{"count":1,"hll":"ab"}]"#.to_vec());
    v
}

#[derive(Debug, Clone)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = bytes.len().max(1);
        match *e {
            Edit::Set(i, b) => {
                if !bytes.is_empty() {
                    bytes[i % n] = b;
                }
            }
            Edit::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
            Edit::Delete(i) => {
                if !bytes.is_empty() {
                    bytes.remove(i % n);
                }
            }
        }
    }
    bytes
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![
        any::<u8>(),
        prop::sample::select(b"\"\\[]{},:0123456789abcdefu -.eE\n\x00\x7f\xc3\xff".to_vec()),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Delete),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn mutations_never_panic(which in 0usize..8, edits in prop::collection::vec(edit(), 1..4)) {
        let seeds = seeds();
        let input = apply(seeds[which % seeds.len()].clone(), &edits);
        let arena = Arena::new();
        let report = Decoder { id_check: IdCheck::Report, ..Decoder::new() };
        for r in [
            quarry_nostr::decode_message(&arena, &input).map(|m| m.event().map(|e| e.id_valid())),
            report.decode_message(&arena, &input).map(|m| m.event().map(|e| e.id_valid())),
            quarry_nostr::decode_relay_message(&arena, &input).map(|m| m.event().map(|e| e.id_valid())),
            quarry_nostr::decode_client_message(&arena, &input).map(|m| m.event().map(|e| e.id_valid())),
        ] {
            match r {
                Ok(_) => {}
                Err(e) => prop_assert!(e.offset() <= input.len()),
            }
        }
        if let Ok(m) = quarry_nostr::decode_message(&arena, &input)
            && let Some(event) = m.event()
        {
            prop_assert_eq!(event.id_valid(), Some(true));
            prop_assert!(event.verify_id());
        }
    }
}
