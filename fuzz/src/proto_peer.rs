//! WhatsApp's `Message` against prost 0.14 (the runtime whatsapp-rust
//! moved from; its generated types in quarry-proto-tests come from the same
//! descriptors): on any input both accept or both reject, and when both
//! accept, quarry's view converted (`to_prost`) equals prost's message,
//! unless the input holds the one documented difference: a closed enum's
//! unlisted value, which quarry keeps as an unknown field and prost stores
//! in the field (docs/protobuf.md).

use prost::Message as _;
use quarry::Arena;
use quarry_proto_tests::pb::whatsapp as pb;
use quarry_proto_tests::wa::MessageView;

/// One `whatsapp.Message`.
pub fn check_wa_message(data: &[u8]) {
    let arena = Arena::new();
    let ours = MessageView::decode(&arena, data);
    let theirs = pb::Message::decode(data);
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => {
            // prost stores a closed enum's unlisted value in the field;
            // quarry keeps it as an unknown field (docs/protobuf.md). Only
            // there may the two differ.
            if !holds_unlisted_enum_value(ours) {
                let ours = ours.to_prost();
                // NaN is not equal to itself: then the printed forms decide.
                assert!(
                    ours == theirs || format!("{ours:?}") == format!("{theirs:?}"),
                    "the decoded messages differ:\n{ours:?}\n{theirs:?}"
                );
            }
        }
        (Err(_), Err(_)) => {}
        (Err(error), Ok(theirs)) => panic!("quarry rejects ({error}) what prost reads: {theirs:?}"),
        (Ok(ours), Err(error)) => panic!("quarry accepts ({ours:?}) what prost rejects: {error}"),
    }
}

/// Whether the record keeps, at any depth, an unknown field whose number
/// is a field of its message: a closed enum's unlisted value (the one kind
/// of unknown field with a known number). Read from the text format, which
/// prints known fields by name and unknown ones by number, one per line,
/// `name {` / `N {` opening a message and `}` closing it.
fn holds_unlisted_enum_value(view: MessageView<'_>) -> bool {
    let root = MessageView::TABLE;
    let text = quarry_proto::text::to_text(root, view.record());
    let schema = root.schema;
    // The message each open brace entered (`None`: an unknown group or
    // message, whose fields are all unknown).
    let mut open = vec![schema.messages.get(root.index as usize)];
    for line in text.lines().map(str::trim) {
        if line == "}" {
            open.pop();
            continue;
        }
        let Some(&current) = open.last() else {
            return false;
        };
        let name = line.split([':', ' ']).next().unwrap_or("");
        if let Ok(number) = name.parse::<u32>() {
            if current.is_some_and(|m| m.field_index(number).is_some()) {
                return true;
            }
            if line.ends_with('{') {
                open.push(None);
            }
        } else if line.ends_with('{') {
            let sub = current
                .and_then(|m| m.fields.iter().find(|f| f.name == name))
                .and_then(|f| schema.messages.get(f.sub as usize));
            open.push(sub);
        }
    }
    false
}
