//! Allocations, bytes requested and bytes held per protobuf decode of the
//! WhatsApp samples, for prost 0.14, buffa (waproto 0.7) owned and views and
//! quarry (fresh and reused arena), counted by a counting global allocator
//! (`quarry_benches::proto::measure_alloc`, which `proto_report` puts in
//! `docs/BENCHMARKS.md`).
//!
//! ```text
//! cargo run --release -p quarry-benches --features buffa --bin proto_alloc
//! ```

use quarry_benches::alloc_count::CountingAlloc;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn main() {
    println!("| sample | decoder | allocations | bytes requested | bytes held | arena used |");
    println!("|---|---|---:|---:|---:|---:|");
    for r in quarry_benches::proto::measure_alloc() {
        let used = r
            .arena_used
            .map_or_else(|| "-".to_owned(), |u| u.to_string());
        println!(
            "| {} | {} | {} | {} | {} | {used} |",
            r.case, r.op, r.allocations, r.requested, r.held
        );
    }
}
