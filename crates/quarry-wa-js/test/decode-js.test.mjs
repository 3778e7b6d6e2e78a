// The JavaScript decoder (decode-js.js) against the WebAssembly one
// (decode-wasm.js): where the JavaScript decoder returns a node, it must
// be the node the WebAssembly decoder returns for the same bytes; where it
// returns null, the package's entry gives the WebAssembly decoder's node or
// error. Vectors are written from the wire format (docs/wa-format.md; token
// numbers from the v3 dictionary).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOKENS, decodeDecompressedBinaryNode, encodeBinaryNode } from '../index.js';
import { decodeJs } from '../decode-js.js';
import { decodeWasm } from '../decode-wasm.js';
import { fixtures, baileys } from './peers.mjs';
import { mulberry32, generator } from './trees.mjs';

const tok = (s) => {
  const id = TOKENS.indexOf(s);
  assert.ok(id > 0 && id < 236, `${s} is a single byte token`);
  return id;
};
const ascii = (s) => [...Buffer.from(s, 'latin1')];

// Both decoders give `want`, the JavaScript one without falling back.
function both(bytes, want, what) {
  const b = Buffer.from(bytes);
  const js = decodeJs(b);
  assert.notEqual(js, null, `${what}: the JavaScript decoder left it to WebAssembly`);
  assert.deepStrictEqual(js, want, `${what}: JavaScript`);
  assert.deepStrictEqual(decodeWasm(b), want, `${what}: WebAssembly`);
}

// The JavaScript decoder leaves `bytes` to WebAssembly, and the entry
// gives what WebAssembly gives: `want` (a node), or an Error matching it.
function leftToWasm(bytes, want, what) {
  const b = Buffer.from(bytes);
  assert.equal(decodeJs(b), null, what);
  if (want instanceof RegExp) {
    assert.throws(() => decodeWasm(b), want, what);
    assert.throws(() => decodeDecompressedBinaryNode(b), want, what);
  } else {
    assert.deepStrictEqual(decodeWasm(b), want, what);
    assert.deepStrictEqual(decodeDecompressedBinaryNode(b), want, what);
  }
}

const node = (tag, attrs = {}, content = undefined) => ({ tag, attrs, content });

test('decode-js: list headers, tokens and contents read as WebAssembly reads them', () => {
  const m = tok('message');
  const enc = tok('enc');
  // LIST_16 for the node and for its child list.
  both([0xf9, 0, 2, m, 0xf9, 0, 2, 0xf8, 1, enc, 0xf8, 1, enc], node('message', {}, [node('enc'), node('enc')]), 'LIST_16');
  // Double byte tokens as tag, key, value and content: dictionary 1 entry
  // 5, dictionary 3 entry 200, dictionary 0 entry 0, dictionary 2 entry 9.
  const [d1, d3, d0, d2] = [236 + 256 + 5, 236 + 3 * 256 + 200, 236, 236 + 2 * 256 + 9].map((id) => TOKENS[id]);
  both([0xf8, 4, 237, 5, 239, 200, 236, 0, 238, 9], node(d1, { [d3]: d0 }, d2), 'double byte tokens');
  // LIST_EMPTY: an empty value, no content; LIST_8 0: an empty child list.
  const type = tok('type');
  both([0xf8, 4, m, type, 0, 0], node('message', { type: '' }), 'LIST_EMPTY');
  both([0xf8, 2, m, 0xf8, 0], node('message', {}, []), 'empty child list');
  // Bytes: BINARY_8, BINARY_20 (the top nibble of its first byte is not
  // part of the length), BINARY_32.
  const payload = Array.from({ length: 300 }, (_, i) => i & 255);
  both([0xf8, 2, m, 0xfc, 3, 1, 2, 3], node('message', {}, Buffer.from([1, 2, 3])), 'BINARY_8');
  both([0xf8, 2, m, 0xfd, 0xf0, 1, 44, ...payload], node('message', {}, Buffer.from(payload)), 'BINARY_20');
  both([0xf8, 2, m, 0xfe, 0, 0, 1, 44, ...payload], node('message', {}, Buffer.from(payload)), 'BINARY_32');
  // A token as content is text.
  both([0xf8, 2, m, enc], node('message', {}, 'enc'), 'token content');
});

test('decode-js: packed and raw strings', () => {
  const m = tok('message');
  const id = tok('id');
  const value = (bytes) => [0xf8, 3, m, id, ...bytes];
  // NIBBLE_8 "1-2.3": nibbles 1 a 2 b 3, odd (the last nibble dropped).
  both(value([0xff, 0x83, 0x1a, 0x2b, 0x3f]), node('message', { id: '1-2.3' }), 'nibble odd');
  // Nibble 15 before the end is NUL.
  both(value([0xff, 0x01, 0xf1]), node('message', { id: '\u00001' }), 'nibble 15');
  both(value([0xfb, 0x04, 0xab, 0xcd, 0xef, 0x01]), node('message', { id: 'ABCDEF01' }), 'hex');
  both(value([0xfb, 0x81, 0x5f]), node('message', { id: '5' }), 'hex odd, one byte');
  both(value([0xff, 0x00]), node('message', { id: '' }), 'empty packed');
  // Longer than the 32 characters made in one call.
  both(value([0xff, 20, ...Array(20).fill(0x12)]), node('message', { id: '12'.repeat(20) }), 'packed, 40 characters');
  both(value([0xfb, 16, ...Array(16).fill(0x9f)]), node('message', { id: '9F'.repeat(16) }), 'packed, 32 characters');
  both(value([0xff, 0x91, ...Array(16).fill(0x34), 0x5f]), node('message', { id: '34'.repeat(16) + '5' }), 'packed odd, 33 characters');
  both(value([0xfb, 0x90, ...Array(16).fill(0xe7)]), node('message', { id: 'E7'.repeat(15) + 'E' }), 'packed odd, 31 characters');
  // Raw: ASCII short and long, UTF-8, BINARY_20 and BINARY_32 text.
  both(value([0xfc, 5, ...ascii('hello')]), node('message', { id: 'hello' }), 'raw');
  both(value([0xfc, 0]), node('message', { id: '' }), 'raw empty');
  const long = 'abcdefghij'.repeat(4);
  both(value([0xfc, 40, ...ascii(long)]), node('message', { id: long }), 'raw, 40 characters');
  both(value([0xfc, 5, 0xc3, 0xbc, 0xe2, 0x82, 0xac]), node('message', { id: 'ü€' }), 'raw UTF-8');
  both(value([0xfd, 0, 0, 2, ...ascii('ok')]), node('message', { id: 'ok' }), 'BINARY_20 text');
  both(value([0xfe, 0, 0, 0, 2, ...ascii('ok')]), node('message', { id: 'ok' }), 'BINARY_32 text');
  // Raw and packed tags and keys.
  both([0xf8, 3, 0xfc, 3, ...ascii('tag'), 0xff, 0x01, 0x12, 0xfb, 0x01, 0xab], node('tag', { 12: 'AB' }), 'raw tag, packed key');
  // Packed content is text.
  both([0xf8, 2, m, 0xff, 0x02, 0x12, 0x34], node('message', {}, '1234'), 'packed content');
});

test('decode-js: JID attribute values render as Baileys renders them', () => {
  const m = tok('message');
  const to = tok('to');
  const value = (bytes) => [0xf8, 3, m, to, ...bytes];
  // JID_PAIR: empty user, packed user, token user, raw user.
  both(value([0xfa, 0, tok('g.us')]), node('message', { to: '@g.us' }), 'empty user');
  both(value([0xfa, 0xff, 0x87, 0x55, 0x11, 0x99, 0x99, 0x90, 0x00, 0x0f, tok('s.whatsapp.net')]),
    node('message', { to: '5511999990000@s.whatsapp.net' }), 'packed user');
  both(value([0xfa, tok('type'), tok('broadcast')]), node('message', { to: 'type@broadcast' }), 'token user');
  both(value([0xfa, 0xfc, 2, ...ascii('ab'), tok('lid')]), node('message', { to: 'ab@lid' }), 'raw user');
  // Servers that are no token come as raw text.
  both(value([0xfa, 0xfb, 0x02, 0xab, 0xcd, 0xfc, 10, ...ascii('newsletter')]), node('message', { to: 'ABCD@newsletter' }), 'hex user');
  both(value([0xfa, 0xfc, 1, 0x61, 0xfc, 4, ...ascii('g.us')]), node('message', { to: 'a@g.us' }), 'server as raw text');
  // AD_JID: domain, device, user; the domain names the server.
  const ad = (domain, device) => value([0xf7, domain, device, 0xff, 0x02, 0x55, 0x11]);
  both(ad(0, 0), node('message', { to: '5511@s.whatsapp.net' }), 'AD_JID device 0');
  both(ad(0, 7), node('message', { to: '5511:7@s.whatsapp.net' }), 'AD_JID');
  both(ad(1, 255), node('message', { to: '5511:255@lid' }), 'AD_JID lid');
  both(ad(128, 2), node('message', { to: '5511:2@hosted' }), 'AD_JID hosted');
  both(ad(130, 2), node('message', { to: '5511:2@hosted' }), 'AD_JID hosted, another even domain');
  both(ad(129, 3), node('message', { to: '5511:3@hosted.lid' }), 'AD_JID hosted.lid');
});

test('decode-js: what it leaves to WebAssembly decodes or fails there', () => {
  const m = tok('message');
  const to = tok('to');
  const pn = tok('s.whatsapp.net');
  // JIDs in tag, key and content positions (WebAssembly renders them).
  leftToWasm([0xf8, 1, 0xfa, 0, pn], node('@s.whatsapp.net'), 'JID tag');
  leftToWasm([0xf8, 3, m, 0xfa, 0xfc, 1, 0x61, tok('g.us'), to], node('message', { 'a@g.us': 'to' }), 'JID key');
  leftToWasm([0xf8, 2, m, 0xf7, 1, 2, 0xfc, 1, 0x61], node('message', {}, 'a:2@lid'), 'JID content');
  // FB_JID and INTEROP_JID values.
  leftToWasm([0xf8, 3, m, to, 0xf6, 0xfc, 1, 0x61, 0, 2, 0xfc, 4, ...ascii('msgr')], node('message', { to: 'a:2@msgr' }), 'FB_JID');
  leftToWasm(
    [0xf8, 3, m, to, 0xf5, 0xfc, 1, 0x61, 0, 2, 0, 7, 0xfc, 7, ...ascii('interop')],
    node('message', { to: 'a:2@interop' }),
    'INTEROP_JID',
  );
  // An empty packed user.
  leftToWasm([0xf8, 3, m, to, 0xfa, 0xff, 0x00, pn], decodeWasm(Buffer.from([0xf8, 3, m, to, 0xfa, 0xff, 0x00, pn])), 'empty packed user');
  // Nesting deeper than the JavaScript decoder goes, within WebAssembly's limit.
  const deep = [];
  for (let i = 0; i < 110; i++) deep.push(0xf8, 2, m, 0xf8, 1);
  deep.push(0xf8, 1, m);
  let want = node('message');
  for (let i = 0; i < 110; i++) want = node('message', {}, [want]);
  leftToWasm(deep, want, '110 levels');
  // Malformed input: WebAssembly's errors, with their offsets.
  leftToWasm([0xf8, 3, m, to, 0xfc, 2, 0xc3, 0x28], /invalid UTF-8.*at byte 6/, 'invalid UTF-8');
  leftToWasm([0xf8, 3, m, to, 0xff, 0x01, 0xc1], /at byte 6/, 'nibble 12');
  leftToWasm([0xf8, 1, m, 0], /trailing|at byte 3/, 'trailing byte');
  leftToWasm([0xf8, 0, m], /size 0.*at byte 0/, 'list of size 0');
  leftToWasm([0xf8, 1, 0], /LIST_EMPTY.*at byte 2/, 'no tag');
  leftToWasm([0xf8, 3, m, to, 0xfa, 0xfc, 1, 0x61, m], /not one of the twelve JID servers\) at byte 8/, 'not a server');
  leftToWasm([0xf8, 3, m, to, 0xfa, 0xfc, 1, 0x61, 0xfc, 3, ...ascii('lix')], /not one of the twelve JID servers\) at byte 8/, 'not a server, raw');
  leftToWasm([0xf8, 3, m, to, 0xf7, 2, 0, 0xfc, 1, 0x61], /not an AD_JID domain\) at byte 5/, 'AD_JID domain');
  leftToWasm([0xf8, 3, m, to, 0xf7, 0, 0, 0xfc, 0], /empty JID user/, 'empty AD_JID user');
  leftToWasm([0xf8, 2, m, 0xf8, 200, 0xf8, 1, m], /at byte/, 'a child count the input cannot hold');
});

test('decode-js: every fixture decodes in JavaScript, as in WebAssembly', () => {
  for (const [name, bytes] of Object.entries(fixtures)) {
    const js = decodeJs(bytes);
    assert.notEqual(js, null, name);
    assert.deepStrictEqual(js, decodeWasm(bytes), name);
  }
});

test('decode-js: random trees, encoded by quarry and by Baileys', () => {
  const next = generator(4646);
  let decoded = 0;
  for (let i = 0; i < 400; i++) {
    const tree = next();
    const encodings = [encodeBinaryNode(tree).subarray(1)];
    if (baileys) encodings.push(baileys.encode(tree).subarray(1));
    for (const bytes of encodings) {
      const js = decodeJs(bytes);
      const wasm = decodeWasm(bytes);
      if (js !== null) {
        decoded++;
        assert.deepStrictEqual(js, wasm, `tree ${i}`);
      }
      assert.deepStrictEqual(decodeDecompressedBinaryNode(bytes), wasm, `tree ${i}`);
    }
  }
  // JIDs in text content go to WebAssembly; most trees stay in JavaScript.
  assert.ok(decoded > 200, `${decoded} trees decoded in JavaScript`);
});

test('decode-js: truncations and mutations it decodes, WebAssembly decodes the same', { timeout: 120_000 }, () => {
  const r = mulberry32(46);
  const inputs = Object.values(fixtures).filter((b) => b.length <= 4000);
  const next = generator(7);
  for (let i = 0; i < 100; i++) inputs.push(encodeBinaryNode(next()).subarray(1));
  let accepted = 0;
  let total = 0;
  for (const bytes of inputs) {
    for (let len = 0; len < bytes.length; len++) {
      assert.equal(decodeJs(bytes.subarray(0, len)), null, `truncated to ${len}`);
    }
    for (let i = 0; i < 200; i++) {
      const m = Buffer.from(bytes);
      for (let k = 0, n = 1 + Math.floor(r() * 4); k < n; k++) {
        m[Math.floor(r() * m.length)] = Math.floor(r() * 256);
      }
      total++;
      const js = decodeJs(m);
      if (js === null) continue;
      accepted++;
      let wasm;
      try {
        wasm = decodeWasm(m);
      } catch (e) {
        assert.fail(`${m.toString('hex')}: JavaScript decoded it, WebAssembly threw ${e.message}`);
      }
      assert.deepStrictEqual(js, wasm, m.toString('hex'));
    }
  }
  // Mutations that land in payloads, ids and values still decode.
  assert.ok(accepted > 0 && accepted < total, `${accepted} of ${total} decoded`);
});
