// Encoding, on byte vectors written from the wire format (docs/wa-format.md;
// token numbers from the v3 dictionary).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOKENS, decodeDecompressedBinaryNode, encodeBinaryNode, encodeNode } from '../index.js';

const tok = (s) => TOKENS.indexOf(s);
const hex = (buf) => Buffer.from(buf).toString('hex');

test('a frame: flags byte 0x00, list header, tokens', () => {
  const bytes = encodeBinaryNode({
    tag: 'message',
    attrs: { type: 'enc' },
    content: [{ tag: 'enc', attrs: {} }],
  });
  assert.ok(Buffer.isBuffer(bytes));
  assert.equal(hex(bytes), '00f80413041df801f8011d');
  assert.equal(encodeNode, encodeBinaryNode);
});

test('strings: nibble and hex packing, raw UTF-8, long raw lengths', () => {
  const attr = (value) => hex(encodeBinaryNode({ tag: 'iq', attrs: { id: value } }).subarray(5));
  assert.equal(attr('12345'), 'ff8312345f');
  assert.equal(attr('1.2-'), 'ff021b2a');
  assert.equal(attr('ABC'), 'fb82abcf');
  assert.equal(attr('ü'), 'fc02c3bc');
  assert.equal(attr('abc'), 'fc03616263');
  assert.equal(attr(''), 'fc00');
  const long = 'x'.repeat(300);
  assert.equal(attr(long).slice(0, 8), 'fd00012c');
});

test('JIDs: AD_JID for a device on a user server, JID_PAIR otherwise', () => {
  const attr = (value) => hex(encodeBinaryNode({ tag: 'iq', attrs: { to: value } }).subarray(5));
  assert.equal(attr('5511:3@s.whatsapp.net'), 'f70003ff025511');
  assert.equal(attr('5511:3@lid'), 'f70103ff025511');
  assert.equal(attr('ab:2@hosted'), 'f78002fc026162');
  assert.equal(attr('@s.whatsapp.net'), 'fa0003');
  assert.equal(attr('5511@s.whatsapp.net'), 'faff02551103');
  // A server the wire cannot name stays a raw string.
  assert.equal(attr('a@b.c'), 'fc05' + Buffer.from('a@b.c').toString('hex'));
});

test('contents: bytes, text, child lists; absent and null attributes are skipped', () => {
  const frame = encodeBinaryNode({
    tag: 'message',
    attrs: { id: undefined, type: null, to: 'a@b.c' },
    content: [
      { tag: 'enc', attrs: {}, content: new Uint8Array([1, 2, 3]) },
      { tag: 'body', attrs: {}, content: 'hello' },
      { tag: 'list', attrs: {}, content: [] },
    ],
  });
  const back = decodeDecompressedBinaryNode(frame.subarray(1));
  assert.deepStrictEqual(back, {
    tag: 'message',
    attrs: { to: 'a@b.c' },
    content: [
      { tag: 'enc', attrs: {}, content: Buffer.from([1, 2, 3]) },
      // Raw text content decodes as bytes (the wire does not say text).
      { tag: 'body', attrs: {}, content: Buffer.from('hello') },
      { tag: 'list', attrs: {}, content: [] },
    ],
  });
});

test('bad nodes throw, and the next encode still works', () => {
  assert.throws(() => encodeBinaryNode(null), TypeError);
  assert.throws(() => encodeBinaryNode({ attrs: {} }), TypeError);
  assert.throws(() => encodeBinaryNode({ tag: 'a', attrs: {}, content: 5 }), TypeError);
  let deep = { tag: 'a', attrs: {} };
  for (let i = 0; i < 200; i++) deep = { tag: 'a', attrs: {}, content: [deep] };
  assert.throws(() => encodeBinaryNode(deep), /deeper than 128/);
  assert.equal(hex(encodeBinaryNode({ tag: 'message', attrs: {} })), '00f80113');
});

test('a large stanza grows the buffer, and the output is a copy', () => {
  const payload = Buffer.alloc(3 << 20, 9);
  const a = encodeBinaryNode({ tag: 'message', attrs: {}, content: payload });
  assert.equal(hex(a.subarray(0, 8)), '00f80213fe003000');
  const b = encodeBinaryNode({ tag: 'message', attrs: {} });
  // 00, F8 02, tag, BINARY_32 and its 4 length bytes, then the payload.
  assert.equal(a.length, 9 + (3 << 20));
  assert.equal(a[a.length - 1], 9);
  assert.equal(hex(b), '00f80113');
});

test('a node of 256 items or more gets a LIST_16 header', () => {
  // 130 attributes: 1 + 2 * 130 = 261 items (0x0105), then a child list.
  const attrs = {};
  for (let i = 0; i < 130; i++) attrs['k' + i] = 'v';
  const tree = { tag: 'message', attrs, content: [{ tag: 'enc', attrs: { type: 'pkmsg' }, content: undefined }] };
  const frame = encodeBinaryNode(tree);
  // Flags, LIST_16 0x0106 (the content makes 262), the tag token.
  assert.equal(hex(frame.subarray(0, 5)), '00f90106' + tok('message').toString(16).padStart(2, '0'));
  assert.deepStrictEqual(decodeDecompressedBinaryNode(frame.subarray(1)), tree);
  // 127 attributes and content: 256 items; 126 and content: 254, LIST_8.
  const sized = (n) => {
    const a = {};
    for (let i = 0; i < n; i++) a['k' + i] = 'v';
    return encodeBinaryNode({ tag: 'message', attrs: a, content: 'enc' });
  };
  assert.equal(hex(sized(127).subarray(0, 4)), '00f90100');
  assert.equal(hex(sized(126).subarray(0, 3)), '00f8fe');
  assert.deepStrictEqual(decodeDecompressedBinaryNode(sized(127).subarray(1)).attrs.k126, 'v');
});
