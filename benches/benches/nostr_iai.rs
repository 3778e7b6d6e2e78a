//! Instruction counts (callgrind) of decoding one `["EVENT",sub,event]`
//! relay message, quarry and rust-nostr on the same bytes, in one run, and
//! of decoding the whole wire-shaped corpus (`corpus`, 722 messages); and
//! of decoding one client REQ in three shapes; and of encoding to compact
//! JSON, each from its own decoded form, one event, the relay message
//! carrying it and one REQ; and of building, signing (BIP-340, fixed
//! auxiliary data) and encoding each shape's event (`nostr_build`, left out
//! of the gate's build).
//! Callgrind runs SHA-256 without the CPU's SHA instructions, so compare
//! instructions with the id check off (`quarry_noverify_*` against `peer`);
//! the `*_verify*` benches are there for completeness.

// The macros generate public modules and functions without docs.
#![allow(missing_docs)]

mod nostr_common;

use std::hint::black_box;

use iai_callgrind::{library_benchmark, library_benchmark_group, main};
use nostr_common as n;
use quarry_core::Arena;

/// The messages of `shape` (one, or the whole corpus), each decoded once by
/// both sides first.
fn input(shape: &str) -> &'static [Vec<u8>] {
    let msgs: &'static [Vec<u8>] = n::inputs(shape).leak();
    for bytes in msgs {
        n::peer_parse(bytes);
        n::quarry_fresh(&n::VERIFY, bytes);
    }
    msgs
}

fn reused(shape: &str) -> (Arena, &'static [Vec<u8>]) {
    let msgs = input(shape);
    let mut arena = Arena::new();
    for bytes in msgs {
        n::quarry_reused(&n::VERIFY, &mut arena, bytes);
    }
    (arena, msgs)
}

// Each bench decodes its messages one after the other: one message for a
// shape, all of them for `corpus` (the total over the corpus).
#[library_benchmark]
#[bench::plain(args = ("plain"), setup = input)]
#[bench::thread12(args = ("thread12"), setup = input)]
#[bench::heavy30(args = ("heavy30"), setup = input)]
#[bench::corpus(args = ("corpus"), setup = input)]
fn peer(msgs: &'static [Vec<u8>]) -> usize {
    msgs.iter().filter(|b| n::peer_parse(b)).count()
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = input)]
#[bench::thread12(args = ("thread12"), setup = input)]
#[bench::heavy30(args = ("heavy30"), setup = input)]
#[bench::corpus(args = ("corpus"), setup = input)]
fn peer_verify_id(msgs: &'static [Vec<u8>]) -> usize {
    msgs.iter().filter(|b| n::peer_parse_verify_id(b)).count()
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = input)]
#[bench::thread12(args = ("thread12"), setup = input)]
#[bench::heavy30(args = ("heavy30"), setup = input)]
#[bench::corpus(args = ("corpus"), setup = input)]
fn quarry_noverify_fresh(msgs: &'static [Vec<u8>]) -> usize {
    msgs.iter()
        .map(|b| black_box(n::quarry_fresh(&n::NO_VERIFY, b)))
        .sum()
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = reused)]
#[bench::thread12(args = ("thread12"), setup = reused)]
#[bench::heavy30(args = ("heavy30"), setup = reused)]
#[bench::corpus(args = ("corpus"), setup = reused)]
fn quarry_noverify_reused(input: (Arena, &'static [Vec<u8>])) -> Arena {
    let (mut arena, msgs) = input;
    for bytes in msgs {
        black_box(n::quarry_reused(&n::NO_VERIFY, &mut arena, bytes));
    }
    arena
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = reused)]
#[bench::thread12(args = ("thread12"), setup = reused)]
#[bench::heavy30(args = ("heavy30"), setup = reused)]
#[bench::corpus(args = ("corpus"), setup = reused)]
fn quarry_verify_reused(input: (Arena, &'static [Vec<u8>])) -> Arena {
    let (mut arena, msgs) = input;
    for bytes in msgs {
        black_box(n::quarry_reused(&n::VERIFY, &mut arena, bytes));
    }
    arena
}

#[cfg(not(feature = "gate"))]
library_benchmark_group!(
    name = nostr_decode;
    benchmarks = peer, peer_verify_id, quarry_noverify_fresh, quarry_noverify_reused, quarry_verify_reused
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = nostr_decode;
    benchmarks = quarry_noverify_fresh, quarry_noverify_reused, quarry_verify_reused
);

fn req_input(shape: &str) -> &'static [u8] {
    let bytes: &'static [u8] = Box::leak(n::req(shape).into_boxed_slice());
    n::peer_parse_req(bytes);
    n::quarry_req_fresh(bytes);
    bytes
}

fn req_reused(shape: &str) -> (Arena, &'static [u8]) {
    let bytes = req_input(shape);
    let mut arena = Arena::new();
    n::quarry_req_reused(&mut arena, bytes);
    (arena, bytes)
}

// One client REQ decoded, plus drop.
#[library_benchmark]
#[bench::req_profile(args = ("req_profile"), setup = req_input)]
#[bench::req_thread(args = ("req_thread"), setup = req_input)]
#[bench::req_feed(args = ("req_feed"), setup = req_input)]
fn peer_req(bytes: &'static [u8]) -> usize {
    black_box(n::peer_parse_req(bytes))
}

#[library_benchmark]
#[bench::req_profile(args = ("req_profile"), setup = req_input)]
#[bench::req_thread(args = ("req_thread"), setup = req_input)]
#[bench::req_feed(args = ("req_feed"), setup = req_input)]
fn quarry_req_fresh(bytes: &'static [u8]) -> usize {
    black_box(n::quarry_req_fresh(bytes))
}

#[library_benchmark]
#[bench::req_profile(args = ("req_profile"), setup = req_reused)]
#[bench::req_thread(args = ("req_thread"), setup = req_reused)]
#[bench::req_feed(args = ("req_feed"), setup = req_reused)]
fn quarry_req_reused(input: (Arena, &'static [u8])) -> Arena {
    let (mut arena, bytes) = input;
    black_box(n::quarry_req_reused(&mut arena, bytes));
    arena
}

#[cfg(not(feature = "gate"))]
library_benchmark_group!(
    name = nostr_req;
    benchmarks = peer_req, quarry_req_fresh, quarry_req_reused
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = nostr_req;
    benchmarks = quarry_req_fresh, quarry_req_reused
);

fn peer_event(shape: &str) -> &'static nostr::event::Event {
    let event = n::peer_event(shape);
    n::peer_encode(event);
    event
}

fn quarry_event(shape: &str) -> quarry_nostr::Event<'static> {
    let event = n::quarry_event(shape);
    n::quarry_encode(event);
    event
}

// One encode of the event to compact JSON, plus drop.
#[library_benchmark]
#[bench::plain(args = ("plain"), setup = peer_event)]
#[bench::thread12(args = ("thread12"), setup = peer_event)]
#[bench::heavy30(args = ("heavy30"), setup = peer_event)]
fn peer_encode(event: &'static nostr::event::Event) -> usize {
    black_box(n::peer_encode(event))
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = quarry_event)]
#[bench::thread12(args = ("thread12"), setup = quarry_event)]
#[bench::heavy30(args = ("heavy30"), setup = quarry_event)]
fn quarry_encode(event: quarry_nostr::Event<'static>) -> usize {
    black_box(n::quarry_encode(event))
}

fn peer_relay(shape: &str) -> &'static nostr::message::RelayMessage<'static> {
    let msg = n::peer_relay_message(shape);
    n::peer_encode_relay(msg);
    msg
}

fn quarry_relay(shape: &str) -> quarry_nostr::RelayMessage<'static> {
    let msg = n::quarry_relay_message(shape);
    n::quarry_encode_relay(&msg);
    msg
}

// One encode of the `["EVENT",sub,event]` relay message, plus drop.
#[library_benchmark]
#[bench::plain(args = ("plain"), setup = peer_relay)]
#[bench::thread12(args = ("thread12"), setup = peer_relay)]
#[bench::heavy30(args = ("heavy30"), setup = peer_relay)]
fn peer_encode_relay(msg: &'static nostr::message::RelayMessage<'static>) -> usize {
    black_box(n::peer_encode_relay(msg))
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = quarry_relay)]
#[bench::thread12(args = ("thread12"), setup = quarry_relay)]
#[bench::heavy30(args = ("heavy30"), setup = quarry_relay)]
fn quarry_encode_relay(msg: quarry_nostr::RelayMessage<'static>) -> usize {
    black_box(n::quarry_encode_relay(&msg))
}

fn peer_req_message(shape: &str) -> &'static nostr::message::ClientMessage<'static> {
    let msg = n::peer_req_message(shape);
    n::peer_encode_req(msg);
    msg
}

fn quarry_req_message(shape: &str) -> quarry_nostr::ClientMessage<'static> {
    let msg = n::quarry_req_message(shape);
    n::quarry_encode_req(&msg);
    msg
}

// One encode of a client REQ, plus drop.
#[library_benchmark]
#[bench::req_profile(args = ("req_profile"), setup = peer_req_message)]
#[bench::req_thread(args = ("req_thread"), setup = peer_req_message)]
#[bench::req_feed(args = ("req_feed"), setup = peer_req_message)]
fn peer_encode_req(msg: &'static nostr::message::ClientMessage<'static>) -> usize {
    black_box(n::peer_encode_req(msg))
}

#[library_benchmark]
#[bench::req_profile(args = ("req_profile"), setup = quarry_req_message)]
#[bench::req_thread(args = ("req_thread"), setup = quarry_req_message)]
#[bench::req_feed(args = ("req_feed"), setup = quarry_req_message)]
fn quarry_encode_req(msg: quarry_nostr::ClientMessage<'static>) -> usize {
    black_box(n::quarry_encode_req(&msg))
}

#[cfg(not(feature = "gate"))]
library_benchmark_group!(
    name = nostr_encode;
    benchmarks = peer_encode, quarry_encode, peer_encode_relay, quarry_encode_relay, peer_encode_req, quarry_encode_req
);
#[cfg(feature = "gate")]
library_benchmark_group!(
    name = nostr_encode;
    benchmarks = quarry_encode, quarry_encode_relay, quarry_encode_req
);

fn build_input(shape: &str) -> &'static n::BuildInput {
    let input: &'static n::BuildInput = Box::leak(Box::new(n::build_input(shape)));
    n::peer_build_sign_encode(input);
    n::quarry_build_fresh(input);
    input
}

fn build_reused(shape: &str) -> (Arena, Vec<u8>, &'static n::BuildInput) {
    let input = build_input(shape);
    let (mut arena, mut out) = (Arena::new(), Vec::new());
    n::quarry_build_reused(&mut arena, input, &mut out);
    (arena, out, input)
}

// One build + sign (BIP-340, fixed auxiliary data) + encode of the shape's
// event from its tags and content, plus drop.
#[library_benchmark]
#[bench::plain(args = ("plain"), setup = build_input)]
#[bench::hashtag(args = ("hashtag"), setup = build_input)]
#[bench::reply1(args = ("reply1"), setup = build_input)]
#[bench::reply3(args = ("reply3"), setup = build_input)]
#[bench::thread12(args = ("thread12"), setup = build_input)]
#[bench::heavy30(args = ("heavy30"), setup = build_input)]
fn peer_build(input: &'static n::BuildInput) -> usize {
    black_box(n::peer_build_sign_encode(input))
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = build_input)]
#[bench::hashtag(args = ("hashtag"), setup = build_input)]
#[bench::reply1(args = ("reply1"), setup = build_input)]
#[bench::reply3(args = ("reply3"), setup = build_input)]
#[bench::thread12(args = ("thread12"), setup = build_input)]
#[bench::heavy30(args = ("heavy30"), setup = build_input)]
fn quarry_build_fresh(input: &'static n::BuildInput) -> usize {
    black_box(n::quarry_build_fresh(input))
}

#[library_benchmark]
#[bench::plain(args = ("plain"), setup = build_reused)]
#[bench::hashtag(args = ("hashtag"), setup = build_reused)]
#[bench::reply1(args = ("reply1"), setup = build_reused)]
#[bench::reply3(args = ("reply3"), setup = build_reused)]
#[bench::thread12(args = ("thread12"), setup = build_reused)]
#[bench::heavy30(args = ("heavy30"), setup = build_reused)]
fn quarry_build_reused(state: (Arena, Vec<u8>, &'static n::BuildInput)) -> usize {
    let (mut arena, mut out, input) = state;
    black_box(n::quarry_build_reused(&mut arena, input, &mut out))
}

// Not in the gate's groups: the gate's baselines do not hold them.
#[cfg(not(feature = "gate"))]
library_benchmark_group!(
    name = nostr_build;
    benchmarks = peer_build, quarry_build_fresh, quarry_build_reused
);

#[cfg(not(feature = "gate"))]
main!(
    library_benchmark_groups = nostr_decode,
    nostr_req,
    nostr_encode,
    nostr_build
);
#[cfg(feature = "gate")]
main!(
    library_benchmark_groups = nostr_decode,
    nostr_req,
    nostr_encode
);
