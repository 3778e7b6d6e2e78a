//! Consumer B, a store: sender-key distributions, protocol messages and
//! reactions, muted/pinned chats and contacts' LIDs from app-state sync, and
//! the push names and conversation list of a history sync. Each function
//! decodes its root and folds the fields it reads into a number (so every
//! build does the same work and prints the same result).

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
        let mut n = Wrapping(0u64);
        if let Some(d) = m.sender_key_distribution_message() {
            n += d.group_id().len() as u64;
            n += d.axolotl_sender_key_distribution_message().len() as u64;
        }
        if let Some(p) = m.protocol_message() {
            n += p.r#type() as i32 as u64;
            if let Some(k) = p.key() {
                n += k.id().len() as u64;
            }
        }
        if let Some(r) = m.reaction_message() {
            n += r.text().len() as u64;
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let arena = Arena::new();
        let s = wa::SyncActionDataView::decode(&arena, bytes).ok()?;
        let mut n = Wrapping(s.padding().len() as u64);
        if let Some(v) = s.value() {
            if let Some(a) = v.mute_action() {
                n += a.muted() as u64;
            }
            if let Some(a) = v.pin_action() {
                n += a.pinned() as u64;
            }
            if let Some(a) = v.contact_action() {
                n += a.lid_jid().len() as u64;
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let arena = Arena::new();
        let h = wa::HistorySyncView::decode(&arena, bytes).ok()?;
        let mut n = Wrapping(h.chunk_order() as u64 + h.progress() as u64);
        for p in h.pushnames() {
            n += p.id().len() as u64 + p.pushname().len() as u64;
        }
        for c in h.conversations() {
            n += c.name().len() as u64 + c.unread_count() as u64;
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
        let mut n = Wrapping(0u64);
        if let Some(d) = &m.sender_key_distribution_message {
            n += d.group_id().len() as u64;
            n += d.axolotl_sender_key_distribution_message().len() as u64;
        }
        if let Some(p) = &m.protocol_message {
            n += p.r#type() as i32 as u64;
            if let Some(k) = &p.key {
                n += k.id().len() as u64;
            }
        }
        if let Some(r) = &m.reaction_message {
            n += r.text().len() as u64;
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let s = wa::SyncActionData::decode(bytes).ok()?;
        let mut n = Wrapping(s.padding().len() as u64);
        if let Some(v) = &s.value {
            if let Some(a) = &v.mute_action {
                n += a.muted() as u64;
            }
            if let Some(a) = &v.pin_action {
                n += a.pinned() as u64;
            }
            if let Some(a) = &v.contact_action {
                n += a.lid_jid().len() as u64;
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let h = wa::HistorySync::decode(bytes).ok()?;
        let mut n = Wrapping(h.chunk_order() as u64 + h.progress() as u64);
        for p in &h.pushnames {
            n += p.id().len() as u64 + p.pushname().len() as u64;
        }
        for c in &h.conversations {
            n += c.name().len() as u64 + c.unread_count() as u64;
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
        let mut n = Wrapping(0u64);
        if let Some(d) = m.sender_key_distribution_message.as_option() {
            n += len(&d.group_id);
            n += d
                .axolotl_sender_key_distribution_message
                .as_ref()
                .map_or(0, Vec::len) as u64;
        }
        if let Some(p) = m.protocol_message.as_option() {
            n += p.r#type.map_or(0, |t| t as i32) as u64;
            if let Some(k) = p.key.as_option() {
                n += len(&k.id);
            }
        }
        if let Some(r) = m.reaction_message.as_option() {
            n += len(&r.text);
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let s = wa::SyncActionData::decode_from_slice(bytes).ok()?;
        let mut n = Wrapping(s.padding.as_ref().map_or(0, Vec::len) as u64);
        if let Some(v) = s.value.as_option() {
            if let Some(a) = v.mute_action.as_option() {
                n += a.muted.unwrap_or(false) as u64;
            }
            if let Some(a) = v.pin_action.as_option() {
                n += a.pinned.unwrap_or(false) as u64;
            }
            if let Some(a) = v.contact_action.as_option() {
                n += len(&a.lid_jid);
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let h = wa::HistorySync::decode_from_slice(bytes).ok()?;
        let mut n = Wrapping(h.chunk_order.unwrap_or(0) as u64 + h.progress.unwrap_or(0) as u64);
        for p in &h.pushnames {
            n += len(&p.id) + len(&p.pushname);
        }
        for c in &h.conversations {
            n += len(&c.name) + c.unread_count.unwrap_or(0) as u64;
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
        let mut n = Wrapping(0u64);
        if let Some(d) = m.sender_key_distribution_message.as_option() {
            n += len(d.group_id);
            n += d
                .axolotl_sender_key_distribution_message
                .map_or(0, <[u8]>::len) as u64;
        }
        if let Some(p) = m.protocol_message.as_option() {
            n += p.r#type.map_or(0, |t| t as i32) as u64;
            if let Some(k) = p.key.as_option() {
                n += len(k.id);
            }
        }
        if let Some(r) = m.reaction_message.as_option() {
            n += len(r.text);
        }
        Some(n.0)
    }

    pub fn on_sync(bytes: &[u8]) -> Option<u64> {
        let s = wa::SyncActionDataView::decode_view(bytes).ok()?;
        let mut n = Wrapping(s.padding.map_or(0, <[u8]>::len) as u64);
        if let Some(v) = s.value.as_option() {
            if let Some(a) = v.mute_action.as_option() {
                n += a.muted.unwrap_or(false) as u64;
            }
            if let Some(a) = v.pin_action.as_option() {
                n += a.pinned.unwrap_or(false) as u64;
            }
            if let Some(a) = v.contact_action.as_option() {
                n += len(a.lid_jid);
            }
        }
        Some(n.0)
    }

    pub fn on_history(bytes: &[u8]) -> Option<u64> {
        let h = wa::HistorySyncView::decode_view(bytes).ok()?;
        let mut n = Wrapping(h.chunk_order.unwrap_or(0) as u64 + h.progress.unwrap_or(0) as u64);
        for p in h.pushnames.iter() {
            n += len(p.id) + len(p.pushname);
        }
        for c in h.conversations.iter() {
            n += len(c.name) + c.unread_count.unwrap_or(0) as u64;
        }
        Some(n.0)
    }
}

/// Decode a `Message` and fold what the store keeps; `None` when the bytes
/// do not decode.
pub fn on_message(bytes: &[u8]) -> Option<u64> {
    imp::on_message(bytes)
}

/// Decode a `SyncActionData` and fold the mute, pin and contact actions.
pub fn on_sync(bytes: &[u8]) -> Option<u64> {
    imp::on_sync(bytes)
}

/// Decode a `HistorySync` and fold its push names and conversation list.
pub fn on_history(bytes: &[u8]) -> Option<u64> {
    imp::on_history(bytes)
}
