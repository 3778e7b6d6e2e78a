//! Instruction counts (callgrind) of one WhatsApp node decode plus drop,
//! and of one encode plus drop of the output, quarry and `wacore-binary` on
//! the same trees and bytes, in one run; and of decoding the whole
//! small-stanza corpus (`corpus`, every stanza of
//! `quarry_benches::wa_corpus`), stanza by stanza.
//!
//! Every setup decodes the input once before the measured call, so lazily
//! built tables and the allocator's first-touch paths are not charged to it;
//! setup, and the drop of what a bench returns, run outside the measurement.
//!
//! The `quarry_*` benches are gated against `benches/baselines/wa_iai.json`
//! by the `iai_gate` binary (see docs/ci.md). Renaming or adding a bench
//! here needs a baseline update. With the `gate` feature (the gate's
//! build) only the `quarry_*` benches run.

// The macros generate public modules and functions without docs.
#![allow(missing_docs)]

use std::hint::black_box;

use iai_callgrind::{library_benchmark, library_benchmark_group, main};
use quarry_benches::wa;
use quarry_core::Arena;
use quarry_wa::OwnedNode;
use wacore_binary::node::{Node as PeerNode, NodeRef as PeerNodeRef};

/// What a decode bench decodes: one case's bytes, or every stanza of the
/// corpus. A single case is decoded without a loop around it, so its
/// count is the decode's alone, as before the corpus was added.
#[derive(Clone, Copy)]
enum Inputs {
    One(&'static [u8]),
    All(&'static [&'static [u8]]),
}

impl Inputs {
    fn of(name: &str) -> Self {
        if name == wa::CORPUS {
            Inputs::All(wa::corpus())
        } else {
            Inputs::One(wa::input(name))
        }
    }
}

fn warm_peer(name: &str) -> Inputs {
    for bytes in wa::inputs(name) {
        wa::peer_decode(bytes);
    }
    Inputs::of(name)
}

fn warm_fresh(name: &str) -> Inputs {
    for bytes in wa::inputs(name) {
        wa::quarry_decode_fresh(bytes);
    }
    Inputs::of(name)
}

fn warm_reused(name: &str) -> (Arena, Inputs) {
    (wa::warmed_arena_for(wa::inputs(name)), Inputs::of(name))
}

// Each decode bench decodes its input, or for `corpus` every stanza of the
// small-stanza corpus one after the other (the total over the corpus).

// `wacore_binary::marshal::unmarshal_ref` plus drop of the tree.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = warm_peer)]
#[bench::large(args = ("large"), setup = warm_peer)]
#[bench::ack(args = ("ack"), setup = warm_peer)]
#[bench::small(args = ("small"), setup = warm_peer)]
#[bench::usync_like(args = ("usync_like"), setup = warm_peer)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = warm_peer)]
#[bench::many_children(args = ("many_children"), setup = warm_peer)]
#[bench::corpus(args = ("corpus"), setup = warm_peer)]
fn peer(inputs: Inputs) -> usize {
    match inputs {
        Inputs::One(bytes) => black_box(wa::peer_decode(bytes)),
        Inputs::All(all) => all.iter().map(|b| black_box(wa::peer_decode(b))).sum(),
    }
}

// `quarry_wa::decode` into `quarry_wa::arena_for(bytes)`, plus drop of the
// arena.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = warm_fresh)]
#[bench::large(args = ("large"), setup = warm_fresh)]
#[bench::ack(args = ("ack"), setup = warm_fresh)]
#[bench::small(args = ("small"), setup = warm_fresh)]
#[bench::usync_like(args = ("usync_like"), setup = warm_fresh)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = warm_fresh)]
#[bench::many_children(args = ("many_children"), setup = warm_fresh)]
#[bench::corpus(args = ("corpus"), setup = warm_fresh)]
fn quarry_fresh(inputs: Inputs) -> usize {
    match inputs {
        Inputs::One(bytes) => black_box(wa::quarry_decode_fresh(bytes)),
        Inputs::All(all) => all
            .iter()
            .map(|b| black_box(wa::quarry_decode_fresh(b)))
            .sum(),
    }
}

// `Arena::reset` plus `quarry_wa::decode` into an arena that decoded the
// same inputs before. Returns the arena so that freeing it is not measured:
// a reused arena outlives many decodes.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = warm_reused)]
#[bench::large(args = ("large"), setup = warm_reused)]
#[bench::ack(args = ("ack"), setup = warm_reused)]
#[bench::small(args = ("small"), setup = warm_reused)]
#[bench::usync_like(args = ("usync_like"), setup = warm_reused)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = warm_reused)]
#[bench::many_children(args = ("many_children"), setup = warm_reused)]
#[bench::corpus(args = ("corpus"), setup = warm_reused)]
fn quarry_reused(input: (Arena, Inputs)) -> Arena {
    let (mut arena, inputs) = input;
    match inputs {
        Inputs::One(bytes) => {
            black_box(wa::quarry_decode_reused(&mut arena, bytes));
        }
        Inputs::All(all) => {
            for bytes in all {
                black_box(wa::quarry_decode_reused(&mut arena, bytes));
            }
        }
    }
    arena
}

fn peer_tree(name: &str) -> &'static PeerNode {
    let tree = &wa::case(name).tree;
    wa::peer_marshal(tree);
    wa::peer_marshal_exact(tree);
    tree
}

fn peer_tree_view(name: &str) -> &'static PeerNodeRef<'static> {
    let view = wa::peer_view(name);
    wa::peer_marshal_ref(view);
    view
}

fn quarry_tree(name: &str) -> &'static OwnedNode {
    let tree = &wa::case(name).quarry_tree;
    wa::quarry_encode(tree);
    tree
}

fn quarry_tree_view(name: &str) -> quarry_wa::Node<'static> {
    let view = wa::quarry_view(name);
    wa::quarry_encode_view(view);
    view
}

// `wacore_binary::marshal::marshal` of the owned tree, plus drop.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = peer_tree)]
#[bench::large(args = ("large"), setup = peer_tree)]
#[bench::ack(args = ("ack"), setup = peer_tree)]
#[bench::small(args = ("small"), setup = peer_tree)]
#[bench::usync_like(args = ("usync_like"), setup = peer_tree)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = peer_tree)]
#[bench::many_children(args = ("many_children"), setup = peer_tree)]
fn peer_marshal(tree: &'static PeerNode) -> usize {
    black_box(wa::peer_marshal(tree))
}

// `wacore_binary::marshal::marshal_exact` of the owned tree, plus drop.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = peer_tree)]
#[bench::large(args = ("large"), setup = peer_tree)]
#[bench::ack(args = ("ack"), setup = peer_tree)]
#[bench::small(args = ("small"), setup = peer_tree)]
#[bench::usync_like(args = ("usync_like"), setup = peer_tree)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = peer_tree)]
#[bench::many_children(args = ("many_children"), setup = peer_tree)]
fn peer_marshal_exact(tree: &'static PeerNode) -> usize {
    black_box(wa::peer_marshal_exact(tree))
}

// `wacore_binary::marshal::marshal_ref` of the decoded tree, plus drop.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = peer_tree_view)]
#[bench::large(args = ("large"), setup = peer_tree_view)]
#[bench::ack(args = ("ack"), setup = peer_tree_view)]
#[bench::small(args = ("small"), setup = peer_tree_view)]
#[bench::usync_like(args = ("usync_like"), setup = peer_tree_view)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = peer_tree_view)]
#[bench::many_children(args = ("many_children"), setup = peer_tree_view)]
fn peer_marshal_ref(view: &'static PeerNodeRef<'static>) -> usize {
    black_box(wa::peer_marshal_ref(view))
}

// `quarry_wa::encode_frame` of the owned tree, plus drop.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = quarry_tree)]
#[bench::large(args = ("large"), setup = quarry_tree)]
#[bench::ack(args = ("ack"), setup = quarry_tree)]
#[bench::small(args = ("small"), setup = quarry_tree)]
#[bench::usync_like(args = ("usync_like"), setup = quarry_tree)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = quarry_tree)]
#[bench::many_children(args = ("many_children"), setup = quarry_tree)]
fn quarry_encode(tree: &'static OwnedNode) -> usize {
    black_box(wa::quarry_encode(tree))
}

// `quarry_wa::encode_frame` of the decoded view, plus drop.
#[library_benchmark]
#[bench::fanout(args = ("fanout"), setup = quarry_tree_view)]
#[bench::large(args = ("large"), setup = quarry_tree_view)]
#[bench::ack(args = ("ack"), setup = quarry_tree_view)]
#[bench::small(args = ("small"), setup = quarry_tree_view)]
#[bench::usync_like(args = ("usync_like"), setup = quarry_tree_view)]
#[bench::jid_heavy(args = ("jid_heavy"), setup = quarry_tree_view)]
#[bench::many_children(args = ("many_children"), setup = quarry_tree_view)]
fn quarry_encode_view(view: quarry_wa::Node<'static>) -> usize {
    black_box(wa::quarry_encode_view(view))
}

#[cfg(not(feature = "gate"))]
library_benchmark_group!(
    name = wa_decode;
    benchmarks = peer, quarry_fresh, quarry_reused
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = wa_decode;
    benchmarks = quarry_fresh, quarry_reused
);

#[cfg(not(feature = "gate"))]
library_benchmark_group!(
    name = wa_encode;
    benchmarks = peer_marshal, peer_marshal_exact, peer_marshal_ref, quarry_encode, quarry_encode_view
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = wa_encode;
    benchmarks = quarry_encode, quarry_encode_view
);

main!(library_benchmark_groups = wa_decode, wa_encode);
