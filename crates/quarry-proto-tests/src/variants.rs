//! Forward-compatible variants of the samples in [`samples`]:
//! each is a sample's prost encoding with one thing a newer schema, or an
//! encoder other than prost, may write (an unknown field, a value of a
//! closed enum the schema does not list, two members of one oneof, a
//! singular message field twice).
//!
//! The bytes are built on the wire: protobuf lets fields be appended to a
//! message, so a change inside a nested message re-encodes every message on
//! the path to it with the new length, and copies every other field as it
//! is. Fields added by the variants have numbers above the fields the
//! samples set in the same message, so a variant whose addition is an
//! unknown field or a known field keeps the fields of each message in
//! number order, with unknown ones last.
//!
//! Of the samples' own message types (`SyncActionData`, `SyncActionValue`,
//! `ContactAction`, `StarAction`, `Message`, `ExtendedTextMessage`,
//! `ContextInfo`, `SenderKeyDistributionMessage`, `MessageContextInfo`,
//! `HistorySync`, `Conversation`, `HistorySyncMsg`, `WebMessageInfo`,
//! `MessageKey`) none declares a oneof, and only `WebMessageInfo` has an
//! enum field the samples set (`status`). Where a variant needs a oneof or
//! an enum the sample lacks, it adds the nearest message that has one to a
//! message the sample carries; each variant's documentation says which.

use prost::Message as _;

use crate::pb::whatsapp as wa;
use crate::samples::{self, Sample};
use crate::wire_edit::{Step, appended, edit, put_len, put_varint, with_varint};

/// What a [`Variant`] adds to its sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One unknown varint field at the end of the root message.
    UnknownRoot,
    /// One unknown varint field at the end of a nested narrow message.
    UnknownNarrow,
    /// One unknown varint field at the end of every message of a narrow
    /// type (the history sync's message keys).
    UnknownNarrowEvery,
    /// A closed enum's field holding a number the enum does not list.
    UnlistedEnum,
    /// Two members of one oneof, one after the other.
    OneofTwice,
    /// A singular message field written a second time, holding one field
    /// with a value other than the first occurrence's; protobuf merges the
    /// two.
    MessageTwice,
}

impl Kind {
    /// The suffix the variant's name carries after its sample's.
    pub fn suffix(self) -> &'static str {
        match self {
            Kind::UnknownRoot => "unknown_root",
            Kind::UnknownNarrow => "unknown_narrow",
            Kind::UnknownNarrowEvery => "unknown_narrow_every",
            Kind::UnlistedEnum => "unlisted_enum",
            Kind::OneofTwice => "oneof_twice",
            Kind::MessageTwice => "message_twice",
        }
    }

    /// Whether the variant's bytes keep every message's known fields in
    /// number order and its unknown fields after them (the form quarry's
    /// encoder writes back byte for byte).
    pub fn canonical(self) -> bool {
        !matches!(self, Kind::OneofTwice | Kind::MessageTwice)
    }
}

/// One variant: its bytes as a [`Sample`] (named `<sample>_<suffix>`), the
/// sample it was built from and what it adds.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The variant's name, root type and bytes.
    pub sample: Sample,
    /// The name of the sample the variant was built from.
    pub canonical: &'static str,
    /// What the variant adds.
    pub kind: Kind,
}

/// The history message the history sync's single-message variants change:
/// conversation 25 of 50, message 10 of 20, the middle of the input.
pub const HISTORY_MIDDLE: (usize, usize) = (25, 10);

/// The number each variant's unknown field carries in the root: the first
/// above the root type's largest field number.
pub mod unknown_numbers {
    /// `SyncActionData` lists fields 1 to 4.
    pub const SYNC_ACTION_DATA: u32 = 5;
    /// `Message` lists fields up to 127.
    pub const MESSAGE: u32 = 128;
    /// `HistorySync` lists fields up to 21.
    pub const HISTORY_SYNC: u32 = 22;
}

/// Every variant of every sample, in the order of [`samples::all`], each
/// sample's in the order of [`Kind`].
pub fn all() -> Vec<Variant> {
    let mut out = Vec::new();
    for s in samples::all() {
        let base = s.bytes.as_slice();
        let built: Vec<(Kind, &'static str, Vec<u8>)> = match s.name {
            "contact" => vec![
                (
                    Kind::UnknownRoot,
                    "contact_unknown_root",
                    sync_unknown_root(base),
                ),
                (
                    Kind::UnknownNarrow,
                    "contact_unknown_narrow",
                    sync_unknown_narrow(base, 3, 7),
                ),
                (
                    Kind::UnlistedEnum,
                    "contact_unlisted_enum",
                    sync_unlisted_enum(base),
                ),
                (
                    Kind::OneofTwice,
                    "contact_oneof_twice",
                    sync_oneof_twice(base),
                ),
                (
                    Kind::MessageTwice,
                    "contact_message_twice",
                    contact_message_twice(base),
                ),
            ],
            "star" => vec![
                (
                    Kind::UnknownRoot,
                    "star_unknown_root",
                    sync_unknown_root(base),
                ),
                (
                    Kind::UnknownNarrow,
                    "star_unknown_narrow",
                    sync_unknown_narrow(base, 2, 2),
                ),
                (
                    Kind::UnlistedEnum,
                    "star_unlisted_enum",
                    sync_unlisted_enum(base),
                ),
                (Kind::OneofTwice, "star_oneof_twice", sync_oneof_twice(base)),
                (
                    Kind::MessageTwice,
                    "star_message_twice",
                    star_message_twice(base),
                ),
            ],
            "text_reply" => vec![
                (
                    Kind::UnknownRoot,
                    "text_reply_unknown_root",
                    message_unknown_root(base),
                ),
                (
                    Kind::UnknownNarrow,
                    "text_reply_unknown_narrow",
                    reply_unknown_narrow(base),
                ),
                (
                    Kind::UnlistedEnum,
                    "text_reply_unlisted_enum",
                    reply_unlisted_enum(base),
                ),
                (
                    Kind::OneofTwice,
                    "text_reply_oneof_twice",
                    message_oneof_twice(base),
                ),
                (
                    Kind::MessageTwice,
                    "text_reply_message_twice",
                    reply_message_twice(base),
                ),
            ],
            "text_reply_quoted" => vec![
                (
                    Kind::UnknownRoot,
                    "text_reply_quoted_unknown_root",
                    message_unknown_root(base),
                ),
                (
                    Kind::UnknownNarrow,
                    "text_reply_quoted_unknown_narrow",
                    reply_unknown_narrow(base),
                ),
                (
                    Kind::UnlistedEnum,
                    "text_reply_quoted_unlisted_enum",
                    reply_unlisted_enum(base),
                ),
                (
                    Kind::OneofTwice,
                    "text_reply_quoted_oneof_twice",
                    message_oneof_twice(base),
                ),
                (
                    Kind::MessageTwice,
                    "text_reply_quoted_message_twice",
                    reply_message_twice(base),
                ),
            ],
            "group_skdm" => vec![
                (
                    Kind::UnknownRoot,
                    "group_skdm_unknown_root",
                    message_unknown_root(base),
                ),
                (
                    Kind::UnknownNarrow,
                    "group_skdm_unknown_narrow",
                    skdm_unknown_narrow(base),
                ),
                (
                    Kind::UnlistedEnum,
                    "group_skdm_unlisted_enum",
                    skdm_unlisted_enum(base),
                ),
                (
                    Kind::OneofTwice,
                    "group_skdm_oneof_twice",
                    message_oneof_twice(base),
                ),
                (
                    Kind::MessageTwice,
                    "group_skdm_message_twice",
                    skdm_message_twice(base),
                ),
            ],
            "history_sync_50x20" => vec![
                (
                    Kind::UnknownRoot,
                    "history_sync_50x20_unknown_root",
                    history_unknown_root(base),
                ),
                (
                    Kind::UnknownNarrow,
                    "history_sync_50x20_unknown_narrow",
                    history_unknown_key(base, false),
                ),
                (
                    Kind::UnknownNarrowEvery,
                    "history_sync_50x20_unknown_narrow_every",
                    history_unknown_key(base, true),
                ),
                (
                    Kind::UnlistedEnum,
                    "history_sync_50x20_unlisted_enum",
                    history_unlisted_enum(base),
                ),
                (
                    Kind::OneofTwice,
                    "history_sync_50x20_oneof_twice",
                    history_oneof_twice(base),
                ),
                (
                    Kind::MessageTwice,
                    "history_sync_50x20_message_twice",
                    history_message_twice(base),
                ),
            ],
            other => panic!("no variants for sample {other}"),
        };
        for (kind, name, bytes) in built {
            debug_assert_eq!(name, format!("{}_{}", s.name, kind.suffix()));
            out.push(Variant {
                sample: Sample {
                    name,
                    root: s.root,
                    bytes,
                },
                canonical: s.name,
                kind,
            });
        }
    }
    out
}

// --- contact and star (`SyncActionData`) -----------------------------------

/// Path from `SyncActionData` to its `SyncActionValue`.
const SYNC_VALUE: &[Step] = &[(2, Some(0))];

/// `SyncActionData` gains field [`unknown_numbers::SYNC_ACTION_DATA`], a
/// varint 1, after `version`.
fn sync_unknown_root(base: &[u8]) -> Vec<u8> {
    let mut out = base.to_vec();
    put_varint(unknown_numbers::SYNC_ACTION_DATA, 1, &mut out);
    out
}

/// The action message (the `SyncActionValue` field numbered `action`:
/// `contactAction`, a narrow `ContactAction` of fields 1 to 6, or
/// `starAction`, a narrow `StarAction` of field 1) gains field `number`,
/// a varint 1, after its own fields.
fn sync_unknown_narrow(base: &[u8], action: u32, number: u32) -> Vec<u8> {
    edit(base, &[(2, Some(0)), (action, Some(0))], &|m| {
        appended(m, |out| put_varint(number, 1, out))
    })
}

/// `SyncActionValue` gains `usernameChatStartMode` (field 59, a narrow
/// `UsernameChatStartModeAction`) whose closed enum `chatStartMode` holds
/// 3, which `ChatStartMode` (`LID = 1`, `PN = 2`) does not list. No message
/// of these samples has an enum field, so the variant adds the narrow
/// action message that has one.
fn sync_unlisted_enum(base: &[u8]) -> Vec<u8> {
    let action = wa::sync_action_value::UsernameChatStartModeAction {
        chat_start_mode: Some(3),
    };
    edit(base, SYNC_VALUE, &|m| {
        appended(m, |out| prost::encoding::message::encode(59, &action, out))
    })
}

/// `SyncActionValue` gains `chatLockSettings` (field 51) whose `secretCode`
/// holds one `transformerArg` (key `"iterations"`) with a `value` whose
/// oneof `value` is written twice: `asBlob` (field 1), then
/// `asUnsignedInteger` (field 2) = 100,000. The one oneof `SyncActionData`
/// reaches at all is this one, `UserPassword.TransformerArg.Value`.
fn sync_oneof_twice(base: &[u8]) -> Vec<u8> {
    use wa::user_password::transformer_arg::{Value, value};
    let settings = wa::ChatLockSettings {
        hide_locked_chats: None,
        secret_code: Some(wa::UserPassword {
            transformer_arg: vec![wa::user_password::TransformerArg {
                key: Some("iterations".into()),
                value: Some(Value {
                    value: Some(value::Value::AsBlob(100_000u32.to_be_bytes().to_vec())),
                }),
            }],
            ..Default::default()
        }),
    }
    .encode_to_vec();
    // ChatLockSettings.secretCode -> UserPassword.transformerArg[0] ->
    // TransformerArg.value.
    let settings = edit(
        &settings,
        &[(2, Some(0)), (3, Some(0)), (2, Some(0))],
        &|m| appended(m, |out| put_varint(2, 100_000, out)),
    );
    edit(base, SYNC_VALUE, &|m| {
        appended(m, |out| put_len(51, &settings, out))
    })
}

/// `SyncActionValue` gains a second `contactAction` (field 3) holding
/// `firstName: "Augusta"` (the first holds `"Ada"`).
fn contact_message_twice(base: &[u8]) -> Vec<u8> {
    let again = wa::sync_action_value::ContactAction {
        first_name: Some("Augusta".into()),
        ..Default::default()
    };
    edit(base, SYNC_VALUE, &|m| {
        appended(m, |out| prost::encoding::message::encode(3, &again, out))
    })
}

/// `SyncActionValue` gains a second `starAction` (field 2) holding
/// `starred: false` (the first holds `true`).
fn star_message_twice(base: &[u8]) -> Vec<u8> {
    let again = wa::sync_action_value::StarAction {
        starred: Some(false),
    };
    edit(base, SYNC_VALUE, &|m| {
        appended(m, |out| prost::encoding::message::encode(2, &again, out))
    })
}

// --- text_reply, text_reply_quoted and group_skdm (`Message`) ----------------

/// Path from `Message` to its `extendedTextMessage`'s `contextInfo`.
const REPLY_CONTEXT: &[Step] = &[(6, Some(0)), (17, Some(0))];

/// `Message` gains field [`unknown_numbers::MESSAGE`], a varint 1, after its
/// own fields.
fn message_unknown_root(base: &[u8]) -> Vec<u8> {
    let mut out = base.to_vec();
    put_varint(unknown_numbers::MESSAGE, 1, &mut out);
    out
}

/// The reply's `ContextInfo` (wide) gains `disappearingMode` (field 32, a
/// narrow `DisappearingMode`) holding `initiator: INITIATED_BY_ME` and
/// then field 5, a varint 1, which `DisappearingMode` (fields 1 to 4) does
/// not list. None of the reply's own messages is narrow, so the variant
/// adds one that replies carry.
fn reply_unknown_narrow(base: &[u8]) -> Vec<u8> {
    let mut mode = wa::DisappearingMode {
        initiator: Some(wa::disappearing_mode::Initiator::InitiatedByMe as i32),
        ..Default::default()
    }
    .encode_to_vec();
    put_varint(5, 1, &mut mode);
    edit(base, REPLY_CONTEXT, &|m| {
        appended(m, |out| put_len(32, &mode, out))
    })
}

/// The reply's `ContextInfo` gains `disappearingMode` (field 32, narrow)
/// whose closed enum `initiator` holds 4, which `Initiator` (0 to 3) does
/// not list.
fn reply_unlisted_enum(base: &[u8]) -> Vec<u8> {
    let mode = wa::DisappearingMode {
        initiator: Some(4),
        ..Default::default()
    };
    edit(base, REPLY_CONTEXT, &|m| {
        appended(m, |out| prost::encoding::message::encode(32, &mode, out))
    })
}

/// The reply's `ExtendedTextMessage` gains a second `contextInfo` (field
/// 17) holding `participant` of another JID than the first's.
fn reply_message_twice(base: &[u8]) -> Vec<u8> {
    let again = wa::ContextInfo {
        participant: Some("15551230004@s.whatsapp.net".into()),
        ..Default::default()
    };
    edit(base, &[(6, Some(0))], &|m| {
        appended(m, |out| prost::encoding::message::encode(17, &again, out))
    })
}

/// A `ButtonsMessage` whose oneof `header` is written twice: `text` (field
/// 1), then `locationMessage` (field 5).
fn buttons_twice() -> Vec<u8> {
    let mut buttons = wa::message::ButtonsMessage {
        header: Some(wa::message::buttons_message::Header::Text(
            "Where shall we meet?".into(),
        )),
        ..Default::default()
    }
    .encode_to_vec();
    let location = wa::message::LocationMessage {
        degrees_latitude: Some(52.5163),
        degrees_longitude: Some(13.3777),
        ..Default::default()
    };
    prost::encoding::message::encode(5, &location, &mut buttons);
    buttons
}

/// `Message` gains `buttonsMessage` (field 42) whose oneof `header` is
/// written twice: `text` (field 1), then `locationMessage` (field 5). No
/// message of these samples declares a oneof; `Message`'s own fields reach
/// the nearest ones, and `ButtonsMessage.header` is one of them.
fn message_oneof_twice(base: &[u8]) -> Vec<u8> {
    let mut out = base.to_vec();
    put_len(42, &buttons_twice(), &mut out);
    out
}

/// The `SenderKeyDistributionMessage` (narrow, fields 1 and 2) gains field
/// 3, a varint 1.
fn skdm_unknown_narrow(base: &[u8]) -> Vec<u8> {
    edit(base, &[(2, Some(0))], &|m| {
        appended(m, |out| put_varint(3, 1, out))
    })
}

/// `MessageContextInfo` (field 35) gains `limitSharingV2` (field 14, a
/// narrow `LimitSharing`) holding `sharingLimited: true` and the closed
/// enum `trigger` 4, which `TriggerType` (0 to 3) does not list. The
/// sample's messages set no enum field.
fn skdm_unlisted_enum(base: &[u8]) -> Vec<u8> {
    let limit = wa::LimitSharing {
        sharing_limited: Some(true),
        trigger: Some(4),
        ..Default::default()
    };
    edit(base, &[(35, Some(0))], &|m| {
        appended(m, |out| prost::encoding::message::encode(14, &limit, out))
    })
}

/// `Message` gains a second `messageContextInfo` (field 35) holding a
/// `messageSecret` of 32 bytes 8 (the first holds 32 bytes 7).
fn skdm_message_twice(base: &[u8]) -> Vec<u8> {
    let again = wa::MessageContextInfo {
        message_secret: Some(vec![8u8; 32]),
        ..Default::default()
    };
    let mut out = base.to_vec();
    prost::encoding::message::encode(35, &again, &mut out);
    out
}

// --- history sync (`HistorySync`) ---------------------------------------------

/// Path from `HistorySync` to the `WebMessageInfo` of the history message
/// at [`HISTORY_MIDDLE`].
const HISTORY_INFO: &[Step] = &[
    (2, Some(HISTORY_MIDDLE.0)),
    (2, Some(HISTORY_MIDDLE.1)),
    (1, Some(0)),
];

/// `HistorySync` gains field [`unknown_numbers::HISTORY_SYNC`], a varint 1,
/// after its own fields.
fn history_unknown_root(base: &[u8]) -> Vec<u8> {
    let mut out = base.to_vec();
    put_varint(unknown_numbers::HISTORY_SYNC, 1, &mut out);
    out
}

/// The `MessageKey` (narrow, fields 1 to 4) of the history message at
/// [`HISTORY_MIDDLE`], or with `every` of each of the 1,000 history
/// messages, gains a fifth field, a varint 1.
fn history_unknown_key(base: &[u8], every: bool) -> Vec<u8> {
    let path: &[Step] = if every {
        &[(2, None), (2, None), (1, Some(0)), (1, Some(0))]
    } else {
        &[
            HISTORY_INFO[0],
            HISTORY_INFO[1],
            HISTORY_INFO[2],
            (1, Some(0)),
        ]
    };
    edit(base, path, &|m| appended(m, |out| put_varint(5, 1, out)))
}

/// The `WebMessageInfo` at [`HISTORY_MIDDLE`] has `status` (field 4, its
/// last, closed enum `WebMessageInfo.Status`, 0 to 5) 6 instead of
/// `DELIVERY_ACK` (3).
fn history_unlisted_enum(base: &[u8]) -> Vec<u8> {
    edit(base, HISTORY_INFO, &|m| with_varint(m, 4, 6))
}

/// The `Message` of the history message at [`HISTORY_MIDDLE`] gains
/// `buttonsMessage` (field 42) whose oneof `header` is written twice, as in
/// the `Message` samples' variant.
fn history_oneof_twice(base: &[u8]) -> Vec<u8> {
    let buttons = buttons_twice();
    let path = [
        HISTORY_INFO[0],
        HISTORY_INFO[1],
        HISTORY_INFO[2],
        (2, Some(0)),
    ];
    edit(base, &path, &|m| {
        appended(m, |out| put_len(42, &buttons, out))
    })
}

/// The `WebMessageInfo` at [`HISTORY_MIDDLE`] gains a second `key` (field
/// 1, after `status`) holding `fromMe: false` (the first holds `true`).
fn history_message_twice(base: &[u8]) -> Vec<u8> {
    let again = wa::MessageKey {
        from_me: Some(false),
        ..Default::default()
    };
    edit(base, HISTORY_INFO, &|m| {
        appended(m, |out| prost::encoding::message::encode(1, &again, out))
    })
}
