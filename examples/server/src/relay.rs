//! The relay's request handling, independent of the transport: one client
//! message in, its NIP-01 answers out. The decoder-specific halves are in
//! `quarry_path.rs` and `nostr_path.rs`; what they share is here.

use quarry_core::{ArenaPool, PoolStats};

use crate::config::{Config, DecoderKind};
use crate::replies::Replies;
use crate::stats::{Counters, Stats};
use crate::store::{MAX_FILTERS, Store, StoredEvent};

/// What NIP-01 allows as a subscription id: 1 to 64 characters.
const SUB_ID_MAX_CHARS: usize = 64;

/// The relay: settings, the arena pool, the event store and the counters.
/// Shared (in an `Arc`) by every connection.
///
/// ```
/// use quarry_server::{Config, Relay, Replies};
///
/// let relay = Relay::new(Config::default());
/// let mut replies = Replies::default();
/// relay.handle_text(r#"["REQ","feed",{"kinds":[1]}]"#, &mut replies);
/// assert_eq!(replies.iter().collect::<Vec<_>>(), [r#"["EOSE","feed"]"#]);
/// assert_eq!(relay.pool_stats().checked_out, 0);
/// ```
#[derive(Debug)]
pub struct Relay {
    pub(crate) config: Config,
    pub(crate) pool: ArenaPool,
    pub(crate) store: Store,
    pub(crate) counters: Counters,
    pub(crate) quarry: quarry_nostr::Decoder,
    pub(crate) wa: quarry_wa::Decoder,
}

/// An event as both decoders hand it to [`Relay::accept_event`].
pub(crate) struct IncomingEvent<'e, S, B> {
    pub id: &'e [u8; 32],
    pub kind: u16,
    /// The id matches the content (checked by the decoder).
    pub id_ok: bool,
    /// Checks the signature; called only with `--verify-sig`.
    pub sig_ok: S,
    /// Builds the stored form (`None`: cannot be stored); called only for
    /// a new, valid event.
    pub build: B,
}

impl Relay {
    /// A relay with `config`'s settings (the network side is started by
    /// [`start`](crate::start)).
    pub fn new(config: Config) -> Self {
        let pool = ArenaPool::builder()
            .retention_cap(config.pool_retention_cap)
            .max_pooled(config.pool_max_pooled)
            .build();
        let mut quarry = quarry_nostr::Decoder::new();
        // The relay answers a wrong id with `OK false "invalid: …"`, which
        // needs the event decoded: report the mismatch instead of failing.
        quarry.id_check = quarry_nostr::IdCheck::Report;
        Self {
            store: Store::new(config.store_events, config.store_bytes),
            pool,
            counters: Counters::default(),
            quarry,
            wa: quarry_wa::Decoder::new(),
            config,
        }
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The arena pool's counters.
    pub fn pool_stats(&self) -> PoolStats {
        self.pool.stats()
    }

    /// Every counter, the pool's and the process's.
    pub fn stats(&self) -> Stats {
        self.counters
            .snapshot(self.pool.stats(), self.store.len() as u64)
    }

    /// Answer one client message (a WebSocket text message) into `out`.
    pub fn handle_text(&self, text: &str, out: &mut Replies) {
        Counters::inc(&self.counters.messages);
        match self.config.decoder {
            DecoderKind::Quarry => self.handle_quarry(text, out),
            DecoderKind::Nostr => self.handle_nostr(text, out),
        }
    }

    /// A message that is not one the relay can read.
    pub(crate) fn notice(&self, out: &mut Replies, message: &str) {
        Counters::inc(&self.counters.notices);
        out.notice(message);
    }

    pub(crate) fn decode_failed(&self, out: &mut Replies, message: &str) {
        Counters::inc(&self.counters.decode_errors);
        self.notice(out, message);
    }

    /// Check, store and answer an EVENT.
    pub(crate) fn accept_event<S, B>(&self, event: IncomingEvent<'_, S, B>, out: &mut Replies)
    where
        S: FnOnce() -> bool,
        B: FnOnce() -> Option<StoredEvent>,
    {
        let c = &self.counters;
        let id = event.id;
        if !event.id_ok {
            Counters::inc(&c.events_invalid);
            return out.ok(id, false, "invalid: event id does not match its content");
        }
        if self.config.verify_sig && !(event.sig_ok)() {
            Counters::inc(&c.events_invalid);
            return out.ok(id, false, "invalid: signature does not verify");
        }
        // NIP-01: ephemeral events are not stored.
        if (20000..30000).contains(&event.kind) {
            Counters::inc(&c.events_accepted);
            return out.ok(id, true, "");
        }
        if self.store.contains(id) {
            Counters::inc(&c.events_duplicate);
            return out.ok(id, true, "duplicate: already have this event");
        }
        let Some(stored) = (event.build)() else {
            return out.ok(id, false, "error: the event cannot be stored");
        };
        match self.store.insert(stored) {
            crate::store::Inserted::New => {
                Counters::inc(&c.events_accepted);
                out.ok(id, true, "");
            }
            crate::store::Inserted::Duplicate => {
                Counters::inc(&c.events_duplicate);
                out.ok(id, true, "duplicate: already have this event");
            }
        }
    }

    /// Answer a REQ: the stored events matching any filter (newest first,
    /// each filter's `limit` honoured, at most `req_max_events`), then EOSE.
    /// This relay does not stream later events to open subscriptions.
    pub(crate) fn answer_req(
        &self,
        sub_id: &str,
        filter_count: usize,
        limit: impl Fn(usize) -> Option<u64>,
        matches: impl Fn(usize, &StoredEvent) -> bool,
        out: &mut Replies,
    ) {
        Counters::inc(&self.counters.reqs);
        let chars = sub_id.chars().count();
        if chars == 0 || chars > SUB_ID_MAX_CHARS {
            return out.closed(
                sub_id,
                "invalid: subscription id must be 1 to 64 characters",
            );
        }
        if filter_count > self.config.req_max_filters.min(MAX_FILTERS) {
            return out.closed(sub_id, "invalid: too many filters");
        }
        let mut limits = [0u64; MAX_FILTERS];
        for (i, l) in limits[..filter_count].iter_mut().enumerate() {
            *l = limit(i).unwrap_or(u64::MAX);
        }
        let sent = self.store.query(
            &limits[..filter_count],
            matches,
            self.config.req_max_events,
            |event| out.event(sub_id, event.json()),
        );
        Counters::add(&self.counters.req_events_sent, sent as u64);
        out.eose(sub_id);
    }

    /// A CLOSE: nothing to end (subscriptions end at EOSE here) and, as
    /// relays do in practice, nothing to answer.
    pub(crate) fn close(&self) {
        Counters::inc(&self.counters.closes);
    }
}
