//! Wall time of one protobuf decode plus drop of WhatsApp's `Message`,
//! `SyncActionData` and `HistorySync` samples: prost 0.14, buffa (waproto
//! 0.7) owned and views, quarry into a fresh and a reused arena, on the same
//! bytes in one run. Groups `proto_decode_<sample>`, and
//! `proto_decode_<sample>_<kind>` for the samples' forward-compatible
//! variants (`quarry_proto_tests::variants`); and one encode of the
//! same samples, each encoder from its own decoded form, plus drop of the
//! bytes: groups `proto_encode_<sample>`. Build plus encode of the same
//! samples from the same source values (`quarry_proto_tests::sends`):
//! prost's and buffa's owned types, quarry's builders into a reused arena:
//! groups `proto_build_encode_<sample>`. A 1,000-entry map
//! (`All3.m_str`, unique keys and 500 keys written twice): decode, decode
//! plus one iteration, decode plus 100 look-ups, prost's `HashMap` beside
//! quarry's view in a reused arena: groups `proto_map_<input>`.

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quarry_core::Arena;

mod proto_common;
use proto_common as pc;

fn decode(c: &mut Criterion) {
    for s in pc::decode_inputs() {
        let mut group = c.benchmark_group(format!("proto_decode_{}", s.name));
        group.throughput(Throughput::Bytes(s.bytes.len() as u64));
        group.bench_function("prost", |b| b.iter(|| pc::prost(s)));
        group.bench_function("buffa_owned", |b| b.iter(|| pc::buffa_owned(s)));
        group.bench_function("buffa_view", |b| b.iter(|| pc::buffa_view(s)));
        group.bench_function("quarry_fresh", |b| b.iter(|| pc::quarry_fresh(s)));
        let mut arena = Arena::new();
        pc::quarry_reused(&mut arena, s);
        group.bench_function("quarry_reused", |b| {
            b.iter(|| pc::quarry_reused(&mut arena, s))
        });
        group.finish();
    }
}

fn encode(c: &mut Criterion) {
    for s in pc::samples() {
        let e = pc::encodable(s);
        let mut group = c.benchmark_group(format!("proto_encode_{}", s.name));
        group.throughput(Throughput::Bytes(s.bytes.len() as u64));
        group.bench_function("prost", |b| b.iter(|| pc::prost_encode(e)));
        group.bench_function("buffa_owned", |b| b.iter(|| pc::buffa_encode(e)));
        group.bench_function("quarry", |b| b.iter(|| pc::quarry_encode(e)));
        group.finish();
    }
}

fn build_encode(c: &mut Criterion) {
    for s in pc::samples() {
        let name = s.name;
        let mut group = c.benchmark_group(format!("proto_build_encode_{name}"));
        group.throughput(Throughput::Bytes(s.bytes.len() as u64));
        group.bench_function("prost", |b| b.iter(|| pc::prost_build_encode(name)));
        group.bench_function("buffa_owned", |b| b.iter(|| pc::buffa_build_encode(name)));
        let mut arena = pc::build_arena(name);
        group.bench_function("quarry", |b| {
            b.iter(|| pc::quarry_build_encode(&mut arena, name))
        });
        group.finish();
    }
}

fn maps(c: &mut Criterion) {
    for m in pc::map_inputs() {
        let mut group = c.benchmark_group(format!("proto_map_{}", m.name));
        group.bench_function("prost_decode", |b| b.iter(|| pc::prost_map_decode(m)));
        group.bench_function("prost_iter", |b| b.iter(|| pc::prost_map_iter(m)));
        group.bench_function("prost_get", |b| b.iter(|| pc::prost_map_get(m)));
        let mut arena = Arena::new();
        pc::quarry_map_get(&mut arena, m);
        group.bench_function("quarry_decode", |b| {
            b.iter(|| pc::quarry_map_decode(&mut arena, m))
        });
        group.bench_function("quarry_iter", |b| {
            b.iter(|| pc::quarry_map_iter(&mut arena, m))
        });
        group.bench_function("quarry_get", |b| {
            b.iter(|| pc::quarry_map_get(&mut arena, m))
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = decode, encode, build_encode, maps
}
criterion_main!(benches);
