//! An example server on quarry: a Nostr relay ingest endpoint over
//! WebSocket and a WhatsApp binary-frame endpoint over TCP, each request
//! decoded in an arena checked out of one shared [`quarry_core::ArenaPool`] and
//! returned when the request is answered.
//!
//! * Relay (`ws://`, NIP-01): `EVENT` → the id is checked (always; the
//!   signature too with [`Config::verify_sig`]), the event stored in a
//!   bounded in-memory store, `["OK",id,true|false,"<prefix>: …"]`
//!   (`invalid:` for a wrong id or signature, `duplicate:` for a stored
//!   one); `REQ` → the stored events that match, then `EOSE` (no live
//!   streaming afterwards); `CLOSE` → no answer; anything else, or what
//!   does not parse → `NOTICE`. A message over [`Config::max_frame`] gets a
//!   NOTICE and the connection is closed with code 1009.
//! * WhatsApp frames: see [`wa_endpoint`].
//!
//! `--decoder nostr` ([`DecoderKind::Nostr`]) swaps the relay's decoder for
//! `nostr` 0.45's `ClientMessage::from_json` + `Event::verify_id`, for the
//! load test's comparison (`docs/BENCHMARKS-server.md`).
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let server = quarry_server::start(quarry_server::Config::loopback_any_port()).await?;
//! println!("relay at ws://{}", server.relay_addr());
//! # Ok(()) }
//! ```

pub mod alloc_count;
mod config;
mod nostr_path;
mod quarry_path;
mod relay;
mod replies;
mod stats;
mod store;
pub mod wa_endpoint;
mod ws_endpoint;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use config::{ArgsError, Config, DEFAULT_MAX_FRAME, DecoderKind, MAX_WA_FRAME, USAGE};
pub use relay::Relay;
pub use replies::Replies;
pub use stats::Stats;
pub use store::{Inserted, MAX_FILTERS, Store, StoredEvent};

/// A running server: its addresses and its relay (pool, store, counters).
/// Dropping it (or [`shutdown`](Self::shutdown)) stops accepting and ends
/// every connection.
#[derive(Debug)]
pub struct Server {
    relay: Arc<Relay>,
    relay_addr: SocketAddr,
    wa_addr: Option<SocketAddr>,
    tasks: Vec<JoinHandle<()>>,
}

/// Bind both endpoints and start serving on the current tokio runtime.
pub async fn start(config: Config) -> io::Result<Server> {
    let relay = Arc::new(Relay::new(config.clone()));
    let ws_listener = TcpListener::bind(config.relay_addr).await?;
    let relay_addr = ws_listener.local_addr()?;
    let mut tasks = Vec::new();
    let wa_addr = match config.wa_addr {
        Some(addr) => {
            let listener = TcpListener::bind(addr).await?;
            let addr = listener.local_addr()?;
            tasks.push(tokio::spawn(wa_endpoint::serve(
                listener,
                Arc::clone(&relay),
            )));
            Some(addr)
        }
        None => None,
    };
    tasks.push(tokio::spawn(ws_endpoint::serve(
        ws_listener,
        Arc::clone(&relay),
    )));
    Ok(Server {
        relay,
        relay_addr,
        wa_addr,
        tasks,
    })
}

impl Server {
    /// The relay's address (`ws://` + this).
    pub fn relay_addr(&self) -> SocketAddr {
        self.relay_addr
    }

    /// The WhatsApp endpoint's address, when it runs.
    pub fn wa_addr(&self) -> Option<SocketAddr> {
        self.wa_addr
    }

    /// The relay: pool, store, counters.
    pub fn relay(&self) -> &Arc<Relay> {
        &self.relay
    }

    /// Every counter now.
    pub fn stats(&self) -> Stats {
        self.relay.stats()
    }

    /// Stop accepting and end every connection.
    pub fn shutdown(self) {
        drop(self);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
