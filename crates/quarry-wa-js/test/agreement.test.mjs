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
import { mulberry32, generator } from './trees.mjs';
import { decodeWasm } from '../decode-wasm.js';

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
    // The WebAssembly decoder alone too (the package's entry decodes these
    // in JavaScript).
    assert.deepStrictEqual(decodeWasm(bytes), ours, name);
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
