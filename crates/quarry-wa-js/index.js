// quarry-wa for JavaScript: WhatsApp binary node codec.
//
// Decode: read in JavaScript (decode-js.js) straight from the input bytes;
// what that decoder leaves, malformed input among it, goes to quarry-wa in
// WebAssembly (decode-wasm.js), which reads every form and names the byte
// offset of every error.
// Lazy decode: the input is checked in JavaScript without making strings
// (decode-js.js, scanJs), then read on access (LazyNode); what that check
// does not accept takes the eager path.
// Encode: written here, straight into one reused byte buffer.

import { inflate, inflateSync } from 'node:zlib';
import { promisify } from 'node:util';
import { wasm, TOKENS } from './wasm.js';
import {
  decodeJs,
  scanJs,
  LazyNode,
  LIST_EMPTY,
  DICTIONARY_0,
  AD_JID,
  LIST_8,
  LIST_16,
  JID_PAIR,
  HEX_8,
  BINARY_8,
  BINARY_20,
  BINARY_32,
  NIBBLE_8,
} from './decode-js.js';
import { decodeWasm } from './decode-wasm.js';

export { TOKENS };

const inflateAsync = promisify(inflate);

// Token text → wire code: below 256 one byte, else (236 + dict) << 8 | index.
const TOKEN_CODE = new Map();
for (let id = 1; id < TOKENS.length; id++) {
  const text = TOKENS[id];
  if (text === '') continue;
  TOKEN_CODE.set(text, id < 236 ? id : ((DICTIONARY_0 + ((id - 236) >> 8)) << 8) | ((id - 236) & 255));
}

// ---------------------------------------------------------------- decode

function asBuffer(buf) {
  if (Buffer.isBuffer(buf)) return buf;
  if (buf instanceof Uint8Array) return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf instanceof ArrayBuffer) return Buffer.from(buf);
  throw new TypeError('expected a Uint8Array or Buffer');
}

/**
 * Inputs up to this many bytes go to the JavaScript decoder first. Up to
 * it the WebAssembly decoder's item and arena limits cannot be reached
 * (an item takes at least two bytes), so the JavaScript decoder, which
 * does not count them, accepts nothing the WebAssembly one refuses.
 */
const JS_MAX_BYTES = 1 << 20;

/**
 * Decode node bytes (no flags byte, already inflated) into a BinaryNode.
 * Byte contents are subarrays of `buf` (as in Baileys).
 * @param {Uint8Array} buf
 */
export function decodeDecompressedBinaryNode(buf) {
  const b = asBuffer(buf);
  if (b.length <= JS_MAX_BYTES) {
    const node = decodeJs(b);
    if (node !== null) return node;
  }
  return decodeWasm(b);
}

// WhatsApp refuses frames that inflate past 16 MiB; so does this.
const INFLATE_OPTIONS = { maxOutputLength: 16 << 20 };

// zlib does not say where a stream went wrong: the offset is the
// compressed body's start, after the flags byte.
function inflateError(e) {
  return new Error(`invalid compressed frame (${e.message}) at byte 1`);
}

function body(frame) {
  const b = asBuffer(frame);
  if (b.length === 0) throw new Error('unexpected end of input at byte 0');
  return b;
}

/**
 * Decode a frame: a flags byte, then node bytes, zlib-compressed when
 * `flags & 2`. Async like Baileys' (inflation runs on Node's zlib pool).
 * @param {Uint8Array} frame
 */
export async function decodeBinaryNode(frame) {
  const b = body(frame);
  const rest = b.subarray(1);
  if (!(2 & b[0])) return decodeDecompressedBinaryNode(rest);
  let inflated;
  try {
    inflated = await inflateAsync(rest, INFLATE_OPTIONS);
  } catch (e) {
    throw inflateError(e);
  }
  return decodeDecompressedBinaryNode(inflated);
}

/**
 * whatsapp-rust-bridge's name: decode a frame (flags byte first,
 * zlib-compressed when `flags & 2`), synchronously.
 * @param {Uint8Array} frame
 */
export function decodeNode(frame) {
  const b = body(frame);
  const rest = b.subarray(1);
  if (!(2 & b[0])) return decodeDecompressedBinaryNode(rest);
  let inflated;
  try {
    inflated = inflateSync(rest, INFLATE_OPTIONS);
  } catch (e) {
    throw inflateError(e);
  }
  return decodeDecompressedBinaryNode(inflated);
}

// ---------------------------------------------------------- lazy decode

/**
 * A view of a node the WebAssembly decoder built: the interface of
 * LazyNode over a BinaryNode that is already whole.
 */
class NodeView {
  /** @param {import('./index.d.ts').BinaryNode} node */
  constructor(node) {
    this._node = node;
    this._content = null;
  }

  get tag() {
    return this._node.tag;
  }

  attr(key) {
    const attrs = this._node.attrs;
    return Object.hasOwn(attrs, key) ? attrs[key] : undefined;
  }

  get attrs() {
    return this._node.attrs;
  }

  get content() {
    const content = this._node.content;
    if (!Array.isArray(content)) return content;
    return (this._content ??= content.map((c) => new NodeView(c)));
  }

  toBinaryNode() {
    return this._node;
  }
}

/**
 * Decode node bytes (no flags byte, already inflated) into a view that
 * reads the tag, attributes and content from `buf` when they are asked
 * for. The whole input is checked first, without making its strings:
 * malformed input throws here, with the eager decoder's message and
 * offset. The view holds `buf`.
 * @param {Uint8Array} buf
 */
export function decodeDecompressedBinaryNodeLazy(buf) {
  const b = asBuffer(buf);
  if (b.length <= JS_MAX_BYTES && scanJs(b)) return new LazyNode(b, 0, 0);
  return new NodeView(decodeWasm(b));
}

/**
 * {@link decodeBinaryNode}, returning a view as
 * {@link decodeDecompressedBinaryNodeLazy} does.
 * @param {Uint8Array} frame
 */
export async function decodeBinaryNodeLazy(frame) {
  const b = body(frame);
  const rest = b.subarray(1);
  if (!(2 & b[0])) return decodeDecompressedBinaryNodeLazy(rest);
  let inflated;
  try {
    inflated = await inflateAsync(rest, INFLATE_OPTIONS);
  } catch (e) {
    throw inflateError(e);
  }
  return decodeDecompressedBinaryNodeLazy(inflated);
}

// ---------------------------------------------------------------- encode

let out = Buffer.allocUnsafe(4096);
let pos = 0;

function room(n) {
  if (pos + n > out.length) {
    const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, pos + n));
    out.copy(bigger, 0, 0, pos);
    out = bigger;
  }
}

function byteLength(len) {
  if (len < 256) {
    out[pos++] = BINARY_8;
    out[pos++] = len;
  } else if (len < 1 << 20) {
    out[pos++] = BINARY_20;
    out[pos++] = len >>> 16;
    out[pos++] = (len >>> 8) & 255;
    out[pos++] = len & 255;
  } else if (len <= 0xffffffff) {
    out[pos++] = BINARY_32;
    out.writeUInt32BE(len, pos);
    pos += 4;
  } else {
    throw new Error('string too large to encode: ' + len);
  }
}

function raw(s) {
  const n = s.length;
  let ascii = true;
  for (let i = 0; i < n; i++) {
    if (s.charCodeAt(i) > 127) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    room(n + 5);
    byteLength(n);
    const o = out;
    let p = pos;
    for (let i = 0; i < n; i++) o[p++] = s.charCodeAt(i);
    pos = p;
  } else {
    const len = Buffer.byteLength(s, 'utf8');
    room(len + 5);
    byteLength(len);
    pos += out.utf8Write(s, pos, len);
  }
}

// Nibble alphabet 0-9 - . and hex 0-9 A-F: 1 = nibble only, 2 = hex only,
// 3 = both.
const PACK_CLASS = new Uint8Array(128);
for (let c = 48; c < 58; c++) PACK_CLASS[c] = 3;
PACK_CLASS[45] = 1;
PACK_CLASS[46] = 1;
for (let c = 65; c < 71; c++) PACK_CLASS[c] = 2;

// Character code → nibble value, for each alphabet.
const NIBBLE_VALUE = new Uint8Array(128);
const HEX_VALUE = new Uint8Array(128);
for (let c = 48; c < 58; c++) NIBBLE_VALUE[c] = HEX_VALUE[c] = c - 48;
NIBBLE_VALUE[45] = 10;
NIBBLE_VALUE[46] = 11;
for (let c = 65; c < 71; c++) HEX_VALUE[c] = c - 55;

// 0 when s[from..to) is not packable, else NIBBLE_8 or HEX_8.
function packing(s, from, to) {
  const n = to - from;
  if (n === 0 || n > 127) return 0;
  let cls = 3;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    cls &= c < 128 ? PACK_CLASS[c] : 0;
    if (cls === 0) return 0;
  }
  return cls & 1 ? NIBBLE_8 : HEX_8;
}

function packed(s, from, to, tag) {
  const n = to - from;
  room(2 + (n >> 1) + 1);
  out[pos++] = tag;
  out[pos++] = ((n + 1) >> 1) | (n & 1 ? 128 : 0);
  const value = tag === NIBBLE_8 ? NIBBLE_VALUE : HEX_VALUE;
  const o = out;
  let p = pos;
  let i = from;
  for (; i + 1 < to; i += 2) o[p++] = (value[s.charCodeAt(i)] << 4) | value[s.charCodeAt(i + 1)];
  if (i < to) o[p++] = (value[s.charCodeAt(i)] << 4) | 15;
  pos = p;
}

// The longest token made only of packable characters: a packable string
// longer than this is no token, and needs no lookup.
let PACKABLE_TOKEN_MAX = 0;
for (const t of TOKENS) {
  if (packing(t, 0, t.length) !== 0) PACKABLE_TOKEN_MAX = Math.max(PACKABLE_TOKEN_MAX, t.length);
}

// s[from..to) as a JID's user: packed without making a substring when it
// can be, else as any string.
function jidUser(s, from, to) {
  const tag = to - from > PACKABLE_TOKEN_MAX ? packing(s, from, to) : 0;
  if (tag !== 0) packed(s, from, to, tag);
  else str(s.slice(from, to), false);
}

// The servers a JID can name, by name length: the wire code of each, and
// the AD_JID domain of those that take a device (-1 for the others).
const SERVERS_BY_LENGTH = [];
for (const [name, domain] of [
  ['s.whatsapp.net', 0], ['lid', 1], ['hosted', 128], ['hosted.lid', 129], ['g.us', -1],
  ['broadcast', -1], ['newsletter', -1], ['msgr', -1], ['interop', -1], ['bot', -1],
  ['c.us', -1], ['call', -1],
]) {
  (SERVERS_BY_LENGTH[name.length] ??= []).push({ name, domain, code: TOKEN_CODE.get(name) });
}

// The server named by s[from..], without making a substring.
function serverAt(s, from) {
  const candidates = SERVERS_BY_LENGTH[s.length - from];
  if (candidates === undefined) return undefined;
  for (let i = 0; i < candidates.length; i++) {
    if (s.startsWith(candidates[i].name, from)) return candidates[i];
  }
  return undefined;
}

function serverCode(info) {
  const code = info.code;
  if (code === undefined) return raw(info.name);
  room(2);
  if (code < 256) out[pos++] = code;
  else {
    out[pos++] = code >>> 8;
    out[pos++] = code & 255;
  }
}

// A device number: 1 to 3 decimal digits, at most 255; else -1.
function deviceOf(s, from, to) {
  const n = to - from;
  if (n < 1 || n > 3) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v > 255 ? -1 : v;
}

// Write `s` as a JID when it is one the wire can carry; false otherwise.
function jid(s) {
  const at_ = s.indexOf('@');
  const info = serverAt(s, at_ + 1);
  if (info === undefined) return false;
  const colon = s.indexOf(':');
  if (colon >= 0 && colon < at_) {
    const device = deviceOf(s, colon + 1, at_);
    if (info.domain < 0 || device < 0 || colon === 0) return false;
    room(3);
    out[pos++] = AD_JID;
    out[pos++] = info.domain;
    out[pos++] = device;
    jidUser(s, 0, colon);
    return true;
  }
  room(2);
  out[pos++] = JID_PAIR;
  if (at_ === 0) out[pos++] = LIST_EMPTY;
  else jidUser(s, 0, at_);
  serverCode(info);
  return true;
}

// No token holds an '@' (checked below), so text with one needs no token
// lookup.
const TOKEN_WITH_AT = TOKENS.some((t) => t.includes('@'));

function str(s, mayBeJid) {
  const n = s.length;
  // The packable prefix, in one scan: its length `i` and its class (see
  // PACK_CLASS).
  let cls = 3;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    const k = cls & (c < 128 ? PACK_CLASS[c] : 0);
    if (k === 0) break;
    cls = k;
  }
  const tag = i === n && n !== 0 && n <= 127 ? (cls & 1 ? NIBBLE_8 : HEX_8) : 0;
  if (tag !== 0 && n > PACKABLE_TOKEN_MAX) return packed(s, 0, n, tag);
  if (n <= 48) {
    // A user made only of packable characters, longer than any such token,
    // then '@': what jid() would write, without scanning again.
    if (mayBeJid && i > PACKABLE_TOKEN_MAX && i < n && s.charCodeAt(i) === 64 && !TOKEN_WITH_AT) {
      const info = serverAt(s, i + 1);
      if (info === undefined) return raw(s);
      room(1);
      out[pos++] = JID_PAIR;
      packed(s, 0, i, cls & 1 ? NIBBLE_8 : HEX_8);
      serverCode(info);
      return;
    }
    const code = TOKEN_CODE.get(s);
    if (code !== undefined) {
      room(2);
      if (code < 256) out[pos++] = code;
      else {
        out[pos++] = code >>> 8;
        out[pos++] = code & 255;
      }
      return;
    }
    if (tag !== 0) return packed(s, 0, n, tag);
    if (mayBeJid && s.indexOf('@') >= 0 && jid(s)) return;
  }
  raw(s);
}

function listStart(n) {
  room(3);
  if (n < 256) {
    out[pos++] = LIST_8;
    out[pos++] = n;
  } else if (n <= 0xffff) {
    out[pos++] = LIST_16;
    out[pos++] = n >>> 8;
    out[pos++] = n & 255;
  } else {
    throw new Error('too many items in one list: ' + n);
  }
}

function node(n, depth) {
  if (n === null || typeof n !== 'object') throw new TypeError('a BinaryNode must be an object');
  if (depth > 128) throw new Error('nesting deeper than 128 levels');
  const { tag, attrs, content } = n;
  if (typeof tag !== 'string') throw new TypeError('a BinaryNode needs a string tag');
  // The list header's two bytes are written once the attributes are
  // counted (one pass over them); a list of 256 items or more moves what
  // follows by one byte to make room for LIST_16.
  room(2);
  const head = pos;
  pos += 2;
  str(tag, true);
  let keys = 0;
  if (attrs) {
    for (const k in attrs) {
      const v = attrs[k];
      if (v === undefined || v === null) continue;
      keys++;
      str(k, true);
      str(typeof v === 'string' ? v : String(v), true);
    }
  }
  const size = 1 + 2 * keys + (content === undefined ? 0 : 1);
  if (size < 256) {
    out[head] = LIST_8;
    out[head + 1] = size;
  } else if (size <= 0xffff) {
    room(1);
    out.copyWithin(head + 3, head + 2, pos);
    pos++;
    out[head] = LIST_16;
    out[head + 1] = size >>> 8;
    out[head + 2] = size & 255;
  } else {
    throw new Error('too many items in one list: ' + size);
  }
  if (content === undefined) return;
  if (typeof content === 'string') str(content, true);
  else if (content instanceof Uint8Array) {
    const len = content.length;
    room(len + 5);
    byteLength(len);
    out.set(content, pos);
    pos += len;
  } else if (Array.isArray(content)) {
    listStart(content.length);
    for (let i = 0; i < content.length; i++) node(content[i], depth + 1);
  } else {
    throw new TypeError(`invalid content for tag "${tag}": ${typeof content}`);
  }
}

/**
 * Encode a BinaryNode to a frame: the 0x00 flags byte, then the node bytes
 * (as Baileys' encodeBinaryNode returns them). Strings are written as the
 * wire's encoders write them: token, packed, JID, or raw UTF-8.
 * @param {import('./index.d.ts').BinaryNode} n
 * @returns {Buffer}
 */
export function encodeBinaryNode(n) {
  pos = 0;
  out[pos++] = 0;
  try {
    node(n, 0);
  } catch (e) {
    pos = 0;
    throw e;
  }
  const result = Buffer.allocUnsafe(pos);
  if (pos <= 64) {
    for (let i = 0; i < pos; i++) result[i] = out[i];
  } else {
    out.copy(result, 0, 0, pos);
  }
  if (out.length > 1 << 20) out = Buffer.allocUnsafe(4096);
  return result;
}

/** whatsapp-rust-bridge's name for {@link encodeBinaryNode}. */
export const encodeNode = encodeBinaryNode;

/** Bytes of WebAssembly memory the module holds now (it grows to the
 * largest stanza seen and never shrinks; buffers inside it are released
 * after a large stanza and reused). */
export function wasmMemoryBytes() {
  return wasm.memory.buffer.byteLength;
}
