//! Load test of the relay with a client quarry did not write (nostr-sdk),
//! `--decoder quarry` against `--decoder nostr`: the same server binary,
//! the same pre-signed events, in the same run, rounds alternating.
//!
//! ```sh
//! cargo bench -p quarry-server --bench load
//! cargo bench -p quarry-server --bench load -- --rounds 5 --clients 4 --events 2500 --verify-sig
//! ```
//!
//! Each run starts the server (`quarry-server`, a separate process, so its
//! counting allocator and `VmHWM` see the server alone), connects
//! `--clients` nostr-sdk clients on loopback, warms up with `--warmup`
//! EVENTs per client, then each client publishes `--events` new EVENTs one
//! after another, timing each `send_event` (sent until the relay's OK is
//! in). Bounded: at most `--events` per client and `--seconds` per run.
//! The server reports, through its `--stats-stdin` line before and after
//! the measured phase: messages, allocations in the decode path, all its
//! allocations, its CPU time (user + system), and its peak RSS.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use nostr_sdk::prelude::*;
use serde_json::Value;

#[derive(Clone, Debug)]
struct Args {
    rounds: usize,
    clients: usize,
    warmup: usize,
    events: usize,
    seconds: u64,
    verify_sig: bool,
    out: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        rounds: 5,
        clients: 4,
        warmup: 500,
        events: 10_000,
        seconds: 30,
        verify_sig: false,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut num = |name: &str| -> usize {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match a.as_str() {
            "--rounds" => args.rounds = num("--rounds"),
            "--clients" => args.clients = num("--clients"),
            "--warmup" => args.warmup = num("--warmup"),
            "--events" => args.events = num("--events"),
            "--seconds" => args.seconds = num("--seconds") as u64,
            "--verify-sig" => args.verify_sig = true,
            "--out" => args.out = it.next(),
            // cargo bench passes --bench; nothing else is expected.
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    args
}

/// The server process and its control line.
struct ServerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    url: String,
}

impl ServerProcess {
    fn start(decoder: &str, args: &Args) -> Self {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_quarry-server"));
        // Default settings otherwise: the store keeps the newest 10,000
        // events, for both decoders alike.
        cmd.args(["--decoder", decoder, "--stats-stdin", "--no-wa"])
            .args(["--relay-addr", "127.0.0.1:0"]);
        if args.verify_sig {
            cmd.arg("--verify-sig");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starts quarry-server");
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut url = None;
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).expect("reads") > 0,
                "server exited"
            );
            if let Some(rest) = line.strip_prefix("relay ") {
                url = rest.split_whitespace().next().map(str::to_owned);
            }
            if line.trim() == "ready" {
                break;
            }
        }
        Self {
            child,
            stdin,
            stdout,
            url: url.expect("the server prints its address"),
        }
    }

    fn stats(&mut self) -> Value {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(b"stats\n").expect("writes");
        stdin.flush().expect("flushes");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("reads");
        serde_json::from_str(&line).expect("a JSON stats line")
    }

    fn stop(mut self) {
        drop(self.stdin.take()); // end of stdin: the server exits
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// 64 hex digits from a counter (tag values only; they need not exist).
fn fake_id(n: u64) -> String {
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    (0..4)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("{x:016x}")
        })
        .collect()
}

/// Three shapes, in turn: a plain note (no tags, ~280 chars), a reply
/// (2 e-tags with markers, 3 p-tags, 1 t-tag; ~200 chars), a thread post
/// (2 e, 8 p, 2 t; ~600 chars). Content escapes a quote and a newline.
fn make_event(keys: &Keys, n: u64) -> Event {
    let tag = |parts: &[&str]| Tag::parse(parts.iter().copied()).expect("a tag");
    let (content_len, e, p, t) = match n % 3 {
        0 => (280, 0, 0, 0),
        1 => (200, 2, 3, 1),
        _ => (600, 2, 8, 2),
    };
    let mut tags = Vec::new();
    for i in 0..e {
        let marker = if i == 0 { "root" } else { "reply" };
        tags.push(tag(&["e", &fake_id(n * 31 + i), "", marker]));
    }
    for i in 0..p {
        tags.push(tag(&["p", &fake_id(n * 37 + 100 + i)]));
    }
    for i in 0..t {
        tags.push(tag(&["t", ["nostr", "quarry"][i as usize % 2]]));
    }
    let mut content = format!("note {n}: \"quoted\"\nand ");
    while content.len() < content_len {
        content.push_str("the quick brown fox jumps over the lazy dog ");
    }
    content.truncate(content_len);
    EventBuilder::text_note(content)
        .tags(tags)
        .sign_with_keys(keys)
        .expect("signs")
}

struct ClientEvents {
    keys: Keys,
    warmup: Vec<Event>,
    measured: Vec<Event>,
}

fn prepare(args: &Args) -> Vec<ClientEvents> {
    (0..args.clients)
        .map(|c| {
            let keys = Keys::generate();
            let base = (c * (args.warmup + args.events)) as u64;
            let all: Vec<Event> = (0..(args.warmup + args.events) as u64)
                .map(|i| make_event(&keys, base + i))
                .collect();
            let (warmup, measured) = all.split_at(args.warmup);
            ClientEvents {
                keys,
                warmup: warmup.to_vec(),
                measured: measured.to_vec(),
            }
        })
        .collect()
}

#[derive(Clone, Debug)]
struct RunResult {
    decoder: &'static str,
    requests: u64,
    seconds: f64,
    p50_us: f64,
    p99_us: f64,
    cpu_us: f64,
    decode_allocs_sum: u64,
    decode_allocs: f64,
    total_allocs: f64,
    peak_rss_kib: u64,
    accepted: u64,
    failed: usize,
}

impl RunResult {
    fn rps(&self) -> f64 {
        self.requests as f64 / self.seconds
    }
}

async fn connect(url: &str, keys: &Keys) -> Client {
    let client = Client::new(keys.clone());
    client.add_relay(url).await.expect("adds the relay");
    client.connect().await;
    client.wait_for_connection(Duration::from_secs(10)).await;
    client
}

async fn publish(client: &Client, events: &[Event], deadline: Instant) -> (Vec<Duration>, usize) {
    let mut latencies = Vec::with_capacity(events.len());
    let mut failed = 0;
    for event in events {
        if Instant::now() >= deadline {
            break;
        }
        let start = Instant::now();
        let ok = matches!(client.send_event(event).await, Ok(o) if !o.success.is_empty());
        latencies.push(start.elapsed());
        failed += usize::from(!ok);
    }
    (latencies, failed)
}

fn run(
    rt: &tokio::runtime::Runtime,
    decoder: &'static str,
    args: &Args,
    data: &[ClientEvents],
) -> RunResult {
    let mut server = ServerProcess::start(decoder, args);
    let url = server.url.clone();
    let clients: Vec<Client> = rt.block_on(async {
        let mut clients = Vec::new();
        for d in data {
            clients.push(connect(&url, &d.keys).await);
        }
        clients
    });
    let far = Instant::now() + Duration::from_secs(args.seconds);
    rt.block_on(async {
        let tasks: Vec<_> = clients
            .iter()
            .zip(data)
            .map(|(c, d)| {
                let (c, events) = (c.clone(), d.warmup.clone());
                tokio::spawn(async move { publish(&c, &events, far).await })
            })
            .collect();
        for t in tasks {
            t.await.expect("warm-up task");
        }
    });
    let before = server.stats();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let results: Vec<(Vec<Duration>, usize)> = rt.block_on(async {
        let tasks: Vec<_> = clients
            .iter()
            .zip(data)
            .map(|(c, d)| {
                let (c, events) = (c.clone(), d.measured.clone());
                tokio::spawn(async move { publish(&c, &events, deadline).await })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.expect("measured task"));
        }
        out
    });
    let seconds = started.elapsed().as_secs_f64();
    let after = server.stats();
    rt.block_on(async {
        for c in &clients {
            c.shutdown().await;
        }
    });
    server.stop();

    let mut latencies: Vec<Duration> = results.iter().flat_map(|r| r.0.iter().copied()).collect();
    let failed = results.iter().map(|r| r.1).sum();
    latencies.sort_unstable();
    let pct = |p: f64| {
        let i = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    let delta = |k: &str| after[k].as_u64().unwrap_or(0) - before[k].as_u64().unwrap_or(0);
    let messages = delta("messages");
    assert!(
        after["counting"].as_bool().unwrap_or(false),
        "the server counts allocations"
    );
    RunResult {
        decoder,
        requests: latencies.len() as u64,
        seconds,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        cpu_us: delta("cpu_ms") as f64 * 1000.0 / messages.max(1) as f64,
        decode_allocs_sum: delta("decode_allocs"),
        decode_allocs: delta("decode_allocs") as f64 / messages.max(1) as f64,
        total_allocs: delta("process_allocs") as f64 / messages.max(1) as f64,
        peak_rss_kib: after["vm_hwm_kib"].as_u64().unwrap_or(0),
        accepted: delta("events_accepted"),
        failed,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} cores")
}

fn main() {
    let args = parse_args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    eprintln!("load: {args:?}");
    eprintln!("machine: {}", machine());
    let t0 = Instant::now();
    let data = prepare(&args);
    eprintln!(
        "signed {} events in {:.1} s",
        data.len() * (args.warmup + args.events),
        t0.elapsed().as_secs_f64()
    );

    let mut runs: Vec<RunResult> = Vec::new();
    for round in 0..args.rounds {
        // Alternate which decoder goes first, so drift on a shared machine
        // does not always favour the same one.
        let order = if round % 2 == 0 {
            ["quarry", "nostr"]
        } else {
            ["nostr", "quarry"]
        };
        for decoder in order {
            let r = run(&rt, decoder, &args, &data);
            println!(
                "round {} {:6}: {} req in {:.2} s = {:.0} req/s, p50 {:.0} us, p99 {:.0} us, \
                 server CPU {:.1} us/req, decode allocs/req {:.3} ({} in all), total allocs/req {:.1}, peak RSS {:.1} MiB, accepted {}, failed {}",
                round + 1,
                r.decoder,
                r.requests,
                r.seconds,
                r.rps(),
                r.p50_us,
                r.p99_us,
                r.cpu_us,
                r.decode_allocs,
                r.decode_allocs_sum,
                r.total_allocs,
                r.peak_rss_kib as f64 / 1024.0,
                r.accepted,
                r.failed
            );
            runs.push(r);
        }
    }

    let mut table = String::new();
    table.push_str(
        "| decoder | requests/s | p50 latency | p99 latency | server CPU/request | allocs/request, decode path | allocs/request, server total | server peak RSS (VmHWM) |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for decoder in ["quarry", "nostr"] {
        let mine: Vec<&RunResult> = runs.iter().filter(|r| r.decoder == decoder).collect();
        let m = |f: &dyn Fn(&RunResult) -> f64| median(mine.iter().map(|r| f(r)).collect());
        table.push_str(&format!(
            "| {decoder} | {:.0} | {:.0} µs | {:.0} µs | {:.1} µs | {:.2} | {:.1} | {:.1} MiB |\n",
            m(&|r| r.rps()),
            m(&|r| r.p50_us),
            m(&|r| r.p99_us),
            m(&|r| r.cpu_us),
            m(&|r| r.decode_allocs),
            m(&|r| r.total_allocs),
            m(&|r| r.peak_rss_kib as f64) / 1024.0,
        ));
    }
    println!(
        "\nmedians of {} rounds, {} clients x {} events (after {} warm-up each), verify_sig={}\n{}",
        args.rounds, args.clients, args.events, args.warmup, args.verify_sig, table
    );
    if let Some(path) = &args.out {
        std::fs::write(path, &table).expect("writes --out");
    }
}
