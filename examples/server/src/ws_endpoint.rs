//! The relay's WebSocket side: accept, read messages, answer them in order.
//!
//! One task per connection handles its messages one after another, so the
//! answers keep the order of the requests. A request's arena lives only
//! inside [`Relay::handle_text`] (checked out, decoded into, answers
//! written, returned), never across an `.await`: a client that stalls holds
//! no arena.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::{Instant, timeout};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use crate::relay::Relay;
use crate::replies::Replies;
use crate::stats::{Counters, Open};

/// Accept connections until the task is aborted (which aborts every
/// connection task with it).
pub(crate) async fn serve(listener: TcpListener, relay: Arc<Relay>) {
    let mut connections = JoinSet::new();
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            // Out of descriptors and the like: back off instead of spinning.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        while connections.try_join_next().is_some() {}
        connections.spawn(connection(tcp, Arc::clone(&relay)));
    }
}

async fn connection(tcp: TcpStream, relay: Arc<Relay>) {
    let config = relay.config();
    let (idle, write_limit) = (config.idle_timeout, config.write_timeout);
    // Answers are small and a client waits for each: send them now.
    let _ = tcp.set_nodelay(true);
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(config.max_frame))
        .max_frame_size(Some(config.max_frame));
    let Ok(Ok(mut ws)) = timeout(
        idle,
        tokio_tungstenite::accept_async_with_config(tcp, Some(ws_config)),
    )
    .await
    else {
        return;
    };
    let counters = &relay.counters;
    Counters::inc(&counters.ws_connections);
    let _open = Open::new(&counters.ws_open);

    let mut replies = Replies::default();
    loop {
        let next = match timeout(idle, ws.next()).await {
            Err(_) => {
                Counters::inc(&counters.timeouts);
                let close = CloseFrame {
                    code: CloseCode::Away,
                    reason: "idle".into(),
                };
                let _ = timeout(write_limit, ws.close(Some(close))).await;
                return;
            }
            Ok(None) => return,
            Ok(Some(next)) => next,
        };
        match next {
            Ok(Message::Text(text)) => relay.handle_text(text.as_str(), &mut replies),
            Ok(Message::Binary(_)) => {
                relay.notice(&mut replies, "invalid: NIP-01 messages are text");
            }
            // tungstenite answers pings and the closing handshake itself.
            Ok(Message::Ping(_) | Message::Pong(_) | Message::Close(_) | Message::Frame(_)) => {}
            Err(WsError::Capacity(_)) => return too_large(&relay, ws).await,
            // Reset, broken framing, closed: nothing left to answer.
            Err(_) => return,
        }
        if replies.is_empty() {
            continue;
        }
        let sent = timeout(write_limit, async {
            for text in replies.drain() {
                ws.feed(Message::text(text)).await?;
            }
            ws.flush().await
        })
        .await;
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return,
            Err(_) => {
                // The client does not read: drop it rather than buffer.
                Counters::inc(&counters.timeouts);
                return;
            }
        }
    }
}

/// A message over `--max-frame`: tungstenite stops at the frame header, so
/// the connection cannot continue. Say why (NOTICE), close with 1009
/// ("message too big"), then read and discard what the client still sends
/// until it closes, so the close does not become a reset that could discard
/// the NOTICE before the client reads it.
async fn too_large(relay: &Relay, mut ws: WebSocketStream<TcpStream>) {
    let config = relay.config();
    Counters::inc(&relay.counters.oversized);
    Counters::inc(&relay.counters.notices);
    let notice = format!(
        r#"["NOTICE","invalid: message larger than this relay's limit of {} bytes"]"#,
        config.max_frame
    );
    let close = CloseFrame {
        code: CloseCode::Size,
        reason: "message too big".into(),
    };
    let said = timeout(config.write_timeout, async {
        ws.send(Message::text(notice)).await?;
        ws.close(Some(close)).await
    })
    .await;
    if !matches!(said, Ok(Ok(()))) {
        return;
    }
    let tcp = ws.get_mut();
    // FIN after the close frame: our side is done.
    let _ = tcp.shutdown().await;
    drain(tcp, config.write_timeout, 4 * config.max_frame).await;
}

/// Read and drop up to `max` bytes until the peer closes or `limit` passes.
async fn drain(tcp: &mut TcpStream, limit: Duration, max: usize) {
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 4096];
    let mut left = max;
    while left > 0 {
        match tokio::time::timeout_at(deadline, tcp.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => left = left.saturating_sub(n),
            _ => return,
        }
    }
}
