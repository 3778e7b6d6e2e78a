//! Runs every benchmark and writes `docs/BENCHMARKS.md`: one section per
//! format, quarry against its peer, ratios first, under one machine and
//! toolchain table, from one run.
//!
//! ```text
//! cargo run -p quarry-benches --profile bench --bin bench_report [-- --no-run]
//! ```
//!
//! * WhatsApp binary nodes: measured here (criterion, iai-callgrind, and a
//!   counting allocator installed in this binary).
//! * Nostr and protobuf: `nostr_report` and `proto_report`, each with its
//!   own counting allocator, run their benches and print their section.
//! * Protobuf binary size: `binsize_report`'s builds of `benches/binsize/`.
//! * The example server's load test is a separate command and run; its
//!   output file, `docs/BENCHMARKS-server.md`, is included as it is, saying
//!   so.
//!
//! `--no-run` rebuilds the file from the outputs of the last run of the
//! benches instead (allocation counts and binary sizes are measured anew:
//! they are deterministic, and cheap once built). `--out PATH` writes there
//! instead of `docs/BENCHMARKS.md`. `--only wa|nostr|protobuf|size` measures
//! one section and replaces only it in the existing file, under a line that
//! names the section's own commit and date (the machine table stays that of
//! the last full run).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use quarry_benches::alloc_count::{self, AllocRow, CountingAlloc};
use quarry_benches::report::{self, CRITERION_ARGS, mark, ratio_text};
use quarry_benches::{binsize, callgrind_profile, outputs, wa};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const DECODERS: [&str; 3] = ["peer", "quarry_fresh", "quarry_reused"];
const ENCODERS: [&str; 5] = [
    "peer_marshal",
    "peer_marshal_exact",
    "peer_marshal_ref",
    "quarry_encode",
    "quarry_encode_view",
];
/// The example server's load test, which writes `docs/BENCHMARKS-server.md`.
const SERVER_COMMAND: &str = "cargo bench -p quarry-server --bench load";

/// Target ratios quarry/peer per case: instructions with a reused arena,
/// with a fresh one, then time with a reused arena, with a fresh one.
fn target(case: &str) -> [Option<f64>; 4] {
    match case {
        "fanout" | "large" | "usync_like" | "many_children" => {
            [Some(0.3), Some(0.3), Some(0.4), Some(0.4)]
        }
        "ack" | "small" => [Some(0.6); 4],
        wa::CORPUS => [Some(0.35), Some(0.6), None, None],
        _ => [None; 4],
    }
}

/// The target column's text: `≤ Ir / ≤ time` when reused and fresh share
/// them, the instruction targets per arena otherwise.
fn target_text(case: &str) -> String {
    let le = |t: Option<f64>| t.map_or_else(|| "-".to_owned(), |t| format!("≤ {t}"));
    match target(case) {
        [None, None, None, None] => "-".to_owned(),
        [ir, ir_fresh, time, time_fresh] if ir == ir_fresh && time == time_fresh => {
            format!("{} / {}", le(ir), le(time))
        }
        [ir, ir_fresh, None, None] => {
            format!("Ir {} reused, {} fresh", le(ir), le(ir_fresh))
        }
        [ir, ir_fresh, time, time_fresh] => format!(
            "Ir {} / {}, time {} / {}",
            le(ir),
            le(ir_fresh),
            le(time),
            le(time_fresh)
        ),
    }
}

/// The decode rows: the cases, then the small-stanza corpus (totals).
fn decode_rows() -> impl Iterator<Item = &'static str> {
    wa::CASE_NAMES.into_iter().chain([wa::CORPUS])
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_report: {e}");
        std::process::exit(2);
    }
}

struct Measured {
    ns: BTreeMap<(String, String), f64>,
    ir: BTreeMap<(String, String), u64>,
    alloc: Vec<AllocRow>,
}

/// The sections `--only` can measure alone: its argument and the start of
/// the section's heading in the file.
const SECTIONS: [(&str, &str); 4] = [
    ("wa", "## WhatsApp binary nodes: "),
    ("nostr", "## Nostr: "),
    ("protobuf", "## Protobuf: quarry-proto "),
    ("size", "## Protobuf: binary size"),
];

fn run() -> Result<(), String> {
    let no_run = std::env::args().any(|a| a == "--no-run");
    let (root, target_dir) = outputs::workspace_dirs()?;
    let out = out_arg().unwrap_or_else(|| root.join("docs").join("BENCHMARKS.md"));
    let section_args: &[&str] = if no_run { &["--no-run"] } else { &[] };
    if let Some(only) = only_arg()? {
        let section = match only {
            "wa" => wa_section(&root, &target_dir, no_run)?,
            "nostr" => report::run_section("nostr_report", section_args)?,
            "protobuf" => report::run_section("proto_report", section_args)?,
            _ => binsize::run(&root, &target_dir, true)?,
        };
        let old = std::fs::read_to_string(&out)
            .map_err(|e| format!("--only needs an existing {}: {e}", out.display()))?;
        let text = splice_section(&old, only, &section, &root, no_run)?;
        std::fs::write(&out, text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        println!(
            "bench_report: replaced the {only} section of {}",
            out.display()
        );
        return Ok(());
    }
    let wa_section = wa_section(&root, &target_dir, no_run)?;
    let nostr = report::run_section("nostr_report", section_args)?;
    let proto = report::run_section("proto_report", section_args)?;
    let size = binsize::run(&root, &target_dir, true)?;
    let js = js_section(&out);
    let sections = [wa_section, js, nostr, proto, size, server_section(&root)];
    let text = document(&root, &sections, no_run);
    std::fs::write(&out, text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("bench_report: wrote {}", out.display());
    Ok(())
}

/// `--only SECTION`: the one section to measure, if asked.
fn only_arg() -> Result<Option<&'static str>, String> {
    let mut args = std::env::args().skip_while(|a| a != "--only");
    if args.next().is_none() {
        return Ok(None);
    }
    let name = args.next().unwrap_or_default();
    SECTIONS
        .iter()
        .find(|(key, _)| *key == name)
        .map(|(key, _)| Some(*key))
        .ok_or_else(|| {
            let keys: Vec<_> = SECTIONS.iter().map(|(key, _)| *key).collect();
            format!("--only takes one of {}, not {name:?}", keys.join(", "))
        })
}

/// `doc` with the section `only` replaced by `section`, which gets a first
/// line naming its own commit and date, since the machine table above it
/// belongs to the last full run.
fn splice_section(
    doc: &str,
    only: &str,
    section: &str,
    root: &Path,
    no_run: bool,
) -> Result<String, String> {
    let (_, heading) = SECTIONS
        .iter()
        .find(|(key, _)| *key == only)
        .ok_or_else(|| format!("no section {only}"))?;
    let start = doc
        .find(&format!("\n{heading}"))
        .map(|i| i + 1)
        .ok_or_else(|| format!("the file has no section starting {heading:?}"))?;
    let end = doc[start + 1..]
        .find("\n## ")
        .map_or(doc.len(), |i| start + 1 + i + 1);
    let (title, body) = section.trim_end().split_once('\n').unwrap_or((section, ""));
    let how = if no_run {
        format!(
            "rebuilt by `bench_report -- --only {only} --no-run` from the benches' last outputs"
        )
    } else {
        format!("measured by `bench_report -- --only {only}`")
    };
    let stamp = format!(
        "*This section alone was {how} at commit {}, {} UTC; the machine and toolchain are those \
         of the table above.*",
        report::commit(root),
        outputs::first_line("date", &["-u", "+%Y-%m-%d %H:%M"])
    );
    let spliced = format!(
        "{}{title}\n\n{stamp}\n{body}\n\n{}",
        &doc[..start],
        &doc[end..]
    );
    // The intro and the closing commands are this binary's text, not
    // measurements: renew them so they describe the file as it now is.
    let machine = spliced
        .find(MACHINE_HEADING)
        .ok_or("the file has no machine table")?;
    let reproduce_at = spliced
        .rfind("\n## How to reproduce")
        .unwrap_or(spliced.len());
    let no_run = spliced[..machine].contains(NO_RUN_NOTE);
    Ok(format!(
        "{}{}\n{}",
        intro(no_run),
        spliced[machine..reproduce_at].trim_end(),
        reproduce()
    ))
}

/// The WhatsApp section: runs its benches (unless `no_run`), measures its
/// allocations and renders it with the corpus profile.
fn wa_section(root: &Path, target_dir: &Path, no_run: bool) -> Result<String, String> {
    let since = SystemTime::now();
    if !no_run {
        report::run_bench("wa_criterion", &CRITERION_ARGS)?;
        outputs::clear_iai_outputs(target_dir, "quarry-benches", "wa_iai")?;
        report::run_bench("wa_iai", &["--save-summary=json"])?;
    }
    let mut alloc = alloc_count::measure_wa();
    alloc.extend(alloc_count::measure_wa_build());

    let mut ns = BTreeMap::new();
    for case in decode_rows() {
        for (group, ops) in [("wa_decode", &DECODERS[..]), ("wa_encode", &ENCODERS[..])] {
            if case == wa::CORPUS && group == "wa_encode" {
                continue;
            }
            for &op in ops {
                let group = format!("{group}_{case}");
                let median = outputs::criterion_median_ns(target_dir, &group, op)?;
                ns.insert((case.to_owned(), op.to_owned()), median);
            }
        }
    }
    let since_iai = if no_run {
        SystemTime::UNIX_EPOCH
    } else {
        since
    };
    let mut ir = BTreeMap::new();
    for (name, count) in
        outputs::read_iai_summaries(target_dir, "quarry-benches", "wa_iai", since_iai)?
    {
        if let Some((decoder, case)) = name.split_once('/') {
            ir.insert((case.to_owned(), decoder.to_owned()), count);
        }
    }
    let m = Measured { ns, ir, alloc };
    let mut section = render_wa(&m)?;
    profile_table(&mut section, root, target_dir);
    Ok(section)
}

/// `--out PATH`: where to write instead of `docs/BENCHMARKS.md` (to look at
/// a rendering without touching the committed file).
fn out_arg() -> Option<PathBuf> {
    let mut args = std::env::args().skip_while(|a| a != "--out");
    args.next()?;
    args.next().map(PathBuf::from)
}

/// The whole file: title, machine and toolchain, the sections, and how to
/// reproduce.
fn document(root: &Path, sections: &[String], no_run: bool) -> String {
    let mut w = intro(no_run);
    let _ = writeln!(w, "{MACHINE_HEADING}\n");
    w.push_str(&report::machine_table(
        root,
        &[
            "wacore-binary",
            "nostr",
            "prost",
            "waproto",
            "buffa",
            "criterion",
            "iai-callgrind",
        ],
    ));
    for section in sections {
        w.push('\n');
        w.push_str(section.trim_end());
        w.push('\n');
    }
    w.push_str(&reproduce());
    w
}

/// The heading of the machine and toolchain table, which ends the intro.
const MACHINE_HEADING: &str = "## Machine and toolchain";
/// What the intro says of a file written with `--no-run`.
const NO_RUN_NOTE: &str = "`--no-run`: times and instruction counts";

/// The title and what the file is, up to the machine table.
fn intro(no_run: bool) -> String {
    let mut w = String::new();
    let _ = writeln!(w, "# Benchmarks\n");
    let _ = writeln!(
        w,
        "Generated by `cargo run -p quarry-benches --profile bench --bin bench_report{}` \
         (do not edit by hand: rerun it). Every number below comes from that one run, except the \
         server load test, which is its own command and run (said where it is included), and a \
         section measured alone since (`-- --only SECTION`), which names its commit and date at \
         its top.\n",
        if no_run { " -- --no-run" } else { "" }
    );
    if no_run {
        let _ = writeln!(
            w,
            "{NO_RUN_NOTE} are those of the benches' last run in this \
             target directory; allocation counts and binary sizes were measured by this command.\n"
        );
    }
    let _ = writeln!(
        w,
        "Sections: [WhatsApp binary nodes](#whatsapp-binary-nodes-quarry-wa-vs-wacore-binary), \
         [in JavaScript](#whatsapp-binary-nodes-in-javascript-quarry-wa-js-vs-baileys-and-whatsapp-rust-bridge), \
         [Nostr](#nostr-quarry-nostr-vs-rust-nostr), \
         [protobuf](#protobuf-quarry-proto-vs-prost-and-buffa), \
         [protobuf binary size](#protobuf-binary-size-quarry-vs-prost-and-buffa), \
         [server load test](#server-load-test), [how to reproduce](#how-to-reproduce).\n"
    );
    w
}

/// The closing section: the commands that produce this file.
fn reproduce() -> String {
    let mut w = String::new();
    let _ = writeln!(
        w,
        "\n## How to reproduce\n\n\
         ```sh\n\
         # once: the callgrind runner, matching the iai-callgrind library version\n\
         cargo install --locked iai-callgrind-runner --version 0.16.1\n\
         # valgrind must be installed (apt-get install valgrind)\n\n\
         # everything above but the server load test, then this file (20-25 min on 2 cores)\n\
         cargo run -p quarry-benches --profile bench --bin bench_report\n\
         # the same file from the benches' last outputs (no criterion or callgrind run)\n\
         cargo run -p quarry-benches --profile bench --bin bench_report -- --no-run\n\
         # one section measured again, the rest of the file kept (wa, nostr, protobuf, size)\n\
         cargo run -p quarry-benches --profile bench --bin bench_report -- --only wa\n\n\
         # or one part at a time (the report binaries print their section)\n\
         cargo bench -p quarry-benches --bench wa_criterion\n\
         cargo bench -p quarry-benches --bench wa_iai\n\
         cargo run -p quarry-benches --release --bin alloc_report\n\
         cargo run -p quarry-benches --profile bench --bin nostr_report\n\
         cargo run -p quarry-benches --profile bench --features buffa --bin proto_report\n\
         cargo run -p quarry-benches --release --features buffa --bin proto_alloc\n\
         cargo run -p quarry-benches --profile bench --bin binsize_report -- --symbols\n\n\
         # the server load test (writes docs/BENCHMARKS-server.md; not run by bench_report)\n\
         {SERVER_COMMAND}\n\
         ```\n\n\
         Wall times vary with the machine and its load (this one is a shared 2-core VM); ratios \
         measured in the same run are what to compare. Instruction counts are deterministic for \
         a given binary, and gate CI: see [ci.md](ci.md).\n"
    );
    w
}

/// Opening marker of the JavaScript package's section (its prefix: the
/// marker goes on to name its generator).
const JS_START: &str = "<!-- js-bench:start";
/// Closing marker of the JavaScript package's section.
const JS_END: &str = "<!-- js-bench:end -->";

/// The JavaScript package's section, carried over from the report being
/// replaced (`out`). Its figures come from Node (`npm run bench -- --write`
/// in `crates/quarry-wa-js`), a run of its own that rewrites only what
/// lies between the two markers; this report keeps that text and the
/// markers, so either command can run first.
fn js_section(out: &Path) -> String {
    let mut w = String::from(
        "## WhatsApp binary nodes in JavaScript: quarry-wa-js vs Baileys and whatsapp-rust-bridge\n\n",
    );
    let old = std::fs::read_to_string(out).unwrap_or_default();
    let kept = old.find(JS_START).and_then(|start| {
        let end = start + old[start..].find(JS_END)? + JS_END.len();
        Some(&old[start..end])
    });
    match kept {
        Some(block) => w.push_str(block),
        None => {
            let _ = write!(
                w,
                "{JS_START} (generated by `npm run bench -- --write`, crates/quarry-wa-js) -->\n\
                 Not measured: run `npm run build && npm run bench -- --write ../../docs/BENCHMARKS.md` \
                 in `crates/quarry-wa-js` (Node 20 and the npm registry).\n\
                 {JS_END}"
            );
        }
    }
    w.push('\n');
    w
}

/// The server load test's own output, `docs/BENCHMARKS-server.md`, under
/// a heading that says where it comes from. Its title line is dropped and
/// its other headings moved one level down; the rest is as written.
fn server_section(root: &Path) -> String {
    let rel = "docs/BENCHMARKS-server.md";
    let mut w = String::from("## Server load test\n\n");
    let Ok(text) = std::fs::read_to_string(root.join(rel)) else {
        let _ = writeln!(
            w,
            "Not measured: `{rel}` does not exist. It is written by `{SERVER_COMMAND}`, a separate \
             command and run that `bench_report` does not start."
        );
        return w;
    };
    let (head, dirty) = outputs::git_commit(root);
    let git = |args: &[&str]| outputs::git(root, args);
    let last = git(&["log", "-1", "--format=%h, %cs", "--", rel]).filter(|s| !s.is_empty());
    let changed = git(&["status", "--porcelain", "--", rel]).is_some_and(|s| !s.is_empty());
    let provenance = match (last, changed) {
        (Some(c), false) => format!("as committed in {c}"),
        (Some(c), true) => format!("last committed in {c}, with uncommitted changes"),
        (None, _) => "not committed".to_owned(),
    };
    let _ = writeln!(
        w,
        "**Not measured by this run.** What follows is `{rel}` ({provenance}; this report is at \
         {head}{}), written by its own command and run, `{SERVER_COMMAND}`, which `bench_report` \
         does not start (a load test against a live server takes its own machine time and \
         settings). Included as written, but for its title line and its headings, moved one \
         level down.\n",
        if dirty {
            " with uncommitted changes"
        } else {
            ""
        }
    );
    let mut lines = text.lines().peekable();
    if lines.peek().is_some_and(|l| l.starts_with("# ")) {
        lines.next();
    }
    while lines.peek().is_some_and(|l| l.trim().is_empty()) {
        lines.next();
    }
    let mut in_fence = false;
    for line in lines {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && line.starts_with('#') {
            w.push('#');
        }
        w.push_str(line);
        w.push('\n');
    }
    w
}

/// Where quarry's instructions go over the small-stanza corpus: the
/// callgrind run of `quarry_reused/corpus`, per function.
fn profile_table(md: &mut String, root: &Path, target_dir: &Path) {
    let out = callgrind_profile::callgrind_out(
        target_dir,
        "wa_iai",
        "wa_decode",
        "quarry_reused",
        wa::CORPUS,
    );
    let _ = writeln!(
        md,
        "\n### Where the instructions go: the corpus\n\n\
         One callgrind run of `quarry_reused/corpus` (all {} stanzas, reused arena), \
         instructions by where they were written: {}\n",
        quarry_benches::wa_corpus::STANZAS,
        callgrind_profile::SOURCE_TABLE_NOTE
    );
    md.push_str(&callgrind_profile::source_markdown_table(
        &out,
        root,
        &["crates/quarry-wa/src", "crates/quarry-core/src"],
    ));
}

/// The WhatsApp section.
fn render_wa(m: &Measured) -> Result<String, String> {
    let get =
        |map: &BTreeMap<(String, String), f64>, case: &str, dec: &str| -> Result<f64, String> {
            map.get(&(case.to_owned(), dec.to_owned()))
                .copied()
                .ok_or_else(|| format!("no measurement for {dec} on {case}"))
        };
    let ir: BTreeMap<(String, String), f64> =
        m.ir.iter().map(|(k, &v)| (k.clone(), v as f64)).collect();
    let alloc = |case: &str, dec: &str| -> Result<&AllocRow, String> {
        m.alloc
            .iter()
            .find(|r| r.case == case && r.op == dec)
            .ok_or_else(|| format!("no allocation row for {dec} on {case}"))
    };

    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "## WhatsApp binary nodes: quarry-wa vs wacore-binary\n\n\
         Inputs: the shapes of wacore-binary's own `binary_benchmark`, built with its `NodeBuilder` \
         and marshalled with its `marshal` (flags byte stripped), so both decoders read the same \
         bytes; and **corpus**, {} small stanzas of the kinds a client receives most (receipts, acks, \
         1:1 and group messages with their `enc`, notifications, iq results, presence, chatstate, \
         usync results; `benches/src/wa_corpus.rs` gives the shapes and their shares), built the \
         same way and measured in total: every figure of its row is for all {} stanzas, decoded one \
         after the other. Each measurement is one decode plus drop of the result:\n\n\
         * **peer**: `wacore_binary::marshal::unmarshal_ref` (wacore-binary, `default-features = false`), then drop of the `NodeRef` tree;\n\
         * **fresh**: `quarry_wa::decode` into `quarry_wa::arena_for(bytes)` (a new arena of the decoder's estimate, `quarry_wa::estimate_arena_bytes`, its one allocation), then drop of the arena;\n\
         * **reused**: `Arena::reset` and `quarry_wa::decode` into an arena that decoded the same input before.\n\n\
         Time is criterion's median (warm-up 1 s, measurement 3 s), instructions are callgrind's `Ir` \
         for one call (iai-callgrind, after one warm-up decode in setup), allocations and bytes come \
         from a counting global allocator. \"Held\" is the heap memory the result keeps alive: for the \
         peer the live bytes after decode, for quarry the arena's chunk (sized up front by \
         `quarry_wa::estimate_arena_bytes`); \"owned held\" is what a `quarry_wa::OwnedStanza::decode` \
         keeps beyond its input (its boxed arena, shrunk to what the decode wrote, and the stanza itself); \
         \"arena used\" is what the decode actually wrote into the arena.\n",
        quarry_benches::wa_corpus::STANZAS,
        quarry_benches::wa_corpus::STANZAS,
    );

    let _ = writeln!(w, "### Decode: ratios quarry / peer (lower is better)\n");
    let _ = writeln!(
        w,
        "Targets: instructions ≤ 0.3 and time ≤ 0.4 on fanout, large, usync_like and \
         many_children; both ≤ 0.6 on ack and small; on the corpus, instructions ≤ 0.35 with a \
         reused arena and ≤ 0.6 with a fresh one; none on jid_heavy. ✓ met, ✗ missed. \
         Each cell: reused arena / fresh arena. The corpus has no allocation figures here (its \
         stanzas are measured one by one in the rows above).\n"
    );
    let _ = writeln!(
        w,
        "| case | bytes | target Ir / time | instructions | time | allocations | bytes held |\n\
         |---|---:|---|---|---|---|---|"
    );
    let mut misses = Vec::new();
    for case in decode_rows() {
        let t = target(case);
        let mut cells = Vec::new();
        for (metric, map, limits) in [
            ("instructions", &ir, [t[0], t[1]]),
            ("time", &m.ns, [t[2], t[3]]),
        ] {
            let peer = get(map, case, "peer")?;
            let mut pair = Vec::new();
            for (dec, limit) in ["quarry_reused", "quarry_fresh"].into_iter().zip(limits) {
                let ratio = get(map, case, dec)? / peer;
                if let Some(l) = limit
                    && ratio > l
                {
                    misses.push(format!(
                        "{case}, {metric}, {} arena: {ratio:.2} (target ≤ {l})",
                        dec.trim_start_matches("quarry_")
                    ));
                }
                pair.push(mark(ratio, limit));
            }
            cells.push(pair.join(" / "));
        }
        let bytes = if case == wa::CORPUS {
            cells.push("-".to_owned());
            cells.push("-".to_owned());
            wa::corpus().iter().map(|b| b.len()).sum::<usize>()
        } else {
            let peer = alloc(case, "peer")?;
            let (reused, fresh) = (alloc(case, "quarry_reused")?, alloc(case, "quarry_fresh")?);
            cells.push(format!(
                "{} / {}",
                ratio_text(reused.allocations, peer.allocations),
                ratio_text(fresh.allocations, peer.allocations)
            ));
            cells.push(format!(
                "{} / {}",
                ratio_text(reused.held, peer.held),
                ratio_text(fresh.held, peer.held)
            ));
            wa::input(case).len()
        };
        let _ = writeln!(
            w,
            "| {case} | {bytes} | {} | {} |",
            target_text(case),
            cells.join(" | ")
        );
    }
    report::write_misses(w, &misses);

    let _ = writeln!(w, "\n### Decode: instructions and time\n");
    let _ = writeln!(
        w,
        "| case | peer Ir | fresh Ir | reused Ir | peer ns | fresh ns | reused ns |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    for case in decode_rows() {
        let _ = writeln!(
            w,
            "| {case} | {} | {} | {} | {:.0} | {:.0} | {:.0} |",
            get(&ir, case, "peer")?,
            get(&ir, case, "quarry_fresh")?,
            get(&ir, case, "quarry_reused")?,
            get(&m.ns, case, "peer")?,
            get(&m.ns, case, "quarry_fresh")?,
            get(&m.ns, case, "quarry_reused")?,
        );
    }

    let _ = writeln!(w, "\n### Decode: allocations and memory\n");
    let _ = writeln!(
        w,
        "| case | peer allocs | peer bytes requested | peer held | fresh allocs | fresh bytes requested | fresh held | reused allocs | reused held | owned held | arena used |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for case in wa::CASE_NAMES {
        let (p, f, r, o) = (
            alloc(case, "peer")?,
            alloc(case, "quarry_fresh")?,
            alloc(case, "quarry_reused")?,
            alloc(case, "quarry_owned")?,
        );
        let _ = writeln!(
            w,
            "| {case} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.allocations,
            p.requested,
            p.held,
            f.allocations,
            f.requested,
            f.held,
            r.allocations,
            r.held,
            o.held,
            r.arena_used.unwrap_or_default()
        );
    }

    let _ = writeln!(
        w,
        "\n### Encode\n\n\
         One encode of the same tree plus drop of the output, flags byte included on both sides: \
         **quarry** `quarry_wa::encode_frame(&OwnedNode)` (one walk into a 4 KiB stack scratch, then one allocation of the exact size; a longer encoding continues in one heap reservation of an upper bound, shrunk in place) \
         against the peer's `marshal` (one pass, growing a 1 KiB buffer) and `marshal_exact` \
         (size plan, then one buffer); **view**: re-encode of a decoded tree, \
         `quarry_wa::encode_frame(Node)` against the peer's `marshal_ref(&NodeRef)`. \
         The quarry tree is the case's bytes decoded and converted with `Node::to_owned_node`. \
         On fanout quarry writes one byte less: the first recipient's AD_JID with device 0 \
         becomes a JID_PAIR (docs/wa-format.md; the peer's own `marshal_ref` of its decoded tree \
         does the same). No targets were set for encoding.\n"
    );
    let _ = writeln!(
        w,
        "| case | Ir quarry/marshal | Ir quarry/marshal_exact | Ir view/marshal_ref | time quarry/marshal | time quarry/marshal_exact | time view/marshal_ref | allocations quarry / marshal / marshal_exact |\n\
         |---|---:|---:|---:|---:|---:|---:|---|"
    );
    for case in wa::CASE_NAMES {
        let r =
            |map: &BTreeMap<(String, String), f64>, q: &str, p: &str| -> Result<String, String> {
                Ok(format!("{:.2}", get(map, case, q)? / get(map, case, p)?))
            };
        let _ = writeln!(
            w,
            "| {case} | {} | {} | {} | {} | {} | {} | {} / {} / {} |",
            r(&ir, "quarry_encode", "peer_marshal")?,
            r(&ir, "quarry_encode", "peer_marshal_exact")?,
            r(&ir, "quarry_encode_view", "peer_marshal_ref")?,
            r(&m.ns, "quarry_encode", "peer_marshal")?,
            r(&m.ns, "quarry_encode", "peer_marshal_exact")?,
            r(&m.ns, "quarry_encode_view", "peer_marshal_ref")?,
            alloc(case, "quarry_encode")?.allocations,
            alloc(case, "peer_marshal")?.allocations,
            alloc(case, "peer_marshal_exact")?.allocations,
        );
    }
    let _ = writeln!(
        w,
        "\nAbsolute numbers (Ir = instructions, ns = criterion median, allocs / bytes requested):\n"
    );
    let _ = writeln!(
        w,
        "| case | op | Ir | ns | allocs | bytes requested |\n|---|---|---:|---:|---:|---:|"
    );
    for case in wa::CASE_NAMES {
        for op in ENCODERS {
            let a = alloc(case, op)?;
            let _ = writeln!(
                w,
                "| {case} | {op} | {} | {:.0} | {} | {} |",
                get(&ir, case, op)?,
                get(&m.ns, case, op)?,
                a.allocations,
                a.requested
            );
        }
    }

    let _ = writeln!(
        w,
        "\n### Build: allocations\n\n\
         Building the small nodes a client sends, from the same values: the peer's \
         `NodeBuilder` against `quarry_wa::OwnedNode` (tags, keys, short values and JID users \
         inline), then build + encode (`marshal` against `quarry_wa::encode_frame`). **enc**: \
         `<enc v=\"2\" type=\"msg\">` with a 40-byte payload; **receipt**: a read receipt to a \
         device JID with id, type and a numeric `t`; **message**: a 1:1 message to a LID holding \
         one 120-byte `pkmsg` `enc`. Payloads exist before the count and are moved in (not counted); \"held\" is what the node keeps on the heap beside its payload.\n"
    );
    let _ = writeln!(
        w,
        "| node | allocations quarry / peer | bytes requested quarry / peer | held quarry / peer | build + encode allocations quarry / peer |\n\
         |---|---|---|---|---|"
    );
    for case in alloc_count::BUILD_CASES {
        let (q, p) = (alloc(case, "quarry_build")?, alloc(case, "peer_build")?);
        let (qe, pe) = (
            alloc(case, "quarry_build_encode")?,
            alloc(case, "peer_build_encode")?,
        );
        let _ = writeln!(
            w,
            "| {case} | {} / {} | {} / {} | {} / {} | {} / {} |",
            q.allocations,
            p.allocations,
            q.requested,
            p.requested,
            q.held,
            p.held,
            qe.allocations,
            pe.allocations
        );
    }

    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of this binary's layout, small enough to write out whole.
    const DOC: &str = "# Benchmarks\n\nold intro\n\n## Machine and toolchain\n\n| commit | abc |\n\n\
        ## WhatsApp binary nodes: old\n\nold wa\n\n### Encode\n\nold encode\n\n\
        ## Nostr: quarry-nostr vs rust-nostr\n\nnostr body\n\n\
        ## Protobuf: quarry-proto vs prost and buffa\n\nproto body\n\n\
        ## How to reproduce\n\nold commands\n";

    #[test]
    fn only_replaces_its_section_and_stamps_it() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let section = "## WhatsApp binary nodes: new\n\nnew wa\n\n### Encode\n\nnew encode\n";
        let out = splice_section(DOC, "wa", section, &root, false).unwrap();
        assert!(out.starts_with("# Benchmarks\n\nGenerated by"), "{out}");
        assert!(!out.contains("old"), "{out}");
        assert!(out.contains(
            "## Machine and toolchain\n\n| commit | abc |\n\n## WhatsApp binary nodes: new\n\n\
             *This section alone was measured by `bench_report -- --only wa` at commit "
        ));
        assert!(out.contains("*\n\nnew wa\n\n### Encode\n\nnew encode\n\n## Nostr: "));
        assert!(out.contains("nostr body\n\n## Protobuf: quarry-proto vs prost and buffa\n\n"));
        assert!(out.contains("proto body\n\n## How to reproduce\n\n```sh\n"));
        assert_eq!(out.matches("## How to reproduce").count(), 1);
    }

    #[test]
    fn only_replaces_the_last_section_before_the_commands() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let out = splice_section(
            DOC,
            "protobuf",
            "## Protobuf: quarry-proto x\n\nP\n",
            &root,
            true,
        )
        .unwrap();
        assert!(out.contains(
            "nostr body\n\n## Protobuf: quarry-proto x\n\n*This section alone was rebuilt by \
             `bench_report -- --only protobuf --no-run` from"
        ));
        assert!(out.contains("*\n\nP\n\n## How to reproduce\n"));
        assert!(!out.contains("proto body"));
    }

    #[test]
    fn only_refuses_a_file_without_the_section() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let err =
            splice_section(DOC, "size", "## Protobuf: binary size\n", &root, false).unwrap_err();
        assert!(err.contains("no section starting"), "{err}");
    }
}
