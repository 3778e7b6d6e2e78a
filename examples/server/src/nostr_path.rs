//! `--decoder nostr`: the comparison. Each message is read with `nostr`
//! 0.45's `ClientMessage::from_json` and an event's id checked with
//! `Event::verify_id`, as a relay built on that crate does; stored events
//! are re-serialized with `Event::as_json` (the crate keeps no raw span).

use nostr::event::{Event, EventId, Kind};
use nostr::filter::Filter;
use nostr::key::PublicKey;
use nostr::message::ClientMessage;

use crate::alloc_count;
use crate::relay::{IncomingEvent, Relay};
use crate::replies::Replies;
use crate::stats::Counters;
use crate::store::StoredEvent;

impl Relay {
    pub(crate) fn handle_nostr(&self, text: &str, out: &mut Replies) {
        // The decode path: parse plus id check, what quarry's decode does.
        let before = alloc_count::this_thread();
        let decoded = ClientMessage::from_json(text);
        let id_ok = match &decoded {
            Ok(ClientMessage::Event(event)) => event.verify_id(),
            _ => false,
        };
        Counters::add(
            &self.counters.decode_allocs,
            alloc_count::this_thread() - before,
        );
        let message = match decoded {
            Ok(message) => message,
            Err(e) => return self.decode_failed(out, &format!("invalid: {e}")),
        };
        match message {
            ClientMessage::Event(event) => self.accept_event(
                IncomingEvent {
                    id: event.id.as_bytes(),
                    kind: event.kind.as_u16(),
                    id_ok,
                    sig_ok: || event.verify_signature(),
                    build: || stored(&event),
                },
                out,
            ),
            ClientMessage::Req {
                subscription_id,
                filters,
            } => self.answer_req(
                subscription_id.as_str(),
                filters.len(),
                |i| filters.get(i).and_then(|f| f.limit).map(|l| l as u64),
                |i, e| filters.get(i).is_some_and(|f| matches(f, e)),
                out,
            ),
            ClientMessage::Close(_) => self.close(),
            ClientMessage::Auth(_) => self.notice(out, "unsupported: AUTH"),
            ClientMessage::Count { .. } => self.notice(out, "unsupported: COUNT"),
            ClientMessage::NegOpen { .. }
            | ClientMessage::NegMsg { .. }
            | ClientMessage::NegClose { .. } => self.notice(out, "unsupported: negentropy"),
        }
    }
}

fn stored(event: &Event) -> Option<StoredEvent> {
    // `as_json` unwraps this same result; an event that does not
    // serialize is refused instead.
    let json = event.try_as_json().ok()?;
    Some(StoredEvent::new(
        *event.id.as_bytes(),
        *event.pubkey.as_bytes(),
        event.created_at.as_secs(),
        event.kind.as_u16(),
        json.as_bytes(),
        event.tags.iter().map(|t| (t.kind(), t.content())),
    ))
}

/// NIP-01 filter semantics over a stored event, reading `nostr`'s filter.
fn matches(f: &Filter, e: &StoredEvent) -> bool {
    if f.ids
        .as_ref()
        .is_some_and(|ids| !ids.contains(&EventId::from_byte_array(*e.id())))
        || f.authors
            .as_ref()
            .is_some_and(|a| !a.contains(&PublicKey::from_byte_array(*e.pubkey())))
        || f.kinds
            .as_ref()
            .is_some_and(|k| !k.contains(&Kind::from_u16(e.kind())))
        || f.since.is_some_and(|s| e.created_at() < s.as_secs())
        || f.until.is_some_and(|u| e.created_at() > u.as_secs())
    {
        return false;
    }
    f.generic_tags.iter().all(|(tag, values)| {
        let letter = tag.as_char() as u8;
        e.letter_values(letter)
            .any(|v| std::str::from_utf8(v).is_ok_and(|v| values.contains(v)))
    })
}
