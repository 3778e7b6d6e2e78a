//! Wall time of decoding one `["EVENT",sub,event]` relay message, quarry
//! and rust-nostr (`nostr` 0.45 `RelayMessage::from_json`) on the same
//! bytes, in one run. Groups `nostr_<shape>`; functions `peer`,
//! `peer_verify_id`, `quarry_noverify_fresh`, `quarry_noverify_reused`,
//! `quarry_verify_fresh`, `quarry_verify_reused`; group `nostr_corpus`, the
//! same functions over the whole wire-shaped corpus. Client REQs: groups
//! `nostr_<req shape>`, functions `peer`, `quarry_fresh`, `quarry_reused`.
//! Encoding, functions `peer` and `quarry`: an event (`nostr_encode_<shape>`),
//! the relay message carrying it (`nostr_encode_relay_<shape>`) and a REQ
//! (`nostr_encode_<req shape>`). Building, signing (BIP-340, fixed
//! auxiliary data) and encoding an event of each shape from its tags and
//! content (`nostr_build_<shape>`): functions `peer` (rust-nostr's
//! `EventBuilder`, `as_json`), `quarry_fresh`, `quarry_reused`.

mod nostr_common;

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nostr_common as n;
use quarry_core::Arena;

fn decode(c: &mut Criterion) {
    for shape in n::SHAPES {
        let bytes = n::message(shape);
        let bytes = bytes.as_slice();
        let mut group = c.benchmark_group(format!("nostr_{shape}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("peer", |b| b.iter(|| n::peer_parse(bytes)));
        group.bench_function("peer_verify_id", |b| {
            b.iter(|| n::peer_parse_verify_id(bytes))
        });
        group.bench_function("quarry_noverify_fresh", |b| {
            b.iter(|| n::quarry_fresh(&n::NO_VERIFY, bytes))
        });
        let mut arena = n::warmed_arena(bytes);
        group.bench_function("quarry_noverify_reused", |b| {
            b.iter(|| n::quarry_reused(&n::NO_VERIFY, &mut arena, bytes))
        });
        group.bench_function("quarry_verify_fresh", |b| {
            b.iter(|| n::quarry_fresh(&n::VERIFY, bytes))
        });
        group.bench_function("quarry_verify_reused", |b| {
            b.iter(|| n::quarry_reused(&n::VERIFY, &mut arena, bytes))
        });
        group.finish();
    }
}

/// The whole wire-shaped corpus, message by message (group
/// `nostr_corpus`, the functions of [`decode`]; one iteration is all 722
/// messages).
fn decode_corpus(c: &mut Criterion) {
    let msgs = n::corpus();
    let total: usize = msgs.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("nostr_corpus");
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("peer", |b| {
        b.iter(|| msgs.iter().filter(|m| n::peer_parse(m)).count())
    });
    group.bench_function("peer_verify_id", |b| {
        b.iter(|| msgs.iter().filter(|m| n::peer_parse_verify_id(m)).count())
    });
    group.bench_function("quarry_noverify_fresh", |b| {
        b.iter(|| {
            msgs.iter()
                .map(|m| n::quarry_fresh(&n::NO_VERIFY, m))
                .sum::<usize>()
        })
    });
    let mut arena = Arena::new();
    for m in msgs {
        n::quarry_reused(&n::VERIFY, &mut arena, m);
    }
    group.bench_function("quarry_noverify_reused", |b| {
        b.iter(|| {
            msgs.iter()
                .map(|m| n::quarry_reused(&n::NO_VERIFY, &mut arena, m))
                .sum::<usize>()
        })
    });
    group.bench_function("quarry_verify_fresh", |b| {
        b.iter(|| {
            msgs.iter()
                .map(|m| n::quarry_fresh(&n::VERIFY, m))
                .sum::<usize>()
        })
    });
    group.bench_function("quarry_verify_reused", |b| {
        b.iter(|| {
            msgs.iter()
                .map(|m| n::quarry_reused(&n::VERIFY, &mut arena, m))
                .sum::<usize>()
        })
    });
    group.finish();
}

/// One decode of each REQ shape plus drop: rust-nostr's
/// `ClientMessage::from_json`, quarry's `decode_client_message`.
fn decode_req(c: &mut Criterion) {
    for shape in n::REQ_SHAPES {
        let bytes = n::req(shape);
        let bytes = bytes.as_slice();
        let mut group = c.benchmark_group(format!("nostr_{shape}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("peer", |b| b.iter(|| n::peer_parse_req(bytes)));
        group.bench_function("quarry_fresh", |b| b.iter(|| n::quarry_req_fresh(bytes)));
        let mut arena = Arena::new();
        n::quarry_req_reused(&mut arena, bytes);
        group.bench_function("quarry_reused", |b| {
            b.iter(|| n::quarry_req_reused(&mut arena, bytes))
        });
        group.finish();
    }
}

/// One encode to compact JSON, plus drop, rust-nostr from its own types,
/// quarry from its decoded views: each shape's event, the
/// `["EVENT",sub,event]` relay message carrying it, and each REQ shape.
fn encode(c: &mut Criterion) {
    for shape in n::SHAPES {
        let (peer, quarry) = (n::peer_event(shape), n::quarry_event(shape));
        let mut group = c.benchmark_group(format!("nostr_encode_{shape}"));
        group.bench_function("peer", |b| b.iter(|| n::peer_encode(peer)));
        group.bench_function("quarry", |b| b.iter(|| n::quarry_encode(quarry)));
        group.finish();
    }
    for shape in n::SHAPES {
        let peer = n::peer_relay_message(shape);
        let quarry = n::quarry_relay_message(shape);
        let mut group = c.benchmark_group(format!("nostr_encode_relay_{shape}"));
        group.bench_function("peer", |b| b.iter(|| n::peer_encode_relay(peer)));
        group.bench_function("quarry", |b| b.iter(|| n::quarry_encode_relay(&quarry)));
        group.finish();
    }
    for shape in n::REQ_SHAPES {
        let (peer, quarry) = (n::peer_req_message(shape), n::quarry_req_message(shape));
        let mut group = c.benchmark_group(format!("nostr_encode_{shape}"));
        group.bench_function("peer", |b| b.iter(|| n::peer_encode_req(peer)));
        group.bench_function("quarry", |b| b.iter(|| n::quarry_encode_req(&quarry)));
        group.finish();
    }
}

/// Build + sign + encode of each shape's event, rust-nostr's
/// `EventBuilder` and quarry's, from the same tags and content.
fn build(c: &mut Criterion) {
    for shape in n::SHAPES {
        let input = n::build_input(shape);
        let mut group = c.benchmark_group(format!("nostr_build_{shape}"));
        group.bench_function("peer", |b| b.iter(|| n::peer_build_sign_encode(&input)));
        group.bench_function("quarry_fresh", |b| b.iter(|| n::quarry_build_fresh(&input)));
        let (mut arena, mut out) = (Arena::new(), Vec::new());
        n::quarry_build_reused(&mut arena, &input, &mut out);
        group.bench_function("quarry_reused", |b| {
            b.iter(|| n::quarry_build_reused(&mut arena, &input, &mut out))
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = decode, decode_corpus, decode_req, encode, build
}
criterion_main!(benches);
