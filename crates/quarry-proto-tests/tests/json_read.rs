//! `quarry_proto::json::from_json` held to prost-reflect: a random message
//! (built and encoded by prost-reflect) is decoded by quarry, printed with
//! `to_json`, read back with `from_json` and encoded; prost-reflect must
//! decode those bytes to the message it decodes from its own. Its own
//! canonical JSON goes through `from_json` the same way.

mod common;

use proptest::prelude::*;
use prost::Message as _;
use prost_reflect::DynamicMessage;
use quarry_core::Arena;
use quarry_proto::MessageRef;
use quarry_proto_tests::{views, wa};

fn round_trip(
    message: MessageRef,
    descriptors: &[u8],
    name: &str,
    seed: u64,
) -> Result<(), TestCaseError> {
    let pool = common::pool(descriptors);
    let desc = pool.get_message_by_name(name).unwrap();
    let mut rng = common::Gen::new(seed);
    rng.max_depth = 3;
    rng.fill = 40;
    let bytes = rng.message(&desc).encode_to_vec();
    let want = DynamicMessage::decode(desc.clone(), bytes.as_slice()).unwrap();

    let arena = Arena::new();
    let record = quarry_proto::decode(message, &arena, &bytes).unwrap();
    let json = quarry_proto::json::to_json(message, record).unwrap();
    let read = quarry_proto::json::from_json(message, &arena, &json)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{json}")))?;
    let ours = quarry_proto::encode(message, read).unwrap();
    let back = DynamicMessage::decode(desc.clone(), ours.as_slice()).unwrap();
    prop_assert!(back == want, "to_json -> from_json of {json}");

    let peer = common::json::peer_json(&want).to_string();
    let read = quarry_proto::json::from_json(message, &arena, &peer)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{peer}")))?;
    let ours = quarry_proto::encode(message, read).unwrap();
    let back = DynamicMessage::decode(desc, ours.as_slice()).unwrap();
    prop_assert!(back == want, "from_json of prost-reflect's {peer}");
    Ok(())
}

macro_rules! json_agreement {
    ($test:ident, $table:expr, $descriptors:expr, $name:literal, $cases:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: $cases, ..ProptestConfig::default() })]

            #[test]
            fn $test(seed in any::<u64>()) {
                round_trip($table, $descriptors, $name, seed)?;
            }
        }
    };
}

json_agreement!(
    all2_reads_back_from_json,
    views::quarry::test2::All2View::TABLE,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.test2.All2",
    256
);
json_agreement!(
    all3_reads_back_from_json,
    views::quarry::test3::All3View::TABLE,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.test3.All3",
    256
);
json_agreement!(
    wa_message_reads_back_from_json,
    wa::MessageView::TABLE,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.Message",
    64
);
json_agreement!(
    sync_action_data_reads_back_from_json,
    wa::SyncActionDataView::TABLE,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.SyncActionData",
    64
);
json_agreement!(
    history_sync_reads_back_from_json,
    wa::HistorySyncView::TABLE,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.HistorySync",
    32
);

proptest! {
    /// Any text: an error or a record, never a panic.
    #[test]
    fn any_text_reads_without_panicking(text in "[\\[\\]{}\":,0-9a-zA-Z_. -]{0,64}") {
        let arena = Arena::new();
        let _ = quarry_proto::json::from_json(views::quarry::test3::All3View::TABLE, &arena, &text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The JSON of a random message, cut short and with bytes replaced:
    /// an error or a record (which encodes), never a panic.
    #[test]
    fn damaged_json_reads_without_panicking(
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), prop::sample::select(
                &b"{}[]\",:0-9eE.\\ntruefalsenull\x00\xff"[..],
            )),
            0..4,
        ),
    ) {
        let message = views::quarry::test3::All3View::TABLE;
        let pool = common::pool(quarry_proto_tests::TEST_DESCRIPTORS);
        let desc = pool.get_message_by_name("quarry.test3.All3").unwrap();
        let mut rng = common::Gen::new(seed);
        rng.max_depth = 3;
        rng.fill = 40;
        let bytes = rng.message(&desc).encode_to_vec();
        let arena = Arena::new();
        let record = quarry_proto::decode(message, &arena, &bytes).unwrap();
        let mut json = quarry_proto::json::to_json(message, record).unwrap().into_bytes();
        json.truncate(cut.index(json.len() + 1));
        for (at, byte) in edits {
            if !json.is_empty() {
                let i = at.index(json.len());
                json[i] = byte;
            }
        }
        let text = String::from_utf8_lossy(&json);
        if let Ok(read) = quarry_proto::json::from_json(message, &arena, &text) {
            prop_assert!(quarry_proto::encode(message, read).is_ok());
        }
    }
}
