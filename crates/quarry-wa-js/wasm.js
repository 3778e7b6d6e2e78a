// The WebAssembly module (src/lib.rs), loaded synchronously on import, and
// the tables it lends the JavaScript side: the token dictionary and the
// JID server names.

import { readFileSync } from 'node:fs';

const wasmBytes = readFileSync(new URL('./quarry_wa_js.wasm', import.meta.url));
/** The module's exports (the `qw_*` functions and its memory). */
export const { exports: wasm } = new WebAssembly.Instance(new WebAssembly.Module(wasmBytes), {});

// The string V8 keeps for `s` as a property key (its internalized copy):
// objects whose keys are these strings take them without a lookup in V8's
// string table.
function internalized(s) {
  return Object.keys({ [s]: 0 })[0];
}

// The token table: the token strings by id, then the server names, each
// followed by a NUL byte (src/lib.rs, `token_table`).
const TABLE = (() => {
  const ptr = wasm.qw_tokens_ptr();
  const len = wasm.qw_tokens_len();
  return Buffer.from(wasm.memory.buffer, ptr, len).toString('latin1').split('\0');
})();

/** The token strings by id: 0 is "", 1..235 single byte tokens, then the
 * four double byte dictionaries (id 236 + 256 * dict + index). */
export const TOKENS = Object.freeze(TABLE.slice(0, 236 + 4 * 256).map(internalized));

/** The JID server names by quarry-wa's server number. */
export const SERVER_NAMES = Object.freeze(TABLE.slice(236 + 4 * 256, -1));
