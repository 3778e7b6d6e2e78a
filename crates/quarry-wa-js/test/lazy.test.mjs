// The lazy view (decodeDecompressedBinaryNodeLazy) against the eager
// decoder and Baileys: toBinaryNode() gives the eager node; tag, attr(),
// attrs and content read the same values at every node; input the eager
// decoder rejects throws at the lazy decode, with the same message (which
// names the byte offset). The eager decoder is checked against Baileys and
// against the WebAssembly decoder in agreement.test.mjs and
// decode-js.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import {
  decodeDecompressedBinaryNode as eager,
  decodeDecompressedBinaryNodeLazy as lazy,
  decodeBinaryNode,
  decodeBinaryNodeLazy,
  encodeBinaryNode,
} from '../index.js';
import { decodeJs, scanJs } from '../decode-js.js';
import { fixtures, baileys } from './peers.mjs';
import { mulberry32, generator } from './trees.mjs';

// Every part of `view`, read node by node in a seeded order, against the
// eager node `want`.
function sameReads(view, want, what, r) {
  // Some reads before the tag, some after: a view reads each part on its
  // own.
  if (r() < 0.5) {
    for (const k of Object.keys(want.attrs)) assert.equal(view.attr(k), want.attrs[k], `${what}: attr(${k})`);
  }
  assert.equal(view.tag, want.tag, `${what}: tag`);
  assert.equal(view.attr('no-such-attribute'), undefined, `${what}: an absent attribute`);
  assert.equal(view.attr('toString'), undefined, `${what}: an inherited name`);
  if (r() < 0.5) assert.deepStrictEqual(view.attrs, want.attrs, `${what}: attrs`);
  for (const k of Object.keys(want.attrs)) assert.equal(view.attr(k), want.attrs[k], `${what}: attr(${k})`);
  const content = view.content;
  assert.equal(view.content, content, `${what}: content is read once`);
  if (Array.isArray(want.content)) {
    assert.ok(Array.isArray(content), `${what}: children`);
    assert.equal(content.length, want.content.length, `${what}: child count`);
    for (let i = 0; i < content.length; i++) {
      if (r() < 0.3) assert.deepStrictEqual(content[i].toBinaryNode(), want.content[i], `${what}/${i}`);
      sameReads(content[i], want.content[i], `${what}/${i}`, r);
    }
  } else {
    assert.deepStrictEqual(content, want.content, `${what}: content`);
  }
  assert.deepStrictEqual(view.toBinaryNode(), want, `${what}: toBinaryNode`);
}

// The lazy decode throws exactly where and as the eager one does.
function sameOutcome(bytes, what) {
  let want = null;
  try {
    want = eager(bytes);
  } catch (e) {
    assert.throws(() => lazy(bytes), { constructor: Error, message: e.message }, what);
    return false;
  }
  const view = lazy(bytes);
  assert.deepStrictEqual(view.toBinaryNode(), want, what);
  return true;
}

test('lazy: every fixture reads as the eager decoder and Baileys read it', () => {
  const r = mulberry32(1);
  for (const [name, bytes] of Object.entries(fixtures)) {
    const want = eager(bytes);
    assert.ok(scanJs(bytes), `${name} is read in JavaScript`);
    assert.deepStrictEqual(lazy(bytes).toBinaryNode(), want, name);
    if (baileys) assert.deepStrictEqual(lazy(bytes).toBinaryNode(), baileys.decode(bytes), `${name}: Baileys`);
    sameReads(lazy(bytes), want, name, r);
  }
});

// Baileys renders every AD_JID domain but 0 as `lid` (README, "Differences
// from Baileys", 2).
const adDomainAsBaileys = (tree) => ({
  tag: tree.tag,
  attrs: Object.fromEntries(Object.entries(tree.attrs).map(([k, v]) => [k, v.replace(/^([^@]*:\d+)@hosted(\.lid)?$/, '$1@lid')])),
  content: Array.isArray(tree.content)
    ? tree.content.map(adDomainAsBaileys)
    : typeof tree.content === 'string'
      ? tree.content.replace(/^([^@]*:\d+)@hosted(\.lid)?$/, '$1@lid')
      : tree.content,
});

test('lazy: random trees read as the eager decoder and Baileys read them', () => {
  const next = generator(4646);
  const r = mulberry32(2);
  let inJs = 0;
  for (let i = 0; i < 400; i++) {
    const tree = next();
    const bytes = encodeBinaryNode(tree).subarray(1);
    const want = eager(bytes);
    if (scanJs(bytes)) inJs++;
    sameReads(lazy(bytes), want, `tree ${i}`, r);
    if (baileys) assert.deepStrictEqual(adDomainAsBaileys(lazy(bytes).toBinaryNode()), baileys.decode(bytes), `tree ${i}: Baileys`);
  }
  // JIDs as text content go to WebAssembly (a view over its node); most
  // trees stay in JavaScript.
  assert.ok(inJs > 200, `${inJs} trees read lazily`);
});

test('lazy: scanJs accepts exactly what decodeJs reads, on truncations and mutations', { timeout: 120_000 }, () => {
  const r = mulberry32(4647);
  const inputs = Object.values(fixtures).filter((b) => b.length <= 4000);
  const next = generator(8);
  for (let i = 0; i < 100; i++) inputs.push(encodeBinaryNode(next()).subarray(1));
  let accepted = 0;
  let total = 0;
  for (const bytes of inputs) {
    for (let len = 0; len < bytes.length; len++) {
      const cut = bytes.subarray(0, len);
      assert.equal(scanJs(cut), false, `truncated to ${len}`);
      sameOutcome(cut, `truncated to ${len}`);
    }
    for (let i = 0; i < 200; i++) {
      const m = Buffer.from(bytes);
      for (let k = 0, n = 1 + Math.floor(r() * 4); k < n; k++) {
        m[Math.floor(r() * m.length)] = Math.floor(r() * 256);
      }
      total++;
      const scanned = scanJs(m);
      assert.equal(scanned, decodeJs(m) !== null, m.toString('hex'));
      if (scanned) accepted++;
      sameOutcome(m, m.toString('hex'));
    }
  }
  assert.ok(accepted > 0 && accepted < total, `${accepted} of ${total} accepted`);
});

test('lazy: nested-JID bombs and deep nesting throw as the eager decoder throws', { timeout: 60_000 }, () => {
  for (const tag of [0xfa, 0xf7, 0xf6, 0xf5]) {
    const bomb = Buffer.alloc(2 + 100_000, tag);
    bomb[0] = 0xf8;
    bomb[1] = 0x01;
    assert.equal(sameOutcome(bomb, `JID bomb 0x${tag.toString(16)}`), false);
  }
  // 1000 levels of <message><message>…: LIST_8 2, token 19, LIST_8 1.
  const deep = [];
  for (let i = 0; i < 1000; i++) deep.push(0xf8, 2, 19, 0xf8, 1);
  deep.push(0xf8, 1, 19);
  assert.equal(sameOutcome(Buffer.from(deep), 'deep nesting'), false);
  // 110 levels: past the JavaScript decoder's depth, within WebAssembly's.
  const mid = [];
  for (let i = 0; i < 110; i++) mid.push(0xf8, 2, 19, 0xf8, 1);
  mid.push(0xf8, 1, 19);
  const view = lazy(Buffer.from(mid));
  assert.equal(view.content[0].content[0].tag, 'message');
  assert.deepStrictEqual(view.toBinaryNode(), eager(Buffer.from(mid)));
});

test('lazy: a node only WebAssembly reads comes as a view of its node', () => {
  // A JID as text content, which only WebAssembly reads: LIST_8 2,
  // token 19 (message), JID_PAIR, LIST_EMPTY user, raw server name.
  const m = 19;
  const sw = [...Buffer.from('s.whatsapp.net')];
  const bytes = Buffer.from([0xf8, 2, m, 0xfa, 0, 0xfc, sw.length, ...sw]);
  assert.equal(scanJs(bytes), false);
  const want = eager(bytes);
  const view = lazy(bytes);
  assert.equal(view.tag, want.tag);
  assert.deepStrictEqual(view.attrs, want.attrs);
  assert.equal(view.content, want.content);
  assert.deepStrictEqual(view.toBinaryNode(), want);
});

test('lazy: frames, with the flags byte and zlib, as the eager decoder reads them', async () => {
  const bytes = fixtures.fanout;
  const plain = Buffer.concat([Buffer.from([0]), bytes]);
  const packed = Buffer.concat([Buffer.from([2]), deflateSync(bytes)]);
  for (const frame of [plain, packed]) {
    const view = await decodeBinaryNodeLazy(frame);
    assert.deepStrictEqual(view.toBinaryNode(), await decodeBinaryNode(frame));
  }
  await assert.rejects(decodeBinaryNodeLazy(Buffer.from([2, 1, 2, 3])), /at byte 1/);
  await assert.rejects(decodeBinaryNodeLazy(Buffer.alloc(0)), /at byte 0/);
});

test('lazy: a million decodes and reads in a loop hold a flat JavaScript heap', () => {
  // In a child process with `--expose-gc` (as in decode.test.mjs): what
  // stays after a full collection is what the package keeps once the
  // views are gone.
  const script = `
    import { decodeDecompressedBinaryNodeLazy as lazy } from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
    // <message type="enc"><enc/></message>: LIST_8 4, token 19 (message),
    // key 4 (type), value 29 (enc), a child list of 1, LIST_8 1 token 29.
    const stanza = Buffer.from([0xf8, 4, 19, 4, 29, 0xf8, 1, 0xf8, 1, 29]);
    let sink = 0;
    const samples = [];
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 100_000; i++) {
        const v = lazy(stanza);
        sink += v.tag.length + v.attr('type').length + v.content[0].tag.length;
        if (i % 16 === 0) sink += v.toBinaryNode().content.length;
      }
      globalThis.gc();
      samples.push(process.memoryUsage().heapUsed);
    }
    process.stdout.write(JSON.stringify({ sink, samples }));
  `;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const { sink, samples } = JSON.parse(out);
  assert.ok(sink > 0);
  assert.equal(samples.length, 10);
  // A leak of even 4 bytes per decode would be 3.6 MB over the last
  // 900,000; allow 1 MB of heap noise.
  for (const heap of samples) assert.ok(heap - samples[0] < 1 << 20, `heap grew from ${samples[0]} to ${heap}`);
});
