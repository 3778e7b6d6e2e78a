//! The instruction-count gate.
//!
//! ```text
//! cargo run -p quarry-benches --bin iai_gate               # check (what CI runs)
//! cargo run -p quarry-benches --bin iai_gate -- update     # rewrite the baselines
//! cargo run -p quarry-benches --bin iai_gate -- alloc-tests # allocation tests, same build
//! ```
//!
//! Runs the gated iai-callgrind bench targets from one optimized build
//! (`cargo bench <SELECTION> --bench <target>... -- --save-summary=json`),
//! reads the instruction counts of each target's `quarry_*` benches from
//! the summaries, and compares them with `benches/baselines/<target>.json`.
//! Exits 1 when a count rose more than the file's `max_increase_pct`, or a
//! bench is missing or new; 2 when something could not be run or read.
//! `--no-run` reuses the summaries of the last run instead of running the
//! benches again.
//!
//! `alloc-tests` runs the format crates' allocation tests (a counting
//! global allocator holds the decoders and encoders to their allocation
//! counts) in the same optimized build: the contract is about optimized
//! builds, and one package selection with one feature set for both
//! commands lets the bench build reuse every crate the tests compiled,
//! the generated protobuf code above all.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::SystemTime;

use quarry_benches::gate::{self, Baseline};
use quarry_benches::outputs;

/// iai-callgrind bench targets under the gate.
const GATED: [&str; 3] = ["wa_iai", "nostr_iai", "proto_iai"];
/// The packages and features of the gate's build, shared by the benches
/// and the allocation tests so that cargo unifies features the same way
/// for both and compiles each crate once. `quarry-benches` is built with
/// `gate` (quarry's benches only) and the formats whose benches need one;
/// one build serves the three bench targets (a build per format would
/// compile the quarry crates and the shared dependencies three times).
/// No selected format crate has default features, so
/// `--no-default-features` changes only `quarry-benches`.
const SELECTION: [&str; 13] = [
    "-p",
    "quarry-core",
    "-p",
    "quarry-wa",
    "-p",
    "quarry-nostr",
    "-p",
    "quarry-proto-tests",
    "-p",
    "quarry-benches",
    "--no-default-features",
    "--features",
    "quarry-benches/gate,quarry-benches/nostr,quarry-benches/proto",
];
/// The allocation test targets (in quarry-core, quarry-wa, quarry-nostr
/// and quarry-proto-tests).
const ALLOC_TESTS: [&str; 4] = ["alloc", "encode_alloc", "pool_steady", "pool"];
/// Only quarry's own benches are gated; the `gate` feature of
/// `quarry-benches` leaves the peers' out of the run (the runner's name
/// filter selects whole bench files, not functions).
const GATED_PREFIX: &str = "quarry";
/// The runner must match the `iai-callgrind` library version exactly.
const RUNNER_VERSION: &str = "0.16.1";
const DEFAULT_MAX_INCREASE_PCT: f64 = 2.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let update = args.iter().any(|a| a == "update");
    let no_run = args.iter().any(|a| a == "--no-run");
    if let Some(bad) = args
        .iter()
        .find(|a| !["update", "check", "--no-run", "alloc-tests"].contains(&a.as_str()))
    {
        eprintln!(
            "iai_gate: unknown argument {bad:?}; usage: iai_gate [check|update] [--no-run] | iai_gate alloc-tests"
        );
        return ExitCode::from(2);
    }
    if args.iter().any(|a| a == "alloc-tests") {
        return match run_alloc_tests() {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("iai_gate: {e}");
                ExitCode::from(2)
            }
        };
    }
    match run(update, no_run) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("iai_gate: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(update: bool, no_run: bool) -> Result<bool, String> {
    let (root, target) = outputs::workspace_dirs()?;
    if !no_run {
        check_runner()?;
    }
    // Taken before the first baseline is rewritten: a rewritten file makes
    // the tree dirty, and the later files would be labelled "+uncommitted".
    let commit = commit(&root);
    let since = if no_run {
        SystemTime::UNIX_EPOCH
    } else {
        let start = SystemTime::now();
        for bench in GATED {
            outputs::clear_iai_outputs(&target, "quarry-benches", bench)?;
        }
        run_benches()?;
        start
    };
    let mut passed = true;
    for bench in GATED {
        let measured = outputs::read_iai_summaries(&target, "quarry-benches", bench, since)?;
        if measured.is_empty() {
            return Err(format!(
                "no iai-callgrind summaries for {bench} under {}",
                target.display()
            ));
        }
        let gated: BTreeMap<String, u64> = measured
            .into_iter()
            .filter(|(name, _)| name.starts_with(GATED_PREFIX))
            .collect();
        let file = root
            .join("benches")
            .join("baselines")
            .join(format!("{bench}.json"));
        if update {
            write_baseline(&commit, &file, gated)?;
            continue;
        }
        let text = std::fs::read_to_string(&file).map_err(|e| {
            format!(
                "cannot read the baseline {}: {e} (create it with: cargo run -p quarry-benches --bin iai_gate -- update)",
                file.display()
            )
        })?;
        let baseline = Baseline::parse(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let verdicts = gate::check(&baseline, &gated);
        print!(
            "{}",
            gate::render(bench, baseline.max_increase_pct, &verdicts)
        );
        let failed: Vec<&String> = verdicts
            .iter()
            .filter(|(_, v)| v.fails())
            .map(|(k, _)| k)
            .collect();
        if failed.is_empty() {
            println!(
                "iai_gate: {bench}: {} benches within +{}% of {}",
                verdicts.len(),
                baseline.max_increase_pct,
                file.display()
            );
        } else {
            passed = false;
            eprintln!(
                "iai_gate: {bench}: FAILED for {} (limit +{}% over {}). If the change is intended, \
                 regenerate the baseline with `cargo run -p quarry-benches --bin iai_gate -- update` \
                 and commit the diff.",
                failed
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                baseline.max_increase_pct,
                file.display()
            );
        }
    }
    Ok(passed)
}

/// The runner prints no version of its own; when it is missing, say how to
/// install it. (A version mismatch is reported by the runner itself when the
/// bench starts.)
fn check_runner() -> Result<(), String> {
    let runner =
        std::env::var_os("IAI_CALLGRIND_RUNNER").unwrap_or_else(|| "iai-callgrind-runner".into());
    match Command::new(&runner).output() {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "cannot run {}: {e}; install it with: cargo install --locked iai-callgrind-runner --version {RUNNER_VERSION}",
            runner.to_string_lossy()
        )),
    }
}

/// `cargo <subcommand>` on the gate's build: the `bench` profile without
/// debuginfo, so the release build is quicker (CI makes it from scratch).
/// Callgrind still names functions from the symbol table. Code generation
/// differs slightly from the `bench` profile's, so counts can differ from
/// docs/BENCHMARKS.md by a percent or two, and the baselines are taken
/// the same way.
fn gate_build(subcommand: &str) -> Command {
    let mut cargo = outputs::cargo();
    cargo
        .args([subcommand, "--locked", "--profile", "bench"])
        .args(SELECTION)
        .env("CARGO_PROFILE_BENCH_DEBUG", "false");
    cargo
}

/// Whether every allocation test passed in the gate's optimized build.
fn run_alloc_tests() -> Result<bool, String> {
    let mut cargo = gate_build("test");
    for test in ALLOC_TESTS {
        cargo.args(["--test", test]);
    }
    let status = cargo
        .status()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    Ok(status.success())
}

fn run_benches() -> Result<(), String> {
    let mut cargo = gate_build("bench");
    for bench in GATED {
        cargo.args(["--bench", bench]);
    }
    let status = cargo
        .args(["--", "--save-summary=json"])
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo bench ({}) failed ({status}); if the runner reported a version \
             mismatch: cargo install --locked --force iai-callgrind-runner --version {RUNNER_VERSION}",
            GATED.join(", ")
        ));
    }
    Ok(())
}

fn write_baseline(commit: &str, file: &Path, counts: BTreeMap<String, u64>) -> Result<(), String> {
    let max_increase_pct = std::fs::read_to_string(file)
        .ok()
        .and_then(|t| Baseline::parse(&t).ok())
        .map_or(DEFAULT_MAX_INCREASE_PCT, |b| b.max_increase_pct);
    let mut provenance = BTreeMap::new();
    provenance.insert("commit".to_owned(), commit.to_owned());
    provenance.insert(
        "rustc".to_owned(),
        outputs::first_line("rustc", &["--version"]),
    );
    provenance.insert(
        "valgrind".to_owned(),
        outputs::first_line("valgrind", &["--version"]),
    );
    let baseline = Baseline {
        max_increase_pct,
        instructions: counts,
        provenance,
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(file, baseline.to_json())
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    println!(
        "iai_gate: wrote {} benches to {}; review and commit the diff",
        baseline.instructions.len(),
        file.display()
    );
    Ok(())
}

fn commit(root: &Path) -> String {
    match outputs::git_commit(root) {
        (head, true) => format!("{head}+uncommitted"),
        (head, false) => head,
    }
}
