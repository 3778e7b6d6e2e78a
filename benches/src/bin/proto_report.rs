//! The protobuf section of `docs/BENCHMARKS.md`: runs the `proto_criterion`
//! and `proto_iai` benches (quarry-proto against prost 0.14 and waproto
//! 0.7's buffa types on the same bytes), counts allocations and bytes held
//! with a counting allocator, and prints the section on stdout (the
//! benches' output goes to stderr). `bench_report` includes it.
//!
//! ```text
//! cargo run -p quarry-benches --profile bench --features buffa --bin proto_report [-- --no-run]
//! ```
//!
//! `--no-run` reuses the last criterion and iai-callgrind outputs (the
//! allocation counts are always measured anew: they take no time).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::SystemTime;

use quarry_benches::alloc_count::{AllocRow, CountingAlloc};
use quarry_benches::outputs;
use quarry_benches::proto::{self, BUILDERS, DECODERS, ENCODERS, PEERS};
use quarry_benches::report::{self, mark, ratio_text};
use quarry_proto_tests::samples::Root;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The target: quarry at most this times the faster peer, in instructions and
/// in time; the same on each sample's forward-compatible variants.
fn target(sample: &str) -> f64 {
    if sample.starts_with("history_sync") {
        0.3
    } else {
        0.5
    }
}

/// A forward-compatible variant's quarry instructions at most this times its
/// sample's, plus the cost of reading the bytes it adds (see
/// [`variant_allowance`]).
const VARIANT_TO_SAMPLE: f64 = 1.3;

/// The instructions a variant may take: [`VARIANT_TO_SAMPLE`] times its
/// sample's, plus the bytes it adds at the sample's own instructions per
/// byte (a variant that adds 32 bytes to a 98-byte sample may spend what
/// reading 32 more of the sample's bytes costs).
fn variant_allowance(sample_ir: f64, sample_bytes: usize, variant_bytes: usize) -> f64 {
    let added = variant_bytes.saturating_sub(sample_bytes) as f64;
    VARIANT_TO_SAMPLE * sample_ir + added * sample_ir / sample_bytes.max(1) as f64
}

fn main() {
    if let Err(e) = run() {
        eprintln!("proto_report: {e}");
        std::process::exit(2);
    }
}

/// (sample, decoder) → value.
type Table = BTreeMap<(&'static str, &'static str), f64>;

struct Measured {
    ns: Table,
    ir: Table,
    alloc: Vec<AllocRow>,
    /// (sample, encoder) → value, for the encode benches.
    enc_ns: Table,
    enc_ir: Table,
    enc_alloc: Vec<AllocRow>,
    /// (sample, builder) → value, for the build + encode benches.
    bld_ns: Table,
    bld_ir: Table,
    bld_alloc: Vec<AllocRow>,
    /// (map input, bench) → value, for the map benches (`MAP_BENCHES`).
    map_ns: Table,
    map_ir: Table,
}

/// The map inputs of `proto_iai` and `proto_criterion` (1,000 entries of
/// `All3.m_str`: unique keys, and 500 keys written twice).
const MAP_INPUTS: [&str; 2] = ["unique", "dup"];
/// The map benches, as criterion names them in group `proto_map_<input>`
/// (`proto_iai` puts `map_` in front).
const MAP_BENCHES: [&str; 6] = [
    "prost_decode",
    "prost_iter",
    "prost_get",
    "quarry_decode",
    "quarry_iter",
    "quarry_get",
];
/// Look-ups in one `*_get` bench.
const MAP_PROBES: f64 = 100.0;

fn run() -> Result<(), String> {
    let no_run = std::env::args().any(|a| a == "--no-run");
    let (_, target_dir) = outputs::workspace_dirs()?;
    let since = SystemTime::now();
    if !no_run {
        report::run_bench("proto_criterion", &report::CRITERION_ARGS)?;
        outputs::clear_iai_outputs(&target_dir, "quarry-benches", "proto_iai")?;
        report::run_bench("proto_iai", &["--save-summary=json"])?;
    }
    let since_iai = if no_run {
        SystemTime::UNIX_EPOCH
    } else {
        since
    };
    let summaries =
        outputs::read_iai_summaries(&target_dir, "quarry-benches", "proto_iai", since_iai)?;
    let mut ns = Table::new();
    let mut ir = Table::new();
    for s in proto::decode_inputs() {
        for dec in DECODERS {
            let group = format!("proto_decode_{}", s.name);
            ns.insert(
                (s.name, dec),
                outputs::criterion_median_ns(&target_dir, &group, dec)?,
            );
            let key = format!("{dec}/{}", proto::iai_id(s.name));
            let count = summaries
                .get(&key)
                .ok_or_else(|| format!("no proto_iai result for {key} (run without --no-run)"))?;
            ir.insert((s.name, dec), *count as f64);
        }
    }
    let mut enc_ns = Table::new();
    let mut enc_ir = Table::new();
    for s in proto::samples() {
        for enc in ENCODERS {
            let group = format!("proto_encode_{}", s.name);
            enc_ns.insert(
                (s.name, enc),
                outputs::criterion_median_ns(&target_dir, &group, enc)?,
            );
            let key = format!("{}/{}", proto::iai_encode_id(enc), proto::iai_id(s.name));
            let count = summaries
                .get(&key)
                .ok_or_else(|| format!("no proto_iai result for {key} (run without --no-run)"))?;
            enc_ir.insert((s.name, enc), *count as f64);
        }
    }
    let mut bld_ns = Table::new();
    let mut bld_ir = Table::new();
    for s in proto::samples() {
        for b in BUILDERS {
            let group = format!("proto_build_encode_{}", s.name);
            bld_ns.insert(
                (s.name, b),
                outputs::criterion_median_ns(&target_dir, &group, b)?,
            );
            let key = format!("{}/{}", proto::iai_build_id(b), proto::iai_id(s.name));
            let count = summaries
                .get(&key)
                .ok_or_else(|| format!("no proto_iai result for {key} (run without --no-run)"))?;
            bld_ir.insert((s.name, b), *count as f64);
        }
    }
    let mut map_ns = Table::new();
    let mut map_ir = Table::new();
    for input in MAP_INPUTS {
        for bench in MAP_BENCHES {
            let group = format!("proto_map_{input}");
            map_ns.insert(
                (input, bench),
                outputs::criterion_median_ns(&target_dir, &group, bench)?,
            );
            let key = format!("map_{bench}/{input}");
            let count = summaries
                .get(&key)
                .ok_or_else(|| format!("no proto_iai result for {key} (run without --no-run)"))?;
            map_ir.insert((input, bench), *count as f64);
        }
    }
    let m = Measured {
        ns,
        ir,
        alloc: proto::measure_alloc(),
        enc_ns,
        enc_ir,
        enc_alloc: proto::measure_encode_alloc(),
        bld_ns,
        bld_ir,
        bld_alloc: proto::measure_build_alloc(),
        map_ns,
        map_ir,
    };
    print!("{}", render(&m)?);
    Ok(())
}

/// The fastest peer on `sample` in `table`: (name, value).
fn fastest(table: &Table, sample: &'static str) -> (&'static str, f64) {
    PEERS
        .iter()
        .map(|&p| (p, table[&(sample, p)]))
        .fold(
            ("", f64::INFINITY),
            |best, x| if x.1 < best.1 { x } else { best },
        )
}

fn root_name(root: Root) -> &'static str {
    match root {
        Root::SyncActionData => "SyncActionData",
        Root::Message => "Message",
        Root::HistorySync => "HistorySync",
    }
}

fn render(m: &Measured) -> Result<String, String> {
    let alloc = |sample: &str, dec: &str| -> Result<&AllocRow, String> {
        m.alloc
            .iter()
            .find(|r| r.case == sample && r.op == dec)
            .ok_or_else(|| format!("no allocation row for {dec} on {sample}"))
    };
    let mut w = String::new();
    let _ = writeln!(
        w,
        "## Protobuf: quarry-proto vs prost and buffa\n\n\
         Inputs: the spec's WhatsApp-shaped samples, built with prost's types and encoded by prost, \
         so every decoder reads the same bytes. Each measurement is one decode plus drop of the result:\n\n\
         * **prost**: prost 0.14's generated types (`Message::decode(&[u8])`);\n\
         * **buffa owned** / **buffa view**: waproto 0.7's buffa types, `decode_from_slice` / `decode_view`;\n\
         * **fresh**: quarry-proto's generated view, `FooView::decode` into `quarry_proto::arena_for(bytes)` (a new arena of the decoder's own estimate, its one allocation), then drop of the arena;\n\
         * **reused**: the same into an arena that decoded the same input before, reset after each decode.\n\n\
         Time is criterion's median (warm-up 1 s, measurement 3 s), instructions are callgrind's `Ir` \
         for one call (iai-callgrind, after one warm-up decode in setup), allocations and bytes come \
         from a counting global allocator. \"Held\" is the memory the decoded message keeps alive: \
         for prost and buffa the heap bytes still live after the decode plus the size of the root \
         value (they keep wide structs inline), for quarry the arena's chunk plus the root view, and for **quarry owned** \
         (`OwnedRecord::decode`, an arena of its own) what it keeps beyond its input, which it shares; \
         \"arena used\" is what the decode wrote into the arena.\n"
    );
    let _ = writeln!(w, "### Ratios quarry / fastest peer (lower is better)\n");
    let _ = writeln!(
        w,
        "Targets: instructions and time at most 0.5 × the faster of prost and buffa \
         (owned or view, whichever is faster on that sample and metric) on every sample, 0.3 × on \
         HistorySync; bytes held at most prost's. ✓ met, ✗ missed. Each cell: reused arena / fresh arena.\n"
    );
    let _ = writeln!(
        w,
        "| sample | root | bytes | target | instructions | fastest peer (Ir) | time | fastest peer (time) | held / prost | allocations |\n\
         |---|---|---:|---|---|---|---|---|---|---|"
    );
    let mut misses = Vec::new();
    for s in proto::samples() {
        let t = target(s.name);
        let mut cells = Vec::new();
        let mut missed = Vec::new();
        for (metric, table) in [("instructions", &m.ir), ("time", &m.ns)] {
            let (peer, best) = fastest(table, s.name);
            let ratios = [
                table[&(s.name, "quarry_reused")] / best,
                table[&(s.name, "quarry_fresh")] / best,
            ];
            if ratios.iter().any(|&r| r > t) {
                missed.push(format!(
                    "{metric} {:.2} / {:.2} of {}",
                    ratios[0],
                    ratios[1],
                    peer.replace('_', " ")
                ));
            }
            let pair: Vec<String> = ratios.iter().map(|&r| mark(r, Some(t))).collect();
            cells.push(pair.join(" / "));
            cells.push(peer.replace('_', " "));
        }
        let prost_held = alloc(s.name, "prost")?.held;
        let held = [
            alloc(s.name, "quarry_reused")?.held,
            alloc(s.name, "quarry_fresh")?.held,
        ];
        if held.iter().any(|&h| h > prost_held) {
            missed.push(format!(
                "bytes held {} / {} B against prost's {prost_held} B",
                held[0], held[1]
            ));
        }
        let pair: Vec<String> = held
            .iter()
            .map(|&h| {
                let ok = if h <= prost_held { "✓" } else { "✗" };
                format!("{} {ok}", ratio_text(h, prost_held))
            })
            .collect();
        cells.push(pair.join(" / "));
        if !missed.is_empty() {
            misses.push(format!(
                "{} (target ≤ {t}; reused / fresh): {}",
                s.name,
                missed.join("; ")
            ));
        }
        cells.push(format!(
            "{} / {}",
            alloc(s.name, "quarry_reused")?.allocations,
            alloc(s.name, "quarry_fresh")?.allocations
        ));
        let _ = writeln!(
            w,
            "| {} | {} | {} | ≤ {t} | {} |",
            s.name,
            root_name(s.root),
            s.bytes.len(),
            cells.join(" | ")
        );
    }
    report::write_misses(&mut w, &misses);

    for (title, table) in [
        ("Instructions per decode (callgrind `Ir`)", &m.ir),
        ("Time per decode (criterion median, ns)", &m.ns),
    ] {
        let _ = writeln!(
            w,
            "\n### {title}\n\n\
             | sample | prost | buffa owned | buffa view | quarry fresh | quarry reused |\n\
             |---|---:|---:|---:|---:|---:|"
        );
        for s in proto::samples() {
            let cells: Vec<String> = DECODERS
                .iter()
                .map(|d| format!("{:.0}", table[&(s.name, *d)]))
                .collect();
            let _ = writeln!(w, "| {} | {} |", s.name, cells.join(" | "));
        }
    }

    render_encode(&mut w, m)?;
    render_build(&mut w, m)?;
    render_variants(&mut w, m);
    render_maps(&mut w, m);

    let _ = writeln!(
        w,
        "\n### Allocations and memory per decode\n\n\
         | sample | decoder | allocations | bytes requested | bytes held | held / prost | arena used |\n\
         |---|---|---:|---:|---:|---:|---:|"
    );
    for s in proto::samples() {
        let prost_held = alloc(s.name, "prost")?.held;
        for dec in DECODERS.iter().chain(&["quarry_owned"]) {
            let r = alloc(s.name, dec)?;
            let used = r
                .arena_used
                .map_or_else(|| "-".to_owned(), |u| u.to_string());
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} | {used} |",
                s.name,
                dec.replace('_', " "),
                r.allocations,
                r.requested,
                r.held,
                ratio_text(r.held, prost_held)
            );
        }
    }
    Ok(w)
}

/// The encode table: each encoder from its own decoded form of the sample.
fn render_encode(w: &mut String, m: &Measured) -> Result<(), String> {
    let _ = writeln!(
        w,
        "\n### Encode\n\n\
         One encode plus drop of the bytes, each encoder from its own decoded form of the sample: \
         prost's and buffa's owned messages (`encode_to_vec`), quarry's generated view \
         (`FooView::encode`: a re-encode from the arena; under 1 KiB one write into a stack \
         buffer, copied into one allocation of the exact size; larger, an exact size, then one \
         allocation and a write into it). All three write exactly the sample's bytes (a test of quarry-benches checks \
         it). No targets were set for encoding. Ratios are quarry / the faster peer on that sample \
         and metric (lower is better).\n\n\
         | sample | Ir ratio | time ratio | prost Ir | buffa owned Ir | quarry Ir | prost ns | buffa owned ns | quarry ns | allocations prost / buffa / quarry |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for s in proto::samples() {
        let ratio = |table: &Table| {
            let best = ENCODERS[..2]
                .iter()
                .map(|p| table[&(s.name, *p)])
                .fold(f64::INFINITY, f64::min);
            table[&(s.name, "quarry")] / best
        };
        let allocations: Vec<String> = ENCODERS
            .iter()
            .map(|enc| {
                m.enc_alloc
                    .iter()
                    .find(|r| r.case == s.name && r.op == *enc)
                    .map(|r| r.allocations.to_string())
                    .ok_or_else(|| format!("no encode allocation row for {enc} on {}", s.name))
            })
            .collect::<Result<_, _>>()?;
        let _ = writeln!(
            w,
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
            s.name,
            mark(ratio(&m.enc_ir), None),
            mark(ratio(&m.enc_ns), None),
            m.enc_ir[&(s.name, "prost")],
            m.enc_ir[&(s.name, "buffa_owned")],
            m.enc_ir[&(s.name, "quarry")],
            m.enc_ns[&(s.name, "prost")],
            m.enc_ns[&(s.name, "buffa_owned")],
            m.enc_ns[&(s.name, "quarry")],
            allocations.join(" / ")
        );
    }
    Ok(())
}

/// Build + encode: quarry's builders against prost's and buffa's owned
/// types, from the same source values.
fn render_build(w: &mut String, m: &Measured) -> Result<(), String> {
    let _ = writeln!(
        w,
        "\n### Build and encode\n\n\
         One build of the sample's message from the same source values (string constants and \
         strings made once, `quarry_proto_tests::sends`) plus one encode into a new `Vec` and \
         drop of the bytes: prost's and buffa's owned types (each string and byte field copied \
         in, then `encode_to_vec`), quarry's generated builders (`FooBuilder`, strings and bytes \
         borrowed, records written into an arena reused from an earlier build, then \
         `FooView::encode`). All three write exactly the sample's bytes (a test of \
         quarry-proto-tests checks quarry's and prost's). Target: quarry at most 0.5 × the \
         faster peer, in instructions and in time. Ratios are quarry / the faster peer on that \
         sample and metric (lower is better).\n\n\
         | sample | Ir ratio | time ratio | prost Ir | buffa owned Ir | quarry Ir | prost ns | buffa owned ns | quarry ns | allocations prost / buffa / quarry |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for s in proto::samples() {
        let ratio = |table: &Table| {
            let best = BUILDERS[..2]
                .iter()
                .map(|p| table[&(s.name, *p)])
                .fold(f64::INFINITY, f64::min);
            table[&(s.name, "quarry")] / best
        };
        let allocations: Vec<String> = BUILDERS
            .iter()
            .map(|b| {
                m.bld_alloc
                    .iter()
                    .find(|r| r.case == s.name && r.op == *b)
                    .map(|r| r.allocations.to_string())
                    .ok_or_else(|| format!("no build allocation row for {b} on {}", s.name))
            })
            .collect::<Result<_, _>>()?;
        let _ = writeln!(
            w,
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
            s.name,
            mark(ratio(&m.bld_ir), Some(0.5)),
            mark(ratio(&m.bld_ns), Some(0.5)),
            m.bld_ir[&(s.name, "prost")],
            m.bld_ir[&(s.name, "buffa_owned")],
            m.bld_ir[&(s.name, "quarry")],
            m.bld_ns[&(s.name, "prost")],
            m.bld_ns[&(s.name, "buffa_owned")],
            m.bld_ns[&(s.name, "quarry")],
            allocations.join(" / ")
        );
    }
    Ok(())
}

/// The forward-compatible variants' table: each against the peers on the
/// same bytes and against its own sample's quarry instructions.
fn render_variants(w: &mut String, m: &Measured) {
    let _ = writeln!(
        w,
        "\n### Forward-compatible variants\n\n\
         Each sample with one thing a newer schema (or an encoder other than prost) writes, built \
         from prost's encoding by splicing fields (`quarry_proto_tests::variants`, where each is \
         documented): `unknown_root`, an unknown varint field at the end of the root; \
         `unknown_narrow`, one at the end of a nested narrow message (for the history sync in one \
         message key; `unknown_narrow_every`, in every message key); `unlisted_enum`, a closed \
         enum's field holding a number the enum does not list; `oneof_twice`, two members of one \
         oneof; `message_twice`, a singular message field written a second time (merged). Decoders \
         and measurements as above. Targets: quarry at most {VARIANT_TO_SAMPLE} × its sample's \
         quarry instructions plus the bytes the variant adds at the sample's instructions per byte \
         (\"Ir / allowed\": at most 1), and at most 0.5 × the faster of prost and buffa (0.3 × on the \
         history sync) in instructions and time. ✓ met, ✗ missed. Ratio cells: reused arena / \
         fresh arena (each against the sample's quarry figure of the same arena).\n\n\
         | variant | bytes | quarry Ir reused / fresh | prost Ir | buffa Ir owned / view | Ir / fastest peer | Ir / allowed | quarry ns reused / fresh | prost ns | buffa ns owned / view | time / fastest peer |\n\
         |---|---:|---|---:|---|---|---|---|---:|---|---|"
    );
    let mut misses = Vec::new();
    for v in proto::variants() {
        let (name, base) = (v.sample.name, v.canonical);
        let t = target(name);
        let mut missed = Vec::new();
        let mut peer_ratio = |metric: &str, table: &Table| {
            let (peer, best) = fastest(table, name);
            let ratios = [
                table[&(name, "quarry_reused")] / best,
                table[&(name, "quarry_fresh")] / best,
            ];
            if ratios.iter().any(|&r| r > t) {
                missed.push(format!(
                    "{metric} {:.2} / {:.2} of {} (target ≤ {t})",
                    ratios[0],
                    ratios[1],
                    peer.replace('_', " ")
                ));
            }
            let pair: Vec<String> = ratios.iter().map(|&r| mark(r, Some(t))).collect();
            pair.join(" / ")
        };
        let ir_peer = peer_ratio("instructions", &m.ir);
        let ns_peer = peer_ratio("time", &m.ns);
        let base_bytes = proto::samples()
            .iter()
            .find(|s| s.name == base)
            .map_or(0, |s| s.bytes.len());
        let allowed = |arena: &str| {
            m.ir[&(name, arena)]
                / variant_allowance(m.ir[&(base, arena)], base_bytes, v.sample.bytes.len())
        };
        let to_allowed = [allowed("quarry_reused"), allowed("quarry_fresh")];
        if to_allowed.iter().any(|&r| r > 1.0) {
            missed.push(format!(
                "instructions {:.2} / {:.2} of what {base}'s allow (target ≤ 1)",
                to_allowed[0], to_allowed[1]
            ));
        }
        let to_sample: Vec<String> = to_allowed.iter().map(|&r| mark(r, Some(1.0))).collect();
        if !missed.is_empty() {
            misses.push(format!("{name} (reused / fresh): {}", missed.join("; ")));
        }
        let pair = |table: &Table, a: &str, b: &str| {
            format!("{:.0} / {:.0}", table[&(name, a)], table[&(name, b)])
        };
        let _ = writeln!(
            w,
            "| {name} | {} | {} | {:.0} | {} | {ir_peer} | {} | {} | {:.0} | {} | {ns_peer} |",
            v.sample.bytes.len(),
            pair(&m.ir, "quarry_reused", "quarry_fresh"),
            m.ir[&(name, "prost")],
            pair(&m.ir, "buffa_owned", "buffa_view"),
            to_sample.join(" / "),
            pair(&m.ns, "quarry_reused", "quarry_fresh"),
            m.ns[&(name, "prost")],
            pair(&m.ns, "buffa_owned", "buffa_view"),
        );
    }
    report::write_misses(w, &misses);
}

/// The map table: a 1,000-entry map decoded, iterated once and looked up,
/// prost's `HashMap` beside quarry's view.
fn render_maps(w: &mut String, m: &Measured) {
    let _ = writeln!(
        w,
        "\n### Maps\n\n\
         `All3.m_str` (`map<string, string>`) with 1,000 entries written one by one in a scrambled \
         order: `unique` with 1,000 keys, `dup` with 500 keys written twice (the later entry wins). \
         Per side: decode (prost into its `HashMap`; quarry into a reused arena, which keeps the last \
         entry of each key), decode plus one iteration, decode plus 100 look-ups (every tenth key \
         absent). Iteration and look-up are the difference to decode alone; quarry's `get` scans \
         the entries, prost's hashes.\n\n\
         | input | side | decode Ir | iteration Ir | Ir per get | decode ns | iteration ns | ns per get |\n\
         |---|---|---:|---:|---:|---:|---:|---:|"
    );
    for input in MAP_INPUTS {
        for side in ["prost", "quarry"] {
            let at = |t: &Table, op: &str| {
                let key = match (side, op) {
                    ("prost", "decode") => "prost_decode",
                    ("prost", "iter") => "prost_iter",
                    ("prost", _) => "prost_get",
                    (_, "decode") => "quarry_decode",
                    (_, "iter") => "quarry_iter",
                    _ => "quarry_get",
                };
                t.get(&(input, key)).copied().unwrap_or(f64::NAN)
            };
            let row = |t: &Table| {
                let decode = at(t, "decode");
                (
                    decode,
                    at(t, "iter") - decode,
                    (at(t, "get") - decode) / MAP_PROBES,
                )
            };
            let (di, ii, gi) = row(&m.map_ir);
            let (dn, in_, gn) = row(&m.map_ns);
            let _ = writeln!(
                w,
                "| {input} | {side} | {di:.0} | {ii:.0} | {gi:.0} | {dn:.0} | {in_:.0} | {gn:.1} |"
            );
        }
    }
}
