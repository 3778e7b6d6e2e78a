//! Pieces shared by the report binaries (`bench_report`, which writes
//! `docs/BENCHMARKS.md`, and the per-format `nostr_report`, `proto_report`
//! and `binsize_report`, which print one section of it each): running
//! benches and section binaries, ratio formatting, target marks, and the
//! machine/toolchain table.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::outputs;

/// Criterion's command-line times for every report run: warm-up 1 s,
/// measurement 3 s (the whole report stays around 20-25 minutes on two
/// cores).
pub const CRITERION_ARGS: [&str; 4] = ["--warm-up-time", "1", "--measurement-time", "3"];

/// `cargo bench --locked -p quarry-benches --features buffa --bench <bench>
/// -- <args>`, its output sent to our stderr (our stdout may be a section
/// being captured). The report builds every peer, buffa included.
///
/// # Errors
/// When cargo cannot be run or the bench fails.
pub fn run_bench(bench: &str, args: &[&str]) -> Result<(), String> {
    let status = outputs::cargo()
        .args([
            "bench",
            "--locked",
            "-p",
            "quarry-benches",
            "--features",
            "buffa",
            "--bench",
            bench,
            "--",
        ])
        .args(args)
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo bench --bench {bench} failed ({status})"))
    }
}

/// Run report binary `bin` of this package (bench profile, every peer
/// feature) with `args` and return what it printed on stdout: its section
/// of the report.
///
/// # Errors
/// When cargo cannot be run, the binary fails, or prints no UTF-8.
pub fn run_section(bin: &str, args: &[&str]) -> Result<String, String> {
    let out = outputs::cargo()
        .args([
            "run",
            "--locked",
            "--profile",
            "bench",
            "-p",
            "quarry-benches",
            "--features",
            "buffa",
            "--bin",
            bin,
            "--",
        ])
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo run --bin {bin}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{bin} failed ({})", out.status));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("{bin} printed no UTF-8"))
}

/// `ratio` with two decimals, followed by ✓ when it is at most `limit` and
/// ✗ when it is above; no mark without a limit.
pub fn mark(ratio: f64, limit: Option<f64>) -> String {
    match limit {
        Some(l) if ratio <= l => format!("{ratio:.2} ✓"),
        Some(_) => format!("{ratio:.2} ✗"),
        None => format!("{ratio:.2}"),
    }
}

/// A ratio of two counts with two decimals, or two significant digits below
/// 0.1 (so one allocation against 404 reads 0.0025, not 0.00); `-` when the
/// peer's count is 0.
pub fn ratio_text(quarry: usize, peer: usize) -> String {
    if peer == 0 {
        return "-".to_owned();
    }
    let r = quarry as f64 / peer as f64;
    if r == 0.0 || r >= 0.1 {
        format!("{r:.2}")
    } else {
        let decimals = (-r.log10().floor()) as usize + 1;
        format!("{r:.decimals$}")
    }
}

/// The CPU as `lscpu` names it, with the CPU count and the hypervisor.
pub fn cpu() -> String {
    let lscpu = Command::new("lscpu")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let field = |name: &str| {
        lscpu.lines().find_map(|l| {
            l.strip_prefix(name)
                .map(|v| v.trim_start_matches(':').trim().to_owned())
        })
    };
    let model = field("Model name").unwrap_or_else(|| "unknown".to_owned());
    let cpus = field("CPU(s)").unwrap_or_else(|| "?".to_owned());
    let hyper = field("Hypervisor vendor").map_or_else(String::new, |h| format!(", {h} VM"));
    format!("{model}, {cpus} CPUs{hyper}")
}

/// The version of `krate` in a `Cargo.lock`'s text: the only one, or, when
/// several are locked, the one `quarry-benches` depends on (else all of
/// them); `?` when it is not locked.
pub fn locked_version(lock: &str, krate: &str) -> String {
    let packages: Vec<&str> = lock.split("[[package]]").skip(1).collect();
    let field = |block: &str, key: &str| {
        let needle = format!("\n{key} = \"");
        block
            .find(&needle)
            .and_then(|i| block[i + needle.len()..].split('"').next())
            .map(str::to_owned)
    };
    let versions: Vec<String> = packages
        .iter()
        .filter(|b| field(b, "name").as_deref() == Some(krate))
        .filter_map(|b| field(b, "version"))
        .collect();
    match versions.as_slice() {
        [] => "?".to_owned(),
        [one] => one.clone(),
        several => {
            let ours = packages
                .iter()
                .find(|b| field(b, "name").as_deref() == Some("quarry-benches"))
                .and_then(|b| {
                    let prefix = format!("\"{krate} ");
                    b.lines()
                        .map(str::trim)
                        .find_map(|l| l.strip_prefix(&prefix))
                        .and_then(|rest| rest.split(['"', ' ']).next())
                        .map(str::to_owned)
                });
            ours.unwrap_or_else(|| several.join(", "))
        }
    }
}

/// `HEAD`'s short hash, saying so when the measured sources differ from it.
pub fn commit(root: &Path) -> String {
    match outputs::git_commit(root) {
        (head, true) => {
            format!("{head} (with uncommitted changes in crates/, benches/ or Cargo.lock)")
        }
        (head, false) => head,
    }
}

/// The machine and toolchain as a two-column markdown table: commit, date,
/// CPU, rustc, valgrind, and the locked versions of `crates`.
pub fn machine_table(root: &Path, crates: &[&str]) -> String {
    let mut w = String::new();
    let _ = writeln!(w, "| | |\n|---|---|");
    let _ = writeln!(w, "| commit | {} |", commit(root));
    let _ = writeln!(
        w,
        "| date (UTC) | {} |",
        outputs::first_line("date", &["-u", "+%Y-%m-%d %H:%M"])
    );
    let _ = writeln!(w, "| CPU | {} |", cpu());
    let _ = writeln!(
        w,
        "| rustc | {} |",
        outputs::first_line("rustc", &["--version"])
    );
    let _ = writeln!(
        w,
        "| valgrind | {} |",
        outputs::first_line("valgrind", &["--version"])
    );
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    for krate in crates {
        let _ = writeln!(w, "| {krate} | {} |", locked_version(&lock, krate));
    }
    w
}

/// The "targets missed" list that closes a section's ratio table.
pub fn write_misses(w: &mut String, misses: &[String]) {
    use std::fmt::Write as _;
    let _ = writeln!(w, "\n**Targets missed in this run:**");
    if misses.is_empty() {
        let _ = writeln!(w, "none.");
    } else {
        let _ = writeln!(w);
        for miss in misses {
            let _ = writeln!(w, "* {miss}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_ratios_keep_two_significant_digits() {
        assert_eq!(ratio_text(1, 404), "0.0025");
        assert_eq!(ratio_text(0, 5), "0.00");
        assert_eq!(ratio_text(3, 4), "0.75");
        assert_eq!(ratio_text(1, 0), "-");
    }

    #[test]
    fn marks_follow_the_limit() {
        assert_eq!(mark(0.3, Some(0.3)), "0.30 ✓");
        assert_eq!(mark(0.31, Some(0.3)), "0.31 ✗");
        assert_eq!(mark(1.5, None), "1.50");
    }

    #[test]
    fn reads_a_locked_version() {
        let lock = "[[package]]\nname = \"prost\"\nversion = \"0.14.6\"\n";
        assert_eq!(locked_version(lock, "prost"), "0.14.6");
        assert_eq!(locked_version(lock, "buffa"), "?");
    }

    #[test]
    fn picks_the_version_the_benches_use_among_several() {
        let lock = "version = 4\n\n\
            [[package]]\nname = \"nostr\"\nversion = \"0.44.8\"\n\n\
            [[package]]\nname = \"nostr\"\nversion = \"0.45.6\"\n\n\
            [[package]]\nname = \"quarry-benches\"\nversion = \"0.1.0\"\n\
            dependencies = [\n \"nostr 0.45.6\",\n \"quarry\",\n]\n";
        assert_eq!(locked_version(lock, "nostr"), "0.45.6");
        let without = lock.replace(" \"nostr 0.45.6\",\n", "");
        assert_eq!(locked_version(&without, "nostr"), "0.44.8, 0.45.6");
    }
}
