//! Wall time of one WhatsApp node decode plus drop, quarry and
//! `wacore-binary` on the same bytes, in one run.
//!
//! Decode groups are `wa_decode_<case>` with functions `peer`,
//! `quarry_fresh` and `quarry_reused`, and `wa_decode_corpus`, the same
//! functions over every stanza of the small-stanza corpus (one iteration
//! decodes them all, one after the other); encode groups `wa_encode_<case>` with
//! `peer_marshal`, `peer_marshal_exact`, `quarry_encode` (from an owned
//! tree) and `peer_marshal_ref`, `quarry_encode_view` (re-encode of a
//! decoded tree). `bench_report` reads the medians from
//! `target/criterion/<group>/<function>/new/estimates.json`.

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quarry_benches::wa;

fn decode(c: &mut Criterion) {
    for case in wa::cases() {
        let bytes = case.bytes.as_slice();
        let mut group = c.benchmark_group(format!("wa_decode_{}", case.name));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("peer", |b| b.iter(|| wa::peer_decode(bytes)));
        group.bench_function("quarry_fresh", |b| {
            b.iter(|| wa::quarry_decode_fresh(bytes))
        });
        let mut arena = wa::warmed_arena(bytes);
        group.bench_function("quarry_reused", |b| {
            b.iter(|| wa::quarry_decode_reused(&mut arena, bytes))
        });
        group.finish();
    }
}

/// The small-stanza corpus, stanza by stanza (group `wa_decode_corpus`).
fn decode_corpus(c: &mut Criterion) {
    let inputs = wa::corpus();
    let total: usize = inputs.iter().map(|b| b.len()).sum();
    let mut group = c.benchmark_group(format!("wa_decode_{}", wa::CORPUS));
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("peer", |b| {
        b.iter(|| inputs.iter().map(|i| wa::peer_decode(i)).sum::<usize>())
    });
    group.bench_function("quarry_fresh", |b| {
        b.iter(|| {
            inputs
                .iter()
                .map(|i| wa::quarry_decode_fresh(i))
                .sum::<usize>()
        })
    });
    let mut arena = wa::warmed_arena_for(inputs);
    group.bench_function("quarry_reused", |b| {
        b.iter(|| {
            inputs
                .iter()
                .map(|i| wa::quarry_decode_reused(&mut arena, i))
                .sum::<usize>()
        })
    });
    group.finish();
}

fn encode(c: &mut Criterion) {
    for case in wa::cases() {
        let mut group = c.benchmark_group(format!("wa_encode_{}", case.name));
        group.throughput(Throughput::Bytes(case.bytes.len() as u64 + 1));
        let (tree, owned) = (&case.tree, &case.quarry_tree);
        group.bench_function("peer_marshal", |b| b.iter(|| wa::peer_marshal(tree)));
        group.bench_function("peer_marshal_exact", |b| {
            b.iter(|| wa::peer_marshal_exact(tree))
        });
        group.bench_function("quarry_encode", |b| b.iter(|| wa::quarry_encode(owned)));
        let (peer_view, quarry_view) = (wa::peer_view(case.name), wa::quarry_view(case.name));
        group.bench_function("peer_marshal_ref", |b| {
            b.iter(|| wa::peer_marshal_ref(peer_view))
        });
        group.bench_function("quarry_encode_view", |b| {
            b.iter(|| wa::quarry_encode_view(quarry_view))
        });
        group.finish();
    }
}

// Modest settings so the whole report stays a few minutes on two cores;
// command-line flags (--warm-up-time, --measurement-time) override them.
criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = decode, decode_corpus, encode
}
criterion_main!(benches);
