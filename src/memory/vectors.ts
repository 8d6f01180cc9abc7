/**
 * Encodings of an embedding for Postgres. The Hamming prefilter's bits go in
 * a `bit varying` column (any Postgres); the pgvector literal feeds the HNSW
 * path where the extension exists.
 */

/** One '0'/'1' per component, '1' where it is positive. */
export function signBits(v: number[]): string {
  let bits = '';
  for (const x of v) bits += x > 0 ? '1' : '0';
  return bits;
}

/** pgvector's text form, '[0.1,-0.2,…]'. Non-finite components are refused here rather than by the server. */
export function toPgVector(v: number[]): string {
  for (const x of v) if (!Number.isFinite(x)) throw new RangeError('embedding has a non-finite component');
  return `[${v.join(',')}]`;
}

/**
 * How many random hyperplanes embeddingBits uses. Changing it, or the seed
 * below, changes every stored `embedding_bits`: recompute them all if you do.
 */
export const HASH_BITS = 512;
const PLANE_SEED = 0x6b6f3131;

const planes = new Map<number, Int8Array>();

/** ±1 hyperplane normals, HASH_BITS × dim, from a fixed integer PRNG (mulberry32): identical on every machine and run. */
function planesFor(dim: number): Int8Array {
  let p = planes.get(dim);
  if (p) return p;
  p = new Int8Array(HASH_BITS * dim);
  let a = (PLANE_SEED ^ dim) >>> 0;
  for (let i = 0; i < p.length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    p[i] = ((t ^ (t >>> 14)) >>> 0) & 1 ? 1 : -1;
  }
  planes.set(dim, p);
  return p;
}

/**
 * The stored prefilter bits: signs of the embedding's projections on
 * HASH_BITS random hyperplanes (SimHash), so Hamming distance / HASH_BITS
 * estimates angle / π for any embedder. The raw per-component signs
 * (signBits) do not: on the sparse local embedder, most components are 0
 * and their top-100 Hamming shortlist kept ~12% of the true 10 nearest of
 * 11,000 memories; hyperplane signs keep ~85% (tests/bench/memory.ts).
 */
export function embeddingBits(v: number[]): string {
  let bits = bitsOf.get(v);
  if (bits === undefined) bitsOf.set(v, (bits = hyperplaneBits(v)));
  return bits;
}

/**
 * Each vector's bits, once: a memory's are computed for its recall probe and again for its row, and an embedding is
 * never edited once made (the embedders return new arrays).
 */
const bitsOf = new WeakMap<number[], string>();

function hyperplaneBits(v: number[]): string {
  const dim = v.length;
  const p = planesFor(dim);
  // Sparse embeddings (the local embedder's) touch only their non-zero components.
  const nz: number[] = [];
  for (let i = 0; i < dim; i++) if (v[i] !== 0) nz.push(i);
  const projected = new Array<number>(HASH_BITS);
  for (let b = 0; b < HASH_BITS; b++) {
    const row = b * dim;
    let s = 0;
    for (const i of nz) s += p[row + i]! * v[i]!;
    projected[b] = s;
  }
  return signBits(projected);
}
