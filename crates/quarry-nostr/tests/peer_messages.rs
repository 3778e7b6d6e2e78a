//! rust-nostr 0.45's expectations on relay messages (its
//! `message/relay.rs` tests) in quarry's vocabulary: the peer's inputs,
//! what it accepts and refuses, and the fields it reads.

use quarry_core::Arena;
use quarry_nostr::{Decoder, IdCheck, RelayMessage};

/// The peer's sample event ("fresh off the wire"); read with the id's
/// verdict reported, which is valid.
const SAMPLE: &str = r#"{"id":"70b10f70c1318967eddf12527799411b1a9780ad9c43858f5e5fcd45486a13a5","pubkey":"379e863e8357163b5bce5d2688dc4f1dcc2d505222fb8d74db600f30535dfdfe","created_at":1612809991,"kind":1,"tags":[],"content":"test","sig":"273a9cd5d11455590f4359500bccb7a89428262b96b3ea87a756b770964472f8c3e87f5d5e64d8d2e859a71462a3f477b554565c4f2f326cb01dd7620db71502"}"#;

const REPORT: Decoder = Decoder {
    id_check: IdCheck::Report,
    ..Decoder::new()
};

fn relay<'a>(
    arena: &'a Arena,
    json: &'a str,
) -> Result<RelayMessage<'a>, quarry_core::DecodeError> {
    REPORT.decode_relay_message(arena, json.as_bytes())
}

fn hex32(s: &str) -> [u8; 32] {
    let mut out = [0; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

#[test]
fn notices() {
    let arena = Arena::new();
    assert_eq!(
        relay(&arena, r#"["NOTICE","Invalid event format!"]"#).unwrap(),
        RelayMessage::Notice {
            message: "Invalid event format!"
        }
    );
    assert!(relay(&arena, r#"["NOTICE"]"#).is_err());
    assert!(relay(&arena, r#"["NOTICE": 404]"#).is_err());
}

#[test]
fn closed() {
    let arena = Arena::new();
    assert_eq!(
        relay(&arena, r#"["CLOSED","random-subscription-id","reason"]"#).unwrap(),
        RelayMessage::Closed {
            sub_id: "random-subscription-id",
            message: "reason"
        }
    );
    for bad in [
        r#"["CLOSED"]"#,
        r#"["CLOSED", 404, "reason"]"#,
        r#"["CLOSED", "random-subscription-id", 404]"#,
    ] {
        assert!(relay(&arena, bad).is_err(), "{bad}");
    }
}

#[test]
fn events() {
    let arena = Arena::new();
    let json = format!(r#"["EVENT", "random_string", {SAMPLE}]"#);
    let RelayMessage::Event { sub_id, event } = relay(&arena, &json).unwrap() else {
        panic!("an EVENT");
    };
    assert_eq!(sub_id, "random_string");
    assert_eq!(
        event.id(),
        &hex32("70b10f70c1318967eddf12527799411b1a9780ad9c43858f5e5fcd45486a13a5")
    );
    assert_eq!(
        event.pubkey(),
        &hex32("379e863e8357163b5bce5d2688dc4f1dcc2d505222fb8d74db600f30535dfdfe")
    );
    assert_eq!(
        (event.created_at(), event.kind(), event.content()),
        (1612809991, 1, "test")
    );
    assert!(event.tags().is_empty());
    assert_eq!(event.id_valid(), Some(true));
    assert!(event.verify_signature());

    // A real event, which verifies.
    let real = r#"["EVENT","bf7da933d6c6d67e5c97f94f17cf8762",{"content":"Think about this.\n\nThe most powerful centralized institutions in the world have been replaced by a protocol that protects the individual. #bitcoin\n\nDo you doubt that we can replace everything else?\n\nBullish on the future of humanity\nnostr:nevent1qqs9ljegkuk2m2ewfjlhxy054n6ld5dfngwzuep0ddhs64gc49q0nmqpzdmhxue69uhhyetvv9ukzcnvv5hx7un8qgsw3mfhnrr0l6ll5zzsrtpeufckv2lazc8k3ru5c3wkjtv8vlwngksrqsqqqqqpttgr27","created_at":1703184271,"id":"38acf9b08d06859e49237688a9fd6558c448766f47457236c2331f93538992c6","kind":1,"pubkey":"e8ed3798c6ffebffa08501ac39e271662bfd160f688f94c45d692d8767dd345a","sig":"f76d5ecc8e7de688ac12b9d19edaacdcffb8f0c8fa2a44c00767363af3f04dbc069542ddc5d2f63c94cb5e6ce701589d538cf2db3b1f1211a96596fabb6ecafe","tags":[["e","5fcb28b72cadab2e4cbf7311f4acf5f6d1a99a1c2e642f6b6f0d5518a940f9ec","","mention"],["p","e8ed3798c6ffebffa08501ac39e271662bfd160f688f94c45d692d8767dd345a","","mention"],["t","bitcoin"],["t","bitcoin"]]}]"#;
    let msg = quarry_nostr::decode_relay_message(&arena, real.as_bytes()).unwrap();
    assert!(msg.event().unwrap().verify());

    assert!(relay(&arena, r#"["EVENT", "random_string"]"#).is_err());
    let partial = r#"["EVENT", "random_string", {"id":"70b10f70c1318967eddf12527799411b1a9780ad9c43858f5e5fcd45486a13a5","pubkey":"379e863e8357163b5bce5d2688dc4f1dcc2d505222fb8d74db600f30535dfdfe"}]"#;
    assert!(relay(&arena, partial).is_err());
}

#[test]
fn eose() {
    let arena = Arena::new();
    assert_eq!(
        relay(&arena, r#"["EOSE","random-subscription-id"]"#).unwrap(),
        RelayMessage::Eose {
            sub_id: "random-subscription-id"
        }
    );
    assert!(relay(&arena, r#"["EOSE"]"#).is_err());
    assert!(relay(&arena, r#"["EOSE", 404]"#).is_err());
    // NIP-67's trailing element.
    assert_eq!(
        relay(&arena, r#"["EOSE", "sub", ["finish"]]"#).unwrap(),
        RelayMessage::Eose { sub_id: "sub" }
    );
}

#[test]
fn ok() {
    let arena = Arena::new();
    let id = "b1a649ebe8b435ec71d3784793f3bbf4b93e64e17568a741aecd4c7ddeafce30";
    assert_eq!(
        relay(
            &arena,
            &format!(r#"["OK", "{id}", true, "pow: difficulty 25>=24"]"#)
        )
        .unwrap(),
        RelayMessage::Ok {
            event_id: hex32(id),
            accepted: true,
            message: "pow: difficulty 25>=24"
        }
    );
    for bad in [
        format!(r#"["OK", "{id}"]"#),
        r#"["OK", "b1a649ebe8b435ec71d3784793f3bbf4b93e64e17568a741aecd4c7dde", true, ""]"#
            .to_owned(),
        format!(r#"["OK", "{id}", hello, ""]"#),
        format!(r#"["OK", "{id}", hello, 404]"#),
    ] {
        assert!(relay(&arena, &bad).is_err(), "{bad}");
    }
}

#[test]
fn trailing_elements_are_ignored() {
    let arena = Arena::new();
    assert_eq!(
        relay(&arena, r#"["NOTICE","hi","extra"]"#).unwrap(),
        RelayMessage::Notice { message: "hi" }
    );
    assert_eq!(
        relay(&arena, r#"["CLOSED","sub","reason",{"a":1}]"#).unwrap(),
        RelayMessage::Closed {
            sub_id: "sub",
            message: "reason"
        }
    );
    let RelayMessage::Count { sub_id, count, .. } =
        relay(&arena, r#"["COUNT","sub",{"count":7},"extra"]"#).unwrap()
    else {
        panic!("a COUNT");
    };
    assert_eq!((sub_id, count), ("sub", 7));
    assert_eq!(
        relay(&arena, r#"["AUTH","challenge",1,2,3]"#).unwrap(),
        RelayMessage::Auth {
            challenge: "challenge"
        }
    );
}

#[test]
fn every_variant_round_trips() {
    let arena = Arena::new();
    let id = "70b10f70c1318967eddf12527799411b1a9780ad9c43858f5e5fcd45486a13a5";
    for json in [
        format!(r#"["EVENT","sub",{SAMPLE}]"#),
        r#"["NOTICE","a \"quoted\" notice"]"#.to_owned(),
        r#"["CLOSED","sub","duplicate: have this already"]"#.to_owned(),
        r#"["EOSE","sub"]"#.to_owned(),
        format!(r#"["OK","{id}",true,""]"#),
        format!(r#"["OK","{id}",false,"blocked: no"]"#),
        r#"["AUTH","challenge"]"#.to_owned(),
        r#"["COUNT","sub",{"count":42}]"#.to_owned(),
        r#"["NEG-MSG","sub","deadbeef"]"#.to_owned(),
        r#"["NEG-ERR","sub","RESULTS_TOO_BIG"]"#.to_owned(),
    ] {
        let msg = relay(&arena, &json).unwrap();
        let out = String::from_utf8(msg.encode()).unwrap();
        assert_eq!(out, json, "written back as the peer writes it");
        let other = Arena::new();
        assert_eq!(relay(&other, &out).unwrap(), msg, "{json}");
    }
}

#[test]
fn unknown_verbs_and_non_arrays_are_refused() {
    let arena = Arena::new();
    for json in [
        r#"["NOT-A-REAL-TYPE","x"]"#,
        r#"{"type":"NOTICE"}"#,
        r#""NOTICE""#,
        r#"[]"#,
    ] {
        assert!(relay(&arena, json).is_err(), "{json}");
    }
}

#[test]
fn an_event_message_embeds_the_event_as_it_writes_alone() {
    let arena = Arena::new();
    let json = format!(r#"["EVENT","sub",{SAMPLE}]"#);
    let msg = relay(&arena, &json).unwrap();
    let alone = msg.event().unwrap().encode();
    let whole = msg.encode();
    assert!(whole.windows(alone.len()).any(|w| w == alone));
}

// rust-nostr's `message/client.rs` tests.

fn client<'a>(
    arena: &'a Arena,
    json: &'a str,
) -> Result<quarry_nostr::ClientMessage<'a>, quarry_core::DecodeError> {
    REPORT.decode_client_message(arena, json.as_bytes())
}

#[test]
fn client_reqs_write_as_the_peer_writes_them() {
    let arena = Arena::new();
    let pk = "379e863e8357163b5bce5d2688dc4f1dcc2d505222fb8d74db600f30535dfdfe";
    for json in [
        format!(r##"["REQ","test",{{"#p":["{pk}"]}}]"##),
        r##"["REQ","test",{"kinds":[22]}]"##.to_owned(),
    ] {
        let msg = client(&arena, &json).unwrap();
        assert_eq!(String::from_utf8(msg.encode()).unwrap(), json);
    }
    // The filter built rather than read.
    let f = quarry_nostr::FilterBuilder::new(&arena)
        .pubkey(&hex32(pk))
        .build();
    let mut out = br#"["REQ","test","#.to_vec();
    f.encode_into_as(&mut out, quarry_nostr::FilterLists::Sets);
    out.push(b']');
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!(r##"["REQ","test",{{"#p":["{pk}"]}}]"##)
    );
}

#[test]
fn client_trailing_elements_are_ignored() {
    use quarry_nostr::ClientMessage;
    let arena = Arena::new();
    // COUNT's trailing "extra" is a difference: quarry reads every element
    // after the subscription id as a filter (docs/nostr.md).
    assert!(client(&arena, r#"["COUNT","sub",{"kinds":[1]},"extra"]"#).is_err());
    assert_eq!(
        client(&arena, r#"["CLOSE","sub",{"extra":true}]"#).unwrap(),
        ClientMessage::Close { sub_id: "sub" }
    );
    assert_eq!(
        client(&arena, r#"["NEG-MSG","sub","deadbeef",1,2]"#).unwrap(),
        ClientMessage::NegMsg {
            sub_id: "sub",
            message: "deadbeef"
        }
    );
}

#[test]
fn every_client_variant_round_trips() {
    let arena = Arena::new();
    let pk = "379e863e8357163b5bce5d2688dc4f1dcc2d505222fb8d74db600f30535dfdfe";
    for json in [
        format!(r#"["EVENT",{SAMPLE}]"#),
        format!(r#"["REQ","sub",{{"kinds":[1]}},{{"authors":["{pk}"]}}]"#),
        r#"["COUNT","sub",{"kinds":[1]}]"#.to_owned(),
        r#"["CLOSE","sub"]"#.to_owned(),
        format!(r#"["AUTH",{SAMPLE}]"#),
        r#"["NEG-OPEN","sub",{"kinds":[1]},"deadbeef"]"#.to_owned(),
        r#"["NEG-MSG","sub","deadbeef"]"#.to_owned(),
        r#"["NEG-CLOSE","sub"]"#.to_owned(),
    ] {
        let msg = client(&arena, &json).unwrap();
        let out = String::from_utf8(msg.encode()).unwrap();
        assert_eq!(out, json);
        let other = Arena::new();
        assert_eq!(client(&other, &out).unwrap(), msg, "{json}");
    }
}

#[test]
fn client_unknown_verbs_and_non_arrays_are_refused() {
    let arena = Arena::new();
    for json in [
        r#"["NOT-A-REAL-TYPE","x"]"#,
        r#"{"type":"EVENT"}"#,
        r#""EVENT""#,
        r#"[]"#,
        r#"["REQ","sub"]"#,
        r#"["NEG-OPEN","sub",{},16,"deadbeef"]"#,
    ] {
        assert!(client(&arena, json).is_err(), "{json}");
    }
}
