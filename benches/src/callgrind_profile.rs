//! Where the instructions of one iai-callgrind bench go: its callgrind
//! output file read through `callgrind_annotate`, instructions summed per
//! function (code inlined into a function counts for it, as callgrind
//! attributes it), for the profile tables of `docs/BENCHMARKS.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The callgrind output file of bench `function/id` of iai bench target
/// `bench` in `group`, as iai-callgrind 0.16 names it.
pub fn callgrind_out(
    target_dir: &Path,
    bench: &str,
    group: &str,
    function: &str,
    id: &str,
) -> PathBuf {
    target_dir
        .join("iai")
        .join("quarry-benches")
        .join(bench)
        .join(group)
        .join(format!("{function}.{id}"))
        .join(format!("callgrind.{function}.{id}.out"))
}

/// A profile: total instructions and instructions per function, most
/// first.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// All instructions of the run.
    pub total: u64,
    /// `(function, instructions)`, most first, then by name.
    pub functions: Vec<(String, u64)>,
}

impl Profile {
    /// The functions that take at least `min_pct` percent of the total, as
    /// `(function, percent)`.
    pub fn shares(&self, min_pct: f64) -> Vec<(&str, f64)> {
        self.functions
            .iter()
            .map(|(f, n)| (f.as_str(), 100.0 * *n as f64 / self.total.max(1) as f64))
            .filter(|&(_, pct)| pct >= min_pct)
            .collect()
    }
}

/// The profile of `out` as the Markdown the reports print: the total and a
/// table of the functions with at least 1% of it, or a line saying why
/// there is none.
pub fn markdown_table(out: &Path) -> String {
    use std::fmt::Write as _;
    match profile(out) {
        Ok(p) => {
            let mut md = format!(
                "Total: {} instructions.\n\n| function | share |\n|---|---:|\n",
                p.total
            );
            for (f, pct) in p.shares(1.0) {
                let _ = writeln!(md, "| `{f}` | {pct:.1}% |");
            }
            md
        }
        Err(e) => format!("(no profile: {e})\n"),
    }
}

/// Run `callgrind_annotate` on `out` (instructions only, every function).
///
/// # Errors
/// When the tool cannot be run or its output read.
pub fn profile(out: &Path) -> Result<Profile, String> {
    let output = Command::new("callgrind_annotate")
        .args([
            "--show=Ir",
            "--threshold=100",
            "--inclusive=no",
            "--auto=no",
        ])
        .arg(out)
        .output()
        .map_err(|e| format!("callgrind_annotate: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "callgrind_annotate {}: {}",
            out.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    parse_annotate(&String::from_utf8_lossy(&output.stdout))
}

/// The count at the start of a line of `callgrind_annotate` output
/// (`1,223 (30.88%) ...`), and the rest of the line.
fn count(line: &str) -> Option<(u64, &str)> {
    let line = line.trim_start();
    let end = line.find(' ')?;
    let n = line[..end].replace(',', "").parse().ok()?;
    Some((n, line[end..].trim_start()))
}

/// Parse `callgrind_annotate --show=Ir` output: the `PROGRAM TOTALS` line
/// and the `file:function` lines, summed per function.
///
/// # Errors
/// When the output has no total.
pub fn parse_annotate(text: &str) -> Result<Profile, String> {
    let mut total = None;
    let mut per: BTreeMap<String, u64> = BTreeMap::new();
    for line in text.lines() {
        let Some((n, rest)) = count(line) else {
            continue;
        };
        // Drop the `(30.88%)` column when there is one.
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(')').map_or(r, |(_, after)| after).trim(),
            None => rest.trim(),
        };
        if rest == "PROGRAM TOTALS" {
            total = Some(n);
            continue;
        }
        // `path/file.rs:function [binary]` or `???:function`.
        let rest = rest.split(" [").next().unwrap_or(rest);
        let function = match rest.split_once(".rs:") {
            Some((_, f)) => f,
            None => rest.split_once(':').map_or(rest, |(_, f)| f),
        };
        *per.entry(function.to_string()).or_default() += n;
    }
    let total = total.ok_or("no PROGRAM TOTALS line in callgrind_annotate's output")?;
    let mut functions: Vec<(String, u64)> = per.into_iter().collect();
    functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(Profile { total, functions })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Trimmed from callgrind_annotate 3.19 output.
    const ANNOTATE: &str = "\
--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
3,960 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir             file:function
--------------------------------------------------------------------------------
1,223 (30.88%)  crates/quarry-nostr/src/hex.rs:quarry_nostr::decode::Dec::hex
  387 ( 9.77%)  crates/quarry-nostr/src/decode.rs:quarry_nostr::decode::Dec::event [/t/nostr_iai-1]
  347 ( 8.76%)  crates/quarry-nostr/src/reader.rs:quarry_nostr::reader::find_special
  273 ( 6.89%)  /rustc/5980/library/core/src/str/validations.rs:core::str::converts::from_utf8
  170 ( 4.29%)  /rustc/5980/library/core/src/slice/index.rs:quarry_nostr::decode::Dec::event
   12 ( 0.30%)  ???:memcpy [/usr/lib/libc.so.6]
";

    #[test]
    fn sums_each_function_over_its_files() {
        let p = parse_annotate(ANNOTATE).unwrap();
        assert_eq!(p.total, 3960);
        assert_eq!(
            p.functions,
            vec![
                ("quarry_nostr::decode::Dec::hex".to_string(), 1223),
                ("quarry_nostr::decode::Dec::event".to_string(), 557),
                ("quarry_nostr::reader::find_special".to_string(), 347),
                ("core::str::converts::from_utf8".to_string(), 273),
                ("memcpy".to_string(), 12),
            ]
        );
        let shares = p.shares(5.0);
        assert_eq!(shares.len(), 4);
        assert!((shares[1].1 - 14.07).abs() < 0.01, "{shares:?}");
    }

    #[test]
    fn output_without_a_total_is_an_error() {
        assert!(parse_annotate("1,223 (30.88%)  a.rs:f\n").is_err());
    }
}
