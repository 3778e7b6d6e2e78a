//! Consumer A, a chat screen: the text of a message and what it quotes, an
//! image's metadata, starred and renamed contacts from app-state sync, and
//! the messages of a history sync. Each function decodes its root and
//! folds the fields it reads into a number (so every build does the same
//! work and prints the same result).

const DECODERS: usize = cfg!(feature = "baseline") as usize
    + cfg!(feature = "quarry") as usize
    + cfg!(feature = "prost") as usize
    + cfg!(feature = "buffa-owned") as usize
    + cfg!(feature = "buffa-view") as usize;
const _: () = assert!(
    DECODERS == 1,
    "enable exactly one of the features baseline, quarry, prost, buffa-owned, buffa-view"
);

/// No decoder: the input's length, so the program around the decoders can
/// be measured alone.
#[cfg(feature = "baseline")]
mod imp {
    pub fn on_message(bytes: &[u8]) -> Option<u64> {
        Some(bytes.len() as u64)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        Some(bytes.len() as u64)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        Some(bytes.len() as u64)
    }
}

#[cfg(feature = "quarry")]
mod imp {
    use quarry_proto::Arena;
    use schema_quarry::whatsapp as wa;
    use std::num::Wrapping;

    pub fn on_message(bytes: &[u8]) -> Option<u64> {
        let arena = Arena::new();
        let m = wa::MessageView::decode(&arena, bytes).ok()?;
        let mut n = Wrapping(m.conversation().len() as u64);
        if let Some(t) = m.extended_text_message() {
            n += t.text().len() as u64;
            if let Some(c) = t.context_info() {
                n += c.stanza_id().len() as u64 + c.participant().len() as u64;
                if let Some(q) = c.quoted_message() {
                    n += q.conversation().len() as u64;
                }
            }
        }
        if let Some(i) = m.image_message() {
            n += i.mimetype().len() as u64 + i.caption().len() as u64;
            n += i.file_length();
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let arena = Arena::new();
        let s = wa::SyncActionDataView::decode(&arena, bytes).ok()?;
        let mut n = Wrapping(s.index().len() as u64);
        n += s.version() as u64;
        if let Some(v) = s.value() {
            n += v.timestamp() as u64;
            if let Some(a) = v.star_action() {
                n += a.starred() as u64;
            }
            if let Some(a) = v.contact_action() {
                n += a.full_name().len() as u64;
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let arena = Arena::new();
        let h = wa::HistorySyncView::decode(&arena, bytes).ok()?;
        let mut n = Wrapping(h.sync_type() as i32 as u64);
        for c in h.conversations() {
            n += c.id().len() as u64 + c.messages().len() as u64;
            for hm in c.messages() {
                let Some(w) = hm.message() else { continue };
                n += w.message_timestamp();
                if let Some(k) = w.key() {
                    n += k.id().len() as u64;
                }
                if let Some(m) = w.message() {
                    n += m.conversation().len() as u64;
                }
            }
        }
        Some(n.0)
    }
}

#[cfg(feature = "prost")]
mod imp {
    use prost::Message as _;
    use schema_prost as wa;
    use std::num::Wrapping;

    pub fn on_message(bytes: &[u8]) -> Option<u64> {
        let m = wa::Message::decode(bytes).ok()?;
        let mut n = Wrapping(m.conversation().len() as u64);
        if let Some(t) = &m.extended_text_message {
            n += t.text().len() as u64;
            if let Some(c) = &t.context_info {
                n += c.stanza_id().len() as u64 + c.participant().len() as u64;
                if let Some(q) = &c.quoted_message {
                    n += q.conversation().len() as u64;
                }
            }
        }
        if let Some(i) = &m.image_message {
            n += i.mimetype().len() as u64 + i.caption().len() as u64;
            n += i.file_length();
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let s = wa::SyncActionData::decode(bytes).ok()?;
        let mut n = Wrapping(s.index().len() as u64);
        n += s.version() as u64;
        if let Some(v) = &s.value {
            n += v.timestamp() as u64;
            if let Some(a) = &v.star_action {
                n += a.starred() as u64;
            }
            if let Some(a) = &v.contact_action {
                n += a.full_name().len() as u64;
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let h = wa::HistorySync::decode(bytes).ok()?;
        let mut n = Wrapping(h.sync_type as u64);
        for c in &h.conversations {
            n += c.id.len() as u64 + c.messages.len() as u64;
            for hm in &c.messages {
                let Some(w) = &hm.message else { continue };
                n += w.message_timestamp();
                // prost keeps a required message inline, not in an Option.
                n += w.key.id().len() as u64;
                if let Some(m) = &w.message {
                    n += m.conversation().len() as u64;
                }
            }
        }
        Some(n.0)
    }
}

#[cfg(feature = "buffa-owned")]
mod imp {
    use std::num::Wrapping;
    use waproto::buffa::Message as _;
    use waproto::whatsapp as wa;

    fn len(s: &Option<String>) -> u64 {
        s.as_deref().map_or(0, str::len) as u64
    }

    pub fn on_message(bytes: &[u8]) -> Option<u64> {
        let m = wa::Message::decode_from_slice(bytes).ok()?;
        let mut n = Wrapping(len(&m.conversation));
        if let Some(t) = m.extended_text_message.as_option() {
            n += len(&t.text);
            if let Some(c) = t.context_info.as_option() {
                n += len(&c.stanza_id) + len(&c.participant);
                if let Some(q) = c.quoted_message.as_option() {
                    n += len(&q.conversation);
                }
            }
        }
        if let Some(i) = m.image_message.as_option() {
            n += len(&i.mimetype) + len(&i.caption);
            n += i.file_length.unwrap_or(0);
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let s = wa::SyncActionData::decode_from_slice(bytes).ok()?;
        let mut n = Wrapping(s.index.as_ref().map_or(0, Vec::len) as u64);
        n += s.version.unwrap_or(0) as u64;
        if let Some(v) = s.value.as_option() {
            n += v.timestamp.unwrap_or(0) as u64;
            if let Some(a) = v.star_action.as_option() {
                n += a.starred.unwrap_or(false) as u64;
            }
            if let Some(a) = v.contact_action.as_option() {
                n += len(&a.full_name);
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let h = wa::HistorySync::decode_from_slice(bytes).ok()?;
        let mut n = Wrapping(h.sync_type as i32 as u64);
        for c in &h.conversations {
            n += c.id.len() as u64 + c.messages.len() as u64;
            for hm in &c.messages {
                let Some(w) = hm.message.as_option() else {
                    continue;
                };
                n += w.message_timestamp.unwrap_or(0);
                if let Some(k) = w.key.as_option() {
                    n += len(&k.id);
                }
                if let Some(m) = w.message.as_option() {
                    n += len(&m.conversation);
                }
            }
        }
        Some(n.0)
    }
}

#[cfg(feature = "buffa-view")]
mod imp {
    use std::num::Wrapping;
    use waproto::buffa::view::MessageView as _;
    use waproto::whatsapp as wa;

    fn len(s: Option<&str>) -> u64 {
        s.map_or(0, str::len) as u64
    }

    pub fn on_message(bytes: &[u8]) -> Option<u64> {
        let m = wa::MessageView::decode_view(bytes).ok()?;
        let mut n = Wrapping(len(m.conversation));
        if let Some(t) = m.extended_text_message.as_option() {
            n += len(t.text);
            if let Some(c) = t.context_info.as_option() {
                n += len(c.stanza_id) + len(c.participant);
                if let Some(q) = c.quoted_message.as_option() {
                    n += len(q.conversation);
                }
            }
        }
        if let Some(i) = m.image_message.as_option() {
            n += len(i.mimetype) + len(i.caption);
            n += i.file_length.unwrap_or(0);
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let s = wa::SyncActionDataView::decode_view(bytes).ok()?;
        let mut n = Wrapping(s.index.map_or(0, <[u8]>::len) as u64);
        n += s.version.unwrap_or(0) as u64;
        if let Some(v) = s.value.as_option() {
            n += v.timestamp.unwrap_or(0) as u64;
            if let Some(a) = v.star_action.as_option() {
                n += a.starred.unwrap_or(false) as u64;
            }
            if let Some(a) = v.contact_action.as_option() {
                n += len(a.full_name);
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let h = wa::HistorySyncView::decode_view(bytes).ok()?;
        let mut n = Wrapping(h.sync_type as i32 as u64);
        for c in h.conversations.iter() {
            n += c.id.len() as u64 + c.messages.len() as u64;
            for hm in c.messages.iter() {
                let Some(w) = hm.message.as_option() else {
                    continue;
                };
                n += w.message_timestamp.unwrap_or(0);
                if let Some(k) = w.key.as_option() {
                    n += len(k.id);
                }
                if let Some(m) = w.message.as_option() {
                    n += len(m.conversation);
                }
            }
        }
        Some(n.0)
    }
}

/// Decode a `Message` and fold what the chat screen shows; `None` when the
/// bytes do not decode.
pub fn on_message(bytes: &[u8]) -> Option<u64> {
    imp::on_message(bytes)
}

/// Decode a `SyncActionData` and fold the star and contact actions.
pub fn on_sync(bytes: &[u8]) -> Option<u64> {
    imp::on_sync(bytes)
}

/// Decode a `HistorySync` and fold its conversations' messages.
pub fn on_history(bytes: &[u8]) -> Option<u64> {
    imp::on_history(bytes)
}
