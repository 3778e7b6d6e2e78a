//! Nostr relay and client messages (NIP-01 and the NIPs quarry-nostr reads).

use quarry_core::{Arena, DecodeError};
use quarry_nostr::{ClientMessage, ControlChars, Decoder, Event, IdCheck, Message, RelayMessage};

use crate::{arena_bytes_written, check_offset, in_reused_arena};

/// Arena bytes per input byte for a message that carries filters (REQ,
/// COUNT, NEG-OPEN): the filter records are 112 bytes for as few as 3
/// input bytes (`{},`) and their table grows by doubling, each growth
/// charged whole, so up to 4 records' worth per filter (docs/SECURITY.md).
pub const FILTER_BYTES_PER_INPUT_BYTE: usize = 150;
/// The constant on top of [`FILTER_BYTES_PER_INPUT_BYTE`]: the first
/// capacity (4 entries) of each of the five filter tables, the table of
/// tables and the record alignment.
pub const FILTER_BYTES_CONST: usize = 1024;

/// The bound for messages with filters.
pub const fn filter_arena_bytes(len: usize) -> usize {
    len.saturating_mul(FILTER_BYTES_PER_INPUT_BYTE)
        .saturating_add(FILTER_BYTES_CONST)
}

/// The decoder the targets use: ids are hashed and the outcome reported,
/// not required, so that events with any id reach every later check.
fn report() -> Decoder {
    Decoder {
        id_check: IdCheck::Report,
        ..Decoder::new()
    }
}

/// What a decoded message is compared by: its JSON (every field, as
/// quarry-nostr's writer prints it) and its event's id verdict.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    json: Vec<u8>,
    id_valid: Option<Option<bool>>,
}

fn seen_event(event: Option<Event<'_>>) -> Option<Option<bool>> {
    event.map(|e| {
        // The decode hashes the wire bytes when they are canonical and the
        // decoded values otherwise; computing from the values must agree.
        let computed = e.compute_id(ControlChars::Escape) == *e.id();
        assert_eq!(
            e.id_valid(),
            Some(computed),
            "id verdict differs from compute_id"
        );
        e.id_valid()
    })
}

fn seen_relay(m: &RelayMessage<'_>) -> Seen {
    let mut json = Vec::new();
    m.encode_into(&mut json);
    Seen {
        json,
        id_valid: seen_event(m.event()),
    }
}

fn seen_client(m: &ClientMessage<'_>) -> Seen {
    let mut json = Vec::new();
    m.encode_into(&mut json);
    Seen {
        json,
        id_valid: seen_event(m.event()),
    }
}

fn has_filters(m: &ClientMessage<'_>) -> bool {
    matches!(
        m,
        ClientMessage::Req { .. } | ClientMessage::Count { .. } | ClientMessage::NegOpen { .. }
    )
}

/// A relay-to-client message.
pub fn check_relay(data: &[u8]) {
    let d = report();
    let fresh = Arena::new();
    let first = d.decode_relay_message(&fresh, data);
    let bound = quarry_nostr::max_event_arena_bytes(data.len());
    let (written, measured) = arena_bytes_written(bound.saturating_add(4096), |arena| {
        d.decode_relay_message(arena, data).map(|m| seen_relay(&m))
    });
    assert!(
        written <= bound,
        "{written} arena bytes for {} input bytes (bound 8 x len + 512 = {bound})",
        data.len()
    );
    let reused =
        in_reused_arena(|arena| d.decode_relay_message(arena, data).map(|m| seen_relay(&m)));
    let seen = first.map(|m| seen_relay(&m));
    assert_eq!(seen, reused, "fresh and reused arenas disagree");
    assert_eq!(seen, measured, "fresh and pre-sized arenas disagree");
    check_required(
        &seen,
        Decoder::new()
            .decode_relay_message(&Arena::new(), data)
            .map(|_| ()),
    );
    check_either(data, &seen, true);

    match &seen {
        Ok(s) => {
            let arena = Arena::new();
            let again = d
                .decode_relay_message(&arena, &s.json)
                .unwrap_or_else(|e| panic!("the re-encoding does not decode: {e}"));
            assert_eq!(
                &seen_relay(&again),
                s,
                "the re-encoding decodes to another message"
            );
        }
        Err(e) => check_offset(e, data.len()),
    }
}

/// A client-to-relay message.
pub fn check_client(data: &[u8]) {
    let d = report();
    let fresh = Arena::new();
    let first = d.decode_client_message(&fresh, data);
    let filters = first.as_ref().map_or(true, has_filters);
    let bound = if filters {
        filter_arena_bytes(data.len())
    } else {
        quarry_nostr::max_event_arena_bytes(data.len())
    };
    let (written, measured) = arena_bytes_written(bound.saturating_add(4096), |arena| {
        d.decode_client_message(arena, data)
            .map(|m| seen_client(&m))
    });
    assert!(
        written <= bound,
        "{written} arena bytes for {} input bytes (bound {bound}, filters: {filters})",
        data.len()
    );
    let reused = in_reused_arena(|arena| {
        d.decode_client_message(arena, data)
            .map(|m| seen_client(&m))
    });
    let seen = first.map(|m| seen_client(&m));
    assert_eq!(seen, reused, "fresh and reused arenas disagree");
    assert_eq!(seen, measured, "fresh and pre-sized arenas disagree");
    check_required(
        &seen,
        Decoder::new()
            .decode_client_message(&Arena::new(), data)
            .map(|_| ()),
    );
    check_either(data, &seen, false);

    match &seen {
        Ok(s) => {
            let arena = Arena::new();
            let again = d
                .decode_client_message(&arena, &s.json)
                .unwrap_or_else(|e| panic!("the re-encoding does not decode: {e}"));
            assert_eq!(
                &seen_client(&again),
                s,
                "the re-encoding decodes to another message"
            );
        }
        Err(e) => check_offset(e, data.len()),
    }
}

/// With ids required (the default decoder), a message decodes exactly
/// when it decodes with ids reported and its event's id, if any, matched.
fn check_required(seen: &Result<Seen, DecodeError>, required: Result<(), DecodeError>) {
    let expect_ok = matches!(seen, Ok(s) if s.id_valid != Some(Some(false)));
    assert_eq!(
        required.is_ok(),
        expect_ok,
        "IdCheck::Require: {required:?}, IdCheck::Report: {seen:?}"
    );
}

/// `decode_message` (either direction) agrees with the one-sided decoder
/// whenever it picks that side.
fn check_either(data: &[u8], seen: &Result<Seen, DecodeError>, relay: bool) {
    let arena = Arena::new();
    match report().decode_message(&arena, data) {
        Ok(Message::Relay(m)) if relay => {
            assert_eq!(
                seen.as_ref().ok(),
                Some(&seen_relay(&m)),
                "decode_message disagrees"
            )
        }
        Ok(Message::Client(m)) if !relay => {
            assert_eq!(
                seen.as_ref().ok(),
                Some(&seen_client(&m)),
                "decode_message disagrees"
            )
        }
        _ => {}
    }
}
