//! The WhatsApp binary-frame endpoint: length-prefixed frames over TCP.
//!
//! Wire format, both directions: a **3-byte big-endian length**, then that
//! many bytes, the framing WhatsApp's own socket uses around its Noise
//! ciphertext. A request body is what that Noise layer carries once
//! decrypted: one flags byte (`0x02`: the rest is zlib) then exactly one
//! node, what [`quarry_wa::decode_frame`] reads. There is no Noise here:
//! this endpoint shows the decode, not the handshake. A length of 0 is a
//! frame without even the flags byte (answered with an error).
//!
//! Each answer body is one JSON object in UTF-8:
//!
//! * decoded: `{"tag":"<tag>","id":"<id attribute>"}`, `"id":null` when the
//!   node has none (a JID-valued id is written in its text form);
//! * not decoded: `{"error":"<what>","offset":<byte offset in the body>}`;
//!   the connection stays open, since the length prefix still delimits the
//!   next frame;
//! * a length over `--max-frame`:
//!   `{"error":"frame larger than the limit of N bytes","offset":0}`, then
//!   the connection is closed (the body is not read).
//!
//! ```
//! let relay = quarry_server::Relay::new(quarry_server::Config::default());
//! let mut answer = Vec::new();
//! // flags 0x00, then <message type="enc"/> (tokens 19, 4, 29)
//! relay.answer_wa_frame(&[0x00, 0xF8, 3, 19, 4, 29], &mut answer);
//! assert_eq!(&answer[..3], &[0, 0, 27]); // 27 bytes of JSON follow
//! assert_eq!(&answer[3..], br#"{"tag":"message","id":null}"#);
//! ```

use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use quarry_nostr::write_json_string;
use quarry_wa::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::timeout;

use crate::alloc_count;
use crate::config::MAX_WA_FRAME;
use crate::relay::Relay;
use crate::stats::{Counters, Open};

/// Bytes of the length prefix.
pub const LENGTH_BYTES: usize = 3;

/// Accept connections until the task is aborted.
pub(crate) async fn serve(listener: TcpListener, relay: Arc<Relay>) {
    let mut connections = JoinSet::new();
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        while connections.try_join_next().is_some() {}
        connections.spawn(connection(tcp, Arc::clone(&relay)));
    }
}

async fn connection(mut tcp: TcpStream, relay: Arc<Relay>) {
    let config = relay.config();
    let (idle, write_limit, max) = (config.idle_timeout, config.write_timeout, config.max_frame);
    let _ = tcp.set_nodelay(true);
    Counters::inc(&relay.counters.wa_connections);
    let _open = Open::new(&relay.counters.wa_open);
    // Reused for every frame of the connection: after the largest frame,
    // reading and answering allocate nothing.
    let mut body = Vec::new();
    let mut answer = Vec::new();
    loop {
        let mut prefix = [0u8; LENGTH_BYTES];
        match timeout(idle, tcp.read_exact(&mut prefix)).await {
            Ok(Ok(_)) => {}
            Ok(Err(_)) => return,
            Err(_) => return Counters::inc(&relay.counters.timeouts),
        }
        let len =
            usize::from(prefix[0]) << 16 | usize::from(prefix[1]) << 8 | usize::from(prefix[2]);
        if len > max {
            Counters::inc(&relay.counters.oversized);
            answer.clear();
            let message = format!("frame larger than the limit of {max} bytes");
            error_answer(&mut answer, &message, 0);
            let _ = timeout(write_limit, tcp.write_all(&answer)).await;
            let _ = tcp.shutdown().await;
            return;
        }
        body.clear();
        body.resize(len, 0);
        match timeout(idle, tcp.read_exact(&mut body)).await {
            Ok(Ok(_)) => {}
            Ok(Err(_)) => return,
            Err(_) => return Counters::inc(&relay.counters.timeouts),
        }
        answer.clear();
        relay.answer_wa_frame(&body, &mut answer);
        match timeout(write_limit, tcp.write_all(&answer)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return,
            Err(_) => return Counters::inc(&relay.counters.timeouts),
        }
    }
}

impl Relay {
    /// Decode one frame body (flags byte + node) in an arena from the pool
    /// and append the answer frame (length prefix included) to `out`.
    pub fn answer_wa_frame(&self, frame: &[u8], out: &mut Vec<u8>) {
        let c = &self.counters;
        Counters::inc(&c.wa_frames);
        let start = out.len();
        out.extend_from_slice(&[0; LENGTH_BYTES]);
        let before = alloc_count::this_thread();
        let arena = self.pool.get();
        let decoded = self.wa.decode_frame(&arena, frame);
        Counters::add(&c.wa_decode_allocs, alloc_count::this_thread() - before);
        match decoded {
            Ok(node) => {
                out.extend_from_slice(b"{\"tag\":");
                write_json_string(out, node.tag());
                out.extend_from_slice(b",\"id\":");
                match node.attr("id") {
                    None => out.extend_from_slice(b"null"),
                    Some(Value::Str(id)) => write_json_string(out, id),
                    Some(jid @ Value::Jid(_)) => write_json_string(out, &jid.to_text()),
                }
                out.push(b'}');
            }
            Err(e) => {
                Counters::inc(&c.wa_errors);
                out.truncate(start);
                return error_answer(out, &e.to_string(), e.offset());
            }
        }
        drop(arena);
        let len = out.len() - start - LENGTH_BYTES;
        if len > MAX_WA_FRAME {
            // A tag of megabytes of control characters escapes to more
            // than a frame can carry.
            out.truncate(start);
            return error_answer(out, "answer larger than a frame", 0);
        }
        put_length(&mut out[start..], len);
    }
}

/// Append an error answer frame.
fn error_answer(out: &mut Vec<u8>, message: &str, offset: usize) {
    let start = out.len();
    out.extend_from_slice(&[0; LENGTH_BYTES]);
    out.extend_from_slice(b"{\"error\":");
    write_json_string(out, message);
    let _ = write!(out, ",\"offset\":{offset}}}");
    let len = out.len() - start - LENGTH_BYTES;
    put_length(&mut out[start..], len);
}

fn put_length(prefix: &mut [u8], len: usize) {
    prefix[0] = (len >> 16) as u8;
    prefix[1] = (len >> 8) as u8;
    prefix[2] = len as u8;
}
