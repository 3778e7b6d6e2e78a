//! Records and generated views compare by value. prost is the reference:
//! inputs prost reads as equal messages decode to equal records (from
//! different arenas, and from different wire forms of one message), and a
//! change prost sees anywhere in the message makes them unequal.

use prost::Message as _;
use quarry_core::Arena;
use quarry_proto_tests::pb::whatsapp as pb;
use quarry_proto_tests::samples;
use quarry_proto_tests::wa::{HistorySyncView, MessageView};

fn view<'a>(arena: &'a Arena, wire: &'a [u8]) -> MessageView<'a> {
    MessageView::decode(arena, wire).expect("the sample decodes")
}

#[test]
fn one_message_from_two_arenas_is_equal() {
    let wire = samples::text_reply_quoted().encode_to_vec();
    let copy = wire.clone();
    let (one, two) = (Arena::new(), Arena::new());
    let (a, b) = (view(&one, &wire), view(&two, &copy));
    assert_eq!(a, b);
    assert_eq!(a.record(), b.record());

    let history = samples::history_sync(3, 4).encode_to_vec();
    let (x, y) = (
        HistorySyncView::decode(&one, &history).unwrap(),
        HistorySyncView::decode(&two, &history).unwrap(),
    );
    assert_eq!(x, y);
}

#[test]
fn a_merged_wire_form_equals_the_message_prost_merges_it_to() {
    // Two halves of one message, concatenated: protobuf merges them, and
    // prost's own reading of the concatenation is the expectation.
    let mut first = samples::text_reply_quoted();
    let second = pb::Message {
        conversation: first.conversation.take().or(Some("second half".into())),
        ..Default::default()
    };
    let mut concatenated = first.encode_to_vec();
    concatenated.extend(second.encode_to_vec());
    let merged = pb::Message::decode(&concatenated[..]).unwrap();
    let whole = merged.encode_to_vec();
    assert_ne!(whole, concatenated);

    let (one, two) = (Arena::new(), Arena::new());
    assert_eq!(view(&one, &concatenated), view(&two, &whole));
}

/// The sample's context (it has one).
fn context(m: &mut pb::Message) -> &mut pb::ContextInfo {
    let ext = m.extended_text_message.as_mut().unwrap();
    ext.context_info.as_mut().unwrap()
}

#[test]
fn a_change_anywhere_is_unequal() {
    let base = samples::text_reply_quoted();
    let wire = base.encode_to_vec();
    let arena = Arena::new();
    let a = view(&arena, &wire);

    type Change = fn(&mut pb::Message);
    let changes: [(&str, Change); 5] = [
        ("text", |m| {
            let ext = m.extended_text_message.as_mut().unwrap();
            ext.text = Some("Sounds good, see you at nine tonight!".into());
        }),
        ("participant", |m| {
            let ctx = context(m);
            ctx.participant = Some("5511999990001@s.whatsapp.net".into());
        }),
        ("quoted conversation, two levels down", |m| {
            let ctx = context(m);
            ctx.quoted_message.as_mut().unwrap().conversation = Some("Dinner at nine?".into());
        }),
        ("a field more", |m| {
            m.conversation = Some("hi".into());
        }),
        ("a field fewer", |m| {
            let ctx = context(m);
            ctx.stanza_id = None;
        }),
    ];
    for (what, change) in changes {
        let mut changed = base.clone();
        change(&mut changed);
        assert_ne!(changed, base, "{what}: prost sees a change");
        let other_wire = changed.encode_to_vec();
        let other = Arena::new();
        let c = view(&other, &other_wire);
        assert_ne!(a, c, "{what}");
        assert_ne!(c, a, "{what}");
    }
}
