// The JavaScript decoder: node bytes read straight into BinaryNodes, with
// no call into WebAssembly (a call, the copy in and the tape back cost a
// small stanza more than all of its decoding here).
//
// It reads the forms stanzas are made of: list headers, tokens, packed
// strings, raw strings and bytes, and JID_PAIR and AD_JID attribute values.
// For anything else it returns null, and decodeDecompressedBinaryNode asks
// the WebAssembly decoder, which reads every form and gives every error its
// message and offset: malformed input, a JID as a tag, key or content,
// FB_JID and INTEROP_JID, nesting deeper than MAX_DEPTH. Where it returns a
// node, the WebAssembly decoder returns an equal one (test/decode-js.test.mjs
// holds it to that on vectors, fixtures, random trees and mutations).

import { isUtf8 } from 'node:buffer';
import { TOKENS, SERVER_NAMES } from './wasm.js';

// The format's tag bytes, shared with the encoder in index.js.
export const LIST_EMPTY = 0;
export const DICTIONARY_0 = 236;
export const DICTIONARY_3 = 239;
export const AD_JID = 247;
export const LIST_8 = 248;
export const LIST_16 = 249;
export const JID_PAIR = 250;
export const HEX_8 = 251;
export const BINARY_8 = 252;
export const BINARY_20 = 253;
export const BINARY_32 = 254;
export const NIBBLE_8 = 255;

/** Nodes nested deeper than this are left to the WebAssembly decoder
 * (whose limit is 128). */
const MAX_DEPTH = 100;

// '@' and the server name for each byte that, as a JID's server, is a one
// byte token naming a server; null for the others.
const TOKEN_SERVER = [];
for (let b = 0; b < 256; b++) {
  const name = b > 0 && b < DICTIONARY_0 ? TOKENS[b] : '';
  TOKEN_SERVER.push(SERVER_NAMES.includes(name) ? '@' + name : null);
}

// '@' and the server name, by the server's name.
const SERVER_BY_NAME = new Map(SERVER_NAMES.map((name) => [name, '@' + name]));

// AD_JID domains: 0 s.whatsapp.net, 1 lid, 129 hosted.lid, and any other
// with bit 7 set and bit 0 clear hosted; null for the rest.
const AD_SERVER = [];
for (let d = 0; d < 256; d++) {
  AD_SERVER.push(
    d === 0 ? '@s.whatsapp.net' : d === 1 ? '@lid' : d === 129 ? '@hosted.lid' : (d & 0x81) === 0x80 ? '@hosted' : null,
  );
}

// ':' and the device, by device number (an AD_JID device is one byte).
const DEVICE = [];
for (let d = 0; d < 256; d++) DEVICE.push(d === 0 ? '' : ':' + d);

// Packed strings: the character code of the high and of the low nibble of
// every byte, for NIBBLE_8 (0-9 - .; nibble 15 is NUL unless it is the
// dropped last one) and HEX_8 (0-9 A-F); and which NIBBLE_8 bytes hold a
// nibble 12, 13 or 14, which the format does not allow.
const NIBBLE_HI = new Uint8Array(256);
const NIBBLE_LO = new Uint8Array(256);
const HEX_HI = new Uint8Array(256);
const HEX_LO = new Uint8Array(256);
const NIBBLE_BAD = new Uint8Array(256);
{
  const nibble = '0123456789-.\0\0\0\0';
  const hex = '0123456789ABCDEF';
  for (let b = 0; b < 256; b++) {
    const hi = b >> 4;
    const lo = b & 15;
    NIBBLE_HI[b] = nibble.charCodeAt(hi);
    NIBBLE_LO[b] = nibble.charCodeAt(lo);
    HEX_HI[b] = hex.charCodeAt(hi);
    HEX_LO[b] = hex.charCodeAt(lo);
    NIBBLE_BAD[b] = (hi >= 12 && hi <= 14) || (lo >= 12 && lo <= 14) ? 1 : 0;
  }
}

// A packed string of more than 32 characters is expanded here before it
// becomes a string.
const expanded = Buffer.alloc(2 * 127);

const fcc = String.fromCharCode;

/**
 * The string of the `n` character codes `a[p..p + n]` (each below 256).
 * Up to 32 characters one call of String.fromCharCode makes the string
 * flat and whole, at a fraction of the cost of a call into the runtime
 * (latin1Slice) or of a concatenation per character.
 * @param {Buffer} a
 */
function chars(a, p, n) {
  switch (n) {
    case 0:
      return '';
    case 1:
      return fcc(a[p]);
    case 2:
      return fcc(a[p], a[p + 1]);
    case 3:
      return fcc(a[p], a[p + 1], a[p + 2]);
    case 4:
      return fcc(a[p], a[p + 1], a[p + 2], a[p + 3]);
    case 5:
      return fcc(a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4]);
    case 6:
      return fcc(a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5]);
    case 7:
      return fcc(a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6]);
    case 8:
      return fcc(a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7]);
    case 9:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8]
      );
    case 10:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9]
      );
    case 11:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10]
      );
    case 12:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11]
      );
    case 13:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12]
      );
    case 14:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13]
      );
    case 15:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14]
      );
    case 16:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15]
      );
    case 17:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16]
      );
    case 18:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17]
      );
    case 19:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18]
      );
    case 20:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19]
      );
    case 21:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20]
      );
    case 22:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21]
      );
    case 23:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22]
      );
    case 24:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23]
      );
    case 25:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24]
      );
    case 26:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24], a[p + 25]
      );
    case 27:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24], a[p + 25], a[p + 26]
      );
    case 28:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24], a[p + 25], a[p + 26], a[p + 27]
      );
    case 29:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24], a[p + 25], a[p + 26], a[p + 27], a[p + 28]
      );
    case 30:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24], a[p + 25], a[p + 26], a[p + 27], a[p + 28], a[p + 29]
      );
    case 31:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24], a[p + 25], a[p + 26], a[p + 27], a[p + 28], a[p + 29], a[p + 30]
      );
    case 32:
      return fcc(
        a[p], a[p + 1], a[p + 2], a[p + 3], a[p + 4], a[p + 5], a[p + 6], a[p + 7],
        a[p + 8], a[p + 9], a[p + 10], a[p + 11], a[p + 12], a[p + 13], a[p + 14], a[p + 15],
        a[p + 16], a[p + 17], a[p + 18], a[p + 19], a[p + 20], a[p + 21], a[p + 22], a[p + 23],
        a[p + 24], a[p + 25], a[p + 26], a[p + 27], a[p + 28], a[p + 29], a[p + 30], a[p + 31]
      );
  }
  return a.latin1Slice(p, p + n);
}

/**
 * The string of the first `k` nibbles of the packed bytes `a[p..]`, high
 * nibble first, each the character `hi[byte]` or `lo[byte]` gives; `k` at
 * most 32 (one call of String.fromCharCode, as in `chars`).
 * @param {Uint8Array} hi
 * @param {Uint8Array} lo
 * @param {Buffer} a
 */
function packedChars(hi, lo, a, p, k) {
  switch (k) {
    case 1:
      return fcc(hi[a[p]]);
    case 2:
      return fcc(hi[a[p]], lo[a[p]]);
    case 3:
      return fcc(hi[a[p]], lo[a[p]], hi[a[p + 1]]);
    case 4:
      return fcc(hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]]);
    case 5:
      return fcc(hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]]);
    case 6:
      return fcc(hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]]);
    case 7:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]]
      );
    case 8:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]]
      );
    case 9:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]]
      );
    case 10:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]]
      );
    case 11:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]]
      );
    case 12:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]]
      );
    case 13:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]]
      );
    case 14:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]]
      );
    case 15:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]]
      );
    case 16:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]]
      );
    case 17:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]]
      );
    case 18:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]]
      );
    case 19:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]]
      );
    case 20:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]]
      );
    case 21:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]]
      );
    case 22:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]]
      );
    case 23:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]]
      );
    case 24:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]]
      );
    case 25:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]]
      );
    case 26:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]], lo[a[p + 12]]
      );
    case 27:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]], lo[a[p + 12]], hi[a[p + 13]]
      );
    case 28:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]], lo[a[p + 12]], hi[a[p + 13]], lo[a[p + 13]]
      );
    case 29:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]], lo[a[p + 12]], hi[a[p + 13]], lo[a[p + 13]], hi[a[p + 14]]
      );
    case 30:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]], lo[a[p + 12]], hi[a[p + 13]], lo[a[p + 13]], hi[a[p + 14]], lo[a[p + 14]]
      );
    case 31:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]], lo[a[p + 12]], hi[a[p + 13]], lo[a[p + 13]], hi[a[p + 14]], lo[a[p + 14]],
        hi[a[p + 15]]
      );
    case 32:
      return fcc(
        hi[a[p]], lo[a[p]], hi[a[p + 1]], lo[a[p + 1]], hi[a[p + 2]], lo[a[p + 2]],
        hi[a[p + 3]], lo[a[p + 3]], hi[a[p + 4]], lo[a[p + 4]], hi[a[p + 5]], lo[a[p + 5]],
        hi[a[p + 6]], lo[a[p + 6]], hi[a[p + 7]], lo[a[p + 7]], hi[a[p + 8]], lo[a[p + 8]],
        hi[a[p + 9]], lo[a[p + 9]], hi[a[p + 10]], lo[a[p + 10]], hi[a[p + 11]], lo[a[p + 11]],
        hi[a[p + 12]], lo[a[p + 12]], hi[a[p + 13]], lo[a[p + 13]], hi[a[p + 14]], lo[a[p + 14]],
        hi[a[p + 15]], lo[a[p + 15]]
      );
  }
  return '';
}

// The stanza being read, and the offset of its next byte. `src` holds an
// empty buffer between calls, so that no input is kept alive.
const NONE = Buffer.alloc(0);
let src = NONE;
let p = 0;
let end = 0;
// Bytes of the unread input promised to child nodes counted but not yet
// read (three each).
let promised = 0;

/** Raw text of `len` bytes at `p`: ASCII, or else valid UTF-8. */
function raw(len) {
  if (len > end - p) return null;
  const stop = p + len;
  let high = 0;
  for (let i = p; i < stop; i++) high |= src[i];
  let s;
  if (high < 128) s = chars(src, p, len);
  else if (isUtf8(src.subarray(p, stop))) s = src.utf8Slice(p, stop);
  else return null;
  p = stop;
  return s;
}

/** The length after a BINARY_8, BINARY_20 or BINARY_32 tag; -1 when the
 * input ends first. */
function binaryLength(tag) {
  if (tag === BINARY_8) return p < end ? src[p++] : -1;
  if (tag === BINARY_20) {
    if (end - p < 3) return -1;
    const len = ((src[p] & 15) << 16) | (src[p + 1] << 8) | src[p + 2];
    p += 3;
    return len;
  }
  if (end - p < 4) return -1;
  const len = src[p] * 0x1000000 + ((src[p + 1] << 16) | (src[p + 2] << 8) | src[p + 3]);
  p += 4;
  return len;
}

/** A packed string after its NIBBLE_8 or HEX_8 tag. */
function packed(tag) {
  if (p >= end) return null;
  const header = src[p++];
  const n = header & 127;
  if (n > end - p) return null;
  if (n === 0) return '';
  const nibble = tag === NIBBLE_8;
  if (nibble) {
    let invalid = 0;
    for (let i = p, stop = p + n; i < stop; i++) invalid |= NIBBLE_BAD[src[i]];
    if (invalid !== 0) return null;
  }
  const hi = nibble ? NIBBLE_HI : HEX_HI;
  const lo = nibble ? NIBBLE_LO : HEX_LO;
  // An odd count drops the last nibble.
  const k = 2 * n - (header >> 7);
  let s;
  if (k <= 32) s = packedChars(hi, lo, src, p, k);
  else {
    for (let i = 0; i < n; i++) {
      const b = src[p + i];
      expanded[2 * i] = hi[b];
      expanded[2 * i + 1] = lo[b];
    }
    s = expanded.latin1Slice(0, k);
  }
  p += n;
  return s;
}

/** A string (tag, key, attribute value, text content, JID user) whose
 * first byte `b` was just read: a token, a raw string or a packed one.
 * Null for LIST_EMPTY, JIDs and bytes that start no string. */
function text(b) {
  if (b > LIST_EMPTY && b < DICTIONARY_0) return TOKENS[b];
  if (b <= DICTIONARY_3) {
    return b !== LIST_EMPTY && p < end ? TOKENS[DICTIONARY_0 + ((b - DICTIONARY_0) << 8) + src[p++]] : null;
  }
  switch (b) {
    case BINARY_8:
    case BINARY_20:
    case BINARY_32: {
      const len = binaryLength(b);
      return len < 0 ? null : raw(len);
    }
    case NIBBLE_8:
    case HEX_8:
      return packed(b);
  }
  return null;
}

/** A JID's user. Null for an empty packed user, which the WebAssembly
 * decoder renders. */
function jidUser() {
  if (p >= end) return null;
  const b = src[p++];
  if ((b === NIBBLE_8 || b === HEX_8) && p < end && (src[p] & 127) === 0) return null;
  return text(b);
}

/** An attribute value whose first byte `b` was just read. JIDs as Baileys
 * renders them: user[:device]@server. */
function value(b) {
  if (b > LIST_EMPTY && b < DICTIONARY_0) return TOKENS[b];
  if (b === LIST_EMPTY) return '';
  if (b === JID_PAIR) {
    let user = '';
    if (p < end && src[p] === LIST_EMPTY) p++;
    else if ((user = jidUser()) === null) return null;
    if (p >= end) return null;
    const b = src[p++];
    let server = TOKEN_SERVER[b];
    if (server === null) {
      // Servers that are no token (newsletter, hosted, bot, ...) come as
      // raw text.
      const name = b < DICTIONARY_0 ? null : text(b);
      server = name === null ? undefined : SERVER_BY_NAME.get(name);
      if (server === undefined) return null;
    }
    return user + server;
  }
  if (b === AD_JID) {
    if (end - p < 2) return null;
    const server = AD_SERVER[src[p]];
    const device = DEVICE[src[p + 1]];
    p += 2;
    const user = jidUser();
    if (server === null || user === null || user === '') return null;
    return user + device + server;
  }
  return text(b);
}

function node(depth) {
  if (depth > MAX_DEPTH || end - p < 3) return null;
  let size = src[p + 1];
  if (src[p] === LIST_8) p += 2;
  else if (src[p] === LIST_16) {
    size = (size << 8) | src[p + 2];
    p += 3;
  } else return null;
  if (size === 0 || p >= end) return null;
  const tag = text(src[p++]);
  if (tag === null) return null;
  const attrs = {};
  for (let n = (size - 1) >> 1; n > 0; n--) {
    if (end - p < 2) return null;
    const key = text(src[p++]);
    if (key === null || p >= end) return null;
    const v = value(src[p++]);
    if (v === null) return null;
    attrs[key] = v;
  }
  let content;
  if ((size & 1) === 0) {
    if (p >= end) return null;
    const b = src[p++];
    if (b === LIST_8 || b === LIST_16) {
      let n;
      if (b === LIST_8) {
        if (p >= end) return null;
        n = src[p++];
      } else {
        if (end - p < 2) return null;
        n = (src[p] << 8) | src[p + 1];
        p += 2;
      }
      // Every child takes at least three bytes: a count the unread input
      // cannot hold, next to the children already counted, fails before
      // any array is made (as in the WebAssembly decoder).
      if (3 * n > end - p - promised) return null;
      promised += 3 * n;
      content = new Array(n);
      for (let i = 0; i < n; i++) {
        promised -= 3;
        const child = node(depth + 1);
        if (child === null) return null;
        content[i] = child;
      }
    } else if (b === BINARY_8 || b === BINARY_20 || b === BINARY_32) {
      const len = binaryLength(b);
      if (len < 0 || len > end - p) return null;
      content = src.subarray(p, p + len);
      p += len;
    } else if (b !== LIST_EMPTY) {
      content = text(b);
      if (content === null) return null;
    }
  }
  return { tag, attrs, content };
}

/**
 * Decode node bytes (no flags byte) into a BinaryNode, or return null for
 * input this decoder leaves to the WebAssembly one (see above). Byte
 * contents are subarrays of `b`.
 * @param {Buffer} b
 */
export function decodeJs(b) {
  src = b;
  p = 0;
  end = b.length;
  promised = 0;
  let root = node(0);
  if (p !== end) root = null;
  src = NONE;
  return root;
}

// ------------------------------------------------------------ lazy views
//
// scanJs accepts exactly the input decodeJs reads (it follows node() step
// by step) but makes no strings and no objects. A LazyNode then reads its
// node from the input on access, knowing the input well-formed.

/** The text at `p` whose first byte `b` was just read, checked and
 * skipped as text() reads it: -1 where text() gives null, 0 where it
 * gives '', 1 otherwise. */
function scanText(b) {
  if (b > LIST_EMPTY && b < DICTIONARY_0) return TOKENS[b] === '' ? 0 : 1;
  if (b <= DICTIONARY_3) {
    if (b === LIST_EMPTY || p >= end) return -1;
    return TOKENS[DICTIONARY_0 + ((b - DICTIONARY_0) << 8) + src[p++]] === '' ? 0 : 1;
  }
  switch (b) {
    case BINARY_8:
    case BINARY_20:
    case BINARY_32: {
      const len = binaryLength(b);
      if (len < 0 || len > end - p) return -1;
      const stop = p + len;
      let high = 0;
      for (let i = p; i < stop; i++) high |= src[i];
      if (high >= 128 && !isUtf8(src.subarray(p, stop))) return -1;
      p = stop;
      return len === 0 ? 0 : 1;
    }
    case NIBBLE_8:
    case HEX_8: {
      if (p >= end) return -1;
      const n = src[p++] & 127;
      if (n > end - p) return -1;
      if (n === 0) return 0;
      if (b === NIBBLE_8) {
        let invalid = 0;
        for (let i = p, stop = p + n; i < stop; i++) invalid |= NIBBLE_BAD[src[i]];
        if (invalid !== 0) return -1;
      }
      p += n;
      return 1;
    }
  }
  return -1;
}

/** jidUser(), checked and skipped: as scanText. */
function scanJidUser() {
  if (p >= end) return -1;
  const b = src[p++];
  if ((b === NIBBLE_8 || b === HEX_8) && p < end && (src[p] & 127) === 0) return -1;
  return scanText(b);
}

/** value(), checked and skipped: false where value() gives null. */
function scanValue(b) {
  if (b >= LIST_EMPTY && b < DICTIONARY_0) return true;
  if (b === JID_PAIR) {
    if (p < end && src[p] === LIST_EMPTY) p++;
    else if (scanJidUser() < 0) return false;
    if (p >= end) return false;
    const s = src[p++];
    if (TOKEN_SERVER[s] !== null) return true;
    const name = s < DICTIONARY_0 ? null : text(s);
    return name !== null && SERVER_BY_NAME.has(name);
  }
  if (b === AD_JID) {
    if (end - p < 2) return false;
    const server = AD_SERVER[src[p]];
    p += 2;
    return scanJidUser() > 0 && server !== null;
  }
  return scanText(b) >= 0;
}

/** node(), checked and skipped: false where node() gives null. */
function scanNode(depth) {
  if (depth > MAX_DEPTH || end - p < 3) return false;
  let size = src[p + 1];
  if (src[p] === LIST_8) p += 2;
  else if (src[p] === LIST_16) {
    size = (size << 8) | src[p + 2];
    p += 3;
  } else return false;
  if (size === 0 || p >= end) return false;
  if (scanText(src[p++]) < 0) return false;
  for (let n = (size - 1) >> 1; n > 0; n--) {
    if (end - p < 2) return false;
    if (scanText(src[p++]) < 0 || p >= end) return false;
    if (!scanValue(src[p++])) return false;
  }
  if ((size & 1) === 0) {
    if (p >= end) return false;
    const b = src[p++];
    if (b === LIST_8 || b === LIST_16) {
      let n;
      if (b === LIST_8) {
        if (p >= end) return false;
        n = src[p++];
      } else {
        if (end - p < 2) return false;
        n = (src[p] << 8) | src[p + 1];
        p += 2;
      }
      if (3 * n > end - p - promised) return false;
      promised += 3 * n;
      for (let i = 0; i < n; i++) {
        promised -= 3;
        if (!scanNode(depth + 1)) return false;
      }
    } else if (b === BINARY_8 || b === BINARY_20 || b === BINARY_32) {
      const len = binaryLength(b);
      if (len < 0 || len > end - p) return false;
      p += len;
    } else if (b !== LIST_EMPTY && scanText(b) < 0) return false;
  }
  return true;
}

/**
 * Whether decodeJs(b) returns a node (rather than null), found without
 * making any string or object.
 * @param {Buffer} b
 */
export function scanJs(b) {
  src = b;
  p = 0;
  end = b.length;
  promised = 0;
  const ok = scanNode(0) && p === end;
  src = NONE;
  return ok;
}

// Skipping what scanJs accepted: an item (text, attribute value) whose
// first byte `b` was just read, and a whole node.
function skipItem(b) {
  if (b < DICTIONARY_0) return;
  if (b <= DICTIONARY_3) p++;
  else if (b === BINARY_8 || b === BINARY_20 || b === BINARY_32) {
    // binaryLength moves p past the length first.
    const len = binaryLength(b);
    p += len;
  }
  else if (b === NIBBLE_8 || b === HEX_8) p += 1 + (src[p] & 127);
  else if (b === JID_PAIR) {
    if (src[p] === LIST_EMPTY) p++;
    else skipItem(src[p++]);
    skipItem(src[p++]);
  } else if (b === AD_JID) {
    p += 2;
    skipItem(src[p++]);
  }
}

function skipNode() {
  let size = src[p + 1];
  if (src[p] === LIST_8) p += 2;
  else {
    size = (size << 8) | src[p + 2];
    p += 3;
  }
  skipItem(src[p++]);
  for (let n = 2 * ((size - 1) >> 1); n > 0; n--) skipItem(src[p++]);
  if ((size & 1) === 0) {
    const b = src[p++];
    if (b === LIST_8 || b === LIST_16) {
      let n;
      if (b === LIST_8) n = src[p++];
      else {
        n = (src[p] << 8) | src[p + 1];
        p += 2;
      }
      for (let i = 0; i < n; i++) skipNode();
    } else skipItem(b);
  }
}

/**
 * A node of input that scanJs accepted, read on access: its tag, its
 * attributes one by one or all together, its content (child nodes as
 * LazyNodes). Each part is read once and kept. Holds the input.
 */
export class LazyNode {
  /**
   * @param {Buffer} b the input, accepted by scanJs
   * @param {number} at the offset of the node's list header
   * @param {number} depth the node's depth (the root's is 0)
   */
  constructor(b, at, depth) {
    this._b = b;
    this._at = at;
    this._depth = depth;
    this._tag = null;
    // The offset of the first key, and the attribute count; -1 until read.
    this._attrsAt = -1;
    this._count = 0;
    this._hasContent = false;
    this._attrs = null;
    this._content = null;
    this._contentRead = false;
  }

  _head() {
    src = this._b;
    p = this._at;
    end = src.length;
    let size = src[p + 1];
    if (src[p] === LIST_8) p += 2;
    else {
      size = (size << 8) | src[p + 2];
      p += 3;
    }
    this._tag = text(src[p++]);
    this._attrsAt = p;
    this._count = (size - 1) >> 1;
    this._hasContent = (size & 1) === 0;
    src = NONE;
  }

  /** The tag. @returns {string} */
  get tag() {
    if (this._attrsAt < 0) this._head();
    return this._tag;
  }

  /**
   * The value of attribute `key` (the last one of that key, as in
   * `attrs`), or undefined; reads no other value.
   * @param {string} key
   * @returns {string | undefined}
   */
  attr(key) {
    if (this._attrs !== null) return Object.hasOwn(this._attrs, key) ? this._attrs[key] : undefined;
    if (this._attrsAt < 0) this._head();
    src = this._b;
    p = this._attrsAt;
    end = src.length;
    let found = -1;
    for (let n = this._count; n > 0; n--) {
      if (text(src[p++]) === key) found = p;
      skipItem(src[p++]);
    }
    let v;
    if (found >= 0) {
      p = found;
      v = value(src[p++]);
    }
    src = NONE;
    return v;
  }

  /** All attributes, as the eager decoder gives them. @returns {Record<string, string>} */
  get attrs() {
    if (this._attrs === null) {
      if (this._attrsAt < 0) this._head();
      src = this._b;
      p = this._attrsAt;
      end = src.length;
      const attrs = {};
      for (let n = this._count; n > 0; n--) {
        const key = text(src[p++]);
        attrs[key] = value(src[p++]);
      }
      src = NONE;
      this._attrs = attrs;
    }
    return this._attrs;
  }

  /** The content: undefined, child nodes (LazyNodes), bytes (a subarray
   * of the input) or text. */
  get content() {
    if (!this._contentRead) {
      if (this._attrsAt < 0) this._head();
      let content;
      if (this._hasContent) {
        src = this._b;
        p = this._attrsAt;
        end = src.length;
        for (let n = 2 * this._count; n > 0; n--) skipItem(src[p++]);
        const b = src[p++];
        if (b === LIST_8 || b === LIST_16) {
          let n;
          if (b === LIST_8) n = src[p++];
          else {
            n = (src[p] << 8) | src[p + 1];
            p += 2;
          }
          content = new Array(n);
          const depth = this._depth + 1;
          for (let i = 0; i < n; i++) {
            content[i] = new LazyNode(this._b, p, depth);
            skipNode();
          }
        } else if (b === BINARY_8 || b === BINARY_20 || b === BINARY_32) {
          const len = binaryLength(b);
          content = src.subarray(p, p + len);
        } else if (b !== LIST_EMPTY) content = text(b);
        src = NONE;
      }
      this._content = content;
      this._contentRead = true;
    }
    return this._content;
  }

  /** The node as the eager decoder gives it (a new BinaryNode each call). */
  toBinaryNode() {
    src = this._b;
    p = this._at;
    end = src.length;
    promised = 0;
    const n = node(this._depth);
    src = NONE;
    return n;
  }
}
