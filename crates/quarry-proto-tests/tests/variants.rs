//! The forward-compatible variants of the WhatsApp samples
//! (`quarry_proto_tests::variants`): each decodes in quarry to what prost
//! decodes from the same bytes (through `to_prost`), but for the one
//! documented difference, a closed enum's unlisted value, which quarry keeps
//! as an unknown field and prost in the field. quarry writes back, byte for
//! byte, the variants whose messages keep known fields in number order and
//! unknown ones last; the others it writes in the canonical form prost
//! writes for the same message.

use prost::Message as _;
use quarry_core::Arena;
use quarry_proto::UnknownField;
use quarry_proto_tests::pb::whatsapp as pb;
use quarry_proto_tests::samples::{self, Root};
use quarry_proto_tests::variants::{self, HISTORY_MIDDLE, Kind, Variant, unknown_numbers};
use quarry_proto_tests::wa;

/// A message of one of the samples' root types, as prost holds it.
#[derive(Debug, Clone, PartialEq)]
enum Decoded {
    SyncActionData(Box<pb::SyncActionData>),
    Message(Box<pb::Message>),
    HistorySync(Box<pb::HistorySync>),
}

impl Decoded {
    fn prost(root: Root, bytes: &[u8]) -> Self {
        match root {
            Root::SyncActionData => {
                Self::SyncActionData(Box::new(pb::SyncActionData::decode(bytes).unwrap()))
            }
            Root::Message => Self::Message(Box::new(pb::Message::decode(bytes).unwrap())),
            Root::HistorySync => {
                Self::HistorySync(Box::new(pb::HistorySync::decode(bytes).unwrap()))
            }
        }
    }

    fn encode_to_vec(&self) -> Vec<u8> {
        match self {
            Self::SyncActionData(m) => m.encode_to_vec(),
            Self::Message(m) => m.encode_to_vec(),
            Self::HistorySync(m) => m.encode_to_vec(),
        }
    }
}

/// What quarry reads from a variant.
struct Read {
    /// The message, through `to_prost`.
    message: Decoded,
    /// The root's unknown fields: tag and value bytes.
    root_unknown: Vec<(u32, Vec<u8>)>,
    /// The re-encoding.
    again: Vec<u8>,
}

/// quarry's decode of `bytes`.
fn quarry(root: Root, bytes: &[u8]) -> Read {
    fn raw<'a>(fields: impl Iterator<Item = UnknownField<'a>>) -> Vec<(u32, Vec<u8>)> {
        fields
            .map(|f| match f {
                UnknownField::Raw { tag, value } => (tag, value.to_vec()),
                other => panic!("{other:?}"),
            })
            .collect()
    }
    let arena = Arena::new();
    match root {
        Root::SyncActionData => {
            let v = wa::SyncActionDataView::decode(&arena, bytes).unwrap();
            Read {
                message: Decoded::SyncActionData(Box::new(v.to_prost())),
                root_unknown: raw(v.unknown_fields()),
                again: v.encode().unwrap(),
            }
        }
        Root::Message => {
            let v = wa::MessageView::decode(&arena, bytes).unwrap();
            Read {
                message: Decoded::Message(Box::new(v.to_prost())),
                root_unknown: raw(v.unknown_fields()),
                again: v.encode().unwrap(),
            }
        }
        Root::HistorySync => {
            let v = wa::HistorySyncView::decode(&arena, bytes).unwrap();
            Read {
                message: Decoded::HistorySync(Box::new(v.to_prost())),
                root_unknown: raw(v.unknown_fields()),
                again: v.encode().unwrap(),
            }
        }
    }
}

/// prost's message for `v` as quarry documents it: the closed enum's
/// unlisted value left out of its field (prost keeps it there). Also checks
/// that the value is one the enum does not list, in prost's own enum.
fn expected(v: &Variant, prost: &Decoded) -> Decoded {
    let mut want = prost.clone();
    if v.kind != Kind::UnlistedEnum {
        return want;
    }
    let unlisted = match &mut want {
        Decoded::SyncActionData(m) => {
            let action = m
                .value
                .as_mut()
                .unwrap()
                .username_chat_start_mode
                .as_mut()
                .unwrap();
            let n = action.chat_start_mode.take().unwrap();
            pb::sync_action_value::username_chat_start_mode_action::ChatStartMode::try_from(n)
                .is_err()
        }
        Decoded::Message(m) if v.canonical == "group_skdm" => {
            let limit = m
                .message_context_info
                .as_mut()
                .unwrap()
                .limit_sharing_v2
                .as_mut()
                .unwrap();
            let n = limit.trigger.take().unwrap();
            pb::limit_sharing::TriggerType::try_from(n).is_err()
        }
        Decoded::Message(m) => {
            let mode = m
                .extended_text_message
                .as_mut()
                .unwrap()
                .context_info
                .as_mut()
                .unwrap()
                .disappearing_mode
                .as_mut()
                .unwrap();
            let n = mode.initiator.take().unwrap();
            pb::disappearing_mode::Initiator::try_from(n).is_err()
        }
        Decoded::HistorySync(m) => {
            let (c, i) = HISTORY_MIDDLE;
            let info: &mut pb::WebMessageInfo =
                m.conversations[c].messages[i].message.as_mut().unwrap();
            let n = info.status.take().unwrap();
            pb::web_message_info::Status::try_from(n).is_err()
        }
    };
    assert!(
        unlisted,
        "{}: the value is one the enum lists",
        v.sample.name
    );
    want
}

#[test]
fn every_sample_has_its_variants() {
    let all = variants::all();
    for s in samples::all() {
        let kinds: Vec<Kind> = all
            .iter()
            .filter(|v| v.canonical == s.name)
            .map(|v| v.kind)
            .collect();
        let mut want = vec![
            Kind::UnknownRoot,
            Kind::UnknownNarrow,
            Kind::UnlistedEnum,
            Kind::OneofTwice,
            Kind::MessageTwice,
        ];
        if s.root == Root::HistorySync {
            want.insert(2, Kind::UnknownNarrowEvery);
        }
        assert_eq!(kinds, want, "{}", s.name);
    }
    for v in &all {
        assert_eq!(
            v.sample.name,
            format!("{}_{}", v.canonical, v.kind.suffix())
        );
    }
}

#[test]
fn variants_decode_in_quarry_as_in_prost() {
    let canonical = samples::all();
    for v in variants::all() {
        let name = v.sample.name;
        let bytes = v.sample.bytes.as_slice();
        let base = canonical.iter().find(|s| s.name == v.canonical).unwrap();
        assert_ne!(bytes, base.bytes.as_slice(), "{name}");
        let prost = Decoded::prost(v.sample.root, bytes);
        let got = quarry(v.sample.root, bytes).message;
        assert_eq!(got, expected(&v, &prost), "{name}");
        // prost drops unknown fields: a variant that adds nothing else reads
        // as its sample. (The replies' narrow unknown field comes in a
        // known message the variant adds.)
        let adds_known = v.kind == Kind::UnknownNarrow
            && v.sample.root == Root::Message
            && v.canonical != "group_skdm";
        let only_unknown = matches!(
            v.kind,
            Kind::UnknownRoot | Kind::UnknownNarrow | Kind::UnknownNarrowEvery
        ) && !adds_known;
        let sample = Decoded::prost(base.root, &base.bytes);
        assert_eq!(prost == sample, only_unknown, "{name}");
    }
}

#[test]
fn unknown_fields_stay_where_the_variant_put_them() {
    for v in variants::all() {
        let name = v.sample.name;
        let bytes = v.sample.bytes.as_slice();
        let root_unknown = quarry(v.sample.root, bytes).root_unknown;
        if v.kind == Kind::UnknownRoot {
            let number = match v.sample.root {
                Root::SyncActionData => unknown_numbers::SYNC_ACTION_DATA,
                Root::Message => unknown_numbers::MESSAGE,
                Root::HistorySync => unknown_numbers::HISTORY_SYNC,
            };
            // Tag: the number and wire type 0 (varint); value 1.
            assert_eq!(root_unknown, vec![(number << 3, vec![1])], "{name}");
        } else {
            assert_eq!(root_unknown, vec![], "{name}");
        }
    }
}

#[test]
fn quarry_writes_the_variants_back() {
    for v in variants::all() {
        let name = v.sample.name;
        let bytes = v.sample.bytes.as_slice();
        let prost = Decoded::prost(v.sample.root, bytes);
        let again = quarry(v.sample.root, bytes).again;
        // Whatever the form, prost reads the same message back (the unlisted
        // enum value comes back as the same varint field).
        assert_eq!(Decoded::prost(v.sample.root, &again), prost, "{name}");
        if v.kind.canonical() {
            assert_eq!(again, bytes, "{name}: byte for byte");
        } else {
            // Merged messages and the oneof's last member, in field-number
            // order: the form prost writes for what it decoded.
            assert_eq!(again, prost.encode_to_vec(), "{name}: canonical form");
        }
    }
}
