//! WhatsApp-shaped messages like the spec's measured samples (contact,
//! star, text_reply, text_reply_quoted, group SKDM, a HistorySync of 50
//! conversations × 20 messages), built with prost's types and encoded by
//! prost, so every decoder under test reads the same bytes.

use prost::Message as _;

use crate::pb::whatsapp as wa;

/// One sample: a name, the root type and the bytes.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Short name, as in the spec's table.
    pub name: &'static str,
    /// The root message type.
    pub root: Root,
    /// prost's encoding of the sample.
    pub bytes: Vec<u8>,
}

/// The root message type of a [`Sample`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `whatsapp.SyncActionData`
    SyncActionData,
    /// `whatsapp.Message`
    Message,
    /// `whatsapp.HistorySync`
    HistorySync,
}

fn jid(n: u64) -> String {
    format!("{}@s.whatsapp.net", 15_551_230_000u64 + n)
}

/// `SyncActionData` of a contact action.
pub fn contact() -> wa::SyncActionData {
    wa::SyncActionData {
        index: Some(format!("[\"contact\",\"{}\"]", jid(1)).into_bytes()),
        value: Some(wa::SyncActionValue {
            timestamp: Some(1_717_000_000_000),
            contact_action: Some(wa::sync_action_value::ContactAction {
                full_name: Some("Ada Lovelace".into()),
                first_name: Some("Ada".into()),
                lid_jid: Some("212345678901234@lid".into()),
                save_on_primary_addressbook: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        }),
        padding: Some(Vec::new()),
        version: Some(2),
    }
}

/// `SyncActionData` of a star action.
pub fn star() -> wa::SyncActionData {
    wa::SyncActionData {
        index: Some(
            format!(
                "[\"star\",\"{}\",\"3EB0C0FFEE12345678\",\"1\",\"0\"]",
                jid(2)
            )
            .into_bytes(),
        ),
        value: Some(wa::SyncActionValue {
            timestamp: Some(1_717_000_000_123),
            star_action: Some(wa::sync_action_value::StarAction {
                starred: Some(true),
            }),
            ..Default::default()
        }),
        padding: Some(vec![0u8; 7]),
        version: Some(2),
    }
}

fn context(quoted: Option<wa::Message>) -> wa::ContextInfo {
    wa::ContextInfo {
        stanza_id: Some("3EB0A1B2C3D4E5F60718".into()),
        participant: Some(jid(3)),
        quoted_message: quoted.map(Box::new),
        ..Default::default()
    }
}

/// A text reply (`extendedTextMessage` with a context).
pub fn text_reply() -> wa::Message {
    wa::Message {
        extended_text_message: Some(Box::new(wa::message::ExtendedTextMessage {
            text: Some("Sounds good, see you at eight tonight! Bring the tickets.".into()),
            context_info: Some(Box::new(context(None))),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// A text reply that carries the quoted message.
pub fn text_reply_quoted() -> wa::Message {
    let quoted = wa::Message {
        conversation: Some("Dinner at eight? Booked the usual.".into()),
        ..Default::default()
    };
    wa::Message {
        extended_text_message: Some(Box::new(wa::message::ExtendedTextMessage {
            text: Some("Sounds good, see you at eight tonight!".into()),
            context_info: Some(Box::new(context(Some(quoted)))),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// A group message: sender-key distribution plus text.
pub fn group_skdm() -> wa::Message {
    wa::Message {
        conversation: Some("hello everyone".into()),
        sender_key_distribution_message: Some(wa::message::SenderKeyDistributionMessage {
            group_id: Some("120363012345678901@g.us".into()),
            axolotl_sender_key_distribution_message: Some(
                (0..343u32).map(|i| (i * 37 % 251) as u8).collect(),
            ),
        }),
        message_context_info: Some(wa::MessageContextInfo {
            message_secret: Some(vec![7u8; 32]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A `HistorySync` of `conversations` × `messages` text messages.
pub fn history_sync(conversations: u64, messages: u64) -> wa::HistorySync {
    wa::HistorySync {
        sync_type: wa::history_sync::HistorySyncType::Recent as i32,
        conversations: (0..conversations)
            .map(|c| wa::Conversation {
                id: jid(100 + c),
                unread_count: Some((c % 5) as u32),
                conversation_timestamp: Some(1_717_000_000 + c),
                name: Some(format!("Chat number {c}")),
                messages: (0..messages)
                    .map(|m| wa::HistorySyncMsg {
                        message: Some(wa::WebMessageInfo {
                            key: wa::MessageKey {
                                remote_jid: Some(jid(100 + c)),
                                from_me: Some(m % 2 == 0),
                                id: Some(format!("3EB0{c:04X}{m:012X}")),
                                participant: None,
                            },
                            message: Some(wa::Message {
                                conversation: Some(format!(
                                    "Message {m} of conversation {c}: a line of ordinary chat text, with a few more words."
                                )),
                                ..Default::default()
                            }),
                            message_timestamp: Some(1_717_000_000 + c * 100 + m),
                            status: Some(3),
                            ..Default::default()
                        }),
                        msg_order_id: Some(m),
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

/// The spec's six samples, encoded by prost.
pub fn all() -> Vec<Sample> {
    vec![
        Sample {
            name: "contact",
            root: Root::SyncActionData,
            bytes: contact().encode_to_vec(),
        },
        Sample {
            name: "star",
            root: Root::SyncActionData,
            bytes: star().encode_to_vec(),
        },
        Sample {
            name: "text_reply",
            root: Root::Message,
            bytes: text_reply().encode_to_vec(),
        },
        Sample {
            name: "text_reply_quoted",
            root: Root::Message,
            bytes: text_reply_quoted().encode_to_vec(),
        },
        Sample {
            name: "group_skdm",
            root: Root::Message,
            bytes: group_skdm().encode_to_vec(),
        },
        Sample {
            name: "history_sync_50x20",
            root: Root::HistorySync,
            bytes: history_sync(50, 20).encode_to_vec(),
        },
    ]
}
