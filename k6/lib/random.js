// Seeded, reproducible pseudo-random data. Math.random is never used for data: a run is repeatable from
// SEED and its settings, and an iteration's data depends on its number, not on which VU happened to run it.
import { WORDS } from './words.js';

const WORD_TRIPLES = WORDS.length ** 3;

// 32-bit FNV-1a of a string: turns (seed, stream name, number) into an independent generator seed.
export function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// murmur3's 32-bit finaliser: spreads consecutive numbers over the whole 32-bit range.
function mix32(h) {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// mulberry32: tiny, fast, good enough distribution for load data.
export class Rng {
  constructor(seed) {
    this.state = seed >>> 0;
  }

  static of(...parts) {
    return new Rng(hash32(parts.join('|')));
  }

  // The generators of one stream's numbered items (n: an integer below 2^31): the parts are hashed once, each
  // item mixes its number in. Rng.of(...parts, n) joins and hashes a string per item, which at thousands of
  // iterations/s is a visible share of k6's CPU on cores it shares with the system under test.
  static stream(...parts) {
    const base = hash32(parts.join('|'));
    return (n) => new Rng(mix32((base + Math.imul(n, 0x9e3779b1)) >>> 0));
  }

  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  // integer in [min, max], both inclusive
  int(min, max) {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick(items) {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p) {
    return this.next() < p;
  }

  // n words separated by spaces. One 32-bit draw gives three words (266^3 < 2^32; each triple is drawn 228 or 229
  // times in 2^32, a bias below 0.5 %): a 40-word story took k6 0.1 ms of CPU with a draw per word, a fifth of
  // its cost per post in a benchmark where k6 shares the cores with the system under test.
  words(n) {
    let out = '';
    for (let i = 0; i < n; i += 3) {
      let v = (this.next() * 4294967296) % WORD_TRIPLES;
      for (let k = i; k < n && k < i + 3; k++) {
        const w = WORDS[v % WORDS.length];
        out = k === 0 ? w : `${out} ${w}`;
        v = (v / WORDS.length) | 0;
      }
    }
    return out;
  }

  // k distinct indexes of [0, n) except `skip`, by partial Fisher-Yates over a sparse map (O(k) memory)
  sample(n, k, skip = -1) {
    const swapped = new Map();
    const at = (i) => (swapped.has(i) ? swapped.get(i) : i);
    const out = [];
    let size = n;
    while (out.length < k && size > 0) {
      const j = this.int(0, size - 1);
      const v = at(j);
      swapped.set(j, at(size - 1));
      size--;
      if (v !== skip) out.push(v);
    }
    return out;
  }
}

// A marker word unique to a run (from TESTID) that the word list never produces: lets a script find its
// own posts in feeds and search results of a store that already holds other runs' data.
export function marker(prefix, ...parts) {
  return `${prefix}${hash32(parts.join('|')).toString(36)}`;
}
