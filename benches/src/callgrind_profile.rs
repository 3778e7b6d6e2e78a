//! Where the instructions of one iai-callgrind bench go: its callgrind
//! output file read through `callgrind_annotate`, instructions summed per
//! source function of quarry's own code (so an inlined function still
//! counts for itself) and per library for the rest, for the profile tables
//! of `docs/BENCHMARKS.md`.

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

/// The count at the start of a line of `callgrind_annotate` output
/// (`1,223 (30.88%) ...`), and the rest of the line.
fn count(line: &str) -> Option<(u64, &str)> {
    let line = line.trim_start();
    let end = line.find(' ')?;
    let n = line[..end].replace(',', "").parse().ok()?;
    Some((n, line[end..].trim_start()))
}

/// What a [`source_markdown_table`] shows, for the text above it.
pub const SOURCE_TABLE_NOTE: &str = "each line of quarry's own source counts for the `fn` \
    whose body holds it, so a function the compiler inlined into another still counts for \
    itself; code of the standard library inlined into quarry's counts for its module \
    (`core::num`: checked and saturating arithmetic; `core::slice`: bounds-checked indexing; \
    `core::arch`: SIMD intrinsics), that of other crates for the crate (bumpalo's \
    allocation), and code without source lines for its symbol (`memcpy`). Groups with at \
    least 1% of the total.";

/// Where the instructions of `out` were written in the source: a line of
/// the project's files under `dirs` (relative to `root`) counts for the
/// `fn` whose body holds it, so a function inlined into another counts for
/// itself (`quarry-wa/decode.rs: read_jid`); code from the standard library counts
/// for its module (`core::num (inlined)`), code of other crates for the
/// crate (`bumpalo (inlined)`), and code without source lines for its
/// function (`memcpy`). The total is the run's.
///
/// # Errors
/// When `callgrind_annotate` cannot be run or its output read.
pub fn source_profile(out: &Path, root: &Path, dirs: &[&str]) -> Result<Profile, String> {
    let mut files = Vec::new();
    for dir in dirs {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".rs") {
                files.push(format!("{dir}/{name}"));
            }
        }
    }
    files.sort();
    let output = Command::new("callgrind_annotate")
        .current_dir(root)
        .args([
            "--show=Ir",
            "--threshold=100",
            "--inclusive=no",
            "--auto=no",
            "--context=0",
        ])
        .arg(out)
        .args(&files)
        .output()
        .map_err(|e| format!("callgrind_annotate: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "callgrind_annotate {}: {}",
            out.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let sources: BTreeMap<String, String> = files
        .iter()
        .filter_map(|f| Some((f.clone(), std::fs::read_to_string(root.join(f)).ok()?)))
        .collect();
    parse_source_annotate(&String::from_utf8_lossy(&output.stdout), &sources)
}

/// For each line of `source` (0-based), the name of the innermost `fn` or
/// `macro_rules!` item whose text holds it, found by counting braces (a
/// line-based reading, enough for rustfmt-formatted code: braces in
/// strings or char literals on a line that also opens an item can mislead
/// it).
fn enclosing_items(source: &str) -> Vec<Option<&str>> {
    /// An item being read: its name, the brace depth before it, and
    /// whether its body has opened.
    struct Open<'s> {
        name: &'s str,
        depth: usize,
        opened: bool,
    }
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut depth = 0usize;
    source
        .lines()
        .map(|line| {
            let code = line.split("//").next().unwrap_or_default();
            for keyword in ["fn ", "macro_rules! "] {
                let at = code
                    .find(keyword)
                    .filter(|&i| i == 0 || matches!(code.as_bytes()[i - 1], b' ' | b'(' | b'<'));
                if let Some(at) = at {
                    let rest = &code[at + keyword.len()..];
                    let end = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if end > 0 {
                        stack.push(Open {
                            name: &rest[..end],
                            depth,
                            opened: false,
                        });
                    }
                }
            }
            let item = stack.last().map(|open| open.name);
            let code = code.replace("'{'", "").replace("'}'", "");
            for c in code.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if let Some(open) = stack.last_mut()
                    && depth > open.depth
                {
                    open.opened = true;
                }
                while stack.last().is_some_and(|o| o.opened && depth <= o.depth) {
                    stack.pop();
                }
            }
            // A declaration without a body (`fn f();` in a trait).
            if stack
                .last()
                .is_some_and(|o| !o.opened && code.trim_end().ends_with(';'))
            {
                stack.pop();
            }
            item
        })
        .collect()
}

/// The group a `file:function` row of code outside the annotated files
/// counts for: the crate of a standard-library or registry path, else the
/// function.
fn library_group(file: &str, function: &str) -> String {
    if let Some((_, rest)) = file.split_once("/library/") {
        if rest.contains("/stdarch/") {
            return "core::arch (inlined)".to_string();
        }
        // `core/src/num/uint_macros` -> `core::num`; `core/src/hint` -> `core::hint`.
        let mut parts = rest.split('/');
        let krate = parts.next().unwrap_or(rest);
        let module = parts.nth(1).unwrap_or_default();
        return format!("{krate}::{module} (inlined)");
    }
    if let Some((_, rest)) = file.split_once("/registry/src/") {
        let dir = rest.split('/').nth(1).unwrap_or(rest);
        let krate = dir.rsplit_once('-').map_or(dir, |(name, _)| name);
        return format!("{krate} (inlined)");
    }
    function.to_string()
}

/// Parse `callgrind_annotate --context=0` output with user-annotated
/// `sources` (path to text) into a [`source_profile`].
///
/// # Errors
/// When the output has no total.
pub fn parse_source_annotate(
    text: &str,
    sources: &BTreeMap<String, String>,
) -> Result<Profile, String> {
    let mut total = None;
    let mut per: BTreeMap<String, u64> = BTreeMap::new();
    // `crates/quarry-wa/src/decode.rs` -> `quarry-wa/decode.rs`.
    let short = |file: &str| {
        let mut parts = file.rsplit('/').filter(|p| *p != "src");
        let name = parts.next().unwrap_or(file);
        parts
            .next()
            .map_or_else(|| name.to_string(), |dir| format!("{dir}/{name}"))
    };
    let items: BTreeMap<&str, Vec<Option<&str>>> = sources
        .iter()
        .map(|(f, text)| (f.as_str(), enclosing_items(text)))
        .collect();
    // `None` until the user-annotated part, then the file being read.
    let mut annotated: Option<&str> = None;
    let mut line = 0usize;
    for row in text.lines() {
        if let Some(file) = row.strip_prefix("-- User-annotated source: ") {
            annotated = items.get_key_value(file.trim()).map(|(k, _)| *k);
            continue;
        }
        if let Some(rest) = row.strip_prefix("-- line ") {
            line = rest
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            continue;
        }
        let Some((n, rest)) = count(row) else {
            if annotated.is_some() && row.trim_start().starts_with('.') {
                line += 1;
            }
            continue;
        };
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(')').map_or(r, |(_, after)| after).trim(),
            None => rest.trim(),
        };
        if rest == "PROGRAM TOTALS" {
            total = Some(n);
            continue;
        }
        // A call line (`=> file:function (800x)`) repeats its callee's
        // inclusive cost.
        if (rest.starts_with("=> ") && rest.ends_with("x)")) || rest == "events annotated" {
            continue;
        }
        match annotated {
            Some(file) => {
                if rest.starts_with("<counts for unidentified lines in ") {
                    *per.entry(format!("{} (no line)", short(file))).or_default() += n;
                    continue;
                }
                let item = items
                    .get(file)
                    .and_then(|lines| lines.get(line.saturating_sub(1)).copied().flatten())
                    .unwrap_or("(outside any fn)");
                *per.entry(format!("{}: {item}", short(file))).or_default() += n;
                line += 1;
            }
            None => {
                let rest = rest.split(" [").next().unwrap_or(rest);
                let (file, function) = match rest.split_once(".rs:") {
                    Some((f, func)) => (f, func),
                    None => rest.split_once(':').unwrap_or(("", rest)),
                };
                // Rows of annotated files are counted line by line below.
                if !items.contains_key(format!("{file}.rs").as_str()) {
                    *per.entry(library_group(file, function)).or_default() += n;
                }
            }
        }
    }
    let total = total.ok_or("no PROGRAM TOTALS line in callgrind_annotate's output")?;
    let mut functions: Vec<(String, u64)> = per.into_iter().collect();
    functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(Profile { total, functions })
}

/// [`source_profile`] as the Markdown the reports print: the total and
/// the groups with at least 1% of it, or a line saying why there is none.
pub fn source_markdown_table(out: &Path, root: &Path, dirs: &[&str]) -> String {
    use std::fmt::Write as _;
    match source_profile(out, root, dirs) {
        Ok(p) => {
            let mut md = format!(
                "Total: {} instructions.\n\n| where (source) | share |\n|---|---:|\n",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A source file of two functions, the second with a closure and a
    /// nested macro.
    const SOURCE: &str = "\
use std::fmt;
// fn not_this() in a comment
pub(crate) fn first(a: u8) -> u8 {
    a + 1
}

fn second() {
    let f = |x: u8| x;
    macro_rules! twice {
        () => {};
    }
    f(1);
}
const AFTER: u8 = 0;
";

    /// Trimmed from callgrind_annotate 3.19 output with `demo/src/lib.rs`
    /// annotated, `--context=0`.
    const ANNOTATE: &str = "\
--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
1,000 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                file:function
--------------------------------------------------------------------------------
  600 (60.00%)  demo/src/lib.rs:demo::second [/t/bench-1]
  150 (15.00%)  /rustc/5980/library/core/src/num/uint_macros.rs:demo::second
   70 ( 7.00%)  /rustc/5980/library/core/src/../../stdarch/crates/core_arch/src/x86/sse2.rs:demo::first
   60 ( 6.00%)  /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/bumpalo-3.20.4/src/lib.rs:demo::first
   40 ( 4.00%)  benches/src/wa.rs:bench::decode [/t/bench-1]
   80 ( 8.00%)  ???:memcpy [/usr/lib/libc.so.6]

--------------------------------------------------------------------------------
-- User-annotated source: demo/src/lib.rs
--------------------------------------------------------------------------------
Ir

-- line 4 ----------------------------------------
  100 (10.00%)      a + 1
-- line 4 ----------------------------------------
-- line 8 ----------------------------------------
  300 (30.00%)      let f = |x: u8| x;
  500 (50.00%)  => demo/src/lib.rs:demo::first (10x)
-- line 8 ----------------------------------------
-- line 10 ----------------------------------------
  150 (15.00%)          () => {};
-- line 10 ----------------------------------------
-- line 12 ----------------------------------------
   50 ( 5.00%)      f(1);
-- line 12 ----------------------------------------

   50 ( 5.00%)  <counts for unidentified lines in demo/src/lib.rs>

--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
  600 (60.00%)  events annotated
";

    #[test]
    fn each_line_knows_its_function() {
        let items = enclosing_items(SOURCE);
        assert_eq!(items[0], None);
        assert_eq!(items[1], None, "a commented-out fn is no item");
        assert_eq!(items[3], Some("first"));
        assert_eq!(items[7], Some("second"), "a closure stays in its fn");
        assert_eq!(items[10], Some("twice"));
        assert_eq!(items[11], Some("second"), "after the macro, its fn again");
        assert_eq!(items[13], None, "after the last fn");
    }

    #[test]
    fn lines_count_for_their_function_and_libraries_for_their_module() {
        let sources = BTreeMap::from([("demo/src/lib.rs".to_string(), SOURCE.to_string())]);
        let p = parse_source_annotate(ANNOTATE, &sources).unwrap();
        assert_eq!(p.total, 1000);
        assert_eq!(
            p.functions,
            vec![
                ("demo/lib.rs: second".to_string(), 350),
                ("core::num (inlined)".to_string(), 150),
                ("demo/lib.rs: twice".to_string(), 150),
                ("demo/lib.rs: first".to_string(), 100),
                ("memcpy".to_string(), 80),
                ("core::arch (inlined)".to_string(), 70),
                ("bumpalo (inlined)".to_string(), 60),
                ("demo/lib.rs (no line)".to_string(), 50),
                ("bench::decode".to_string(), 40),
            ]
        );
        let shares = p.shares(10.0);
        assert_eq!(shares.len(), 4);
        assert!((shares[0].1 - 35.0).abs() < 1e-9, "{shares:?}");
    }

    #[test]
    fn output_without_a_total_is_an_error() {
        assert!(parse_source_annotate("1,223 (30.88%)  a.rs:f\n", &BTreeMap::new()).is_err());
    }
}
