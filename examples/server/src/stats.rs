//! Counters the endpoints bump, and the snapshot the tests and the load
//! test read (also printed as one JSON line with `--stats-stdin`).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use quarry_core::PoolStats;

use crate::alloc_count;

/// Live counters, shared by every connection.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub ws_connections: AtomicU64,
    pub ws_open: AtomicU64,
    pub messages: AtomicU64,
    pub decode_allocs: AtomicU64,
    pub decode_errors: AtomicU64,
    pub events_accepted: AtomicU64,
    pub events_duplicate: AtomicU64,
    pub events_invalid: AtomicU64,
    pub reqs: AtomicU64,
    pub req_events_sent: AtomicU64,
    pub closes: AtomicU64,
    pub notices: AtomicU64,
    pub oversized: AtomicU64,
    pub timeouts: AtomicU64,
    pub wa_connections: AtomicU64,
    pub wa_open: AtomicU64,
    pub wa_frames: AtomicU64,
    pub wa_errors: AtomicU64,
    pub wa_decode_allocs: AtomicU64,
}

/// Counts a connection as open until dropped.
pub(crate) struct Open<'c>(&'c AtomicU64);

impl<'c> Open<'c> {
    pub fn new(counter: &'c AtomicU64) -> Self {
        counter.fetch_add(1, Relaxed);
        Self(counter)
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

impl Counters {
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Relaxed);
    }

    pub fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }
}

/// A snapshot of the server's counters, its pool and its process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// WebSocket connections accepted so far.
    pub ws_connections: u64,
    /// WebSocket connections open now.
    pub ws_open: u64,
    /// Relay text messages handled (each one is one request).
    pub messages: u64,
    /// Heap allocations in the relay's decode path, summed over every
    /// message: pool checkout plus decode (id hash included) for quarry,
    /// `ClientMessage::from_json` plus `Event::verify_id` for nostr.
    pub decode_allocs: u64,
    /// Messages that did not decode (answered with NOTICE).
    pub decode_errors: u64,
    /// EVENTs accepted and stored.
    pub events_accepted: u64,
    /// EVENTs already stored (`OK true "duplicate: …"`).
    pub events_duplicate: u64,
    /// EVENTs whose id (or signature, with `--verify-sig`) is wrong.
    pub events_invalid: u64,
    /// REQs answered.
    pub reqs: u64,
    /// Stored events sent in answer to REQs.
    pub req_events_sent: u64,
    /// CLOSEs received.
    pub closes: u64,
    /// NOTICEs sent.
    pub notices: u64,
    /// Messages or frames over `--max-frame` (connection closed).
    pub oversized: u64,
    /// Connections closed for idling or not reading.
    pub timeouts: u64,
    /// WhatsApp endpoint connections accepted.
    pub wa_connections: u64,
    /// WhatsApp endpoint connections open now.
    pub wa_open: u64,
    /// WhatsApp frames answered (good or bad).
    pub wa_frames: u64,
    /// WhatsApp frames that did not decode.
    pub wa_errors: u64,
    /// Heap allocations in the WhatsApp decode path (checkout plus decode).
    pub wa_decode_allocs: u64,
    /// Events in the store now.
    pub stored_events: u64,
    /// The arena pool's counters.
    pub pool: PoolStats,
    /// Heap allocations by the whole process so far (0 without the
    /// counting allocator).
    pub process_allocs: u64,
    /// Whether the counting allocator is installed.
    pub counting: bool,
    /// Peak resident set size in KiB (`VmHWM` from `/proc/self/status`;
    /// 0 where that file does not exist).
    pub vm_hwm_kib: u64,
    /// Resident set size now in KiB (`VmRSS`).
    pub vm_rss_kib: u64,
    /// CPU time this process used so far, user plus system, in
    /// milliseconds (`/proc/self/stat`, 10 ms resolution; 0 elsewhere).
    pub cpu_ms: u64,
}

impl Counters {
    pub fn snapshot(&self, pool: PoolStats, stored_events: u64) -> Stats {
        let (vm_hwm_kib, vm_rss_kib) = memory_kib();
        let get = |c: &AtomicU64| c.load(Relaxed);
        Stats {
            ws_connections: get(&self.ws_connections),
            ws_open: get(&self.ws_open),
            messages: get(&self.messages),
            decode_allocs: get(&self.decode_allocs),
            decode_errors: get(&self.decode_errors),
            events_accepted: get(&self.events_accepted),
            events_duplicate: get(&self.events_duplicate),
            events_invalid: get(&self.events_invalid),
            reqs: get(&self.reqs),
            req_events_sent: get(&self.req_events_sent),
            closes: get(&self.closes),
            notices: get(&self.notices),
            oversized: get(&self.oversized),
            timeouts: get(&self.timeouts),
            wa_connections: get(&self.wa_connections),
            wa_open: get(&self.wa_open),
            wa_frames: get(&self.wa_frames),
            wa_errors: get(&self.wa_errors),
            wa_decode_allocs: get(&self.wa_decode_allocs),
            stored_events,
            pool,
            process_allocs: alloc_count::total(),
            counting: alloc_count::is_installed(),
            vm_hwm_kib,
            vm_rss_kib,
            cpu_ms: cpu_ms(),
        }
    }
}

impl Stats {
    /// One JSON object on one line (no trailing newline), flat, every value
    /// a number or a boolean; the pool's counters are prefixed `pool_`.
    ///
    /// ```
    /// # let server_stats = quarry_server::Stats::zero();
    /// let line = server_stats.to_json();
    /// assert!(line.starts_with("{\"ws_connections\":0,"));
    /// assert!(line.contains("\"pool_checked_out\":0"));
    /// ```
    pub fn to_json(&self) -> String {
        let p = &self.pool;
        let fields: [(&str, u64); 32] = [
            ("ws_connections", self.ws_connections),
            ("ws_open", self.ws_open),
            ("messages", self.messages),
            ("decode_allocs", self.decode_allocs),
            ("decode_errors", self.decode_errors),
            ("events_accepted", self.events_accepted),
            ("events_duplicate", self.events_duplicate),
            ("events_invalid", self.events_invalid),
            ("reqs", self.reqs),
            ("req_events_sent", self.req_events_sent),
            ("closes", self.closes),
            ("notices", self.notices),
            ("oversized", self.oversized),
            ("timeouts", self.timeouts),
            ("wa_connections", self.wa_connections),
            ("wa_open", self.wa_open),
            ("wa_frames", self.wa_frames),
            ("wa_errors", self.wa_errors),
            ("wa_decode_allocs", self.wa_decode_allocs),
            ("stored_events", self.stored_events),
            ("pool_checked_out", p.checked_out as u64),
            ("pool_pooled", p.pooled as u64),
            ("pool_high_water", p.high_water as u64),
            ("pool_created", p.created),
            ("pool_dropped_for_size", p.dropped_for_size),
            ("pool_dropped_for_count", p.dropped_for_count),
            ("pool_retained_bytes", p.retained_bytes as u64),
            ("process_allocs", self.process_allocs),
            ("vm_hwm_kib", self.vm_hwm_kib),
            ("vm_rss_kib", self.vm_rss_kib),
            ("cpu_ms", self.cpu_ms),
            ("counting", u64::from(self.counting)),
        ];
        let mut out = String::with_capacity(768);
        out.push('{');
        for (i, (name, value)) in fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if *name == "counting" {
                let _ = write!(out, "\"{name}\":{}", *value != 0);
            } else {
                let _ = write!(out, "\"{name}\":{value}");
            }
        }
        out.push('}');
        out
    }

    /// All counters zero (for documentation and comparisons).
    pub fn zero() -> Self {
        Counters::default().snapshot_without_process(PoolStats::default())
    }
}

impl Counters {
    fn snapshot_without_process(&self, pool: PoolStats) -> Stats {
        Stats {
            process_allocs: 0,
            counting: false,
            vm_hwm_kib: 0,
            vm_rss_kib: 0,
            cpu_ms: 0,
            ..self.snapshot(pool, 0)
        }
    }
}

/// `VmHWM` and `VmRSS` of this process, in KiB.
fn memory_kib() -> (u64, u64) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return (0, 0);
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// User plus system CPU time of this process in milliseconds. The fields
/// of `/proc/self/stat` after the command name (which may hold spaces, so
/// the split starts after its closing parenthesis): `utime` and `stime`
/// are the 12th and 13th, in USER_HZ ticks, which Linux fixes at 100 per
/// second for this file.
fn cpu_ms() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0;
    };
    let mut fields = rest.split_whitespace().skip(11);
    let mut tick = || {
        fields
            .next()
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let (user, system) = (tick(), tick());
    (user + system) * 10
}
