//! Every truncation of valid events and messages is an error with an
//! offset inside the input, never a panic.

mod common;

use quarry_core::{Arena, DecodeError};

fn inputs() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = (0..common::SHAPES.len())
        .map(|i| common::relay_event(&common::shape(i, 0)))
        .collect();
    v.push(common::shape(5, 1).as_json().into_bytes());
    v.push(format!(r#"["EVENT",{}]"#, common::shape(2, 0).as_json()).into_bytes());
    let id = "ab".repeat(32);
    for m in [
        format!(r#"["OK","{id}",true,"duplicate: already have it"]"#),
        r#"["EOSE","sub1"]"#.to_string(),
        r#"["CLOSED","sub1","error: \u00e9\ud83e\udd80"]"#.to_string(),
        r#"["NOTICE","hi"]"#.to_string(),
        r#"["AUTH","challenge"]"#.to_string(),
        r#"["COUNT","s",{"count":12,"approximate":true,"hll":"00ff"}]"#.to_string(),
        format!(
            r##"["REQ","s",{{"ids":["{id}"],"kinds":[1,7],"#e":["x"],"since":1,"until":2,"limit":3,"search":"q"}},{{}}]"##
        ),
        r#"["CLOSE","sub1"]"#.to_string(),
    ] {
        v.push(m.into_bytes());
    }
    v
}

#[test]
fn every_truncation_is_an_error_within_the_input() {
    let arena = Arena::new();
    for input in inputs() {
        assert!(
            quarry_nostr::decode_message(&arena, &input).is_ok()
                || quarry_nostr::decode_event(&arena, &input).is_ok()
        );
        for cut in 0..input.len() {
            let part = &input[..cut];
            for r in [
                quarry_nostr::decode_message(&arena, part).map(|_| ()),
                quarry_nostr::decode_relay_message(&arena, part).map(|_| ()),
                quarry_nostr::decode_client_message(&arena, part).map(|_| ()),
                quarry_nostr::decode_event(&arena, part).map(|_| ()),
            ] {
                let e = r.expect_err("a truncated input decoded");
                assert!(e.offset() <= cut, "{e} for a {cut}-byte prefix");
            }
        }
    }
}

#[test]
fn a_cut_inside_a_value_reports_the_end_of_input() {
    let json = common::valid_event();
    let arena = Arena::new();
    // Cut in the middle of the content string: the string never closes.
    let cut = json.find("\"content\":\"").unwrap() + 14;
    let e = quarry_nostr::decode_event(&arena, &json.as_bytes()[..cut]).unwrap_err();
    assert_eq!(e, DecodeError::UnexpectedEof { offset: cut });
}
