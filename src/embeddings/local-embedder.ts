import { CALIBRATION_TEXTS, calibrationFrom } from './calibrate';
import type { Embedder } from '../ports/embeddings';

/**
 * Offline, deterministic embedder: a hashed bag of stemmed unigrams and
 * bigrams. No semantics beyond shared wording, but no network, no model
 * download and identical vectors on every replay of a session, which the
 * memoized engine needs. Good enough to tell "same argument again" from
 * "something new"; swap in a real model behind the same port when wanted.
 */

const STOPWORDS = new Set(
  ('a an and are as at be been but by can could do does for from had has have he her his i if in into is it its ' +
    'just me more most my no not of on or our out over so some such than that the their them then there these they ' +
    'this those to too up us very was we were what when which while who will with would you your should about also')
    .split(' '),
);

const SUFFIXES = ['ingly', 'edly', 'ing', 'ly', 'ed', 'es', 's'];

/** Light suffix stripping so "pricing", "priced", "prices" and "price" share a feature. */
export function stem(word: string): string {
  let w = word;
  for (const suffix of SUFFIXES) {
    if (w.length - suffix.length >= 3 && w.endsWith(suffix) && !(suffix === 's' && w.endsWith('ss'))) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  return w.length > 3 && w.endsWith('e') ? w.slice(0, -1) : w;
}

export function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !STOPWORDS.has(w))
    .map(stem);
}

/** 32-bit FNV-1a over UTF-16 code units: fast, stable across runs and platforms. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * One text to a `dimension`-long unit vector. Signed hashing (the top bit
 * picks the sign) keeps bucket collisions unbiased; 1 + ln(tf) stops one
 * repeated word from dominating.
 */
export function embedSync(text: string, dimension: number): number[] {
  const words = tokens(text);
  const counts = new Map<string, number>();
  const add = (f: string) => counts.set(f, (counts.get(f) ?? 0) + 1);
  words.forEach((w, i) => {
    add(w);
    if (i > 0) add(`${words[i - 1]} ${w}`);
  });
  const v: number[] = new Array<number>(dimension).fill(0);
  for (const [feature, tf] of counts) {
    const h = fnv1a(feature);
    const bucket = h % dimension;
    v[bucket] = (v[bucket] ?? 0) + (h & 0x80000000 ? -1 : 1) * (1 + Math.log(tf));
  }
  const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}

export function createLocalEmbedder(dimension = 256): Embedder {
  if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`dimension must be a positive integer, got ${dimension}`);
  const { same, different } = calibrationFrom(CALIBRATION_TEXTS.map((t) => embedSync(t, dimension)));
  return {
    name: 'local-hash',
    dimension,
    calibration: { same, different },
    embed: async (texts) => texts.map((t) => embedSync(t, dimension)),
  };
}
