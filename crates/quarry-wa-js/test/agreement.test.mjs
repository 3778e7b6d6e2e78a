// Agreement with Baileys 6.17.16's WABinary codec (run with the v3 token
// dictionary; see peers.mjs) on the peer-built fixtures and on seeded
// random trees, and malformed input that must throw, never crash or hang.
//
// The differences from Baileys that README.md lists are applied to
// Baileys' side before comparing, each by a named function below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOKENS, decodeDecompressedBinaryNode as qDecode, encodeBinaryNode as qEncode } from '../index.js';
import { fixtures, baileys, baileysSkip } from './peers.mjs';

const peerTest = (name, fn) =>
  test(name, { timeout: 120_000 }, (t) => {
    if (!baileys) {
      console.log(`SKIP: ${name}: ${baileysSkip}`);
      t.skip(baileysSkip);
      return;
    }
    return fn(t);
  });

// Difference: Baileys renders every AD_JID domain but 0 as `lid`; the wire
// says 1 = lid, 128 = hosted, 129 = hosted.lid.
function adDomainAsBaileys(tree) {
  const fix = (s) => s.replace(/^([^@]*:\d+)@hosted(\.lid)?$/, '$1@lid');
  return mapStrings(tree, fix);
}

// Difference: an empty child list or empty text Baileys writes as
// LIST_EMPTY, which the wire reads as no content (Baileys reads it as []).
function listEmptyAsWire(tree) {
  const content =
    (Array.isArray(tree.content) && tree.content.length === 0) || tree.content === ''
      ? undefined
      : Array.isArray(tree.content)
        ? tree.content.map(listEmptyAsWire)
        : tree.content;
  return { tag: tree.tag, attrs: tree.attrs, content };
}

function mapStrings(tree, f) {
  const attrs = {};
  for (const k in tree.attrs) attrs[k] = f(tree.attrs[k]);
  let content = tree.content;
  if (typeof content === 'string') content = f(content);
  else if (Array.isArray(content)) content = content.map((c) => mapStrings(c, f));
  return { tag: tree.tag, attrs, content };
}

peerTest('Baileys 6.17.16 ships an older token ordering than the wire (v3)', () => {
  const shipped = baileys.shipped;
  assert.equal(shipped.SINGLE_BYTE_TOKENS[9], 'broadcast');
  assert.equal(TOKENS[9], 'notification');
  let single = 0;
  for (let i = 1; i < 236; i++) if (shipped.SINGLE_BYTE_TOKENS[i] !== TOKENS[i]) single++;
  let double = 0;
  for (let d = 0; d < 4; d++) {
    for (let i = 0; i < 256; i++) if (shipped.DOUBLE_BYTE_TOKENS[d][i] !== TOKENS[236 + 256 * d + i]) double++;
  }
  assert.deepStrictEqual({ single, double }, { single: 223, double: 1024 });
});

peerTest('fixtures: quarry decodes as Baileys does, and each decodes the other\'s encoding', () => {
  assert.ok(Object.keys(fixtures).length >= 8);
  for (const [name, bytes] of Object.entries(fixtures)) {
    const ours = qDecode(bytes);
    assert.deepStrictEqual(ours, baileys.decode(bytes), name);
    // Baileys reads our encoding; we read Baileys'.
    assert.deepStrictEqual(baileys.decode(qEncode(ours).subarray(1)), ours, name);
    assert.deepStrictEqual(qDecode(baileys.encode(ours).subarray(1)), listEmptyAsWire(ours), name);
    // The peer's bytes come back byte for byte from our encoder, but for
    // fanout: its AD_JID with device 0 decodes without a device and is
    // written back as JID_PAIR, as the peer's own encoder does.
    assert.equal(Buffer.compare(qEncode(ours).subarray(1), bytes) === 0, name !== 'fanout', name);
  }
});

// ------------------------------------------------------------ random trees

function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVERS = ['s.whatsapp.net', 'lid', 'g.us', 'broadcast', 'newsletter', 'hosted', 'hosted.lid', 'c.us', 'call', 'bot'];
const AD_SERVERS = ['s.whatsapp.net', 'lid', 'hosted', 'hosted.lid'];
const WORDS = ['hello', 'x', 'Ünïcödé', 'a b c', 'status_v3', 'ok!', '€uro', 'z'.repeat(300), 'tab\tnew\nline'];

function generator(seed) {
  const r = mulberry32(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (xs) => xs[int(xs.length)];
  const digits = (n) => Array.from({ length: n }, () => int(10)).join('');
  const text = () => {
    switch (int(9)) {
      case 0:
      case 1:
        return TOKENS[1 + int(TOKENS.length - 1)];
      case 2:
        return digits(1 + int(20)) + (r() < 0.3 ? '.' + digits(2) : '');
      case 3:
        return Array.from({ length: 1 + int(40) }, () => '0123456789ABCDEF'[int(16)]).join('');
      case 4: {
        const ad = r() < 0.5;
        const server = ad ? pick(AD_SERVERS) : pick(SERVERS);
        const user = r() < 0.1 && !ad ? '' : digits(1 + int(15));
        return ad ? `${user}:${1 + int(99)}@${server}` : `${user}@${server}`;
      }
      case 5:
        return pick(WORDS);
      default: {
        const n = 1 + int(12);
        let s = '';
        for (let i = 0; i < n; i++) s += String.fromCharCode(97 + int(26));
        return s;
      }
    }
  };
  // Keys and tags: tokens or plain words (never a JID or packable string,
  // which Baileys and the wire read back differently).
  const name = () => {
    if (r() < 0.6) {
      for (;;) {
        const t = TOKENS[1 + int(TOKENS.length - 1)];
        if (!/^[0-9A-F.-]+$/.test(t)) return t;
      }
    }
    let s = '';
    for (let i = 0, n = 1 + int(10); i < n; i++) s += String.fromCharCode(97 + int(26));
    return s;
  };
  const node = (depth) => {
    const attrs = {};
    for (let i = 0, n = int(5); i < n; i++) attrs[name()] = text();
    let content;
    const c = int(depth > 5 ? 3 : 4);
    if (c === 1) content = Buffer.from(Array.from({ length: int(40) }, () => int(256)));
    else if (c === 2) {
      // Text content that comes back as text: tokens, packed, JIDs.
      for (;;) {
        const t = text();
        if (TOKENS.includes(t) || /^[0-9.-]+$|^[0-9A-F]+$|@/.test(t)) {
          content = t;
          break;
        }
      }
    } else if (c === 3) content = Array.from({ length: 1 + int(5) }, () => node(depth + 1));
    return { tag: name(), attrs, content };
  };
  return () => node(0);
}

peerTest('random trees: Baileys and quarry decode each other\'s encodings to the tree', () => {
  const next = generator(46);
  for (let i = 0; i < 400; i++) {
    const tree = next();
    const ours = qEncode(tree);
    assert.deepStrictEqual(qDecode(ours.subarray(1)), tree, `tree ${i}: quarry reads quarry`);
    assert.deepStrictEqual(
      baileys.decode(ours.subarray(1)),
      adDomainAsBaileys(tree),
      `tree ${i}: Baileys reads quarry`,
    );
    const theirs = baileys.encode(tree);
    assert.deepStrictEqual(qDecode(theirs.subarray(1)), baileysJids(tree), `tree ${i}: quarry reads Baileys`);
    // Same bytes in: the same tree out of both decoders.
    assert.deepStrictEqual(adDomainAsBaileys(qDecode(ours.subarray(1))), baileys.decode(ours.subarray(1)));
  }
});

// Difference: Baileys' encoder writes a device JID with AD_JID domain 0
// unless the server is `lid` (a hosted device JID comes back on
// s.whatsapp.net).
function baileysJids(tree) {
  return mapStrings(tree, (s) => s.replace(/^([^@]*:\d+)@hosted(\.lid)?$/, '$1@s.whatsapp.net'));
}

// ------------------------------------------------------------ malformed input

function throwsError(bytes, what) {
  let threw = null;
  try {
    qDecode(bytes);
  } catch (e) {
    threw = e;
  }
  if (threw) {
    assert.ok(threw instanceof Error, `${what}: ${threw}`);
    assert.match(threw.message, /at byte \d+/, what);
  }
  return threw !== null;
}

test('truncations of every length throw an Error with an offset', () => {
  for (const [name, bytes] of Object.entries(fixtures)) {
    const step = bytes.length > 4000 ? 7 : 1;
    for (let len = 0; len < bytes.length; len += step) {
      assert.ok(throwsError(bytes.subarray(0, len), `${name}[..${len}]`), `${name}[..${len}] decoded`);
    }
  }
});

test('random byte mutations decode or throw an Error, nothing else', { timeout: 120_000 }, () => {
  const r = mulberry32(4646);
  let rejected = 0;
  let total = 0;
  for (const [name, bytes] of Object.entries(fixtures)) {
    if (bytes.length > 4000) continue;
    for (let i = 0; i < 500; i++) {
      const m = Buffer.from(bytes);
      for (let k = 0, n = 1 + Math.floor(r() * 4); k < n; k++) {
        m[Math.floor(r() * m.length)] = Math.floor(r() * 256);
      }
      total++;
      if (throwsError(m, `${name} mutation ${i}`)) rejected++;
    }
  }
  // Most single-byte changes break structure; some land in payloads.
  assert.ok(rejected > 0 && rejected < total, `${rejected} of ${total} rejected`);
});

test('nested-JID bombs and deep nesting throw', { timeout: 60_000 }, () => {
  for (const tag of [0xfa, 0xf7, 0xf6, 0xf5]) {
    const bomb = Buffer.alloc(2 + 100_000, tag);
    bomb[0] = 0xf8;
    bomb[1] = 0x01;
    assert.ok(throwsError(bomb, `JID bomb 0x${tag.toString(16)}`));
  }
  // 1000 levels of <message><message>…: LIST_8 2, token, LIST_8 1, child.
  const deep = [];
  for (let i = 0; i < 1000; i++) deep.push(0xf8, 2, 19, 0xf8, 1);
  deep.push(0xf8, 1, 19);
  assert.ok(throwsError(Buffer.from(deep), 'deep nesting'));
  // The module still works afterwards.
  assert.equal(qDecode(Buffer.from([0xf8, 1, 19])).tag, 'message');
});
