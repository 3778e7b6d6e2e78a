//! Shared fixtures for the quarry-wa test binaries.
//!
//! The seven stanza shapes are the ones `wacore-binary` 0.7 benchmarks
//! (`benches/binary_benchmark.rs`), rebuilt with that crate's own
//! `NodeBuilder` and marshalled with its own `marshal`, so quarry and the
//! peer decode the very same bytes. `marshal` puts a flags byte in front;
//! [`Fixture::node_bytes`] is what `unmarshal_ref` and `quarry_wa::decode`
//! take.

// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

use wacore_binary::builder::NodeBuilder;
use wacore_binary::marshal::marshal;
use wacore_binary::node::Node as PeerNode;

/// One encoded fixture.
pub struct Fixture {
    /// The peer benchmark's name for the shape.
    pub name: &'static str,
    /// What `marshal` produced: flags byte, then node bytes.
    pub framed: Vec<u8>,
}

impl Fixture {
    /// The node bytes (flags byte removed).
    pub fn node_bytes(&self) -> &[u8] {
        &self.framed[1..]
    }
}

fn small() -> PeerNode {
    NodeBuilder::new("message")
        .attr("to", "user@s.whatsapp.net")
        .attr("id", "12345")
        .attr("type", "text")
        .build()
}

fn ack() -> PeerNode {
    NodeBuilder::new("ack")
        .attr("to", "5511999990000@s.whatsapp.net")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("class", "message")
        .build()
}

fn fanout() -> PeerNode {
    let devices: Vec<PeerNode> = (0..8)
        .map(|i| {
            NodeBuilder::new("to")
                .attr("jid", format!("5511999990000:{i}@s.whatsapp.net"))
                .children(vec![
                    NodeBuilder::new("enc")
                        .attr("v", "2")
                        .attr("type", "msg")
                        .bytes(vec![0xAB; 128])
                        .build(),
                ])
                .build()
        })
        .collect();
    NodeBuilder::new("message")
        .attr("to", "5511999990000@g.us")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("type", "text")
        .children(vec![
            NodeBuilder::new("participants").children(devices).build(),
        ])
        .build()
}

fn large() -> PeerNode {
    NodeBuilder::new("iq")
        .attr("to", "server@s.whatsapp.net")
        .attr("id", "abcdef")
        .attr("type", "get")
        .attr("xmlns", "usync")
        .children(vec![
            NodeBuilder::new("usync")
                .attr("sid", "message:1")
                .attr("mode", "query")
                .attr("last", "true")
                .children(vec![
                    NodeBuilder::new("query")
                        .children(vec![NodeBuilder::new("business").build()])
                        .build(),
                ])
                .build(),
            NodeBuilder::new("list")
                .children((0..20).map(|i| {
                    NodeBuilder::new("item")
                        .attr("index", i.to_string())
                        .bytes(vec![i as u8; 32])
                        .build()
                }))
                .build(),
        ])
        .build()
}

fn usync_like() -> PeerNode {
    NodeBuilder::new("iq")
        .attr("type", "result")
        .children(vec![
            NodeBuilder::new("usync")
                .children(vec![
                    NodeBuilder::new("list")
                        .children((0..50).map(|i| {
                            NodeBuilder::new("user")
                                .attr("jid", format!("{i}@s.whatsapp.net"))
                                .children(vec![
                                    NodeBuilder::new("devices")
                                        .children(vec![
                                            NodeBuilder::new("device-list")
                                                .children((0..3).map(|d| {
                                                    NodeBuilder::new("device")
                                                        .attr("id", d.to_string())
                                                        .build()
                                                }))
                                                .build(),
                                        ])
                                        .build(),
                                    NodeBuilder::new("contact").attr("type", "in").build(),
                                ])
                                .build()
                        }))
                        .build(),
                ])
                .build(),
        ])
        .build()
}

fn jid_heavy() -> PeerNode {
    NodeBuilder::new("message")
        .attr("from", "15551234567@s.whatsapp.net")
        .attr("to", "15559876543@s.whatsapp.net")
        .attr("participant", "15555555555@s.whatsapp.net")
        .attr("recipient", "15556666666@s.whatsapp.net")
        .attr("notify", "15557777777@s.whatsapp.net")
        .attr("id", "ABCDEF123456")
        .attr("type", "text")
        .build()
}

fn many_children() -> PeerNode {
    NodeBuilder::new("iq")
        .attr("to", "server@s.whatsapp.net")
        .attr("id", "many-children")
        .children((0..2048).map(|i| {
            NodeBuilder::new("item")
                .attr("index", i.to_string())
                .attr("type", "entry")
                .string_content("ok")
                .build()
        }))
        .build()
}

/// A fixture's name and the function that builds its tree.
type Shape = (&'static str, fn() -> PeerNode);

/// Marshal a peer tree with the peer's encoder.
pub fn peer_marshal(node: &PeerNode) -> Vec<u8> {
    marshal(node).expect("the peer encodes its own benchmark shapes")
}

/// The seven benchmark shapes, marshalled by the peer.
pub fn fixtures() -> Vec<Fixture> {
    let shapes: [Shape; 7] = [
        ("fanout", fanout),
        ("large", large),
        ("ack", ack),
        ("small", small),
        ("usync_like", usync_like),
        ("jid_heavy", jid_heavy),
        ("many_children", many_children),
    ];
    shapes
        .into_iter()
        .map(|(name, build)| Fixture {
            name,
            framed: peer_marshal(&build()),
        })
        .collect()
}

/// The fixture called `name`.
pub fn fixture(name: &str) -> Fixture {
    fixtures()
        .into_iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

/// zlib-compress `body` (RFC 1950) at the default level.
pub fn zlib(body: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(body, 6)
}

/// A compressed frame: flags byte `0x02`, then the zlib stream of `node_bytes`.
pub fn compressed_frame(node_bytes: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x02];
    frame.extend_from_slice(&zlib(node_bytes));
    frame
}

/// The fanout fixture as a zlib-compressed frame.
pub fn compressed_fanout_frame() -> Vec<u8> {
    compressed_frame(fixture("fanout").node_bytes())
}

/// Deterministic pseudo-random numbers (SplitMix64) for seeded mutation
/// loops: the same seed gives the same cases on every run.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }
}

/// Bytes that carry meaning as tags: mutations pick these half of the time so
/// they reach the structural paths rather than only payload bytes.
pub const INTERESTING: &[u8] = &[
    0, 1, 2, 3, 19, 235, 236, 239, 240, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255,
    0x7F, 0x80, 0x81,
];

/// One random edit of `input`: flip a bit, overwrite a byte, insert a byte,
/// delete a byte, or truncate. Returns a new buffer.
pub fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    let pick_byte = |rng: &mut Rng| {
        if rng.below(2) == 0 {
            INTERESTING[rng.below(INTERESTING.len())]
        } else {
            rng.byte()
        }
    };
    match rng.below(5) {
        0 if !out.is_empty() => {
            let at = rng.below(out.len());
            out[at] ^= 1 << rng.below(8);
        }
        1 if !out.is_empty() => {
            let at = rng.below(out.len());
            out[at] = pick_byte(rng);
        }
        2 => {
            let at = rng.below(out.len() + 1);
            let b = pick_byte(rng);
            out.insert(at, b);
        }
        3 if !out.is_empty() => {
            let at = rng.below(out.len());
            out.remove(at);
        }
        _ => {
            let len = rng.below(out.len() + 1);
            out.truncate(len);
        }
    }
    out
}

/// `edits` random edits in a row.
pub fn mutate_n(rng: &mut Rng, input: &[u8], edits: usize) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..edits {
        out = mutate(rng, &out);
    }
    out
}

/// Bits of a DEFLATE stream, least significant bit first (RFC 1951 3.1.1).
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    bits: u32,
}

impl BitWriter {
    fn put(&mut self, value: u32, len: u32) {
        self.acc |= u64::from(value) << self.bits;
        self.bits += len;
        while self.bits >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.bits -= 8;
        }
    }

    /// A Huffman code: written most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        let reversed = code.reverse_bits() >> (32 - len);
        self.put(reversed, len);
    }

    /// A literal byte in the fixed Huffman code.
    fn literal(&mut self, byte: u8) {
        match byte {
            0..=143 => self.code(0x30 + u32::from(byte), 8),
            _ => self.code(0x190 + u32::from(byte - 144), 9),
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.bits > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

fn adler32(chunks: &[(&[u8], usize)]) -> u32 {
    // (bytes, repeat count of a trailing zero run)
    let (mut a, mut b) = (1u64, 0u64);
    for &(bytes, zeros) in chunks {
        for &x in bytes {
            a = (a + u64::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        // Each zero adds nothing to `a` and `a` to `b`.
        b = (b + a * (zeros as u64 % 65521)) % 65521;
    }
    ((b << 16) | a) as u32
}

/// A zlib stream (one fixed-Huffman block) whose inflated form is `prefix`
/// followed by `zeros` zero bytes. Built directly, without running a
/// compressor, so 100 MiB of zeros costs about 660 KB and a few milliseconds:
/// each run of 258 zeros is one 13-bit back-reference at distance 1.
pub fn zlib_prefix_then_zeros(prefix: &[u8], zeros: usize) -> Vec<u8> {
    let mut w = BitWriter {
        out: vec![0x78, 0x01],
        acc: 0,
        bits: 0,
    };
    w.put(1, 1); // BFINAL
    w.put(1, 2); // BTYPE = fixed Huffman
    for &b in prefix {
        w.literal(b);
    }
    if zeros > 0 {
        w.literal(0);
        let mut left = zeros - 1;
        while left >= 258 {
            w.code(0xC5, 8); // length symbol 285 = 258, no extra bits
            w.code(0, 5); // distance symbol 0 = 1, no extra bits
            left -= 258;
        }
        for _ in 0..left {
            w.literal(0);
        }
    }
    w.code(0, 7); // end of block (symbol 256)
    let mut out = w.finish();
    out.extend_from_slice(&adler32(&[(prefix, zeros)]).to_be_bytes());
    out
}

/// A decoder with the default options changed by `f`.
pub fn decoder_with(f: impl FnOnce(&mut quarry_core::DecodeOptions)) -> quarry_wa::Decoder {
    let mut options = quarry_core::DecodeOptions::default();
    f(&mut options);
    quarry_wa::Decoder {
        options,
        ..quarry_wa::Decoder::new()
    }
}

/// `levels` nested `<message>` nodes, the innermost bare (each level 5
/// bytes, the innermost 3).
pub fn nested_messages(levels: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..levels - 1 {
        out.extend_from_slice(&[0xF8, 0x02, 19, 0xF8, 0x01]);
    }
    out.extend_from_slice(&[0xF8, 0x01, 19]);
    out
}
