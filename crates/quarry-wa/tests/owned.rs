//! `OwnedStanza`: moved to another thread it reads the same as before the
//! move; it is dropped without leaks; `slice_bytes` shares the input where
//! a payload borrows from it and copies what lives in the arena.

use std::sync::Mutex;

use quarry_core::ArenaPool;
use quarry_core::bytes::Bytes;
use quarry_wa::{Decoder, Jid, Node, OwnedNode, OwnedStanza, Server};

/// Tests that count live heap bytes run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

const DEVICES: u16 = if cfg!(miri) { 2 } else { 8 };

/// A group-message fanout built with the crate's own builder.
fn fanout() -> OwnedNode {
    let devices = (0..DEVICES).map(|i| {
        OwnedNode::new("to")
            .jid_attr("jid", Jid::new("5511999990000", Server::Pn).with_device(i))
            .children([OwnedNode::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(vec![i as u8; 100 + i as usize])])
    });
    OwnedNode::new("message")
        .attr("to", "120363000000000000@g.us")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("type", "text")
        .children([OwnedNode::new("participants").children(devices)])
}

/// Everything a reader looks at: tag, attributes as text, content bytes,
/// for every node in document order.
type Snapshot = Vec<(String, Vec<(String, String)>, Option<Vec<u8>>)>;

fn snapshot(node: Node<'_>, out: &mut Snapshot) {
    let attrs = node
        .attrs()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_text().into_owned()))
        .collect();
    out.push((
        node.tag().to_string(),
        attrs,
        node.content_bytes().map(<[u8]>::to_vec),
    ));
    for child in node.children() {
        snapshot(child, out);
    }
}

fn snapshot_of(node: Node<'_>) -> Snapshot {
    let mut out = Vec::new();
    snapshot(node, &mut out);
    out
}

/// The same walk over the builder's tree: the expectation does not come
/// from the decoder.
fn expected(node: &OwnedNode, out: &mut Snapshot) {
    let attrs = ["to", "id", "type", "jid", "v"]
        .iter()
        .filter_map(|k| {
            node.get_attr(k)
                .map(|v| (k.to_string(), v.to_text().into_owned()))
        })
        .collect::<Vec<_>>();
    out.push((
        node.tag().to_string(),
        attrs,
        node.content_bytes().map(<[u8]>::to_vec),
    ));
    for child in node.child_nodes() {
        expected(child, out);
    }
}

fn sorted(mut s: Snapshot) -> Snapshot {
    for (_, attrs, _) in &mut s {
        attrs.sort();
    }
    s
}

// Counting covers exactly the message's life: its decode on this thread
// (input included) and its drop on the worker; what one allocated the other
// must have freed. (Counting whole threads or channels would pick up the
// runtime's lazily created per-thread state.)
#[test]
fn moved_to_another_thread_reads_the_same_and_leaks_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tree = fanout();
    let mut want = Vec::new();
    expected(&tree, &mut want);
    let wire = quarry_wa::encode(&tree).unwrap();
    let (to_worker, inbox) = std::sync::mpsc::channel::<OwnedStanza>();
    let (to_main, results) = std::sync::mpsc::channel::<Snapshot>();
    let worker = std::thread::spawn(move || {
        for stanza in inbox {
            let seen = snapshot_of(stanza.get());
            quarry_testkit::tracked(|| drop(stanza));
            to_main.send(seen).unwrap();
        }
    });
    for _ in 0..2 {
        let baseline = quarry_testkit::live_bytes();
        let stanza =
            quarry_testkit::tracked(|| OwnedStanza::decode(Bytes::from(wire.clone())).unwrap());
        assert!(quarry_testkit::live_bytes() > baseline);
        let before = snapshot_of(stanza.get());
        assert_eq!(sorted(before.clone()), sorted(want.clone()));
        to_worker.send(stanza).unwrap();
        let after = results.recv().unwrap();
        assert_eq!(after, before);
        assert_eq!(quarry_testkit::live_bytes(), baseline, "bytes leaked");
    }
    drop(to_worker);
    worker.join().unwrap();
}

#[test]
fn a_pooled_stanza_returns_its_arena_from_another_thread() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ArenaPool::new();
    let wire = Bytes::from(quarry_wa::encode(&fanout()).unwrap());
    let stanza = OwnedStanza::decode_with(&Decoder::new(), pool.get(), wire).unwrap();
    let before = snapshot_of(stanza.get());
    let after = std::thread::spawn(move || snapshot_of(stanza.get()))
        .join()
        .unwrap();
    assert_eq!(after, before);
    let stats = pool.stats();
    assert_eq!((stats.checked_out, stats.pooled), (0, 1));
}

#[test]
fn slice_bytes_shares_payloads_of_a_plain_stanza() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let wire = Bytes::from(quarry_wa::encode_frame(&fanout()).unwrap());
    let stanza = OwnedStanza::decode_frame(wire.clone()).unwrap();
    assert_eq!(stanza.backing_bytes(), &wire);
    let range = wire.as_ptr_range();
    for (i, to) in stanza
        .get()
        .child("participants")
        .unwrap()
        .children()
        .iter()
        .enumerate()
    {
        let payload = to.child("enc").unwrap().content_bytes().unwrap();
        let shared = stanza.slice_bytes(payload);
        assert_eq!(&shared[..], &vec![i as u8; 100 + i][..]);
        assert!(range.contains(&shared.as_ptr()), "payload {i} was copied");
    }
    // Forwarding: the backing bytes are the frame itself, not a re-encode.
    assert_eq!(stanza.into_inner().into_bytes().as_ptr(), wire.as_ptr());
}

#[test]
fn slice_bytes_copies_payloads_of_an_inflated_frame() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let body = quarry_wa::encode(&fanout()).unwrap();
    let mut frame = vec![0x02];
    frame.extend(miniz_oxide::deflate::compress_to_vec_zlib(&body, 6));
    let frame = Bytes::from(frame);
    let stanza = OwnedStanza::decode_frame(frame.clone()).unwrap();
    let payload = stanza
        .get()
        .path(&["participants", "to", "enc"])
        .unwrap()
        .content_bytes()
        .unwrap();
    let copied = stanza.slice_bytes(payload);
    assert_eq!(&copied[..], &[0u8; 100][..]);
    // The inflated payload lives in the arena, so it had to be copied.
    assert!(!frame.as_ptr_range().contains(&copied.as_ptr()));
    assert_ne!(copied.as_ptr(), payload.as_ptr());
}

#[test]
fn errors_keep_their_offsets_and_return_the_arena() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ArenaPool::new();
    // LIST_8 of two items, only one present.
    let err = OwnedStanza::decode_with(
        &Decoder::new(),
        pool.get(),
        Bytes::from_static(&[0xF8, 2, 19]),
    )
    .unwrap_err();
    assert_eq!(err, quarry_core::DecodeError::UnexpectedEof { offset: 3 });
    assert_eq!(pool.stats().checked_out, 0);
    assert!(OwnedStanza::decode_frame(Bytes::new()).is_err());
}

#[test]
fn owned_stanza_is_static_and_send() {
    fn static_send<T: Send + 'static>() {}
    static_send::<OwnedStanza>();
}
