//! A counting global allocator and the allocation report built on it.
//!
//! A binary that wants the report installs the allocator itself:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: quarry_benches::alloc_count::CountingAlloc = quarry_benches::alloc_count::CountingAlloc;
//! ```
//!
//! (Not in this library, so the criterion and iai benches, which link it,
//! keep the system allocator untouched.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crate::wa;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static REQUESTED: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting allocations (a `realloc` counts as one),
/// bytes requested, and bytes live.
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees carry over; the counters are plain
// atomics and never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(layout.size(), Relaxed);
        LIVE.fetch_add(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(layout.size(), Relaxed);
        LIVE.fetch_add(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; `ptr` came from this allocator, i.e. from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(new_size, Relaxed);
        LIVE.fetch_add(new_size, Relaxed);
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; `ptr` came from `System` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// The counters at one moment, or the difference between two moments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Heap allocations, a reallocation counting as one.
    pub allocations: usize,
    /// Bytes asked of the heap.
    pub requested: usize,
    /// Bytes live (allocated and not yet freed); in a difference, the
    /// bytes that became live (saturating at 0 when more was freed).
    pub live: usize,
}

/// The counters now (all zero when [`CountingAlloc`] is not installed).
pub fn now() -> Counts {
    Counts {
        allocations: ALLOCATIONS.load(Relaxed),
        requested: REQUESTED.load(Relaxed),
        live: LIVE.load(Relaxed),
    }
}

/// What `op` allocated, counted by [`CountingAlloc`], and its result, which
/// is still alive when the counters are read (so `live` is what the result
/// holds on the heap). The caller drops the result.
///
/// # Panics
/// When [`CountingAlloc`] is not the global allocator (every count would
/// read zero).
pub fn measure<R>(op: impl FnOnce() -> R) -> (Counts, R) {
    assert!(
        is_installed(),
        "install quarry_benches::alloc_count::CountingAlloc as #[global_allocator]"
    );
    let before = now();
    let result = std::hint::black_box(op());
    let after = now();
    let counts = Counts {
        allocations: after.allocations - before.allocations,
        requested: after.requested - before.requested,
        live: after.live.saturating_sub(before.live),
    };
    (counts, result)
}

/// Whether [`CountingAlloc`] is this process's global allocator.
pub fn is_installed() -> bool {
    let before = now().allocations;
    let probe = std::hint::black_box(Box::new(1u64));
    let after = now().allocations;
    drop(probe);
    after > before
}

/// What one operation (a decode or an encode) on one case cost.
#[derive(Clone, Debug)]
pub struct AllocRow {
    /// Case name.
    pub case: &'static str,
    /// The operation, named as in the benches: `peer`, `quarry_fresh`,
    /// `quarry_reused`, `quarry_owned` (decoders; the last an
    /// `OwnedStanza` of its own arena), `peer_marshal`, `peer_marshal_exact`,
    /// `peer_marshal_ref`, `quarry_encode`, `quarry_encode_view` (encoders),
    /// `peer_build`, `quarry_build`, `peer_build_encode`,
    /// `quarry_build_encode` (builders, see [`measure_wa_build`]).
    pub op: &'static str,
    /// Heap allocations (including reallocations) during the operation.
    pub allocations: usize,
    /// Bytes asked of the heap during the operation.
    pub requested: usize,
    /// Heap bytes held while the result is alive: live bytes after the
    /// operation minus before; for quarry's decoders, the arena's chunks;
    /// for an owned stanza, the live bytes it keeps beyond its shared
    /// input (its boxed arena) plus its own size.
    pub held: usize,
    /// For quarry's decoders, the arena bytes the decode wrote (records,
    /// expanded strings); `None` otherwise.
    pub arena_used: Option<usize>,
}

/// Count what `op` allocates; the result stays alive until after the
/// count, then is dropped.
fn count<R>(case: &'static str, name: &'static str, op: impl FnOnce() -> R) -> AllocRow {
    let (counts, result) = measure(op);
    drop(result);
    AllocRow {
        case,
        op: name,
        allocations: counts.allocations,
        requested: counts.requested,
        held: counts.live,
        arena_used: None,
    }
}

/// Measure every WhatsApp case with every decoder and encoder, each after
/// one warm-up run of the same operation (so lazily built tables are not
/// charged).
///
/// # Panics
/// When [`CountingAlloc`] is not the global allocator: the report would be
/// all zeros.
pub fn measure_wa() -> Vec<AllocRow> {
    assert!(
        is_installed(),
        "install quarry_benches::alloc_count::CountingAlloc as #[global_allocator]"
    );
    let mut rows = Vec::new();
    for case in wa::cases() {
        let (name, bytes) = (case.name, case.bytes.as_slice());

        wa::peer_decode(bytes);
        rows.push(count(name, "peer", || {
            wacore_binary::marshal::unmarshal_ref(bytes).expect("peer decodes its bytes")
        }));

        wa::quarry_decode_fresh(bytes);
        // The arena is made inside the count: `arena_for` is where a fresh
        // decode's one allocation happens.
        let (counts, arena) = measure(|| {
            let arena = quarry_wa::arena_for(bytes);
            quarry_wa::decode(&arena, bytes).expect("quarry decodes the peer's bytes");
            arena
        });
        let stats = arena.stats();
        rows.push(AllocRow {
            case: name,
            op: "quarry_fresh",
            allocations: counts.allocations,
            requested: counts.requested,
            held: stats.allocated_bytes,
            arena_used: Some(stats.allocated_bytes - stats.free_in_current_chunk),
        });
        drop(arena);

        let mut arena = wa::warmed_arena(bytes);
        let free_before = arena.stats().free_in_current_chunk;
        arena.reset();
        let mut row = count(name, "quarry_reused", || {
            quarry_wa::decode(&arena, bytes).expect("quarry decodes the peer's bytes")
        });
        let stats = arena.stats();
        row.held = stats.allocated_bytes;
        row.arena_used = Some(free_before - stats.free_in_current_chunk);
        rows.push(row);

        // An owned stanza (`OwnedStanza::decode`, its own arena): what it
        // holds beyond its input, which it shares (`Bytes`, made shared
        // before the count).
        let input = quarry_core::bytes::Bytes::from(bytes.to_vec());
        drop(input.clone());
        drop(quarry_wa::OwnedStanza::decode(input.clone()));
        let (counts, owned) = measure(|| {
            quarry_wa::OwnedStanza::decode(input.clone()).expect("quarry decodes the peer's bytes")
        });
        rows.push(AllocRow {
            case: name,
            op: "quarry_owned",
            allocations: counts.allocations,
            requested: counts.requested,
            held: counts.live + std::mem::size_of_val(&owned),
            arena_used: Some(owned.arena().stats().used_bytes()),
        });
        drop(owned);

        let tree = &case.tree;
        wa::peer_marshal(tree);
        rows.push(count(name, "peer_marshal", || {
            wacore_binary::marshal::marshal(tree).expect("peer encodes its tree")
        }));
        wa::peer_marshal_exact(tree);
        rows.push(count(name, "peer_marshal_exact", || {
            wacore_binary::marshal::marshal_exact(tree).expect("peer encodes its tree")
        }));
        let view = wa::peer_view(name);
        wa::peer_marshal_ref(view);
        rows.push(count(name, "peer_marshal_ref", || {
            wacore_binary::marshal::marshal_ref(view).expect("peer re-encodes its tree")
        }));
        let owned = &case.quarry_tree;
        wa::quarry_encode(owned);
        rows.push(count(name, "quarry_encode", || {
            quarry_wa::encode_frame(owned).expect("quarry encodes the case")
        }));
        let view = wa::quarry_view(name);
        wa::quarry_encode_view(view);
        rows.push(count(name, "quarry_encode_view", || {
            quarry_wa::encode_frame(view).expect("quarry re-encodes the case")
        }));
    }
    rows
}

/// The small nodes a client builds for every send, built with the peer's
/// `NodeBuilder` and with quarry's `OwnedNode` from the same values:
/// `enc` (`<enc v="2" type="msg">`, 40-byte payload), `receipt` (a read
/// receipt to a device JID with a numeric timestamp), `message` (a 1:1
/// message to a LID holding one 120-byte `pkmsg` `enc`). The payloads
/// exist before the count and are moved in, as a ciphertext is.
pub const BUILD_CASES: [&str; 3] = ["enc", "receipt", "message"];

/// Allocations of building each of [`BUILD_CASES`] (`peer_build`,
/// `quarry_build`) and of building and encoding it (`peer_build_encode`:
/// `NodeBuilder` then `marshal`; `quarry_build_encode`: `OwnedNode` then
/// `quarry_wa::encode_frame`). `held` is what the built node keeps on the
/// heap beside its payload (allocated before the count), and for build +
/// encode the output's capacity.
///
/// # Panics
/// When [`CountingAlloc`] is not the global allocator.
pub fn measure_wa_build() -> Vec<AllocRow> {
    use quarry_wa::{OwnedJid, OwnedNode};
    use wacore_binary::builder::NodeBuilder;
    use wacore_binary::jid::Jid as PeerJid;
    use wacore_binary::node::Node as PeerNode;

    assert!(
        is_installed(),
        "install quarry_benches::alloc_count::CountingAlloc as #[global_allocator]"
    );
    const ID: &str = "3EB0C4F1A2B3C4D5E6F7";
    fn peer(case: &str, payload: Vec<u8>) -> PeerNode {
        match case {
            "enc" => NodeBuilder::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(payload)
                .build(),
            "receipt" => NodeBuilder::new("receipt")
                .attr("to", PeerJid::pn_device("5511999887766", 3))
                .attr("id", ID)
                .attr("type", "read")
                .attr("t", 1_733_500_000u64)
                .build(),
            _ => NodeBuilder::new("message")
                .attr("to", PeerJid::lid("123456789012345"))
                .attr("id", ID)
                .attr("type", "text")
                .children([NodeBuilder::new("enc")
                    .attr("v", "2")
                    .attr("type", "pkmsg")
                    .bytes(payload)
                    .build()])
                .build(),
        }
    }
    fn quarry(case: &str, payload: Vec<u8>) -> OwnedNode {
        match case {
            "enc" => OwnedNode::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(payload),
            "receipt" => OwnedNode::new("receipt")
                .attr("to", OwnedJid::pn_device("5511999887766", 3))
                .attr("id", ID)
                .attr("type", "read")
                .attr("t", 1_733_500_000u64),
            _ => OwnedNode::new("message")
                .attr("to", OwnedJid::lid("123456789012345"))
                .attr("id", ID)
                .attr("type", "text")
                .children([OwnedNode::new("enc")
                    .attr("v", "2")
                    .attr("type", "pkmsg")
                    .bytes(payload)]),
        }
    }
    let payload = |case: &str| vec![0xA5; if case == "message" { 120 } else { 40 }];

    let mut rows = Vec::new();
    for case in BUILD_CASES {
        // One warm-up of each, so nothing lazily built is charged.
        drop(peer(case, payload(case)));
        drop(quarry(case, payload(case)));
        let p = payload(case);
        rows.push(count(case, "peer_build", || peer(case, p)));
        let p = payload(case);
        rows.push(count(case, "quarry_build", || quarry(case, p)));
        let p = payload(case);
        let (counts, out) = measure(|| {
            wacore_binary::marshal::marshal(&peer(case, p)).expect("peer encodes its node")
        });
        rows.push(encoded_row(
            case,
            "peer_build_encode",
            counts,
            out.capacity(),
        ));
        let p = payload(case);
        let (counts, out) =
            measure(|| quarry_wa::encode_frame(&quarry(case, p)).expect("quarry encodes its node"));
        rows.push(encoded_row(
            case,
            "quarry_build_encode",
            counts,
            out.capacity(),
        ));
    }
    rows
}

/// A build + encode row: the node and its payload are freed inside the
/// count, so `held` is the output's capacity, not a live-bytes difference.
fn encoded_row(case: &'static str, op: &'static str, counts: Counts, held: usize) -> AllocRow {
    AllocRow {
        case,
        op,
        allocations: counts.allocations,
        requested: counts.requested,
        held,
        arena_used: None,
    }
}

/// The rows as JSON lines, one object per row.
pub fn to_json_lines(rows: &[AllocRow]) -> String {
    rows.iter()
        .map(|r| {
            let mut obj = serde_json::json!({
                "case": r.case,
                "op": r.op,
                "allocations": r.allocations,
                "requested": r.requested,
                "held": r.held,
            });
            if let Some(used) = r.arena_used {
                obj["arena_used"] = used.into();
            }
            obj.to_string() + "\n"
        })
        .collect()
}
