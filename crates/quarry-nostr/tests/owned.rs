//! `OwnedMessage`: a client EVENT moved to another thread reads the same as
//! before the move and as rust-nostr's event; it is dropped without leaks;
//! `slice_bytes` shares the event's raw JSON and copies unescaped strings.

mod common;

use std::sync::Mutex;

use quarry_core::ArenaPool;
use quarry_core::bytes::Bytes;
use quarry_nostr::{ClientMessage, Decoder, Event, OwnedMessage, RelayMessage};

/// Tests that count live heap bytes run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

/// What a reader looks at: id, pubkey, kind, created_at, content, tags.
type Snapshot = ([u8; 32], [u8; 32], u16, u64, String, Vec<Vec<String>>);

fn snapshot(e: Event<'_>) -> Snapshot {
    (
        *e.id(),
        *e.pubkey(),
        e.kind(),
        e.created_at(),
        e.content().to_string(),
        e.tags()
            .iter()
            .map(|t| t.iter().map(str::to_string).collect())
            .collect(),
    )
}

/// The same fields from rust-nostr's event.
fn expected(e: &nostr::event::Event) -> Snapshot {
    (
        e.id.to_bytes(),
        *e.pubkey.as_bytes(),
        e.kind.as_u16(),
        e.created_at.as_secs(),
        e.content.clone(),
        e.tags.iter().map(|t| t.as_slice().to_vec()).collect(),
    )
}

fn client_event(e: &nostr::event::Event) -> Bytes {
    Bytes::from(format!(r#"["EVENT",{}]"#, e.as_json()))
}

// Counting covers exactly the message's life: its decode on this thread
// (input included) and its drop on the worker; what one allocated the other
// must have freed. (Counting whole threads or channels would pick up the
// runtime's lazily created per-thread state.)
#[test]
fn moved_to_another_thread_reads_the_same_and_leaks_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let event = common::shape(4, 1); // 12 tags
    let want = expected(&event);
    let wire = client_event(&event);
    let (to_worker, inbox) = std::sync::mpsc::channel::<OwnedMessage>();
    let (to_main, results) = std::sync::mpsc::channel::<Snapshot>();
    let worker = std::thread::spawn(move || {
        for msg in inbox {
            let seen = snapshot(msg.event().unwrap());
            quarry_testkit::tracked(|| drop(msg));
            to_main.send(seen).unwrap();
        }
    });
    for _ in 0..2 {
        let baseline = quarry_testkit::live_bytes();
        // A copy of the wire bytes, so the message owns them.
        let msg = quarry_testkit::tracked(|| {
            OwnedMessage::decode_client(Bytes::copy_from_slice(&wire)).unwrap()
        });
        assert!(quarry_testkit::live_bytes() > baseline);
        assert!(matches!(msg.client(), Some(ClientMessage::Event(_))));
        assert_eq!(msg.event().unwrap().id_valid(), Some(true));
        let before = snapshot(msg.event().unwrap());
        assert_eq!(before, want);
        to_worker.send(msg).unwrap();
        let after = results.recv().unwrap();
        assert_eq!(after, before);
        assert_eq!(quarry_testkit::live_bytes(), baseline, "bytes leaked");
    }
    drop(to_worker);
    worker.join().unwrap();
}

#[test]
fn a_pooled_message_returns_its_arena_from_another_thread() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ArenaPool::new();
    let event = common::shape(2, 3);
    let msg = OwnedMessage::decode_client_with(&Decoder::new(), pool.get(), client_event(&event))
        .unwrap();
    assert_eq!(pool.stats().checked_out, 1);
    let seen = std::thread::spawn(move || snapshot(msg.event().unwrap()))
        .join()
        .unwrap();
    assert_eq!(seen, expected(&event));
    let stats = pool.stats();
    assert_eq!((stats.checked_out, stats.pooled), (0, 1));
}

#[test]
fn slice_bytes_shares_raw_json_and_copies_unescaped_text() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let keys = common::keys(9);
    let event = common::sign(&keys, 5, 1, &[], "two\nlines");
    let json = event.as_json();
    assert!(json.contains(r"two\nlines"));
    let wire = Bytes::from(format!(r#"["EVENT","sub",{json}]"#));
    let msg = OwnedMessage::decode_relay(wire.clone()).unwrap();
    let Some(RelayMessage::Event { sub_id, event: ev }) = msg.relay() else {
        panic!("not a relay EVENT");
    };
    let range = wire.as_ptr_range();

    let raw = msg.slice_bytes(ev.raw());
    assert_eq!(raw, json.as_bytes());
    assert!(range.contains(&raw.as_ptr()), "raw JSON was copied");
    let sub = msg.slice_bytes(sub_id.as_bytes());
    assert_eq!(&sub[..], b"sub");
    assert!(range.contains(&sub.as_ptr()));

    // The content had an escape, so it was unescaped into the arena.
    let content = msg.slice_bytes(ev.content().as_bytes());
    assert_eq!(&content[..], b"two\nlines");
    assert!(!range.contains(&content.as_ptr()));

    assert_eq!(msg.backing_bytes(), &wire);
    assert_eq!(msg.into_inner().into_bytes().as_ptr(), wire.as_ptr());
}

#[test]
fn either_direction_and_errors() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let msg = OwnedMessage::decode(Bytes::from_static(br#"["CLOSED","s","error: x"]"#)).unwrap();
    assert!(msg.client().is_none());
    assert!(matches!(
        msg.relay(),
        Some(RelayMessage::Closed {
            sub_id: "s",
            message: "error: x"
        })
    ));
    let pool = ArenaPool::new();
    let err = OwnedMessage::decode_client_with(
        &Decoder::new(),
        pool.get(),
        Bytes::from_static(br#"["CLOSE""#),
    )
    .unwrap_err();
    // The input ends after the verb, at byte 8.
    assert_eq!(err.offset(), 8);
    assert_eq!(pool.stats().checked_out, 0);
}

#[test]
fn owned_message_is_static_and_send() {
    fn static_send<T: Send + 'static>() {}
    static_send::<OwnedMessage>();
}
