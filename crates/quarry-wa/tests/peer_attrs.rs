//! The attribute expectations of `wacore-binary` 0.7's unit tests, held
//! by quarry's one [`AttrParser`] over a built node and over the same node
//! decoded. Values and expected results are the peer's; the code is
//! quarry's.

use quarry_core::Arena;
use quarry_wa::{AttrError, AttrParser, Jid, OwnedNode, Server, Value};

fn sample() -> OwnedNode {
    OwnedNode::new("message")
        .attr("from", "5511999998888@s.whatsapp.net")
        .attr("bad_jid", "@@@")
        .attr("t", "1700000000")
        .attr("bad_t", "not-a-number")
}

/// Run `check` on the parser of the built node and of it encoded and
/// decoded again.
fn both(node: &OwnedNode, check: impl for<'x> Fn(&(dyn Fn() -> AttrParser<'x> + 'x))) {
    check(&|| node.attr_parser());
    let bytes = quarry_wa::encode(node).unwrap();
    let arena = Arena::new();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    check(&|| view.attr_parser());
}

#[test]
fn required_readers_report_missing_and_invalid_apart() {
    both(&sample(), |parser| {
        let mut p = parser();
        assert_eq!(p.jid("from").user(), "5511999998888");
        assert_eq!(p.unix_time("t"), 1_700_000_000);
        assert!(p.ok());

        let mut p = parser();
        assert_eq!(p.jid("nope"), Jid::new("", Server::Pn));
        assert_eq!(p.errors(), [AttrError::Missing("nope".into())]);
        let mut p = parser();
        assert_eq!(p.unix_time("nope"), 0);
        assert_eq!(p.errors(), [AttrError::Missing("nope".into())]);

        let mut p = parser();
        assert_eq!(p.jid("bad_jid"), Jid::new("", Server::Pn));
        assert!(matches!(
            p.errors(),
            [AttrError::Invalid { key, value, expected: "JID" }] if key == "bad_jid" && value == "@@@"
        ));
        let mut p = parser();
        assert_eq!(p.unix_time("bad_t"), 0);
        assert!(matches!(p.errors(), [AttrError::Invalid { key, .. }] if key == "bad_t"));
        assert!(p.finish().is_err());
    });
}

#[test]
fn result_readers_fail_without_recording() {
    both(&sample(), |parser| {
        let mut p = parser();
        assert_eq!(p.required_string("t").unwrap(), "1700000000");
        assert_eq!(
            p.required_string("nope"),
            Err(AttrError::Missing("nope".into()))
        );
        assert_eq!(p.required_jid("from").unwrap(), Jid::pn("5511999998888"));
        assert_eq!(
            p.required_jid("nope"),
            Err(AttrError::Missing("nope".into()))
        );
        assert!(matches!(
            p.required_jid("bad_jid"),
            Err(AttrError::Invalid { .. })
        ));
        assert_eq!(p.optional_jid_result("nope"), Ok(None));
        assert!(p.optional_jid_result("bad_jid").is_err());
        assert_eq!(p.required_u64("t"), Ok(1_700_000_000));
        assert!(matches!(
            p.required_u64("bad_t"),
            Err(AttrError::Invalid { .. })
        ));
        assert!(p.ok(), "Result readers record nothing: {:?}", p.errors());
    });
}

#[test]
fn booleans_take_the_wire_spellings() {
    let truthy = ["1", "true", "True", "t", "T", "TRUE"];
    let falsy = ["0", "false", "False", "f", "F", "FALSE"];
    let bad = ["", "yes", "no", "2", "on", "off"];
    for (spellings, want) in [(&truthy, Some(true)), (&falsy, Some(false)), (&bad, None)] {
        for text in spellings {
            let node = OwnedNode::new("iq").attr("flag", *text);
            both(&node, |parser| {
                let mut p = parser();
                assert_eq!(p.optional_bool_value("flag"), want, "{text:?}");
                assert_eq!(p.ok(), want.is_some(), "{text:?}");
                let mut p = parser();
                assert_eq!(p.optional_bool("flag"), want.unwrap_or(false), "{text:?}");
                let mut p = parser();
                assert_eq!(p.bool("flag"), want.unwrap_or(false), "{text:?}");
            });
        }
    }
    // Absent: optional is false with no error, required records one.
    let node = OwnedNode::new("iq");
    both(&node, |parser| {
        let mut p = parser();
        assert_eq!(p.optional_bool_value("flag"), None);
        assert!(!p.optional_bool("flag"));
        assert!(p.ok());
        assert!(!p.bool("flag"));
        assert!(!p.ok());
    });
}

#[test]
fn a_jid_value_compares_as_its_rendered_form() {
    let jids = [
        "s.whatsapp.net",
        "5511999998888@s.whatsapp.net",
        "5511999998888:7@s.whatsapp.net",
        "5511999998888.2@s.whatsapp.net",
        "120363012345678901@g.us",
        "123456789012345@lid",
        "123456789012345:9@lid",
        "123456789.4:17@interop",
        "status@broadcast",
        "12345.6@hosted.lid",
    ];
    let needles = [
        "s.whatsapp.net",
        "5511999998888@s.whatsapp.net",
        "5511999998888:7@s.whatsapp.net",
        "123456789012345@lid",
        "",
        "not-a-jid",
    ];
    for text in jids {
        let jid = Value::Jid(Jid::parse(text).unwrap());
        let as_text = Value::Str(text);
        for needle in needles {
            assert_eq!(
                jid.as_str() == needle,
                jid == needle,
                "{text:?} vs {needle:?}"
            );
            assert_eq!(
                as_text.as_str() == needle,
                as_text == needle,
                "{text:?} vs {needle:?}"
            );
        }
    }
    let server_only = Value::Jid(Jid::new("", Server::Pn));
    assert!(server_only == "s.whatsapp.net");
    assert!(server_only != "5511999998888@s.whatsapp.net");

    let text = Value::Str("encrypt");
    assert!(text == "encrypt" && text != "other");
    let jid = Value::Jid(Jid::pn_device("12025550111", 7));
    assert!(jid == "12025550111:7@s.whatsapp.net");
    assert!(jid != "12025550111@s.whatsapp.net");
    assert_eq!(jid.to_jid(), Some(Jid::pn_device("12025550111", 7)));
    assert_eq!(
        Value::Str("12025550111:7@s.whatsapp.net").to_jid(),
        Some(Jid::pn_device("12025550111", 7))
    );
    assert_eq!(text.to_jid(), None);
    assert_eq!(text.as_plain_str(), Some("encrypt"));
    assert_eq!(jid.as_plain_str(), None);
}
