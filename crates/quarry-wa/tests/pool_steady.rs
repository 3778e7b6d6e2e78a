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
    // Several MiB of payload (small under Miri).
    let huge_len = if cfg!(miri) { 64 << 10 } else { 6 << 20 };
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
    let huge = Bytes::from(
        quarry_wa::encode(&OwnedNode::new("message").bytes(vec![0x5A; huge_len])).unwrap(),
    );

    decoder.decode(&pool.get(), &small).unwrap();
    let steady = pool.stats().retained_bytes;
    assert!(steady > 0 && steady <= cap, "steady state holds {steady}");

    {
        let stanza = OwnedStanza::decode_with(&decoder, pool.get(), huge.clone()).unwrap();
        assert_eq!(
            stanza.get().content_bytes().map(<[u8]>::len),
            Some(huge_len)
        );
        // The payload borrows from the input; the arena still reserved the
        // worst case for an input this long.
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
