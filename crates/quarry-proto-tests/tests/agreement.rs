//! Agreement with prost 0.14: random messages (built from the descriptors,
//! encoded canonically) decoded by quarry's generated views equal prost's
//! decode of the same bytes field for field (through `to_prost`, which
//! reads every field through the views' getters); quarry's re-encoding
//! decodes with prost to the same message and is byte-identical to the
//! canonical input; concatenations (merges, last-one-wins, oneof
//! switches) agree too.

mod common;

use proptest::prelude::*;
use prost::Message as _;
use quarry_core::Arena;
use quarry_proto_tests::{pb, views, wa};

macro_rules! agreement {
    ($test:ident, $concat:ident, $view:ty, $prost:ty, $descriptors:expr, $name:expr, $cases:expr, $depth:expr, $fill:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: $cases, ..ProptestConfig::default() })]

            #[test]
            fn $test(seed in any::<u64>()) {
                let pool = common::pool($descriptors);
                let desc = pool.get_message_by_name($name).unwrap();
                let mut rng = common::Gen::new(seed);
                rng.max_depth = $depth;
                rng.fill = $fill;
                let bytes = rng.message(&desc).encode_to_vec();
                let want = <$prost>::decode(&bytes[..]).unwrap();
                let arena = Arena::new();
                let view = <$view>::decode(&arena, &bytes).unwrap();
                prop_assert_eq!(&view.to_prost(), &want);
                let again = view.encode().unwrap();
                prop_assert_eq!(&<$prost>::decode(&again[..]).unwrap(), &want);
                prop_assert_eq!(again, bytes);
            }

            #[test]
            fn $concat(a in any::<u64>(), b in any::<u64>()) {
                let pool = common::pool($descriptors);
                let desc = pool.get_message_by_name($name).unwrap();
                let mut bytes = Vec::new();
                for seed in [a, b] {
                    let mut rng = common::Gen::new(seed);
                    rng.max_depth = $depth;
                    rng.fill = $fill;
                    bytes.extend(rng.message(&desc).encode_to_vec());
                }
                let want = <$prost>::decode(&bytes[..]).unwrap();
                let arena = Arena::new();
                let view = <$view>::decode(&arena, &bytes).unwrap();
                prop_assert_eq!(&view.to_prost(), &want);
                prop_assert_eq!(&<$prost>::decode(&view.encode().unwrap()[..]).unwrap(), &want);
            }
        }
    };
}

agreement!(
    all2_agrees_with_prost,
    all2_concatenation_agrees,
    views::quarry::test2::All2View<'_>,
    pb::test2::All2,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.test2.All2",
    256,
    3,
    40
);
agreement!(
    all3_agrees_with_prost,
    all3_concatenation_agrees,
    views::quarry::test3::All3View<'_>,
    pb::test3::All3,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.test3.All3",
    256,
    3,
    40
);
agreement!(
    odd2_agrees_with_prost,
    odd2_concatenation_agrees,
    views::quarry::odd2::OddView<'_>,
    pb::odd2::Odd,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.odd2.Odd",
    128,
    3,
    40
);
agreement!(
    odd2_maps_agree_with_prost,
    odd2_maps_concatenation_agrees,
    views::quarry::odd2::MapsView<'_>,
    pb::odd2::Maps,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.odd2.Maps",
    128,
    3,
    40
);
agreement!(
    odd3_agrees_with_prost,
    odd3_concatenation_agrees,
    views::quarry::odd3::OddView<'_>,
    pb::odd3::Odd,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.odd3.Odd",
    128,
    3,
    40
);
agreement!(
    odd3_maps_agree_with_prost,
    odd3_maps_concatenation_agrees,
    views::quarry::odd3::MapsView<'_>,
    pb::odd3::Maps,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.odd3.Maps",
    128,
    3,
    40
);
agreement!(
    names_agree_with_prost,
    names_concatenation_agrees,
    views::quarry::names::KeywordsView<'_>,
    pb::names::Keywords,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.names.Keywords",
    128,
    3,
    40
);
agreement!(
    oneof_named_as_an_enum_agrees_with_prost,
    oneof_named_as_an_enum_concatenation_agrees,
    views::quarry::names::PickerView<'_>,
    pb::names::Picker,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.names.Picker",
    64,
    3,
    40
);
agreement!(
    first_of_two_same_named_oneofs_agrees_with_prost,
    first_of_two_same_named_oneofs_concatenation_agrees,
    views::quarry::names::ClashView<'_>,
    pb::names::Clash,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.names.Clash",
    64,
    3,
    40
);
agreement!(
    second_of_two_same_named_oneofs_agrees_with_prost,
    second_of_two_same_named_oneofs_concatenation_agrees,
    views::quarry::names::ClashAView<'_>,
    pb::names::ClashA,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.names.ClashA",
    64,
    3,
    40
);
agreement!(
    wa_message_agrees_with_prost,
    wa_message_concatenation_agrees,
    wa::MessageView<'_>,
    pb::whatsapp::Message,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.Message",
    64,
    3,
    12
);
agreement!(
    wa_sync_action_data_agrees_with_prost,
    wa_sync_action_data_concatenation_agrees,
    wa::SyncActionDataView<'_>,
    pb::whatsapp::SyncActionData,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.SyncActionData",
    128,
    3,
    30
);
agreement!(
    wa_history_sync_agrees_with_prost,
    wa_history_sync_concatenation_agrees,
    wa::HistorySyncView<'_>,
    pb::whatsapp::HistorySync,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.HistorySync",
    32,
    3,
    20
);

#[test]
fn spec_samples_agree_with_prost() {
    use quarry_proto_tests::samples::{Root, all};
    for s in all() {
        let arena = Arena::new();
        let again = match s.root {
            Root::SyncActionData => {
                let v = wa::SyncActionDataView::decode(&arena, &s.bytes).unwrap();
                assert_eq!(
                    v.to_prost(),
                    pb::whatsapp::SyncActionData::decode(&s.bytes[..]).unwrap(),
                    "{}",
                    s.name
                );
                v.encode().unwrap()
            }
            Root::Message => {
                let v = wa::MessageView::decode(&arena, &s.bytes).unwrap();
                assert_eq!(
                    v.to_prost(),
                    pb::whatsapp::Message::decode(&s.bytes[..]).unwrap(),
                    "{}",
                    s.name
                );
                v.encode().unwrap()
            }
            Root::HistorySync => {
                let v = wa::HistorySyncView::decode(&arena, &s.bytes).unwrap();
                assert_eq!(
                    v.to_prost(),
                    pb::whatsapp::HistorySync::decode(&s.bytes[..]).unwrap(),
                    "{}",
                    s.name
                );
                v.encode().unwrap()
            }
        };
        assert_eq!(again, s.bytes, "{}", s.name);
    }
}

#[test]
fn getters_read_the_samples() {
    let arena = Arena::new();
    let bytes = quarry_proto_tests::samples::contact().encode_to_vec();
    let data = wa::SyncActionDataView::decode(&arena, &bytes).unwrap();
    let action = data.value().unwrap().contact_action().unwrap();
    assert_eq!(action.full_name(), "Ada Lovelace");
    assert_eq!(action.first_name(), "Ada");
    assert!(action.save_on_primary_addressbook());
    assert!(!action.has_pn_jid());
    assert_eq!(action.pn_jid(), "");
    assert_eq!(data.version(), 2);
    assert!(data.value().unwrap().star_action().is_none());

    let bytes = quarry_proto_tests::samples::history_sync(3, 4).encode_to_vec();
    let hs = wa::HistorySyncView::decode(&arena, &bytes).unwrap();
    assert_eq!(hs.conversations().len(), 3);
    let conv = hs.conversations().nth(1).unwrap();
    assert_eq!(conv.id(), "15551230101@s.whatsapp.net");
    let texts: Vec<&str> = conv
        .messages()
        .map(|m| m.message().unwrap().message().unwrap().conversation())
        .collect();
    assert_eq!(texts.len(), 4);
    assert!(texts[3].starts_with("Message 3 of conversation 1:"));
}
