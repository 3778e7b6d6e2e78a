//! `--decoder quarry`: each message decodes into an arena checked out of
//! the relay's pool for this request only; the id is hashed during the
//! decode; stored events keep the event's bytes exactly as received.

use quarry_nostr::{ClientMessage, Event, Filter};

use crate::alloc_count;
use crate::relay::{IncomingEvent, Relay};
use crate::replies::Replies;
use crate::stats::Counters;
use crate::store::StoredEvent;

impl Relay {
    pub(crate) fn handle_quarry(&self, text: &str, out: &mut Replies) {
        // The decode path: checkout plus decode, on this thread, no await.
        let before = alloc_count::this_thread();
        let arena = self.pool.get();
        let decoded = self.quarry.decode_client_message(&arena, text.as_bytes());
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
                    id: event.id(),
                    kind: event.kind(),
                    id_ok: event.id_valid() == Some(true),
                    sig_ok: || event.verify_signature(),
                    build: || Some(stored(event)),
                },
                out,
            ),
            ClientMessage::Req { sub_id, filters } => self.answer_req(
                sub_id,
                filters.len(),
                |i| filters.get(i).and_then(Filter::limit),
                |i, e| filters.get(i).is_some_and(|f| matches(f, e)),
                out,
            ),
            ClientMessage::Close { .. } => self.close(),
            ClientMessage::Auth(_) => self.notice(out, "unsupported: AUTH"),
            ClientMessage::Count { .. } => self.notice(out, "unsupported: COUNT"),
            ClientMessage::NegOpen { .. }
            | ClientMessage::NegMsg { .. }
            | ClientMessage::NegClose { .. } => self.notice(out, "unsupported: negentropy"),
        }
        // `arena` drops here: reset and back in the pool.
    }
}

fn stored(event: Event<'_>) -> StoredEvent {
    StoredEvent::new(
        *event.id(),
        *event.pubkey(),
        event.created_at(),
        event.kind(),
        event.raw(),
        event.tags().iter().map(|t| (t.name(), t.value())),
    )
}

/// NIP-01 filter semantics over a stored event.
fn matches(f: Filter<'_>, e: &StoredEvent) -> bool {
    if f.ids().is_some_and(|ids| !ids.contains(e.id()))
        || f.authors().is_some_and(|a| !a.contains(e.pubkey()))
        || f.kinds().is_some_and(|k| !k.contains(&e.kind()))
        || f.since().is_some_and(|s| e.created_at() < s)
        || f.until().is_some_and(|u| e.created_at() > u)
    {
        return false;
    }
    f.tag_lists().all(|(letter, values)| {
        e.letter_values(letter)
            .any(|v| values.iter().any(|w| w.as_bytes() == v))
    })
}
