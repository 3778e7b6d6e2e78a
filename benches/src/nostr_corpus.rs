//! A Nostr benchmark corpus shaped like relay traffic: a fixed stream of
//! [`EVENTS`] `["EVENT","sub1",<event>]` relay messages whose kinds, tag
//! counts and tag shapes, content lengths, non-ASCII share and escapes
//! follow what was measured on a capture of real relay traffic (nostrdb's
//! test events, 722 distinct events, kept outside the repository; only the
//! parameters below come from it). Every event is built, signed (Schnorr,
//! real keys) and serialized by rust-nostr (`nostr` 0.45), so quarry and the
//! peer read the very same bytes. The stream is deterministic: a fixed-seed
//! PRNG of our own ([`Rng`]) draws the choices, while each kind's content
//! lengths and tag counts are spread evenly over the measured quantiles
//! (stratified, from the least to the most) and the shares of events with
//! non-ASCII text or newlines are spread evenly over each kind, so the
//! corpus follows the measured distribution by construction rather than by
//! chance.
//!
//! Measured real (r) against generated (g), per kind. Tags and content are
//! per event (content in UTF-8 bytes); escapes are the wire escapes per
//! event over the whole event JSON (`\n`, `\"`, `\\`, `\uXXXX`); non-ASCII
//! is the share of events whose content has a byte above 0x7F; bytes is the
//! event JSON per event. The `corpus_matches_the_measured_distribution`
//! test recomputes the generated side and checks it against the real one.
//!
//! | kind | events r / g | tags mean r / g | tags p50, max r / g | content p50 r / g | content mean r / g | non-ASCII r / g | `\n` r / g | `\"` r / g | `\\` r / g | `\u` r / g | bytes mean r / g |
//! |---|---|---|---|---|---|---|---|---|---|---|---|
//! | 0 (profile) | 507 / 507 | 0.05 / 0.07 | 0, 3 / 0, 3 | 373 / 376 | 432 / 434 | 34% / 34% | 0 / 0 | 33.93 / 33.15 | 1.36 / 1.40 | 0 / 0 | 807 / 813 |
//! | 1 (note) | 114 / 114 | 3.8 / 3.8 | 3, 14 / 3, 14 | 66 / 67 | 128 / 139 | 15% / 15% | 1.35 / 1.34 | 0.18 / 0.18 | 0 / 0 | 0 / 0 | 875 / 855 |
//! | 3 (contacts) | 3 / 3 | 532 / 532 | 786, 792 / 786, 792 | 409 / 402 | 273 / 268 | 0% / 0% | 0 / 0 | 32.00 / 32.00 | 0 / 0 | 0 / 0 | 39052 / 39176 |
//! | 6 (repost) | 2 / 2 | 2.0 / 2.0 | 2, 2 / 2, 2 | 465 / 443 | 464 / 441 | 0% / 0% | 0 / 0 | 22.00 / 22.00 | 3.50 / 3.50 | 0 / 0 | 981 / 958 |
//! | 7 (reaction) | 96 / 96 | 2.7 / 2.5 | 2, 7 / 2, 7 | 1 / 1 | 2 / 2 | 41% / 41% | 0 / 0 | 0 / 0 | 0 / 0 | 0 / 0 | 576 / 550 |
//! | all | 722 / 722 | 3.2 / 3.2 | 0, 792 / 0, 792 | 300 / 304 | 326 / 329 | 32% / 31% | 0.21 / 0.21 | 24.05 / 23.50 | 0.96 / 0.99 | 0 / 0 | 946 / 945 |
//!
//! The real capture has no `\uXXXX` escapes (rust-nostr, like most
//! clients, writes non-ASCII text as raw UTF-8), and neither has the corpus.

use nostr::event::{Event, Kind, Tag, UnsignedEvent};
use nostr::key::Keys;
use nostr::types::Timestamp;

use crate::rng::Rng;

/// Events in the corpus, as in the measured capture.
pub const EVENTS: usize = 722;

/// Events per kind, as measured: profiles (0), notes (1), contact lists
/// (3), reposts (6), reactions (7).
pub const KINDS: [(u16, usize); 5] = [(0, 507), (1, 114), (3, 3), (6, 2), (7, 96)];

/// Measured quantiles `(q, value)` of one quantity; [`quantile`] reads
/// them piecewise-linearly.
type Quantiles = &'static [(f64, f64)];

/// Kind 0 content bytes: deciles, then the tail.
const PROFILE_CONTENT: Quantiles = &[
    (0.0, 12.0),
    (0.1, 163.0),
    (0.2, 240.0),
    (0.3, 294.0),
    (0.4, 339.0),
    (0.5, 373.0),
    (0.6, 420.0),
    (0.7, 459.0),
    (0.8, 510.0),
    (0.9, 567.0),
    (0.95, 634.0),
    (0.98, 694.0),
    (0.99, 838.0),
    (0.996, 2634.0),
    (0.998, 3042.0),
    (1.0, 23932.0),
];
/// Kind 0 tag counts (4% of profiles carry 1 to 3 tags).
const PROFILE_TAGS: Quantiles = &[(0.0, 0.0), (0.96, 0.0), (0.97, 1.0), (1.0, 3.0)];
/// Kind 1 content bytes.
const NOTE_CONTENT: Quantiles = &[
    (0.0, 4.0),
    (0.1, 16.0),
    (0.2, 25.0),
    (0.3, 36.0),
    (0.4, 47.0),
    (0.5, 66.0),
    (0.6, 83.0),
    (0.7, 108.0),
    (0.8, 185.0),
    (0.9, 277.0),
    (0.95, 371.0),
    (0.98, 977.0),
    (0.99, 1032.0),
    (1.0, 1630.0),
];
/// Kind 1 tag counts.
const NOTE_TAGS: Quantiles = &[
    (0.0, 0.0),
    (0.1, 2.0),
    (0.3, 2.0),
    (0.4, 3.0),
    (0.55, 3.0),
    (0.6, 4.0),
    (0.7, 5.0),
    (0.8, 5.0),
    (0.9, 7.0),
    (0.99, 10.0),
    (1.0, 14.0),
];
/// Kind 7 tag counts.
const REACTION_TAGS: Quantiles = &[
    (0.0, 2.0),
    (0.65, 2.0),
    (0.7, 3.0),
    (0.85, 3.0),
    (0.9, 4.0),
    (0.99, 5.0),
    (1.0, 7.0),
];

/// The value at quantile `u` of `q`.
fn quantile(q: Quantiles, u: f64) -> f64 {
    let mut prev = q[0];
    for &(p, v) in q {
        if u <= p {
            if p <= prev.0 {
                return v;
            }
            return prev.1 + (v - prev.1) * (u - prev.0) / (p - prev.0);
        }
        prev = (p, v);
    }
    prev.1
}

/// Tag shapes `(weight, name, elements)` per kind, weighted by how often
/// each appeared in the capture.
const NOTE_TAG_SHAPES: &[(u32, &str, usize)] = &[
    (109, "e", 5),
    (95, "p", 3),
    (49, "e", 4),
    (48, "r", 2),
    (45, "p", 2),
    (40, "p", 4),
    (26, "alt", 2),
    (5, "client", 3),
    (4, "nonce", 3),
    (3, "q", 4),
    (3, "imeta", 5),
    (3, "r", 3),
];
const REACTION_TAG_SHAPES: &[(u32, &str, usize)] = &[
    (88, "p", 2),
    (76, "e", 2),
    (23, "e", 4),
    (23, "p", 3),
    (19, "k", 2),
    (18, "e", 5),
    (8, "p", 4),
    (3, "client", 3),
    (3, "e", 3),
];
const PROFILE_TAG_SHAPES: &[(u32, &str, usize)] = &[
    (10, "i", 3),
    (5, "client", 2),
    (3, "mostr", 2),
    (2, "t", 2),
    (2, "nonce", 3),
];

const RELAYS: &[&str] = &[
    "wss://relay.damus.io",
    "wss://nos.lol",
    "wss://relay.primal.net/",
    "wss://nostr.wine/",
    "wss://nostr-pub.wellorder.net",
    "wss://relay.nostr.band",
];
const WORDS: &[&str] = &[
    "the",
    "a",
    "nostr",
    "bitcoin",
    "relay",
    "is",
    "to",
    "and",
    "of",
    "good",
    "morning",
    "zaps",
    "this",
    "just",
    "I",
    "you",
    "we",
    "it",
    "on",
    "for",
    "with",
    "client",
    "note",
    "why",
    "how",
    "freedom",
    "protocol",
    "keys",
    "lightning",
    "sats",
    "build",
    "open",
    "source",
    "people",
    "more",
    "today",
    "gm",
    "pv",
    "cool",
    "thanks",
    "love",
    "think",
    "new",
    "app",
];
const NON_ASCII: &[&str] = &[
    "café",
    "naïve",
    "🤙",
    "⚡",
    "日本語",
    "Привет",
    "🪼",
    "señor",
    "💜",
    "über",
    "🫂",
];
const REACTIONS: &[&str] = &["🤙", "❤️", "🔥", "⚡", "🫂", "💜"];

fn hex(rng: &mut Rng, bytes: usize) -> String {
    (0..bytes)
        .map(|_| format!("{:02x}", rng.next_u64() as u8))
        .collect()
}

/// ASCII words (with an occasional non-ASCII one when `non_ascii`) up to
/// about `len` bytes.
fn text(rng: &mut Rng, len: usize, non_ascii: bool) -> String {
    let mut s = String::with_capacity(len + 16);
    let mut placed = !non_ascii;
    while s.len() < len {
        if !s.is_empty() {
            s.push(' ');
        }
        if !placed && (rng.chance(0.3) || s.len() + 12 >= len) {
            let word: &&str = rng.pick(NON_ASCII);
            s.push_str(word);
            placed = true;
        } else {
            let word: &&str = rng.pick(WORDS);
            s.push_str(word);
        }
    }
    s
}

/// `s` with `n` of its spaces turned into newlines, spread evenly.
fn with_newlines(s: String, n: usize) -> String {
    let spaces: Vec<usize> = s.match_indices(' ').map(|(i, _)| i).collect();
    if spaces.is_empty() || n == 0 {
        return s;
    }
    let mut bytes = s.into_bytes();
    for k in 0..n.min(spaces.len()) {
        bytes[spaces[(k * spaces.len()) / n.min(spaces.len())]] = b'\n';
    }
    String::from_utf8(bytes).expect("spaces swapped for newlines")
}

fn tag(rng: &mut Rng, name: &str, elements: usize) -> Vec<String> {
    let mut t = vec![name.to_string()];
    let push = |t: &mut Vec<String>, v: String| {
        if t.len() < elements {
            t.push(v);
        }
    };
    match name {
        "e" | "p" | "q" => {
            push(&mut t, hex(rng, 32));
            let relay = if rng.chance(0.3) {
                String::new()
            } else {
                rng.pick(RELAYS).to_string()
            };
            push(&mut t, relay);
            let fourth = match name {
                "e" => rng.pick(&["root", "reply", "mention", ""]).to_string(),
                "p" => rng.pick(&["alice", "bob", "", "carol"]).to_string(),
                _ => hex(rng, 32),
            };
            push(&mut t, fourth);
            push(&mut t, hex(rng, 32));
        }
        "r" => {
            push(&mut t, rng.pick(RELAYS).to_string());
            push(&mut t, rng.pick(&["read", "write"]).to_string());
        }
        "alt" => push(&mut t, "A short note: reply to a thread".to_string()),
        "k" => push(&mut t, "1".to_string()),
        "client" => {
            push(
                &mut t,
                rng.pick(&["Damus", "Amethyst", "Primal"]).to_string(),
            );
            push(
                &mut t,
                format!("31990:{}:{}", hex(rng, 32), rng.next_u64() % 100_000),
            );
        }
        "nonce" => {
            push(&mut t, (rng.next_u64() % 10_000_000).to_string());
            push(&mut t, "20".to_string());
        }
        "imeta" => {
            push(
                &mut t,
                format!("url https://image.nostr.build/{}.jpg", hex(rng, 32)),
            );
            push(&mut t, "m image/jpeg".to_string());
            push(&mut t, "dim 1024x768".to_string());
            push(&mut t, format!("x {}", hex(rng, 32)));
        }
        "i" => {
            push(&mut t, "github:someone".to_string());
            push(&mut t, hex(rng, 16));
        }
        "mostr" => push(&mut t, "https://mastodon.social/users/someone".to_string()),
        _ => push(&mut t, rng.pick(&["bitcoin", "nostr", "zap"]).to_string()),
    }
    while t.len() < elements {
        t.push(String::new());
    }
    t
}

fn tags(rng: &mut Rng, count: usize, shapes: &[(u32, &str, usize)]) -> Vec<Vec<String>> {
    let total: u32 = shapes.iter().map(|s| s.0).sum();
    (0..count)
        .map(|_| {
            let mut w = (rng.next_u64() % u64::from(total)) as u32;
            let &(_, name, elements) = shapes
                .iter()
                .find(|s| {
                    if w < s.0 {
                        true
                    } else {
                        w -= s.0;
                        false
                    }
                })
                .expect("w < total");
            tag(rng, name, elements)
        })
        .collect()
}

/// A JSON string literal of `s` (quotes, backslashes and newlines
/// escaped), for the JSON that profiles and contact lists carry as content.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Kind 0 content: a profile object of about `len` bytes, fields in the
/// measured order of frequency, `about` taking up the rest.
fn profile(rng: &mut Rng, len: usize, non_ascii: bool, newlines: usize) -> String {
    let name = format!("user{}", rng.next_u64() % 100_000);
    let display = if non_ascii {
        format!("{} {}", name, rng.pick(NON_ASCII))
    } else {
        name.to_uppercase()
    };
    let optional: [(&str, String); 10] = [
        ("display_name", display),
        (
            "picture",
            format!("https://nostr.build/i/{}.jpg", hex(rng, 32)),
        ),
        ("website", format!("https://{name}.example.com")),
        ("nip05", format!("{name}@example.com")),
        ("lud16", format!("{name}@walletofsatoshi.com")),
        (
            "banner",
            format!("https://image.nostr.build/{}.png", hex(rng, 24)),
        ),
        (
            "lud06",
            format!("LNURL1DP68GURN8GHJ7{}", hex(rng, 50).to_uppercase()),
        ),
        ("displayName", name.clone()),
        ("username", name.clone()),
        ("nip05valid", "true".to_string()),
    ];
    let mut fields = vec![("name", name.clone())];
    let mut used = 12 + name.len();
    for (key, value) in optional {
        let add = key.len() + value.len() + 6;
        if used + add + 24 > len {
            continue;
        }
        used += add;
        fields.push((key, value));
    }
    if len > used + 12 {
        let about = text(rng, len - used - 12, non_ascii);
        fields.insert(1, ("about", with_newlines(about, newlines)));
    }
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{}", json_str(k), json_str(v)))
        .collect();
    format!("{{{}}}", body.join(","))
}

/// Whether the `nth` event of a kind is among the `pct` percent that
/// have some feature: spread evenly over the kind (so over content lengths,
/// which follow `nth`), not drawn.
fn share(nth: usize, pct: usize) -> bool {
    (nth * 37 + 11) % 100 < pct
}

/// One event of `kind`; `u` (content length) and `u2` (tag count) are its
/// stratified quantiles within its kind, `nth` its index there.
fn event(rng: &mut Rng, keys: &[Keys], kind: u16, (u, u2): (f64, f64), nth: usize) -> Event {
    let (tags, content) = match kind {
        0 => {
            let len = quantile(PROFILE_CONTENT, u) as usize;
            let non_ascii = share(nth, 34);
            let newlines = if share(nth + 50, 45) {
                1 + rng.below(8)
            } else {
                0
            };
            let n = quantile(PROFILE_TAGS, u2).round() as usize;
            (
                tags(rng, n, PROFILE_TAG_SHAPES),
                profile(rng, len, non_ascii, newlines),
            )
        }
        1 => {
            let len = quantile(NOTE_CONTENT, u) as usize;
            let n = quantile(NOTE_TAGS, u2).round() as usize;
            let non_ascii = share(nth, 15);
            let mut content = text(rng, len, non_ascii);
            if share(nth + 50, 50) {
                content = with_newlines(content, 1 + rng.below(5));
            }
            if nth % 11 == 5 {
                content.push_str(" \"quoted\"");
            }
            (tags(rng, n, NOTE_TAG_SHAPES), content)
        }
        3 => {
            let (n, relays) = [(786, true), (792, true), (18, false)][nth % 3];
            let mut t: Vec<Vec<String>> = (0..n)
                .map(|i| {
                    let mut p = vec!["p".to_string(), hex(rng, 32)];
                    if i % 97 == 3 {
                        p.push(rng.pick(RELAYS).to_string());
                    }
                    p
                })
                .collect();
            for k in 0..(n / 66) {
                t[k * 60 + 1] = vec!["t".to_string(), format!("topic{k}")];
            }
            let content = if relays {
                let rw = r#"{"write":true,"read":true}"#;
                let body: Vec<String> = [
                    "wss://nos.lol",
                    "wss://relay.damus.io",
                    "ws://monad.example.com:8080",
                    "wss://nostr.wine",
                    "wss://relay.nostr.band",
                    "wss://purplepag.es",
                    "wss://relay.snort.social",
                    "wss://eden.nostr.land",
                ]
                .iter()
                .map(|r| format!("{}:{rw}", json_str(r)))
                .collect();
                format!("{{{}}}", body.join(","))
            } else {
                String::new()
            };
            (t, content)
        }
        6 => {
            let id = hex(rng, 32);
            let pk = hex(rng, 32);
            let inner = format!(
                r#"{{"id":"{id}","pubkey":"{pk}","created_at":1761514374,"kind":1,"tags":[],"content":"{}","sig":"{}"}}"#,
                if nth == 0 {
                    "this seems odd?\\n\\nhttps://blossom.primal.net/a1c8e0f7.jpg\\nwhat do you think, anyone seen it before?"
                } else {
                    "this seems odd?\\n\\nhttps://blossom.primal.net/a1c8e0f7.jpg\\n\\nwhat do you think, anyone seen it?"
                },
                hex(rng, 64),
            );
            let e = if nth == 0 {
                vec!["e".to_string(), id]
            } else {
                vec!["e".into(), id, String::new(), "root".into()]
            };
            (vec![e, vec!["p".to_string(), pk]], inner)
        }
        _ => {
            let content = if share(nth, 41) {
                rng.pick(REACTIONS).to_string()
            } else {
                rng.pick(&["+", "+", "+", "-"]).to_string()
            };
            let n = quantile(REACTION_TAGS, u2).round() as usize;
            (tags(rng, n, REACTION_TAG_SHAPES), content)
        }
    };
    let keys = rng.pick(keys);
    let tags: Vec<Tag> = tags
        .into_iter()
        .map(|t| Tag::parse(t).expect("a tag has a name"))
        .collect();
    let created_at = 1_690_000_000 + rng.next_u64() % 80_000_000;
    let unsigned = UnsignedEvent::new(
        keys.public_key(),
        Timestamp::from_secs(created_at),
        Kind::from_u16(kind),
        tags,
        content,
    );
    let id = unsigned.compute_id();
    let secp: &secp256k1::Secp256k1<secp256k1::All> = secp256k1::global::SECP256K1;
    let aux = rng.next_u64().to_le_bytes().repeat(4);
    let aux: [u8; 32] = aux.try_into().expect("32 bytes");
    let sig = keys.sign_schnorr_with_aux_rand(secp, id.as_bytes(), &aux);
    unsigned.add_signature(sig).expect("the id matches")
}

/// The corpus's events, in stream order.
pub fn events() -> Vec<Event> {
    let mut rng = Rng::new(0x5155_4152_5259_0043);
    let keys: Vec<Keys> = (1..=16u8)
        .map(|seed| {
            let mut sk = [0x42u8; 32];
            sk[0] = seed;
            Keys::new(
                secp256k1::SecretKey::from_byte_array(&sk)
                    .expect("a valid key")
                    .into(),
            )
        })
        .collect();
    // (kind, stratified quantile, index within kind), shuffled into a stream.
    // Tag counts take their own stratified order, independent of lengths.
    let mut plan: Vec<(u16, (f64, f64), usize)> = Vec::with_capacity(EVENTS);
    for (kind, count) in KINDS {
        let mut order: Vec<usize> = (0..count).collect();
        rng.shuffle(&mut order);
        for (i, &j) in order.iter().enumerate() {
            let last = (count - 1).max(1) as f64;
            let (u, u2) = (i as f64 / last, j as f64 / last);
            plan.push((kind, (u, u2), i));
        }
    }
    rng.shuffle(&mut plan);
    plan.into_iter()
        .map(|(kind, u, nth)| event(&mut rng, &keys, kind, u, nth))
        .collect()
}

/// The corpus as a relay sends it: each event as
/// `["EVENT","sub1",<event>]`, serialized by rust-nostr.
pub fn messages() -> Vec<Vec<u8>> {
    events()
        .iter()
        .map(|e| format!(r#"["EVENT","sub1",{}]"#, e.as_json()).into_bytes())
        .collect()
}

/// The measured figures of one kind (or of all events), as in the table of
/// the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct KindStats {
    /// Events.
    pub events: usize,
    /// Mean tags per event.
    pub tags_mean: f64,
    /// Median tags per event.
    pub tags_p50: usize,
    /// Most tags on one event.
    pub tags_max: usize,
    /// Median content bytes.
    pub content_p50: usize,
    /// Mean content bytes.
    pub content_mean: f64,
    /// Share of events whose content has a non-ASCII byte.
    pub non_ascii: f64,
    /// Wire escapes per event: `\n`, `\"`, `\\`, `\u`.
    pub escapes: [f64; 4],
    /// Mean event JSON bytes.
    pub bytes_mean: f64,
}

/// The measured figures of the capture, as the module docs' table gives
/// them, per kind of [`KINDS`] and then over all events.
pub const REAL: [KindStats; 6] = [
    real(
        507,
        0.05,
        0,
        3,
        373,
        432.0,
        0.34,
        [0.0, 33.93, 1.36, 0.0],
        807.0,
    ),
    real(
        114,
        3.8,
        3,
        14,
        66,
        128.0,
        0.15,
        [1.35, 0.18, 0.0, 0.0],
        875.0,
    ),
    real(
        3,
        532.0,
        786,
        792,
        409,
        273.0,
        0.0,
        [0.0, 32.0, 0.0, 0.0],
        39052.0,
    ),
    real(2, 2.0, 2, 2, 465, 464.0, 0.0, [0.0, 22.0, 3.5, 0.0], 981.0),
    real(96, 2.68, 2, 7, 1, 2.0, 0.41, [0.0; 4], 576.0),
    real(
        722,
        3.2,
        0,
        792,
        300,
        326.0,
        0.32,
        [0.21, 24.05, 0.96, 0.0],
        946.0,
    ),
];

#[allow(clippy::too_many_arguments)]
const fn real(
    events: usize,
    tags_mean: f64,
    tags_p50: usize,
    tags_max: usize,
    content_p50: usize,
    content_mean: f64,
    non_ascii: f64,
    escapes: [f64; 4],
    bytes_mean: f64,
) -> KindStats {
    KindStats {
        events,
        tags_mean,
        tags_p50,
        tags_max,
        content_p50,
        content_mean,
        non_ascii,
        escapes,
        bytes_mean,
    }
}

/// The figures of `events` (the module docs' definitions), per kind of
/// [`KINDS`] and then over all.
pub fn stats(events: &[Event]) -> Vec<KindStats> {
    let of = |sel: &[&Event]| {
        let n = sel.len().max(1);
        let median = |mut v: Vec<usize>| {
            v.sort_unstable();
            v.get(v.len() / 2).copied().unwrap_or(0)
        };
        let tags: Vec<usize> = sel.iter().map(|e| e.tags.len()).collect();
        let content: Vec<usize> = sel.iter().map(|e| e.content.len()).collect();
        let mut escapes = [0usize; 4];
        let mut bytes = 0;
        for e in sel {
            let json = e.as_json();
            bytes += json.len();
            let b = json.as_bytes();
            let mut i = 0;
            while i + 1 < b.len() {
                if b[i] == b'\\' {
                    match b[i + 1] {
                        b'n' => escapes[0] += 1,
                        b'"' => escapes[1] += 1,
                        b'\\' => escapes[2] += 1,
                        b'u' => escapes[3] += 1,
                        _ => {}
                    }
                    i += 2;
                } else {
                    i += 1;
                }
            }
        }
        KindStats {
            events: sel.len(),
            tags_mean: tags.iter().sum::<usize>() as f64 / n as f64,
            tags_p50: median(tags.clone()),
            tags_max: tags.iter().copied().max().unwrap_or(0),
            content_p50: median(content.clone()),
            content_mean: content.iter().sum::<usize>() as f64 / n as f64,
            non_ascii: sel.iter().filter(|e| !e.content.is_ascii()).count() as f64 / n as f64,
            escapes: escapes.map(|c| c as f64 / n as f64),
            bytes_mean: bytes as f64 / n as f64,
        }
    };
    let mut out: Vec<KindStats> = KINDS
        .iter()
        .map(|&(kind, _)| {
            let sel: Vec<&Event> = events.iter().filter(|e| e.kind.as_u16() == kind).collect();
            of(&sel)
        })
        .collect();
    out.push(of(&events.iter().collect::<Vec<_>>()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within `rel` of `want`, or within `abs` of it for small figures.
    fn close(got: f64, want: f64, rel: f64, abs: f64) -> bool {
        (got - want).abs() <= (want.abs() * rel).max(abs)
    }

    #[test]
    fn corpus_matches_the_measured_distribution() {
        let events = events();
        assert_eq!(events.len(), EVENTS);
        let got = stats(&events);
        let labels = ["0", "1", "3", "6", "7", "all"];
        for (g, label) in got.iter().zip(labels) {
            eprintln!("kind {label}: {g:?}");
        }
        for ((g, r), label) in got.iter().zip(&REAL).zip(labels) {
            assert_eq!(g.events, r.events, "kind {label}: events");
            assert_eq!(g.tags_max, r.tags_max, "kind {label}: most tags");
            assert!(
                g.tags_p50.abs_diff(r.tags_p50) <= 1,
                "kind {label}: median tags"
            );
            assert!(
                close(g.tags_mean, r.tags_mean, 0.1, 0.15),
                "kind {label}: mean tags"
            );
            assert!(
                close(g.content_p50 as f64, r.content_p50 as f64, 0.1, 2.0),
                "kind {label}: median content"
            );
            assert!(
                close(g.content_mean, r.content_mean, 0.1, 2.0),
                "kind {label}: mean content"
            );
            assert!(
                (g.non_ascii - r.non_ascii).abs() <= 0.06,
                "kind {label}: non-ASCII share"
            );
            for (k, (ge, re)) in g.escapes.iter().zip(&r.escapes).enumerate() {
                assert!(close(*ge, *re, 0.15, 0.1), "kind {label}: escape {k}");
            }
            assert!(
                close(g.bytes_mean, r.bytes_mean, 0.1, 0.0),
                "kind {label}: bytes"
            );
        }
    }

    #[test]
    fn the_corpus_is_the_same_on_every_run() {
        assert_eq!(messages()[..20], messages()[..20]);
    }

    #[test]
    fn quantiles_interpolate_between_points() {
        assert_eq!(quantile(NOTE_CONTENT, 0.0), 4.0);
        assert_eq!(quantile(NOTE_CONTENT, 0.05), 10.0);
        assert_eq!(quantile(NOTE_CONTENT, 1.0), 1630.0);
        assert_eq!(quantile(PROFILE_TAGS, 0.5), 0.0);
    }
}
