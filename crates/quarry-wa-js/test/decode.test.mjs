// Decoding, on vectors written from the wire format (docs/wa-format.md,
// the token numbers from the v3 dictionary), not from this package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import {
  TOKENS,
  decodeBinaryNode,
  decodeDecompressedBinaryNode,
  decodeNode,
  wasmMemoryBytes,
} from '../index.js';
import { decodeWasm } from '../decode-wasm.js';

const tok = (s) => {
  const id = TOKENS.indexOf(s);
  assert.ok(id > 0 && id < 236, `${s} is a single byte token`);
  return id;
};

test('token table: single and double byte tokens at their wire numbers', () => {
  assert.equal(TOKENS.length, 236 + 4 * 256);
  assert.equal(TOKENS[0], '');
  assert.equal(TOKENS[19], 'message');
  assert.equal(TOKENS[3], 's.whatsapp.net');
  // The v3 ordering WhatsApp uses now (older lists put broadcast at 9).
  assert.equal(TOKENS[9], 'notification');
  assert.equal(TOKENS.filter((t) => t === '').length, 1);
});

test('a message with a child: tokens only', () => {
  // <message type="enc"><enc/></message>
  const node = decodeDecompressedBinaryNode(
    Buffer.from([0xf8, 4, 19, 4, 29, 0xf8, 1, 0xf8, 1, 29]),
  );
  assert.deepStrictEqual(node, {
    tag: 'message',
    attrs: { type: 'enc' },
    content: [{ tag: 'enc', attrs: {}, content: undefined }],
  });
});

test('JIDs render as Baileys renders them, servers as the wire names them', () => {
  const to = tok('to');
  const from = tok('from');
  const jid = tok('jid');
  const bytes = Buffer.from([
    0xf8, 7, tok('message'),
    // to = AD_JID(domain 0, device 3, user NIBBLE_8 "5511")
    to, 0xf7, 0, 3, 0xff, 0x02, 0x55, 0x11,
    // from = JID_PAIR(LIST_EMPTY, s.whatsapp.net)
    from, 0xfa, 0, tok('s.whatsapp.net'),
    // jid = AD_JID(domain 128 = hosted, device 0, user raw "ab")
    jid, 0xf7, 128, 0, 0xfc, 2, 0x61, 0x62,
  ]);
  assert.deepStrictEqual(decodeDecompressedBinaryNode(bytes).attrs, {
    to: '5511:3@s.whatsapp.net',
    from: '@s.whatsapp.net',
    jid: 'ab@hosted',
  });
});

test('packed strings, UTF-8 raw strings, bytes content as a view of the input', () => {
  const input = Buffer.from([
    0xf8, 6, tok('iq'),
    tok('id'), 0xfb, 0x82, 0x3e, 0xbf, // HEX_8 odd: "3EB"
    tok('type'), 0xfc, 2, 0xc3, 0xbc, // "ü"
    0xfc, 3, 1, 2, 3, // bytes content
  ]);
  const node = decodeDecompressedBinaryNode(input);
  assert.deepStrictEqual(node.attrs, { id: '3EB', type: 'ü' });
  assert.ok(Buffer.isBuffer(node.content));
  assert.deepStrictEqual([...node.content], [1, 2, 3]);
  assert.equal(node.content.buffer, input.buffer);
  // A plain Uint8Array works too; contents are Buffers over it.
  const again = decodeDecompressedBinaryNode(new Uint8Array(input));
  assert.deepStrictEqual(again, node);
});

test('text content: a token, a nibble string; LIST_8 0 is an empty child list', () => {
  assert.equal(decodeDecompressedBinaryNode(Buffer.from([0xf8, 2, 19, 4])).content, 'type');
  assert.equal(
    decodeDecompressedBinaryNode(Buffer.from([0xf8, 2, 19, 0xff, 0x82, 0x1a, 0x2f])).content,
    '1-2',
  );
  assert.deepStrictEqual(decodeDecompressedBinaryNode(Buffer.from([0xf8, 2, 19, 0xf8, 0])).content, []);
});

test('errors are Errors that name the byte offset', () => {
  assert.throws(() => decodeDecompressedBinaryNode(Buffer.from([0xf8, 2, 19])), {
    name: 'Error',
    message: 'unexpected end of input at byte 3',
  });
  assert.throws(() => decodeDecompressedBinaryNode(Buffer.from([0xf8, 1, 240])), /at byte 2/);
  assert.throws(() => decodeDecompressedBinaryNode(Buffer.alloc(0)), /at byte 0/);
  assert.throws(() => decodeDecompressedBinaryNode('nope'), TypeError);
});

test('frames: flags byte, zlib when flags & 2, async and sync', async () => {
  const body = Buffer.from([0xf8, 4, 19, 4, 29, 0xf8, 1, 0xf8, 1, 29]);
  const want = decodeDecompressedBinaryNode(body);
  assert.deepStrictEqual(await decodeBinaryNode(Buffer.concat([Buffer.from([0]), body])), want);
  const zipped = Buffer.concat([Buffer.from([2]), deflateSync(body)]);
  assert.deepStrictEqual(await decodeBinaryNode(zipped), want);
  assert.deepStrictEqual(decodeNode(zipped), want);
  assert.deepStrictEqual(decodeNode(new Uint8Array([0, ...body])), want);
  await assert.rejects(decodeBinaryNode(Buffer.alloc(0)), /at byte 0/);
  await assert.rejects(decodeBinaryNode(Buffer.from([2, 1, 2, 3])), /invalid compressed frame .* at byte 1/);
  assert.throws(() => decodeNode(Buffer.from([2, 1, 2, 3])), /at byte 1/);
  // A frame that inflates past 16 MiB is refused before it is decoded.
  const bomb = Buffer.concat([Buffer.from([2]), deflateSync(Buffer.alloc((16 << 20) + 1))]);
  await assert.rejects(decodeBinaryNode(bomb), /at byte 1/);
  assert.throws(() => decodeNode(bomb), /at byte 1/);
});

test('memory stays bounded: large stanzas, then many small ones', () => {
  const big = 8 << 20;
  const head = Buffer.from([0xf8, 2, 19, 0xfe, 0, 0, 0, 0]);
  head.writeUInt32BE(big, 4);
  const bytes = Buffer.concat([head, Buffer.alloc(big, 7)]);
  // Twice: where the allocator puts a large stanza's buffers the first
  // time depends on what the module held before; from the second time on
  // they take the same memory again.
  assert.equal(decodeDecompressedBinaryNode(bytes).content.length, big);
  assert.equal(decodeDecompressedBinaryNode(bytes).content.length, big);
  const after = wasmMemoryBytes();
  // Small stanzas by both decoders (the WebAssembly one keeps its buffers
  // between calls).
  const small = Buffer.from([0xf8, 4, 19, 4, 29, 0xf8, 1, 0xf8, 1, 29]);
  for (let i = 0; i < 100_000; i++) {
    decodeDecompressedBinaryNode(small);
    decodeWasm(small);
  }
  assert.equal(wasmMemoryBytes(), after);
  // The big stanza's buffers were released: decoding it again does not grow memory.
  decodeDecompressedBinaryNode(bytes);
  assert.equal(wasmMemoryBytes(), after);
});

test('inputs of changing sizes around the retained-buffer limit decode right', () => {
  const stanza = (size, fill) => {
    const head = Buffer.from([0xf8, 2, 19, 0xfe, 0, 0, 0, 0]);
    head.writeUInt32BE(size, 4);
    return Buffer.concat([head, Buffer.alloc(size, fill)]);
  };
  const sizes = [600_000, 900_000, 1_048_000, 1_500_000, 10, 700_000, 2_000_000, 1_000_000];
  // Through the package's entry (the JavaScript decoder up to 1 MiB) and
  // through the WebAssembly decoder alone, whose input buffer this is about.
  for (const decode of [decodeDecompressedBinaryNode, decodeWasm]) {
    sizes.forEach((size, i) => {
      const node = decode(stanza(size, i + 1));
      assert.equal(node.content.length, size);
      assert.equal(node.content[size - 1], i + 1);
    });
  }
});

test('Messenger and interop JIDs render with their device and server', () => {
  const jid = tok('jid');
  const msgr = [0xfc, 4, ...Buffer.from('msgr')];
  const interop = [0xfc, 7, ...Buffer.from('interop')];
  // FB_JID: user "a", device u16 2, server; INTEROP_JID: user, device, integrator 7, server.
  const fb = Buffer.from([0xf8, 3, 19, jid, 0xf6, 0xfc, 1, 0x61, 0, 2, ...msgr]);
  const io = Buffer.from([0xf8, 3, 19, jid, 0xf5, 0xfc, 1, 0x61, 0, 2, 0, 7, ...interop]);
  assert.equal(decodeDecompressedBinaryNode(fb).attrs.jid, 'a:2@msgr');
  assert.equal(decodeDecompressedBinaryNode(io).attrs.jid, 'a:2@interop');
  // FB_JID with another server is rejected.
  assert.throws(
    () => decodeDecompressedBinaryNode(Buffer.from([0xf8, 3, 19, jid, 0xf6, 0xfc, 1, 0x61, 0, 2, ...interop])),
    /at byte/,
  );
});

test('a million decodes in a loop hold a flat JavaScript heap and wasm memory', () => {
  // In a child process with `--expose-gc`, so that the heap is measured
  // after a full collection: what stays is what the package keeps. Once
  // through the package's entry (the JavaScript decoder) and once through
  // the WebAssembly decoder alone.
  for (const [module, name] of [
    ['../index.js', 'decodeDecompressedBinaryNode'],
    ['../decode-wasm.js', 'decodeWasm'],
  ]) {
    const script = `
      import { ${name} as decode } from ${JSON.stringify(new URL(module, import.meta.url).href)};
      import { wasmMemoryBytes } from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
      const stanza = Buffer.from([0xf8, 4, 19, 4, 29, 0xf8, 1, 0xf8, 1, 29]);
      const samples = [];
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 100_000; i++) decode(stanza);
        globalThis.gc();
        samples.push([process.memoryUsage().heapUsed, wasmMemoryBytes()]);
      }
      process.stdout.write(JSON.stringify(samples));
    `;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const samples = JSON.parse(out);
    assert.equal(samples.length, 10);
    const [firstHeap, firstWasm] = samples[0];
    for (const [heap, wasmBytes] of samples) {
      assert.equal(wasmBytes, firstWasm, `${name}: wasm memory grew`);
      // A leak of even 4 bytes per decode would be 3.6 MB over the last
      // 900,000 decodes; allow 1 MB of heap noise.
      assert.ok(heap - firstHeap < 1 << 20, `${name}: heap grew from ${firstHeap} to ${heap}`);
    }
  }
});
