//! Server settings and the command line that sets them.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

/// Which decoder reads the relay's client messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DecoderKind {
    /// `quarry_nostr` into an arena checked out of the pool; the id is
    /// hashed while decoding.
    #[default]
    Quarry,
    /// `nostr` 0.45's `ClientMessage::from_json`, then `Event::verify_id`:
    /// the comparison.
    Nostr,
}

impl DecoderKind {
    /// The name used on the command line and in statistics.
    pub fn name(self) -> &'static str {
        match self {
            Self::Quarry => "quarry",
            Self::Nostr => "nostr",
        }
    }
}

impl fmt::Display for DecoderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything the server can be told. [`Config::default`] listens on
/// loopback only.
///
/// ```
/// let config = quarry_server::Config::default();
/// assert!(config.relay_addr.ip().is_loopback());
/// assert_eq!(config.max_frame, 128 << 10);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Where the Nostr relay (WebSocket) listens; port 0 picks a free one.
    pub relay_addr: SocketAddr,
    /// Where the WhatsApp frame endpoint (TCP) listens; `None` disables it.
    pub wa_addr: Option<SocketAddr>,
    /// The relay's decoder.
    pub decoder: DecoderKind,
    /// The largest WebSocket message (and frame) and the largest WhatsApp
    /// frame body accepted, in bytes. Bigger ones get an error and the
    /// connection is closed.
    pub max_frame: usize,
    /// Also check each event's BIP-340 signature (the id is always checked).
    pub verify_sig: bool,
    /// Events the in-memory store keeps (oldest dropped first).
    pub store_events: usize,
    /// Event JSON bytes the store keeps (oldest dropped first).
    pub store_bytes: usize,
    /// The most events one REQ gets back before its EOSE.
    pub req_max_events: usize,
    /// The most filters one REQ may carry.
    pub req_max_filters: usize,
    /// A connection that completes no message for this long is closed.
    pub idle_timeout: Duration,
    /// A connection whose answer cannot be written within this long (a
    /// client that does not read) is closed.
    pub write_timeout: Duration,
    /// The pool frees an arena holding more than this after a request.
    pub pool_retention_cap: usize,
    /// The most arenas the pool keeps.
    pub pool_max_pooled: usize,
    /// Print a statistics line on stdout for every line read on stdin, and
    /// stop at the end of stdin (the load test drives the server this way).
    pub stats_stdin: bool,
}

/// The default for [`Config::max_frame`]: 128 KiB, strfry's default
/// WebSocket payload cap.
pub const DEFAULT_MAX_FRAME: usize = 128 << 10;

impl Default for Config {
    fn default() -> Self {
        Self {
            relay_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 7777)),
            wa_addr: Some(SocketAddr::from((Ipv4Addr::LOCALHOST, 7778))),
            decoder: DecoderKind::Quarry,
            max_frame: DEFAULT_MAX_FRAME,
            verify_sig: false,
            store_events: 10_000,
            store_bytes: 64 << 20,
            req_max_events: 500,
            req_max_filters: 10,
            idle_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(10),
            pool_retention_cap: 1 << 20,
            pool_max_pooled: 64,
            stats_stdin: false,
        }
    }
}

impl Config {
    /// The same settings listening on loopback port 0 (a free port) for
    /// both endpoints: what tests start.
    ///
    /// ```
    /// let config = quarry_server::Config::loopback_any_port();
    /// assert_eq!(config.relay_addr.port(), 0);
    /// ```
    pub fn loopback_any_port() -> Self {
        Self {
            relay_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            wa_addr: Some(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))),
            ..Self::default()
        }
    }

    /// Parse the command line (without the program name).
    ///
    /// ```
    /// use quarry_server::{Config, DecoderKind};
    /// let config = Config::from_args(["--decoder", "nostr", "--max-frame=4096"]).unwrap();
    /// assert_eq!(config.decoder, DecoderKind::Nostr);
    /// assert_eq!(config.max_frame, 4096);
    /// assert!(Config::from_args(["--decoder", "serde"]).is_err());
    /// assert!(Config::from_args(["--bogus"]).is_err());
    /// ```
    pub fn from_args<I, S>(args: I) -> Result<Self, ArgsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut config = Self::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_owned(), Some(v.to_owned())),
                _ => (arg, None),
            };
            match name.as_str() {
                "-h" | "--help" => return Err(ArgsError::Help),
                "--verify-sig" => config.verify_sig = true,
                "--stats-stdin" => config.stats_stdin = true,
                "--no-wa" => config.wa_addr = None,
                _ if !VALUE_OPTIONS.contains(&name.as_str()) => {
                    return Err(ArgsError::bad(&name, "is not an option"));
                }
                _ => {
                    let Some(value) = inline.or_else(|| args.next()) else {
                        return Err(ArgsError::bad(&name, "needs a value"));
                    };
                    config.set(&name, &value)?;
                }
            }
        }
        if config.max_frame == 0 || config.max_frame > MAX_WA_FRAME {
            return Err(ArgsError::bad("--max-frame", "must be 1..=16777215"));
        }
        Ok(config)
    }

    fn set(&mut self, name: &str, value: &str) -> Result<(), ArgsError> {
        let number = |v: &str| {
            v.parse::<usize>()
                .map_err(|_| ArgsError::bad(name, "must be a whole number"))
        };
        let addr = |v: &str| {
            v.parse::<SocketAddr>()
                .map_err(|_| ArgsError::bad(name, "must be IP:PORT"))
        };
        let millis = |v: &str| number(v).map(|ms| Duration::from_millis(ms as u64));
        match name {
            "--decoder" => {
                self.decoder = match value {
                    "quarry" => DecoderKind::Quarry,
                    "nostr" => DecoderKind::Nostr,
                    _ => return Err(ArgsError::bad(name, "must be quarry or nostr")),
                }
            }
            "--max-frame" => self.max_frame = number(value)?,
            "--relay-addr" => self.relay_addr = addr(value)?,
            "--wa-addr" => self.wa_addr = Some(addr(value)?),
            "--store-events" => self.store_events = number(value)?,
            "--store-bytes" => self.store_bytes = number(value)?,
            "--req-max-events" => self.req_max_events = number(value)?,
            "--req-max-filters" => self.req_max_filters = number(value)?,
            "--idle-timeout-ms" => self.idle_timeout = millis(value)?,
            "--write-timeout-ms" => self.write_timeout = millis(value)?,
            "--pool-retention-cap" => self.pool_retention_cap = number(value)?,
            "--pool-max-pooled" => self.pool_max_pooled = number(value)?,
            _ => return Err(ArgsError::bad(name, "is not an option")),
        }
        Ok(())
    }
}

/// The options that take a value.
const VALUE_OPTIONS: &[&str] = &[
    "--decoder",
    "--max-frame",
    "--relay-addr",
    "--wa-addr",
    "--store-events",
    "--store-bytes",
    "--req-max-events",
    "--req-max-filters",
    "--idle-timeout-ms",
    "--write-timeout-ms",
    "--pool-retention-cap",
    "--pool-max-pooled",
];

/// The largest body a 3-byte length prefix can announce.
pub const MAX_WA_FRAME: usize = (1 << 24) - 1;

/// Why the command line was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsError {
    /// `-h` or `--help`: print [`USAGE`] and stop.
    Help,
    /// An option that does not exist or a value that does not fit.
    Bad {
        /// The option as given.
        option: String,
        /// What is wrong with it.
        problem: &'static str,
    },
}

impl ArgsError {
    fn bad(option: &str, problem: &'static str) -> Self {
        Self::Bad {
            option: option.to_owned(),
            problem,
        }
    }
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Help => f.write_str("help requested"),
            Self::Bad { option, problem } => write!(f, "{option} {problem}"),
        }
    }
}

impl std::error::Error for ArgsError {}

/// The command line's help text.
pub const USAGE: &str = "\
usage: quarry-server [options]

  --decoder quarry|nostr     relay decoder (default quarry)
  --max-frame BYTES          largest WebSocket message / WhatsApp frame body
                             (default 131072); bigger: error, connection closed
  --verify-sig               also check BIP-340 signatures (the id is always checked)
  --relay-addr IP:PORT       Nostr relay, WebSocket (default 127.0.0.1:7777)
  --wa-addr IP:PORT          WhatsApp frames, TCP (default 127.0.0.1:7778)
  --no-wa                    no WhatsApp endpoint
  --store-events N           events kept in memory (default 10000)
  --store-bytes N            event bytes kept in memory (default 67108864)
  --req-max-events N         events per REQ before EOSE (default 500)
  --req-max-filters N        filters per REQ, at most 64 (default 10)
  --idle-timeout-ms N        close a connection idle this long (default 60000)
  --write-timeout-ms N       close a connection that does not read (default 10000)
  --pool-retention-cap N     free arenas bigger than this (default 1048576)
  --pool-max-pooled N        arenas kept by the pool (default 64)
  --stats-stdin              a statistics line (JSON) on stdout per stdin line;
                             stop at the end of stdin
";

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(args: &[&str]) -> (String, &'static str) {
        match Config::from_args(args.iter().copied()) {
            Err(ArgsError::Bad { option, problem }) => (option, problem),
            other => panic!("{args:?} -> {other:?}"),
        }
    }

    #[test]
    fn options_and_values() {
        let c = Config::from_args([
            "--relay-addr",
            "127.0.0.1:9",
            "--no-wa",
            "--idle-timeout-ms=250",
            "--verify-sig",
            "--req-max-filters",
            "3",
        ])
        .unwrap();
        assert_eq!(c.relay_addr, SocketAddr::from((Ipv4Addr::LOCALHOST, 9)));
        assert_eq!(c.wa_addr, None);
        assert_eq!(c.idle_timeout, Duration::from_millis(250));
        assert!(c.verify_sig);
        assert_eq!(c.req_max_filters, 3);
        assert_eq!(Config::from_args(["-h"]), Err(ArgsError::Help));
    }

    #[test]
    fn refusals() {
        assert_eq!(bad(&["--bogus"]), ("--bogus".into(), "is not an option"));
        assert_eq!(
            bad(&["--max-frame"]),
            ("--max-frame".into(), "needs a value")
        );
        assert_eq!(bad(&["--max-frame", "0"]).1, "must be 1..=16777215");
        // 2^24: one more than a 3-byte length can say.
        assert_eq!(bad(&["--max-frame=16777216"]).1, "must be 1..=16777215");
        assert_eq!(bad(&["--max-frame", "-1"]).1, "must be a whole number");
        assert_eq!(bad(&["--wa-addr", "localhost"]).1, "must be IP:PORT");
    }
}
