//! Stanzas decoded through an `ArenaPool`: after warm-up the decode path
//! (check out, decode, read, drop) makes no heap allocation, owned stanzas
//! included; after one stanza of several MiB the pool's retained memory
//! falls back under the cap. Counting is per thread, so other tests running
//! in parallel cannot disturb it.

use quarry_core::bytes::Bytes;
use quarry_core::{ArenaPool, DecodeOptions};
use quarry_wa::{Decoder, Jid, OwnedNode, OwnedStanza, Server};

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

const STANZAS: usize = if cfg!(miri) { 3 } else { 64 };
const ROUNDS: usize = if cfg!(miri) { 2 } else { 20 };

/// A group-message fanout: `participants` with `devices` device `to`
/// nodes, each holding an `enc` payload.
fn fanout(n: usize) -> OwnedNode {
    let devices = (0..(n % 8 + 1) as u16).map(|i| {
        OwnedNode::new("to")
            .jid_attr("jid", Jid::new("5511999990000", Server::Pn).with_device(i))
            .children([OwnedNode::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(vec![n as u8; 64 + n])])
    });
    OwnedNode::new("message")
        .attr("to", "120363000000000000@g.us")
        .attr("id", format!("3EB0{n:016X}"))
        .attr("type", "text")
        .children([OwnedNode::new("participants").children(devices)])
}

/// What each decode reads: the id, the device count and the payload bytes
/// summed, compared against the tree the stanza was built from.
fn expected(n: usize) -> (String, usize, usize) {
    let tree = fanout(n);
    let devices = tree.child("participants").unwrap().child_nodes();
    let payload = devices
        .iter()
        .map(|to| to.child("enc").unwrap().content_bytes().unwrap().len())
        .sum();
    (
        tree.attr_str("id").unwrap().to_string(),
        devices.len(),
        payload,
    )
}

fn read(node: quarry_wa::Node<'_>) -> (&str, usize, usize) {
    let devices = node.child("participants").unwrap().children();
    let payload = devices
        .iter()
        .map(|to| to.child("enc").unwrap().content_bytes().unwrap().len())
        .sum();
    (node.attr_str("id").unwrap(), devices.len(), payload)
}

fn corpus() -> Vec<(Bytes, (String, usize, usize))> {
    (0..STANZAS)
        .map(|n| {
            let wire = quarry_wa::encode(&fanout(n)).unwrap();
            (Bytes::from(wire), expected(n))
        })
        .collect()
}

#[test]
fn steady_state_decodes_allocate_nothing() {
    let pool = ArenaPool::new();
    let stanzas = corpus();
    // Warm-up: the pool's arena and its chunk, sized by the largest stanza.
    for (bytes, _) in &stanzas {
        let arena = pool.get();
        quarry_wa::decode(&arena, bytes).unwrap();
    }
    for _ in 0..ROUNDS {
        for (bytes, want) in &stanzas {
            let (n, ok) = quarry_testkit::count_allocs(|| {
                let arena = pool.get();
                let node = quarry_wa::decode(&arena, bytes).unwrap();
                let got = read(node);
                got.0 == want.0 && got.1 == want.1 && got.2 == want.2
            });
            assert!(ok, "stanza {} read back wrong", want.0);
            assert_eq!(n, 0, "get + decode + drop of stanza {}", want.0);
        }
    }
    let stats = pool.stats();
    assert_eq!((stats.created, stats.checked_out, stats.pooled), (1, 0, 1));
}

#[test]
fn steady_state_owned_stanzas_allocate_nothing() {
    let pool = ArenaPool::new();
    let decoder = Decoder::new();
    let stanzas = corpus();
    // Warm-up, which also turns each `Bytes` into its shared form (its
    // first clone allocates the shared count).
    for (bytes, _) in &stanzas {
        OwnedStanza::decode_with(&decoder, pool.get(), bytes.clone()).unwrap();
    }
    for _ in 0..ROUNDS {
        for (bytes, want) in &stanzas {
            let (n, ok) = quarry_testkit::count_allocs(|| {
                let stanza = OwnedStanza::decode_with(&decoder, pool.get(), bytes.clone()).unwrap();
                let got = read(stanza.get());
                got.0 == want.0 && got.1 == want.1 && got.2 == want.2
            });
            assert!(ok, "stanza {} read back wrong", want.0);
            assert_eq!(n, 0, "owned decode + drop of stanza {}", want.0);
        }
    }
    assert_eq!(pool.stats().created, 1);
}

#[test]
fn memory_returns_under_the_cap_after_a_huge_stanza() {
    // Several MiB of records (small under Miri): nodes are written into
    // the arena, where a payload would only be borrowed.
    let huge_items = if cfg!(miri) { 1000 } else { 60_000 };
    let cap = if cfg!(miri) { 32 << 10 } else { 1 << 20 };
    let pool = ArenaPool::builder().retention_cap(cap).build();
    let decoder = Decoder {
        options: DecodeOptions {
            max_arena_bytes: 256 << 20,
            ..DecodeOptions::DEFAULT
        },
        ..Decoder::new()
    };
    let small = Bytes::from(quarry_wa::encode(&fanout(3)).unwrap());
    let items = (0..huge_items).map(|i| OwnedNode::new("item").attr("index", i.to_string()));
    let huge = Bytes::from(quarry_wa::encode(&OwnedNode::new("iq").children(items)).unwrap());

    decoder.decode(&pool.get(), &small).unwrap();
    let steady = pool.stats().retained_bytes;
    assert!(steady > 0 && steady <= cap, "steady state holds {steady}");

    {
        let stanza = OwnedStanza::decode_with(&decoder, pool.get(), huge.clone()).unwrap();
        assert_eq!(stanza.get().children().len(), huge_items);
        assert!(stanza.arena().stats().allocated_bytes > cap);
        assert_eq!(pool.stats().checked_out, 1);
    }

    let stats = pool.stats();
    assert_eq!(stats.dropped_for_size, 1);
    assert_eq!(stats.checked_out, 0);
    assert!(stats.retained_bytes <= cap);
    // The burst's arena was the only one, and it is gone.
    assert_eq!((stats.pooled, stats.retained_bytes), (0, 0));
    // The next request builds a steady-state arena again, and the one after
    // it allocates nothing.
    decoder.decode(&pool.get(), &small).unwrap();
    assert_eq!(pool.stats().retained_bytes, steady);
    let (n, _) = quarry_testkit::count_allocs(|| {
        decoder.decode(&pool.get(), &small).unwrap();
    });
    assert_eq!(n, 0);
}

/// Stanzas of about 100 KB in two shapes: a fanout to 100 devices with
/// 1 KB payloads, and a list of 4,000 small items with two attributes and
/// text each (`seq` varies the ids, so no two are the same bytes).
fn stanza_100k(shape: usize, seq: usize) -> Vec<u8> {
    let tree = if shape == 0 {
        let devices = (0..100u16).map(|i| {
            OwnedNode::new("to")
                .jid_attr("jid", Jid::new("5511999990000", Server::Pn).with_device(i))
                .children([OwnedNode::new("enc")
                    .attr("v", "2")
                    .attr("type", "msg")
                    .bytes(vec![(seq + usize::from(i)) as u8; 1000])])
        });
        OwnedNode::new("message")
            .attr("id", format!("3EB0{seq:016X}"))
            .children([OwnedNode::new("participants").children(devices)])
    } else {
        let items = (0..4000).map(|i| {
            OwnedNode::new("item")
                .attr("index", (i + seq).to_string())
                .attr("type", "entry")
                .text(format!("value-{i:08}"))
        });
        OwnedNode::new("iq")
            .attr("id", format!("list-{seq}"))
            .children(items)
    };
    quarry_wa::encode(&tree).unwrap()
}

/// A steady stream of 100 KB stanzas through a pool with the default
/// retention cap allocates nothing per request once warm: the estimate a
/// decode reserves for each is within the cap, so its arena is kept.
#[test]
#[cfg_attr(
    miri,
    ignore = "100 KB stanzas take minutes under Miri; the pool's unsafe code is covered by the tests above"
)]
fn a_stream_of_100_kb_stanzas_allocates_nothing_per_request() {
    let rounds = if cfg!(miri) { 2 } else { 50 };
    for shape in 0..2 {
        let pool = ArenaPool::new();
        let stanzas: Vec<Vec<u8>> = (0..8).map(|seq| stanza_100k(shape, seq)).collect();
        for bytes in &stanzas {
            assert!(
                (95_000..130_000).contains(&bytes.len()),
                "{} bytes",
                bytes.len()
            );
            assert!(quarry_wa::estimate_arena_bytes(bytes) <= pool.retention_cap());
        }
        // Warm-up: one request makes the pool's arena and its chunk.
        quarry_wa::decode(&pool.get(), &stanzas[0]).unwrap();
        for round in 0..rounds {
            for (seq, bytes) in stanzas.iter().enumerate() {
                let (n, children) = quarry_testkit::count_allocs(|| {
                    let arena = pool.get();
                    let node = quarry_wa::decode(&arena, bytes).unwrap();
                    node.children()
                        .iter()
                        .map(|c| c.children().len() + 1)
                        .sum::<usize>()
                });
                assert!(children > 0);
                assert_eq!(n, 0, "shape {shape}, round {round}, stanza {seq}");
            }
        }
        let stats = pool.stats();
        assert_eq!(
            (stats.created, stats.dropped_for_size),
            (1, 0),
            "shape {shape}"
        );
    }
}
