//! Wall time of one WhatsApp node decode plus drop, quarry and
//! `wacore-binary` on the same bytes, in one run.
//!
//! Groups are `wa_decode_<case>`, functions `peer`, `quarry_fresh` and
//! `quarry_reused`; `bench_report` reads their medians from
//! `target/criterion/wa_decode_<case>/<function>/new/estimates.json`.

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

// Modest settings so the whole report stays a few minutes on two cores;
// command-line flags (--warm-up-time, --measurement-time) override them.
criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = decode
}
criterion_main!(benches);
