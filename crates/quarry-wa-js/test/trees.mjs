// Seeded random BinaryNode trees for the agreement tests: tokens, packed
// strings, JIDs on every server, raw text and bytes, nested children.
import { TOKENS } from '../index.js';

export function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVERS = ['s.whatsapp.net', 'lid', 'g.us', 'broadcast', 'newsletter', 'hosted', 'hosted.lid', 'c.us', 'call', 'bot'];
const AD_SERVERS = ['s.whatsapp.net', 'lid', 'hosted', 'hosted.lid'];
const WORDS = ['hello', 'x', 'Ünïcödé', 'a b c', 'status_v3', 'ok!', '€uro', 'z'.repeat(300), 'tab\tnew\nline'];

export function generator(seed) {
  const r = mulberry32(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (xs) => xs[int(xs.length)];
  const digits = (n) => Array.from({ length: n }, () => int(10)).join('');
  const text = () => {
    switch (int(9)) {
      case 0:
      case 1:
        return TOKENS[1 + int(TOKENS.length - 1)];
      case 2:
        return digits(1 + int(20)) + (r() < 0.3 ? '.' + digits(2) : '');
      case 3:
        return Array.from({ length: 1 + int(40) }, () => '0123456789ABCDEF'[int(16)]).join('');
      case 4: {
        const ad = r() < 0.5;
        const server = ad ? pick(AD_SERVERS) : pick(SERVERS);
        const user = r() < 0.1 && !ad ? '' : digits(1 + int(15));
        return ad ? `${user}:${1 + int(99)}@${server}` : `${user}@${server}`;
      }
      case 5:
        return pick(WORDS);
      default: {
        const n = 1 + int(12);
        let s = '';
        for (let i = 0; i < n; i++) s += String.fromCharCode(97 + int(26));
        return s;
      }
    }
  };
  // Keys and tags: tokens or plain words (never a JID or packable string,
  // which Baileys and the wire read back differently).
  const name = () => {
    if (r() < 0.6) {
      for (;;) {
        const t = TOKENS[1 + int(TOKENS.length - 1)];
        if (!/^[0-9A-F.-]+$/.test(t)) return t;
      }
    }
    let s = '';
    for (let i = 0, n = 1 + int(10); i < n; i++) s += String.fromCharCode(97 + int(26));
    return s;
  };
  const node = (depth) => {
    const attrs = {};
    for (let i = 0, n = int(5); i < n; i++) attrs[name()] = text();
    let content;
    const c = int(depth > 5 ? 3 : 4);
    if (c === 1) content = Buffer.from(Array.from({ length: int(40) }, () => int(256)));
    else if (c === 2) {
      // Text content that comes back as text: tokens, packed, JIDs.
      for (;;) {
        const t = text();
        if (TOKENS.includes(t) || /^[0-9.-]+$|^[0-9A-F]+$|@/.test(t)) {
          content = t;
          break;
        }
      }
    } else if (c === 3) content = Array.from({ length: 1 + int(5) }, () => node(depth + 1));
    return { tag: name(), attrs, content };
  };
  return () => node(0);
}
