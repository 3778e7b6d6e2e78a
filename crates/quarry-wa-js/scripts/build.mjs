// Build the WebAssembly module from scratch and copy it next to index.js:
// adds the wasm32-unknown-unknown target if rustup can, then builds this
// crate in release mode without debug info.
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, '..');
const workspace = resolve(pkg, '../..');
const target = 'wasm32-unknown-unknown';

function run(cmd, args, env = {}) {
  execFileSync(cmd, args, { stdio: 'inherit', cwd: workspace, env: { ...process.env, ...env } });
}

try {
  run('rustup', ['target', 'add', target]);
} catch {
  console.warn(`rustup could not add ${target}; building with what is installed`);
}
run('cargo', ['build', '--release', '--locked', '--target', target, '-p', 'quarry-wa-js'], {
  CARGO_PROFILE_RELEASE_DEBUG: '0',
  CARGO_PROFILE_RELEASE_STRIP: 'true',
  CARGO_PROFILE_RELEASE_LTO: 'true',
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS: '1',
});
const targetDir = process.env.CARGO_TARGET_DIR
  ? resolve(workspace, process.env.CARGO_TARGET_DIR)
  : join(workspace, 'target');
copyFileSync(join(targetDir, target, 'release', 'quarry_wa_js.wasm'), join(pkg, 'quarry_wa_js.wasm'));
console.log('built quarry_wa_js.wasm');
