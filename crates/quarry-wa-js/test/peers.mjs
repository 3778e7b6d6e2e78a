// The peers the agreement tests and the benchmark compare with: Baileys'
// WABinary (from its registry tarball, fetched on demand) and
// whatsapp-rust-bridge (a devDependency). Either may be missing: callers
// skip with the reason in `skipReason`.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fetchBaileys, baileysDir, BAILEYS_VERSION } from '../scripts/fetch-peers.mjs';

export const fixtures = Object.fromEntries(
  Object.entries(
    JSON.parse(readFileSync(new URL('./fixtures/stanzas.json', import.meta.url), 'utf8')),
  ).map(([name, hex]) => [name, Buffer.from(hex, 'hex')]),
);

import { TOKENS } from '../index.js';

/** Baileys' `opts` (its constants module's shape) with the v3 token
 * dictionary the wire uses now. baileys@6.17.16 ships an older ordering
 * (README: "Differences from Baileys"), so the agreement tests and the
 * benchmark run Baileys' codec with this dictionary. */
export function v3Opts(constants) {
  const SINGLE_BYTE_TOKENS = TOKENS.slice(0, 236);
  const DOUBLE_BYTE_TOKENS = [0, 1, 2, 3].map((d) => TOKENS.slice(236 + 256 * d, 236 + 256 * (d + 1)));
  const TOKEN_MAP = {};
  SINGLE_BYTE_TOKENS.forEach((t, index) => (TOKEN_MAP[t] = { index }));
  DOUBLE_BYTE_TOKENS.forEach((list, dict) => list.forEach((t, index) => (TOKEN_MAP[t] = { dict, index })));
  return { ...constants, SINGLE_BYTE_TOKENS, DOUBLE_BYTE_TOKENS, TOKEN_MAP };
}

export let baileys = null;
export let baileysSkip = '';
if (fetchBaileys()) {
  try {
    const require = createRequire(join(baileysDir, 'package.json'));
    const decode = require('./lib/WABinary/decode.js');
    const encode = require('./lib/WABinary/encode.js');
    const shipped = require('./lib/WABinary/constants.js');
    const opts = v3Opts(shipped);
    baileys = {
      version: BAILEYS_VERSION,
      shipped,
      decode: (bytes) => decode.decodeDecompressedBinaryNode(bytes, opts),
      encode: (node) => encode.encodeBinaryNode(node, opts),
    };
  } catch (e) {
    baileysSkip = `baileys@${BAILEYS_VERSION} did not load: ${e.message}`;
  }
} else {
  baileysSkip = `baileys@${BAILEYS_VERSION} could not be fetched`;
}

export let bridge = null;
export let bridgeSkip = '';
try {
  bridge = await import('whatsapp-rust-bridge');
} catch (e) {
  bridgeSkip = `whatsapp-rust-bridge is not installed (npm install): ${e.message.split('\n')[0]}`;
}
