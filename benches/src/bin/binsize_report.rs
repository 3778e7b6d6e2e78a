//! Binary size of protobuf decoding: builds the program in
//! `benches/binsize/` once per decoder (quarry, prost, buffa owned, buffa
//! views, and a baseline without a decoder), release with fat LTO, one
//! codegen unit and stripped symbols, checks that every build decodes the
//! same hand-encoded inputs to the same results, and prints the markdown
//! section of `docs/BENCHMARKS.md` on stdout (cargo's output goes to
//! stderr).
//!
//! ```text
//! cargo run -p quarry-benches --profile bench --bin binsize_report [-- --symbols]
//! ```
//!
//! `--symbols` also builds the quarry variant with its symbols (cargo
//! profile `symbols`) and lists what its `.text` holds (`nm`).

use quarry_benches::{binsize, outputs};

fn main() {
    let symbols = std::env::args().any(|a| a == "--symbols");
    let section =
        outputs::workspace_dirs().and_then(|(root, target)| binsize::run(&root, &target, symbols));
    match section {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("binsize_report: {e}");
            std::process::exit(2);
        }
    }
}
