// Fetch Baileys' registry tarball (its git dependencies make `npm install
// baileys` fail) and unpack it into .peers/baileys-6.17.16/. Prints SKIP and
// exits 0 when the registry cannot be reached.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BAILEYS_VERSION = '6.17.16';
const here = dirname(fileURLToPath(import.meta.url));
export const peersDir = resolve(here, '..', '.peers');
export const baileysDir = join(peersDir, `baileys-${BAILEYS_VERSION}`);

export function fetchBaileys() {
  if (existsSync(join(baileysDir, 'lib', 'WABinary', 'decode.js'))) return true;
  mkdirSync(baileysDir, { recursive: true });
  try {
    const name = execFileSync('npm', ['pack', `baileys@${BAILEYS_VERSION}`, '--silent', '--fetch-retries=0'], {
      cwd: peersDir,
      timeout: 60_000,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim().split('\n').pop();
    execFileSync('tar', ['xzf', join(peersDir, name), '-C', baileysDir, '--strip-components=1'], {
      timeout: 60_000,
    });
    return true;
  } catch (e) {
    console.log(`SKIP: could not fetch baileys@${BAILEYS_VERSION}: ${String(e.message).split('\n')[0]}`);
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) fetchBaileys();
