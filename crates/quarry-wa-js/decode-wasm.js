// The WebAssembly decoder: the node bytes are copied into the module,
// quarry-wa decodes them there and writes one flat tape of u32 words (see
// src/lib.rs); this file builds the JavaScript objects from the tape in one
// pass. It decodes what the JavaScript decoder (decode-js.js) leaves to it,
// and gives every error its message.

import { wasm, TOKENS, SERVER_NAMES } from './wasm.js';

const memory = wasm.memory;

// Views of the module's memory, made again after the memory grows (growing
// detaches the old ArrayBuffer, and views of a detached buffer have length
// 0: cheaper to test than reading `memory.buffer`).
let mem = Buffer.from(memory.buffer);
let words = new Uint32Array(memory.buffer);
function views() {
  if (mem.length === 0) {
    mem = Buffer.from(memory.buffer);
    words = new Uint32Array(memory.buffer);
  }
}

const STR_JID = 0xc0000000;
const STR_INPUT = 0x80000000;
const STR_SCRATCH = 0x40000000;
const STR_NON_ASCII = 0x20000000;
const STR_LEN_MASK = 0x1fffffff;

// '@' and the server name, by quarry-wa's server number.
const SERVER_SUFFIX = SERVER_NAMES.map((name) => '@' + name);

// The stanza being built: its input, the tape and the string area.
let input;
let tape;
let at;
let strBase;
// The input and the string area as latin1 JavaScript strings, made on first
// use: each call into the runtime to make a string costs about as much as
// the rest of a small stanza's decode, so a small stanza makes one (or two)
// and cuts its ASCII strings longer than eight characters out with
// `substring`. Only for inputs and
// string areas up to WHOLE_TEXT_MAX bytes: longer ones are mostly payload,
// and V8's substrings of 13 characters or more keep their parent alive.
let inputText;
let stringsText;
const WHOLE_TEXT_MAX = 512;

function asciiText(src, start, len) {
  if (len <= 8) {
    // Short strings: a loop beats a call into the runtime.
    let s = '';
    for (let i = start, end = start + len; i < end; i++) s += String.fromCharCode(src[i]);
    return s;
  }
  return src.latin1Slice(start, start + len);
}

function readStr() {
  const w = tape[at++];
  if (w < STR_SCRATCH) return TOKENS[w];
  if (w >= STR_JID) {
    const user = readStr();
    const device = w & 0xffff;
    const server = SERVER_SUFFIX[(w >>> 16) & 0xff];
    return device === 0 ? user + server : user + ':' + device + server;
  }
  let off = tape[at++];
  const len = w & STR_LEN_MASK;
  if (w & STR_NON_ASCII) {
    return w < STR_INPUT ? mem.utf8Slice(off + strBase, off + strBase + len) : input.utf8Slice(off, off + len);
  }
  // Up to 8 characters a loop in JavaScript is cheaper than any string the
  // runtime makes.
  if (len <= 8) return w >= STR_INPUT ? asciiText(input, off, len) : asciiText(mem, off + strBase, len);
  if (w >= STR_INPUT) {
    if (inputText === undefined) {
      inputText = input.length <= WHOLE_TEXT_MAX ? input.latin1Slice(0, input.length) : null;
    }
    return inputText === null ? asciiText(input, off, len) : inputText.substring(off, off + len);
  }
  if (stringsText === undefined) {
    const n = wasm.qw_strings_len();
    stringsText = n <= WHOLE_TEXT_MAX ? mem.latin1Slice(strBase, strBase + n) : null;
  }
  return stringsText === null ? asciiText(mem, off + strBase, len) : stringsText.substring(off, off + len);
}

function readNode() {
  const h = tape[at++];
  const tag = readStr();
  const attrs = {};
  for (let n = h >>> 3; n > 0; n--) {
    const key = readStr();
    attrs[key] = readStr();
  }
  let content;
  switch (h & 7) {
    case 1:
      content = readStr();
      break;
    case 2: {
      const off = tape[at++];
      content = input.subarray(off, off + tape[at++]);
      break;
    }
    case 3: {
      const n = tape[at++];
      content = new Array(n);
      for (let i = 0; i < n; i++) content[i] = readNode();
      break;
    }
    case 4: {
      const off = tape[at++] + strBase;
      content = Buffer.from(mem.subarray(off, off + tape[at++]));
      break;
    }
  }
  return { tag, attrs, content };
}

// The module's input buffer: its address and the length it is known to
// hold. The module keeps a buffer of up to RETAIN_BYTES (1 MiB) between
// calls, so only a longer input asks for a new one.
let inputPtr = 0;
let inputCap = 0;
const RETAIN_BYTES = 1 << 20;

/**
 * Decode node bytes (no flags byte) in WebAssembly into a BinaryNode, or
 * throw an Error whose message names the byte offset. Byte contents are
 * subarrays of `b`.
 * @param {Buffer} b
 */
export function decodeWasm(b) {
  const len = b.length;
  if (len > inputCap) {
    inputPtr = wasm.qw_input(len);
    inputCap = len <= RETAIN_BYTES ? len : 0;
    views();
  }
  if (len <= 64) {
    for (let i = 0; i < len; i++) mem[inputPtr + i] = b[i];
  } else {
    mem.set(b, inputPtr);
  }
  const tapePtr = wasm.qw_decode(len);
  views();
  if (tapePtr === 0) {
    const p = wasm.qw_strings_ptr();
    throw new Error(mem.toString('utf8', p, p + wasm.qw_strings_len()));
  }
  input = b;
  tape = words;
  at = tapePtr >>> 2;
  strBase = tape[at - 1];
  inputText = undefined;
  stringsText = undefined;
  const node = readNode();
  input = undefined;
  inputText = undefined;
  stringsText = undefined;
  return node;
}
