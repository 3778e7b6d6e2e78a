//! The Nostr section of `docs/BENCHMARKS.md`: runs the `nostr_criterion`
//! and `nostr_iai` benches, counts allocations and the memory held by a
//! 10,000-event timeline with a counting allocator, and prints the section
//! on stdout (the benches' output goes to stderr). `bench_report` includes
//! it.
//!
//! ```text
//! cargo run -p quarry-benches --profile bench --bin nostr_report [-- --no-run]
//! ```
//!
//! `--no-run` reuses the last criterion and iai-callgrind outputs.

#[path = "../../benches/nostr_common/mod.rs"]
mod nostr_common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::SystemTime;

use nostr_common as n;
use quarry_benches::alloc_count::{self, CountingAlloc};
use quarry_benches::{callgrind_profile, outputs, report};
use quarry_core::Arena;
use quarry_nostr::Event;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const FUNCTIONS: [&str; 6] = [
    "peer",
    "peer_verify_id",
    "quarry_noverify_fresh",
    "quarry_noverify_reused",
    "quarry_verify_fresh",
    "quarry_verify_reused",
];

fn main() {
    if let Err(e) = run() {
        eprintln!("nostr_report: {e}");
        std::process::exit(2);
    }
}

/// The rows of the decode table: the six shapes, then `corpus`, the total
/// over the wire-shaped corpus.
fn rows() -> impl Iterator<Item = &'static str> {
    n::SHAPES.into_iter().chain(["corpus"])
}

/// A measured figure rounded to a whole number, or `–` when the run has
/// none.
fn fmt(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |v| format!("{v:.0}"))
}

/// `a / b` to two decimals, or `–` when either is missing.
fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}", a / b),
        _ => "–".into(),
    }
}

fn allocations_of<R>(op: impl FnOnce() -> R) -> usize {
    alloc_count::measure(op).0.allocations
}

/// Live heap bytes held by 10,000 thread events: (JSON bytes, rust-nostr
/// `Vec<Event>`, quarry compacted timeline).
fn memory_held() -> (usize, usize, usize) {
    const N: usize = 10_000;
    let line = n::event("thread12").as_json();
    let lines: Vec<String> = (0..N).map(|_| line.clone()).collect();
    let json: usize = lines.iter().map(String::len).sum();

    let peer_held = alloc_count::measure(|| {
        lines
            .iter()
            .map(|l| nostr::event::Event::from_json(l).unwrap())
            .collect::<Vec<_>>()
    })
    .0
    .live;

    let mut scratch = Arena::new();
    let per_event = n::VERIFY
        .decode_event(&scratch, line.as_bytes())
        .unwrap()
        .compacted_size()
        .next_multiple_of(8);
    scratch.reset();
    // The timeline arena and the events borrowing it, counted together.
    let before = alloc_count::now().live;
    let timeline = Arena::with_capacity(per_event * N);
    let mut kept: Vec<Event<'_>> = Vec::with_capacity(N);
    for l in &lines {
        let event = n::VERIFY.decode_event(&scratch, l.as_bytes()).unwrap();
        kept.push(event.compact_into(&timeline));
        scratch.reset();
    }
    let quarry_held = alloc_count::now().live - before;
    drop(kept);
    (json, peer_held, quarry_held)
}

fn run() -> Result<(), String> {
    let no_run = std::env::args().any(|a| a == "--no-run");
    let (root, target_dir) = outputs::workspace_dirs()?;
    let since = SystemTime::now();
    if !no_run {
        report::run_bench("nostr_criterion", &report::CRITERION_ARGS)?;
        outputs::clear_iai_outputs(&target_dir, "quarry-benches", "nostr_iai")?;
        report::run_bench("nostr_iai", &["--save-summary=json"])?;
    }
    let since_iai = if no_run {
        SystemTime::UNIX_EPOCH
    } else {
        since
    };
    let ir = outputs::read_iai_summaries(&target_dir, "quarry-benches", "nostr_iai", since_iai)?;
    let mut ns = BTreeMap::new();
    for shape in rows() {
        for f in FUNCTIONS {
            let group = format!("nostr_{shape}");
            if let Ok(median) = outputs::criterion_median_ns(&target_dir, &group, f) {
                ns.insert((shape, f), median);
            }
        }
    }

    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Nostr: quarry-nostr vs rust-nostr\n\n\
         Inputs: `[\"EVENT\",\"sub1\",<event>]` relay messages in the six shapes of the spec's table, signed with a real key and serialized by rust-nostr (`nostr` 0.45); and **corpus**, a stream of 722 such messages whose kinds, tag counts, content lengths, non-ASCII share and escapes follow real relay traffic (`benches/src/nostr_corpus.rs` says how, and compares it with the capture it was measured on), measured in total: every figure of its row is for all 722 messages. \
         Each measurement decodes one message and drops the result: **peer** `nostr::RelayMessage::from_json`; **peer_verify_id** the same plus `Event::verify_id()`; **quarry** `Decoder::decode_relay_message` with the id check off (`noverify`, `IdCheck::Skip`) or on (`verify`, the default), into a fresh arena (`fresh`: `quarry_nostr::arena_for(bytes)`, its one allocation, dropped after) or a reset one (`reused`). \
         Time is criterion's median (warm-up 1 s, measurement 3 s); instructions are callgrind's `Ir` for one call.\n"
    );
    let _ = writeln!(
        md,
        "### Time (criterion median) and instructions (callgrind)\n\n\
         Callgrind runs SHA-256 without the CPU's SHA instructions, so instruction counts with the id check on are not comparable to time; compare instructions with the check off. Ratios first, lower is better.\n\n\
         | shape | bytes | time noverify / peer | time verify / (peer+verify_id) | time verify / peer | Ir noverify / peer | peer ns | peer+verify_id ns | quarry noverify reused ns | quarry verify reused ns | peer Ir | quarry noverify reused Ir |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for shape in rows() {
        let bytes: usize = n::inputs(shape).iter().map(Vec::len).sum();
        let t = |f: &str| ns.get(&(shape, f)).copied();
        let i = |f: &str| ir.get(&format!("{f}/{shape}")).copied();
        let (p, pv, q, qv) = (
            t("peer"),
            t("peer_verify_id"),
            t("quarry_noverify_reused"),
            t("quarry_verify_reused"),
        );
        let (pi, qi) = (i("peer"), i("quarry_noverify_reused"));
        let _ = writeln!(
            md,
            "| {shape} | {bytes} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            ratio(q, p),
            ratio(qv, pv),
            ratio(qv, p),
            ratio(qi.map(|v| v as f64), pi.map(|v| v as f64)),
            fmt(p),
            fmt(pv),
            fmt(q),
            fmt(qv),
            pi.map_or("–".into(), |v| v.to_string()),
            qi.map_or("–".into(), |v| v.to_string()),
        );
    }
    let _ = writeln!(md, "\nAll instruction counts (one call):\n");
    for (name, v) in &ir {
        let _ = writeln!(md, "* `{name}`: {v}");
    }
    let _ = writeln!(md, "\nAll medians (ns):\n");
    for ((shape, f), v) in &ns {
        let _ = writeln!(md, "* `{shape}/{f}`: {v:.0}");
    }

    let _ = writeln!(
        md,
        "\n### Allocations and memory per decode (counting allocator)\n\n\
         One relay `EVENT` message per shape. **Held** is the heap memory the decoded message keeps \
         alive: rust-nostr's live bytes after `RelayMessage::from_json` plus the message value's \
         own size; quarry fresh, the arena's chunk (`quarry_nostr::arena_for`, its one allocation); \
         quarry owned, the live bytes of an `OwnedMessage` of its own arena plus the value's own \
         size (its input, shared as `Bytes`, not counted); arena used, the bytes the decode wrote.\n\n\
         | shape | bytes | peer allocs | peer held | fresh allocs | fresh held | reused allocs | owned allocs | owned held | arena used |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for shape in n::SHAPES {
        let bytes = n::message(shape);
        n::peer_parse(&bytes);
        let (peer, msg) = alloc_count::measure(|| {
            nostr::message::RelayMessage::from_json(&bytes[..])
                .expect("rust-nostr parses the shape")
        });
        let peer_held = peer.live + std::mem::size_of_val(&msg);
        drop(msg);
        let fresh = allocations_of(|| n::quarry_fresh(&n::VERIFY, &bytes));
        let (fresh_held, used) = {
            let arena = quarry_nostr::arena_for(&bytes);
            n::VERIFY
                .decode_relay_message(&arena, &bytes)
                .expect("quarry decodes the shape");
            let stats = arena.stats();
            (stats.allocated_bytes, stats.used_bytes())
        };
        let mut arena = n::warmed_arena(&bytes);
        let reused = allocations_of(|| n::quarry_reused(&n::VERIFY, &mut arena, &bytes));
        let input = quarry_core::bytes::Bytes::from(bytes.clone());
        drop(input.clone());
        drop(quarry_nostr::OwnedMessage::decode_relay(input.clone()));
        let (owned, message) = alloc_count::measure(|| {
            quarry_nostr::OwnedMessage::decode_relay(input.clone())
                .expect("quarry decodes the shape")
        });
        let owned_held = owned.live + std::mem::size_of_val(&message);
        drop(message);
        let _ = writeln!(
            md,
            "| {shape} | {} | {} | {peer_held} | {fresh} | {fresh_held} | {reused} | {} | {owned_held} | {used} |",
            bytes.len(),
            peer.allocations,
            owned.allocations,
        );
    }

    profile_table(&mut md, &root, &target_dir);
    req_table(&mut md, &target_dir, &ir);
    encode_table(&mut md, &target_dir, &ir);
    message_encode_table(&mut md, &target_dir, &ir);
    build_table(&mut md, &target_dir, &ir);

    let (json, peer_held, quarry_held) = memory_held();
    let per = |b: usize| b as f64 / 10_000.0;
    let _ = writeln!(
        md,
        "\n### Memory held: 10,000 decoded 12-tag events kept alive\n\n\
         Live heap bytes (counting allocator) while the events are held; the JSON is {json} bytes ({:.0} per event).\n\n\
         | | bytes held | per event | / JSON |\n|---|---|---|---|\n\
         | rust-nostr `Vec<Event>` | {peer_held} | {:.0} | {:.2} |\n\
         | quarry, compacted into one arena (`Event::compact_into`, arena sized from `compacted_size`) + `Vec<Event>` handles | {quarry_held} | {:.0} | {:.2} |",
        per(json),
        per(peer_held),
        peer_held as f64 / json as f64,
        per(quarry_held),
        quarry_held as f64 / json as f64,
    );
    println!("{md}");
    Ok(())
}

/// Where quarry's instructions go over the corpus: the callgrind run of
/// `quarry_noverify_reused/corpus`, by source function.
fn profile_table(md: &mut String, root: &std::path::Path, target_dir: &std::path::Path) {
    let out = callgrind_profile::callgrind_out(
        target_dir,
        "nostr_iai",
        "nostr_decode",
        "quarry_noverify_reused",
        "corpus",
    );
    let _ = writeln!(
        md,
        "\n### Where the instructions go: the corpus, id check off\n\n\
         One callgrind run of `quarry_noverify_reused/corpus` (all 722 messages, reused arena), \
         instructions by where they were written: {}\n",
        callgrind_profile::SOURCE_TABLE_NOTE
    );
    md.push_str(&callgrind_profile::source_markdown_table(
        &out,
        root,
        &["crates/quarry-nostr/src", "crates/quarry-core/src"],
    ));
}

/// One decode of each client REQ shape: rust-nostr's
/// `ClientMessage::from_json` against quarry's `decode_client_message`.
fn req_table(md: &mut String, target_dir: &std::path::Path, ir: &BTreeMap<String, u64>) {
    let _ = writeln!(
        md,
        "\n### Client REQ: one subscription decoded\n\n\
         What a relay reads from its clients besides events: `[\"REQ\",<sub>,<filter>...]` built and \
         serialized by rust-nostr in three shapes: **req_profile** (one filter: 3 kinds, 1 author, a limit), \
         **req_thread** (two filters: 1 id; 4 kinds, 1 `#e`, a limit), **req_feed** (one filter: 2 kinds, \
         50 authors, since, a limit). **peer** `nostr::ClientMessage::from_json`; **quarry** \
         `Decoder::decode_client_message` into a fresh arena (`quarry_nostr::arena_for(bytes)`, dropped after) \
         or a reset one; each plus drop of the result. No targets were set for REQs. Ratios quarry / peer, \
         lower is better; each cell reused arena / fresh arena.\n\n\
         | shape | bytes | time ratio | Ir ratio | peer ns | quarry ns (reused / fresh) | peer Ir | quarry Ir (reused / fresh) | allocations peer / quarry (reused / fresh) |\n\
         |---|---:|---|---|---:|---|---:|---|---|"
    );
    for shape in n::REQ_SHAPES {
        let bytes = n::req(shape);
        let group = format!("nostr_{shape}");
        let t = |f: &str| outputs::criterion_median_ns(target_dir, &group, f).ok();
        let i = |f: &str| ir.get(&format!("{f}/{shape}")).map(|&v| v as f64);
        n::peer_parse_req(&bytes);
        let peer_allocs = allocations_of(|| n::peer_parse_req(&bytes));
        let fresh_allocs = allocations_of(|| n::quarry_req_fresh(&bytes));
        let mut arena = Arena::new();
        n::quarry_req_reused(&mut arena, &bytes);
        let reused_allocs = allocations_of(|| n::quarry_req_reused(&mut arena, &bytes));
        let (tp, tr, tf) = (t("peer"), t("quarry_reused"), t("quarry_fresh"));
        let (ip, ir_, if_) = (i("peer_req"), i("quarry_req_reused"), i("quarry_req_fresh"));
        let _ = writeln!(
            md,
            "| {shape} | {} | {} / {} | {} / {} | {} | {} / {} | {} | {} / {} | {peer_allocs} / {reused_allocs} / {fresh_allocs} |",
            bytes.len(),
            ratio(tr, tp),
            ratio(tf, tp),
            ratio(ir_, ip),
            ratio(if_, ip),
            fmt(tp),
            fmt(tr),
            fmt(tf),
            fmt(ip),
            fmt(ir_),
            fmt(if_),
        );
    }
}

/// Build + sign + encode of each shape's event from its tags and content:
/// rust-nostr's `EventBuilder` and `as_json` against quarry's
/// `EventBuilder` and `encode_into`.
fn build_table(md: &mut String, target_dir: &std::path::Path, ir: &BTreeMap<String, u64>) {
    let _ = writeln!(
        md,
        "\n### Build, sign and encode one event\n\n\
         From each shape's tags (as strings) and content: **peer** rust-nostr's `EventBuilder` (`Tag::parse` \
         per tag, `custom_created_at`, `finalize_unsigned`), the id, a BIP-340 signature, `add_signature` (which, \
         as in rust-nostr's `finalize`, hashes the event again and verifies the signature), `as_json`; **quarry** \
         `EventBuilder::new(&arena, ..)`, `tag` per tag, `created_at`, `sign_with_aux_rand`, `encode_into`, \
         into a fresh arena and `Vec` or a reset arena and a cleared `Vec`. Both sign with the same key and \
         fixed auxiliary data, so both write the same event. Ratios quarry / peer, lower is better; each \
         cell reused / fresh.\n\n\
         | shape | time ratio | Ir ratio | peer ns | quarry ns (reused / fresh) | peer Ir | quarry Ir (reused / fresh) | allocations peer / quarry (reused / fresh) |\n\
         |---|---|---|---:|---|---:|---|---|"
    );
    for shape in n::SHAPES {
        let input = n::build_input(shape);
        let group = format!("nostr_build_{shape}");
        let t = |f: &str| outputs::criterion_median_ns(target_dir, &group, f).ok();
        let i = |f: &str| ir.get(&format!("{f}/{shape}")).map(|&v| v as f64);
        n::peer_build_sign_encode(&input);
        n::quarry_build_fresh(&input);
        let peer_allocs = allocations_of(|| n::peer_build_sign_encode(&input));
        let fresh_allocs = allocations_of(|| n::quarry_build_fresh(&input));
        let (mut arena, mut out) = (Arena::new(), Vec::new());
        n::quarry_build_reused(&mut arena, &input, &mut out);
        let reused_allocs = allocations_of(|| n::quarry_build_reused(&mut arena, &input, &mut out));
        let (tp, tr, tf) = (t("peer"), t("quarry_reused"), t("quarry_fresh"));
        let (ip, ir_, if_) = (
            i("peer_build"),
            i("quarry_build_reused"),
            i("quarry_build_fresh"),
        );
        let _ = writeln!(
            md,
            "| {shape} | {} / {} | {} / {} | {} | {} / {} | {} | {} / {} | {peer_allocs} / {reused_allocs} / {fresh_allocs} |",
            ratio(tr, tp),
            ratio(tf, tp),
            ratio(ir_, ip),
            ratio(if_, ip),
            fmt(tp),
            fmt(tr),
            fmt(tf),
            fmt(ip),
            fmt(ir_),
            fmt(if_),
        );
    }
}

/// One encode of each shape's event to compact JSON: rust-nostr's
/// `as_json` from its `Event`, quarry's `encode_into` from its decoded view.
fn encode_table(md: &mut String, target_dir: &std::path::Path, ir: &BTreeMap<String, u64>) {
    let _ = writeln!(
        md,
        "\n### Encode: one event to compact JSON\n\n\
         **peer** `Event::as_json` (serde_json) of rust-nostr's `Event`; **quarry** `Event::encode_into` \
         of the decoded view into a new `Vec`; each plus drop of the JSON. Both write the same bytes \
         (a test of `nostr_report` checks it). No targets were set for encoding. Ratios quarry / peer, \
         lower is better; instructions for three shapes.\n\n\
         | shape | time ratio | Ir ratio | peer ns | quarry ns | peer Ir | quarry Ir | allocations peer / quarry |\n\
         |---|---:|---:|---:|---:|---:|---:|---|"
    );
    for shape in n::SHAPES {
        let group = format!("nostr_encode_{shape}");
        let t = |f: &str| outputs::criterion_median_ns(target_dir, &group, f).ok();
        let i = |f: &str| ir.get(&format!("{f}/{shape}")).map(|&v| v as f64);
        let (peer, quarry) = (n::peer_event(shape), n::quarry_event(shape));
        n::peer_encode(peer);
        n::quarry_encode(quarry);
        let peer_allocs = allocations_of(|| n::peer_encode(peer));
        let quarry_allocs = allocations_of(|| n::quarry_encode(quarry));
        let _ = writeln!(
            md,
            "| {shape} | {} | {} | {} | {} | {} | {} | {peer_allocs} / {quarry_allocs} |",
            ratio(t("quarry"), t("peer")),
            ratio(i("quarry_encode"), i("peer_encode")),
            fmt(t("peer")),
            fmt(t("quarry")),
            fmt(i("peer_encode")),
            fmt(i("quarry_encode")),
        );
    }
}

/// One encode of each relay EVENT message and each REQ to compact JSON:
/// rust-nostr's `as_json` of its `RelayMessage` / `ClientMessage`, quarry's
/// `encode_into` of its decoded message.
fn message_encode_table(md: &mut String, target_dir: &std::path::Path, ir: &BTreeMap<String, u64>) {
    let _ = writeln!(
        md,
        "\n### Encode: one relay or client message to compact JSON\n\n\
         **relay_<shape>**: the `[\"EVENT\",\"sub1\",<event>]` a relay sends, **peer** `RelayMessage::as_json` \
         of a `RelayMessage::Event` borrowing rust-nostr's `Event`, **quarry** `RelayMessage::encode_into` of the \
         decoded message into a new `Vec`. **req_<shape>**: the REQs of the decode table above, **peer** \
         `ClientMessage::as_json` of rust-nostr's `ClientMessage::Req`, **quarry** `ClientMessage::encode_into` of the \
         decoded message (filters as received). Each plus drop of the JSON; both sides write the sample's bytes \
         (a test of `nostr_report` checks it). No targets were set for encoding. Ratios quarry / peer, lower is \
         better; instructions for three relay shapes and the three REQs.\n\n\
         | message | bytes | time ratio | Ir ratio | peer ns | quarry ns | peer Ir | quarry Ir | allocations peer / quarry |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let mut row = |name: String, bytes: usize, ir_key: &str, counts: (usize, usize)| {
        let group = format!("nostr_encode_{name}");
        let t = |f: &str| outputs::criterion_median_ns(target_dir, &group, f).ok();
        let i = |f: &str| ir.get(&format!("{f}/{ir_key}")).map(|&v| v as f64);
        let suffix = if name.starts_with("relay_") {
            "relay"
        } else {
            "req"
        };
        let (pi, qi) = (
            i(&format!("peer_encode_{suffix}")),
            i(&format!("quarry_encode_{suffix}")),
        );
        let _ = writeln!(
            md,
            "| {name} | {bytes} | {} | {} | {} | {} | {} | {} | {} / {} |",
            ratio(t("quarry"), t("peer")),
            ratio(qi, pi),
            fmt(t("peer")),
            fmt(t("quarry")),
            fmt(pi),
            fmt(qi),
            counts.0,
            counts.1,
        );
    };
    for shape in n::SHAPES {
        let (peer, quarry) = (n::peer_relay_message(shape), n::quarry_relay_message(shape));
        n::peer_encode_relay(peer);
        n::quarry_encode_relay(&quarry);
        let counts = (
            allocations_of(|| n::peer_encode_relay(peer)),
            allocations_of(|| n::quarry_encode_relay(&quarry)),
        );
        row(
            format!("relay_{shape}"),
            n::message(shape).len(),
            shape,
            counts,
        );
    }
    for shape in n::REQ_SHAPES {
        let (peer, quarry) = (n::peer_req_message(shape), n::quarry_req_message(shape));
        n::peer_encode_req(peer);
        n::quarry_encode_req(&quarry);
        let counts = (
            allocations_of(|| n::peer_encode_req(peer)),
            allocations_of(|| n::quarry_encode_req(&quarry)),
        );
        row(shape.to_string(), n::req(shape).len(), shape, counts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The encode benches compare like with like only if both sides write
    /// the same JSON for the same event.
    #[test]
    fn both_encoders_write_the_same_json() {
        for shape in n::SHAPES {
            let peer = n::peer_event(shape).as_json();
            let mut quarry = Vec::new();
            n::quarry_event(shape).encode_into(&mut quarry);
            assert_eq!(String::from_utf8(quarry).unwrap(), peer, "{shape}");
        }
    }

    /// The message encode benches compare like with like only if both sides
    /// write the same JSON, and that JSON is the sample both decoded.
    /// The build benches compare like with like only if both sides build,
    /// sign and write the same event.
    #[test]
    fn both_builders_write_the_same_signed_event() {
        for shape in n::SHAPES {
            let input = n::build_input(shape);
            let arena = quarry_core::Arena::new();
            let mut ours = Vec::new();
            n::quarry_build_sign_encode(&arena, &input, &mut ours);
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                n::peer_build_json(&input),
                "{shape}"
            );
        }
    }

    #[test]
    fn both_encoders_write_each_message_as_it_was_read() {
        for shape in n::SHAPES {
            let want = String::from_utf8(n::message(shape)).unwrap();
            assert_eq!(n::peer_relay_message(shape).as_json(), want, "{shape}");
            let mut quarry = Vec::new();
            n::quarry_relay_message(shape).encode_into(&mut quarry);
            assert_eq!(String::from_utf8(quarry).unwrap(), want, "{shape}");
        }
        for shape in n::REQ_SHAPES {
            let want = String::from_utf8(n::req(shape)).unwrap();
            assert_eq!(n::peer_req_message(shape).as_json(), want, "{shape}");
            let mut quarry = Vec::new();
            n::quarry_req_message(shape).encode_into(&mut quarry);
            assert_eq!(String::from_utf8(quarry).unwrap(), want, "{shape}");
        }
    }

    /// The REQ benches compare like with like only if both sides read the
    /// same subscription: the same filters, each with the same lists.
    #[test]
    fn both_decoders_read_the_same_reqs() {
        for shape in n::REQ_SHAPES {
            let bytes = n::req(shape);
            let Ok(nostr::message::ClientMessage::Req { filters: peer, .. }) =
                nostr::message::ClientMessage::from_json(&bytes)
            else {
                panic!("{shape}: rust-nostr does not read it as a REQ");
            };
            let arena = Arena::new();
            let Ok(quarry_nostr::ClientMessage::Req { filters, .. }) =
                n::VERIFY.decode_client_message(&arena, &bytes)
            else {
                panic!("{shape}: quarry does not read it as a REQ");
            };
            assert_eq!(filters.len(), peer.len(), "{shape}");
            for (q, p) in filters.iter().zip(&peer) {
                let set =
                    |l: Option<&[[u8; 32]]>| l.map(|l| l.iter().copied().collect::<BTreeSet<_>>());
                let ids = p
                    .ids
                    .as_ref()
                    .map(|s| s.iter().map(|i| i.to_bytes()).collect());
                assert_eq!(set(q.ids()), ids, "{shape}: ids");
                let authors = p
                    .authors
                    .as_ref()
                    .map(|s| s.iter().map(|a| a.to_bytes()).collect());
                assert_eq!(set(q.authors()), authors, "{shape}: authors");
                let kinds = p
                    .kinds
                    .as_ref()
                    .map(|s| s.iter().map(|k| k.as_u16()).collect::<BTreeSet<_>>());
                assert_eq!(
                    q.kinds().map(|k| k.iter().copied().collect()),
                    kinds,
                    "{shape}: kinds"
                );
                assert_eq!(q.since(), p.since.map(|t| t.as_secs()), "{shape}: since");
                assert_eq!(q.limit(), p.limit.map(|l| l as u64), "{shape}: limit");
                let tags: BTreeMap<u8, BTreeSet<&str>> = q
                    .tag_lists()
                    .map(|(letter, values)| (letter, values.iter().copied().collect()))
                    .collect();
                let peer_tags: BTreeMap<u8, BTreeSet<&str>> = p
                    .generic_tags
                    .iter()
                    .map(|(t, v)| (t.as_char() as u8, v.iter().map(String::as_str).collect()))
                    .collect();
                assert_eq!(tags, peer_tags, "{shape}: tags");
            }
        }
    }
}
