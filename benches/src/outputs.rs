//! Where cargo, criterion and iai-callgrind put things, and readers for
//! their output files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use serde_json::Value;

/// The `cargo` that runs us (cargo sets `CARGO` for `cargo run`), else the
/// one on `PATH`.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The workspace root and target directory, as `cargo metadata` reports
/// them (so `CARGO_TARGET_DIR` and cargo config are honoured).
///
/// # Errors
/// When `cargo metadata` fails or prints something unexpected.
pub fn workspace_dirs() -> Result<(PathBuf, PathBuf), String> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    let dir = |key: &str| {
        meta[key]
            .as_str()
            .map(PathBuf::from)
            .ok_or_else(|| format!("cargo metadata has no {key}"))
    };
    Ok((dir("workspace_root")?, dir("target_directory")?))
}

/// One iai-callgrind bench result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IaiResult {
    /// `function/id`, e.g. `quarry_fresh/fanout`.
    pub name: String,
    /// Callgrind's `Ir`: instructions executed by the benchmarked function.
    pub instructions: u64,
}

/// The callgrind instruction counts of every bench of iai bench target
/// `bench` in package `package`, from the `summary.json` files that
/// `--save-summary=json` writes, keeping only files written at or after
/// `since` (older ones are leftovers of benches since renamed).
///
/// # Errors
/// When a summary cannot be read or does not have the shape of
/// iai-callgrind 0.16's summary schema (version 6).
pub fn read_iai_summaries(
    target_dir: &Path,
    package: &str,
    bench: &str,
    since: SystemTime,
) -> Result<BTreeMap<String, u64>, String> {
    let root = target_dir.join("iai").join(package).join(bench);
    let mut files = Vec::new();
    collect_named(&root, "summary.json", &mut files);
    let mut results = BTreeMap::new();
    for file in files {
        let fresh = std::fs::metadata(&file)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since);
        if !fresh {
            continue;
        }
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let r = parse_iai_summary(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        results.insert(r.name, r.instructions);
    }
    Ok(results)
}

/// Remove the output of earlier runs of iai bench target `bench`, so that
/// summaries of benches since renamed or removed cannot be mistaken for
/// this run's.
///
/// # Errors
/// When the directory exists but cannot be removed.
pub fn clear_iai_outputs(target_dir: &Path, package: &str, bench: &str) -> Result<(), String> {
    let dir = target_dir.join("iai").join(package).join(bench);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", dir.display())),
    }
}

/// Parse one iai-callgrind 0.16 `summary.json`.
///
/// # Errors
/// When a field the reader needs is missing.
pub fn parse_iai_summary(text: &str) -> Result<IaiResult, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let version = v["version"].as_str().unwrap_or("?");
    if version != "6" {
        return Err(format!(
            "summary schema version {version}, this reader knows version 6 (iai-callgrind 0.16)"
        ));
    }
    let function = v["function_name"].as_str().ok_or("no function_name")?;
    let id = v["id"].as_str().ok_or("no id (give each bench a name)")?;
    let profiles = v["profiles"].as_array().ok_or("no profiles")?;
    let callgrind = profiles
        .iter()
        .find(|p| p["tool"] == "Callgrind")
        .ok_or("no Callgrind profile")?;
    let metrics = &callgrind["summaries"]["total"]["summary"]["Callgrind"]["Ir"]["metrics"];
    // `metrics` is an EitherOrBoth: `Left` (this run only), `Both` ([this
    // run, the previous one]) or `Right` (the previous run only).
    let new = metrics
        .get("Left")
        .or_else(|| metrics.get("Both").and_then(|b| b.get(0)))
        .ok_or("no Ir of this run")?;
    let instructions = new["Int"].as_u64().ok_or("Ir is not an integer")?;
    Ok(IaiResult {
        name: format!("{function}/{id}"),
        instructions,
    })
}

fn collect_named(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_named(&path, name, out);
        } else if path.file_name().is_some_and(|n| n == name) {
            out.push(path);
        }
    }
}

/// Criterion's median time per iteration, in nanoseconds, of bench
/// `function` in group `group`, from
/// `target/criterion/<group>/<function>/new/estimates.json`.
///
/// # Errors
/// When the file is missing or has no median.
pub fn criterion_median_ns(target_dir: &Path, group: &str, function: &str) -> Result<f64, String> {
    let file = target_dir
        .join("criterion")
        .join(group)
        .join(function)
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", file.display()))?;
    v["median"]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("{}: no median.point_estimate", file.display()))
}

/// The first line a program prints, or `unknown` (for provenance lines:
/// `rustc --version`, `valgrind --version`).
pub fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The trimmed output of `git <args>` run in `root`, if it succeeds.
pub fn git(root: &Path, args: &[&str]) -> Option<String> {
    Command::new("git")
        .current_dir(root)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}

/// `HEAD`'s short hash in `root`, and whether the tracked files that go
/// into the measured binaries (`crates/`, `benches/`, `Cargo.lock`) differ
/// from it.
pub fn git_commit(root: &Path) -> (String, bool) {
    let git = |args: &[&str]| git(root, args);
    let head = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".to_owned());
    let dirty = git(&[
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        "crates",
        "benches",
        "Cargo.lock",
    ])
    .is_some_and(|s| !s.is_empty());
    (head, dirty)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Trimmed from the shape iai-callgrind 0.16.1 writes (schema v6).
    const SUMMARY: &str = r#"{
        "version": "6", "function_name": "quarry_fresh", "id": "fanout",
        "profiles": [{"tool": "Callgrind", "summaries": {"total": {"summary": {"Callgrind": {
            "Ir": {"diffs": null, "metrics": {"Left": {"Int": 9026}}}
        }}}}}]
    }"#;

    #[test]
    fn reads_instructions_of_a_first_run() {
        let r = parse_iai_summary(SUMMARY).unwrap();
        assert_eq!(r.name, "quarry_fresh/fanout");
        assert_eq!(r.instructions, 9026);
    }

    #[test]
    fn reads_the_new_side_of_a_comparison() {
        let text = SUMMARY.replace(
            r#"{"Left": {"Int": 9026}}"#,
            r#"{"Both": [{"Int": 9100}, {"Int": 9026}]}"#,
        );
        assert_eq!(parse_iai_summary(&text).unwrap().instructions, 9100);
    }

    #[test]
    fn rejects_other_schema_versions() {
        let text = SUMMARY.replace(r#""version": "6""#, r#""version": "5""#);
        assert!(parse_iai_summary(&text).unwrap_err().contains("version 5"));
    }
}
