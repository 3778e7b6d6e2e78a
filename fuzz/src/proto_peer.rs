//! WhatsApp's `Message`, `SyncActionData` and `HistorySync` (the three
//! roots of quarry-proto-tests' agreement tests) against prost 0.14 (the
//! runtime whatsapp-rust moved from; its generated types in quarry-proto-tests
//! come from the same descriptors): on any input both accept or both
//! reject, and when both accept, quarry's view converted (`to_prost`)
//! equals prost's message, unless the input holds the one documented
//! difference: a closed enum's unlisted value, which quarry keeps as an
//! unknown field and prost stores in the field (docs/protobuf.md).

use std::fmt::Debug;

use quarry_core::{Arena, DecodeError};
use quarry_proto::{MessageRef, Record};
use quarry_proto_tests::wa::{HistorySyncView, MessageView, SyncActionDataView};

/// One `whatsapp.Message`.
pub fn check_wa_message(data: &[u8]) {
    check(MessageView::TABLE, data, |arena, data| {
        MessageView::decode(arena, data).map(|v| (v.record(), v.to_prost()))
    });
}

/// One `whatsapp.SyncActionData` (app-state sync: contacts, stars, ...).
pub fn check_wa_sync_action_data(data: &[u8]) {
    check(SyncActionDataView::TABLE, data, |arena, data| {
        SyncActionDataView::decode(arena, data).map(|v| (v.record(), v.to_prost()))
    });
}

/// One `whatsapp.HistorySync` (conversations of `WebMessageInfo`s, each
/// with its `Message`).
pub fn check_wa_history_sync(data: &[u8]) {
    check(HistorySyncView::TABLE, data, |arena, data| {
        HistorySyncView::decode(arena, data).map(|v| (v.record(), v.to_prost()))
    });
}

/// quarry's decode of `data` as `root` (the record and its `to_prost`)
/// against prost's decode into `T`.
fn check<T>(
    root: MessageRef,
    data: &[u8],
    ours: impl for<'a> FnOnce(&'a Arena, &'a [u8]) -> Result<(Record<'a>, T), DecodeError>,
) where
    T: prost::Message + Default + PartialEq + Debug,
{
    let arena = Arena::new();
    let ours = ours(&arena, data);
    let theirs = T::decode(data);
    match (ours, theirs) {
        (Ok((record, ours)), Ok(theirs)) => {
            // prost stores a closed enum's unlisted value in the field;
            // quarry keeps it as an unknown field (docs/protobuf.md). Only
            // there may the two differ.
            if !holds_unlisted_enum_value(root, record) {
                // NaN is not equal to itself: then the printed forms decide.
                assert!(
                    ours == theirs || format!("{ours:?}") == format!("{theirs:?}"),
                    "the decoded messages differ:\n{ours:?}\n{theirs:?}"
                );
            }
        }
        (Err(_), Err(_)) => {}
        (Err(error), Ok(theirs)) => panic!("quarry rejects ({error}) what prost reads: {theirs:?}"),
        (Ok((_, ours)), Err(error)) => {
            panic!("quarry accepts ({ours:?}) what prost rejects: {error}")
        }
    }
}

/// Whether the record keeps, at any depth, an unknown field whose number
/// is a field of its message: a closed enum's unlisted value (the one kind
/// of unknown field with a known number). Read from the text format, which
/// prints known fields by name and unknown ones by number, one per line,
/// `name {` / `N {` opening a message and `}` closing it.
fn holds_unlisted_enum_value(root: MessageRef, record: Record<'_>) -> bool {
    let text = quarry_proto::text::to_text(root, record);
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
