//! Allocations per decode and encode, per WhatsApp case and per operation,
//! then per small node built (`alloc_count::BUILD_CASES`), counted by a
//! global allocator.
//!
//! ```text
//! cargo run -p quarry-benches --release --bin alloc_report [-- --json]
//! ```

use quarry_benches::alloc_count::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    let mut rows = alloc_count::measure_wa();
    rows.extend(alloc_count::measure_wa_build());
    if std::env::args().any(|a| a == "--json") {
        print!("{}", alloc_count::to_json_lines(&rows));
        return;
    }
    println!(
        "{:<14} {:<19} {:>12} {:>16} {:>11} {:>11}",
        "case", "operation", "allocations", "bytes requested", "bytes held", "arena used"
    );
    for r in &rows {
        let used = r
            .arena_used
            .map_or_else(|| "-".to_owned(), |u| u.to_string());
        println!(
            "{:<14} {:<19} {:>12} {:>16} {:>11} {:>11}",
            r.case, r.op, r.allocations, r.requested, r.held, used
        );
    }
}
