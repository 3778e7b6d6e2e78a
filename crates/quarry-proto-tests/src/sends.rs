//! The samples of [`samples`](crate::samples) built to be sent: from the
//! same source values ([`Source`]: string constants and strings made
//! once), with prost's types and with quarry's generated builders, so the
//! two builds of a sample hold the same values and encode to the same
//! bytes as [`samples::all`](crate::samples::all). prost's types own their
//! strings, so its build copies each one; quarry's builders borrow them.

use quarry_core::Arena;

use crate::pb::whatsapp as pw;
use crate::samples::Root;
use crate::wa;

/// `SyncActionData.index` of the contact sample.
pub const CONTACT_INDEX: &str = "[\"contact\",\"15551230001@s.whatsapp.net\"]";
/// `SyncActionData.index` of the star sample.
pub const STAR_INDEX: &str =
    "[\"star\",\"15551230002@s.whatsapp.net\",\"3EB0C0FFEE12345678\",\"1\",\"0\"]";
/// The contact's full name.
pub const FULL_NAME: &str = "Ada Lovelace";
/// The contact's first name.
pub const FIRST_NAME: &str = "Ada";
/// The contact's LID.
pub const LID_JID: &str = "212345678901234@lid";
/// The stanza id a reply's context quotes.
pub const STANZA_ID: &str = "3EB0A1B2C3D4E5F60718";
/// The participant a reply's context names.
pub const PARTICIPANT: &str = "15551230003@s.whatsapp.net";
/// The text of `text_reply`.
pub const REPLY_TEXT: &str = "Sounds good, see you at eight tonight! Bring the tickets.";
/// The text of `text_reply_quoted`.
pub const QUOTED_REPLY_TEXT: &str = "Sounds good, see you at eight tonight!";
/// The quoted message's text.
pub const QUOTED_TEXT: &str = "Dinner at eight? Booked the usual.";
/// `group_skdm`'s conversation text.
pub const GROUP_TEXT: &str = "hello everyone";
/// `group_skdm`'s group.
pub const GROUP_ID: &str = "120363012345678901@g.us";

/// One history sync message's values.
#[derive(Debug, Clone)]
pub struct HistoryMessage {
    /// `key.id`
    pub id: String,
    /// `message.conversation`
    pub text: String,
    /// `key.fromMe`
    pub from_me: bool,
    /// `messageTimestamp`
    pub timestamp: u64,
    /// `msgOrderId`
    pub order: u64,
}

/// One history sync conversation's values.
#[derive(Debug, Clone)]
pub struct HistoryConversation {
    /// `id`, also each message's `key.remoteJid`
    pub id: String,
    /// `name`
    pub name: String,
    /// `unreadCount`
    pub unread: u32,
    /// `conversationTimestamp`
    pub timestamp: u64,
    /// `messages`
    pub messages: Vec<HistoryMessage>,
}

/// Values the samples are built from that are not constants.
#[derive(Debug, Clone)]
pub struct Source {
    /// `group_skdm`'s sender key distribution message.
    pub skdm: Vec<u8>,
    /// `group_skdm`'s message secret.
    pub secret: Vec<u8>,
    /// The history sync's conversations.
    pub history: Vec<HistoryConversation>,
}

fn jid(n: u64) -> String {
    format!("{}@s.whatsapp.net", 15_551_230_000u64 + n)
}

impl Source {
    /// The values of [`samples::all`](crate::samples::all), with a history
    /// sync of `conversations` × `messages`.
    pub fn new(conversations: u64, messages: u64) -> Self {
        Self {
            skdm: (0..343u32).map(|i| (i * 37 % 251) as u8).collect(),
            secret: vec![7u8; 32],
            history: (0..conversations)
                .map(|c| HistoryConversation {
                    id: jid(100 + c),
                    name: format!("Chat number {c}"),
                    unread: (c % 5) as u32,
                    timestamp: 1_717_000_000 + c,
                    messages: (0..messages)
                        .map(|m| HistoryMessage {
                            id: format!("3EB0{c:04X}{m:012X}"),
                            text: format!(
                                "Message {m} of conversation {c}: a line of ordinary chat text, with a few more words."
                            ),
                            from_me: m % 2 == 0,
                            timestamp: 1_717_000_000 + c * 100 + m,
                            order: m,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// The samples' names, in [`samples::all`](crate::samples::all)'s order,
/// with their root types.
pub const NAMES: [(&str, Root); 6] = [
    ("contact", Root::SyncActionData),
    ("star", Root::SyncActionData),
    ("text_reply", Root::Message),
    ("text_reply_quoted", Root::Message),
    ("group_skdm", Root::Message),
    ("history_sync_50x20", Root::HistorySync),
];

/// prost's build and encode of sample `name`: one exact-size `Vec`.
pub fn prost_encode(name: &str, src: &Source) -> Vec<u8> {
    use prost::Message as _;
    match name {
        "contact" => prost_contact().encode_to_vec(),
        "star" => prost_star().encode_to_vec(),
        "text_reply" => prost_text_reply(false).encode_to_vec(),
        "text_reply_quoted" => prost_text_reply(true).encode_to_vec(),
        "group_skdm" => prost_group_skdm(src).encode_to_vec(),
        _ => prost_history(src).encode_to_vec(),
    }
}

/// Why the samples' encodes cannot fail: they nest a few levels and take
/// a few KiB at most.
const WITHIN_LIMITS: &str = "the samples are within protobuf's limits";

/// quarry's build (into `arena`) and encode of sample `name`: one
/// exact-size `Vec`.
pub fn quarry_encode(name: &str, arena: &Arena, src: &Source) -> Vec<u8> {
    match name {
        "contact" => quarry_contact(arena).encode().expect(WITHIN_LIMITS),
        "star" => quarry_star(arena).encode().expect(WITHIN_LIMITS),
        "text_reply" => quarry_text_reply(arena, false)
            .encode()
            .expect(WITHIN_LIMITS),
        "text_reply_quoted" => quarry_text_reply(arena, true)
            .encode()
            .expect(WITHIN_LIMITS),
        "group_skdm" => quarry_group_skdm(arena, src).encode().expect(WITHIN_LIMITS),
        _ => quarry_history(arena, src).encode().expect(WITHIN_LIMITS),
    }
}

/// The contact sample, with prost's types.
pub fn prost_contact() -> pw::SyncActionData {
    pw::SyncActionData {
        index: Some(CONTACT_INDEX.as_bytes().to_vec()),
        value: Some(pw::SyncActionValue {
            timestamp: Some(1_717_000_000_000),
            contact_action: Some(pw::sync_action_value::ContactAction {
                full_name: Some(FULL_NAME.to_owned()),
                first_name: Some(FIRST_NAME.to_owned()),
                lid_jid: Some(LID_JID.to_owned()),
                save_on_primary_addressbook: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        }),
        padding: Some(Vec::new()),
        version: Some(2),
    }
}

/// The contact sample, built with quarry's builders.
pub fn quarry_contact(arena: &Arena) -> wa::SyncActionDataView<'_> {
    let mut contact = wa::SyncActionValueContactActionBuilder::new(arena);
    contact
        .set_full_name(FULL_NAME)
        .set_first_name(FIRST_NAME)
        .set_lid_jid(LID_JID)
        .set_save_on_primary_addressbook(true);
    let mut value = wa::SyncActionValueBuilder::new(arena);
    value
        .set_timestamp(1_717_000_000_000)
        .set_contact_action(contact.build());
    let mut data = wa::SyncActionDataBuilder::new(arena);
    data.set_index(CONTACT_INDEX.as_bytes())
        .set_value(value.build())
        .set_padding(&[])
        .set_version(2);
    data.build()
}

/// The star sample, with prost's types.
pub fn prost_star() -> pw::SyncActionData {
    pw::SyncActionData {
        index: Some(STAR_INDEX.as_bytes().to_vec()),
        value: Some(pw::SyncActionValue {
            timestamp: Some(1_717_000_000_123),
            star_action: Some(pw::sync_action_value::StarAction {
                starred: Some(true),
            }),
            ..Default::default()
        }),
        padding: Some(vec![0u8; 7]),
        version: Some(2),
    }
}

/// The star sample, built with quarry's builders.
pub fn quarry_star(arena: &Arena) -> wa::SyncActionDataView<'_> {
    let mut star = wa::SyncActionValueStarActionBuilder::new(arena);
    star.set_starred(true);
    let mut value = wa::SyncActionValueBuilder::new(arena);
    value
        .set_timestamp(1_717_000_000_123)
        .set_star_action(star.build());
    let mut data = wa::SyncActionDataBuilder::new(arena);
    data.set_index(STAR_INDEX.as_bytes())
        .set_value(value.build())
        .set_padding(&[0u8; 7])
        .set_version(2);
    data.build()
}

/// `text_reply` (`quoted`: `text_reply_quoted`), with prost's types.
pub fn prost_text_reply(quoted: bool) -> pw::Message {
    let quoted = quoted.then(|| {
        Box::new(pw::Message {
            conversation: Some(QUOTED_TEXT.to_owned()),
            ..Default::default()
        })
    });
    let text = if quoted.is_some() {
        QUOTED_REPLY_TEXT
    } else {
        REPLY_TEXT
    };
    pw::Message {
        extended_text_message: Some(Box::new(pw::message::ExtendedTextMessage {
            text: Some(text.to_owned()),
            context_info: Some(Box::new(pw::ContextInfo {
                stanza_id: Some(STANZA_ID.to_owned()),
                participant: Some(PARTICIPANT.to_owned()),
                quoted_message: quoted,
                ..Default::default()
            })),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// `text_reply` (`quoted`: `text_reply_quoted`), built with quarry's
/// builders.
pub fn quarry_text_reply(arena: &Arena, quoted: bool) -> wa::MessageView<'_> {
    let quoted = quoted.then(|| {
        let mut q = wa::MessageBuilder::new(arena);
        q.set_conversation(QUOTED_TEXT);
        q.build()
    });
    quarry_reply_to(arena, quoted)
}

/// A reply whose context quotes `quoted` (by reference: a decoded
/// message is written out again, not copied first).
pub fn quarry_reply_to<'a>(
    arena: &'a Arena,
    quoted: Option<wa::MessageView<'a>>,
) -> wa::MessageView<'a> {
    let mut context = wa::ContextInfoBuilder::new(arena);
    context
        .set_stanza_id(STANZA_ID)
        .set_participant(PARTICIPANT);
    let text = match quoted {
        Some(q) => {
            context.set_quoted_message(q);
            QUOTED_REPLY_TEXT
        }
        None => REPLY_TEXT,
    };
    let mut ext = wa::MessageExtendedTextMessageBuilder::new(arena);
    ext.set_text(text).set_context_info(context.build());
    let mut message = wa::MessageBuilder::new(arena);
    message.set_extended_text_message(ext.build());
    message.build()
}

/// `group_skdm`, with prost's types.
pub fn prost_group_skdm(src: &Source) -> pw::Message {
    pw::Message {
        conversation: Some(GROUP_TEXT.to_owned()),
        sender_key_distribution_message: Some(pw::message::SenderKeyDistributionMessage {
            group_id: Some(GROUP_ID.to_owned()),
            axolotl_sender_key_distribution_message: Some(src.skdm.clone()),
        }),
        message_context_info: Some(pw::MessageContextInfo {
            message_secret: Some(src.secret.clone()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `group_skdm`, built with quarry's builders.
pub fn quarry_group_skdm<'a>(arena: &'a Arena, src: &'a Source) -> wa::MessageView<'a> {
    let mut skdm = wa::MessageSenderKeyDistributionMessageBuilder::new(arena);
    skdm.set_group_id(GROUP_ID)
        .set_axolotl_sender_key_distribution_message(&src.skdm);
    let mut info = wa::MessageContextInfoBuilder::new(arena);
    info.set_message_secret(&src.secret);
    let mut message = wa::MessageBuilder::new(arena);
    message
        .set_conversation(GROUP_TEXT)
        .set_sender_key_distribution_message(skdm.build())
        .set_message_context_info(info.build());
    message.build()
}

/// The history sync, with prost's types.
pub fn prost_history(src: &Source) -> pw::HistorySync {
    pw::HistorySync {
        sync_type: pw::history_sync::HistorySyncType::Recent as i32,
        conversations: src
            .history
            .iter()
            .map(|c| pw::Conversation {
                id: c.id.clone(),
                unread_count: Some(c.unread),
                conversation_timestamp: Some(c.timestamp),
                name: Some(c.name.clone()),
                messages: c
                    .messages
                    .iter()
                    .map(|m| pw::HistorySyncMsg {
                        message: Some(pw::WebMessageInfo {
                            key: pw::MessageKey {
                                remote_jid: Some(c.id.clone()),
                                from_me: Some(m.from_me),
                                id: Some(m.id.clone()),
                                participant: None,
                            },
                            message: Some(pw::Message {
                                conversation: Some(m.text.clone()),
                                ..Default::default()
                            }),
                            message_timestamp: Some(m.timestamp),
                            status: Some(3),
                            ..Default::default()
                        }),
                        msg_order_id: Some(m.order),
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        chunk_order: Some(1),
        progress: Some(100),
        ..Default::default()
    }
}

/// The history sync, built with quarry's builders.
pub fn quarry_history<'a>(arena: &'a Arena, src: &'a Source) -> wa::HistorySyncView<'a> {
    let conversations = src.history.iter().map(|c| {
        let messages = c.messages.iter().map(|m| {
            let mut key = wa::MessageKeyBuilder::new(arena);
            key.set_remote_jid(&c.id)
                .set_from_me(m.from_me)
                .set_id(&m.id);
            let mut text = wa::MessageBuilder::new(arena);
            text.set_conversation(&m.text);
            let mut info = wa::WebMessageInfoBuilder::new(arena);
            info.set_key(key.build())
                .set_message(text.build())
                .set_message_timestamp(m.timestamp)
                .set_status(wa::WebMessageInfoStatus::DeliveryAck);
            let mut msg = wa::HistorySyncMsgBuilder::new(arena);
            msg.set_message(info.build()).set_msg_order_id(m.order);
            msg.build()
        });
        let mut conv = wa::ConversationBuilder::new(arena);
        conv.set_id(&c.id)
            .set_messages(messages)
            .set_unread_count(c.unread)
            .set_conversation_timestamp(c.timestamp)
            .set_name(&c.name);
        conv.build()
    });
    let mut sync = wa::HistorySyncBuilder::new(arena);
    sync.set_sync_type(wa::HistorySyncHistorySyncType::Recent)
        .set_conversations(conversations)
        .set_chunk_order(1)
        .set_progress(100);
    sync.build()
}
