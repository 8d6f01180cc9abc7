import type { EngineSettings } from './settings';

/**
 * The per-round measurements behind adaptive stopping (seed 002, 4.5.2 and
 * 4.5.7). Pure functions over embedding vectors and the experts' declared
 * stances, so a replayed session measures exactly the same numbers.
 */

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Cosine similarity; 0 when either vector is all zeros (empty text is similar to nothing). */
export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** How alike two embedded texts are, on the calibrated scale the thresholds speak (0 unrelated … 1 same). */
export type Similarity = (a: number[], b: number[]) => number;

/**
 * Maps an embedder's raw cosine onto the calibrated scale: its mean cosine for
 * unrelated pairs becomes 0.1 and for paraphrases 0.9 (measured on the labelled
 * set in src/embeddings/calibration-set.ts). Thresholds such as "block above
 * 0.80" then mean the same thing whichever embedder produced the vectors.
 */
export function calibratedSimilarity(calibration: { different: number; same: number }): Similarity {
  const span = calibration.same - calibration.different;
  return (a, b) => clamp01(0.1 + ((cosine(a, b) - calibration.different) * 0.8) / span);
}

/**
 * How new a contribution is against everything said before. Similarity to old
 * rounds is discounted by half every `halfLifeRounds` (seed 003's temporal
 * decay), so re-raising a point from long ago counts as partly new, while
 * echoing the last round counts as repetition.
 */
export function novelty(
  vector: number[],
  history: { vector: number[]; round: number }[],
  currentRound: number,
  halfLifeRounds = 3,
  sim: Similarity = cosine,
): number {
  if (!history.length) return 1;
  let maxSim = 0;
  for (const h of history) {
    const age = Math.max(0, currentRound - h.round);
    maxSim = Math.max(maxSim, sim(vector, h.vector) * 0.5 ** (age / halfLifeRounds));
  }
  return clamp01(1 - maxSim);
}

/** Mean pairwise cosine of the experts' latest positions: 1 = saying the same thing. */
export function convergence(vectors: number[][], sim: Similarity = cosine): number {
  if (vectors.length < 2) return 1;
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < vectors.length; i++)
    for (let j = i + 1; j < vectors.length; j++) {
      sum += sim(vectors[i]!, vectors[j]!);
      pairs += 1;
    }
  return clamp01(sum / pairs);
}

/**
 * Share of disagreement among the directed references experts make to each
 * other. `panel` defaults to the personas present; pass the whole board so
 * references to experts who did not speak this round still count.
 * Self-references and unknown codes are ignored; no references → 0.
 */
export function conflict(
  stances: { persona: string; agreesWith: string[]; disagreesWith: string[] }[],
  panel: string[] = stances.map((s) => s.persona),
): number {
  const members = new Set(panel);
  let agree = 0;
  let disagree = 0;
  for (const s of stances) {
    const valid = (code: string) => code !== s.persona && members.has(code);
    agree += new Set(s.agreesWith.filter(valid)).size;
    disagree += new Set(s.disagreesWith.filter(valid)).size;
  }
  return agree + disagree ? disagree / (agree + disagree) : 0;
}

/**
 * Diversity of positions: greedy clustering (join the first cluster whose
 * centroid is ≥ `sameAbove` similar), then Shannon entropy of the cluster
 * sizes over log(n). 0 = one camp, 1 = everyone somewhere else. Rising late
 * in a debate flags drift or circling (4.5.7).
 */
export function entropy(vectors: number[][], sameAbove = 0.8, sim: Similarity = cosine): number {
  const n = vectors.length;
  if (n <= 1) return 0;
  const clusters: { sum: number[]; size: number }[] = [];
  for (const v of vectors) {
    const home = clusters.find((c) => sim(c.sum, v) >= sameAbove);
    if (home) {
      home.sum = home.sum.map((x, i) => x + (v[i] ?? 0));
      home.size += 1;
    } else clusters.push({ sum: [...v], size: 1 });
  }
  const h = -clusters.reduce((acc, c) => acc + (c.size / n) * Math.log(c.size / n), 0);
  return clamp01(h / Math.log(n));
}

/** Share of contributions whose novelty is under `below` (repetition flag, 4.2). */
export function repetitionRate(novelties: number[], below: number): number {
  return novelties.length ? novelties.filter((x) => x < below).length / novelties.length : 0;
}

/** What a round added: new material that is also on-topic (relevance 0-10 from the facilitator). */
export function marginalUtility(meanNovelty: number, relevance: number): number {
  return clamp01(clamp01(meanNovelty) * (Math.min(10, Math.max(0, relevance)) / 10));
}

export interface RoundMetrics {
  round: number;
  novelty: number;
  noveltyByPersona: Record<string, number>;
  convergence: number;
  conflict: number;
  relevance: number;
  entropy: number;
  repetition: number;
  marginalUtility: number;
  agreement: number;
}

/**
 * Everything the stopping rule and the transcript need about one round.
 * `history` is every earlier contribution of this sub-problem (not this
 * round's); `latestPositions` is each expert's most recent position vector,
 * this round's included; `panel` (optional) is the whole board, for conflict.
 */
export function roundMetrics(
  input: {
    round: number;
    contributions: { persona: string; vector: number[]; positionVector: number[]; agreesWith: string[]; disagreesWith: string[] }[];
    history: { vector: number[]; round: number }[];
    latestPositions: number[][];
    relevance: number;
    agreement: number;
    panel?: string[];
    /** Calibrated similarity of the embedder in use; raw cosine when omitted. */
    similarity?: Similarity;
  },
  s: EngineSettings,
): RoundMetrics {
  const sim = input.similarity ?? cosine;
  const scored = input.contributions.map((c) => ({ persona: c.persona, novelty: novelty(c.vector, input.history, input.round, 3, sim) }));
  const byPersona: Record<string, number[]> = {};
  for (const c of scored) (byPersona[c.persona] ??= []).push(c.novelty);
  const novelties = scored.map((c) => c.novelty);
  const meanNovelty = mean(novelties);
  return {
    round: input.round,
    novelty: round4(meanNovelty),
    noveltyByPersona: Object.fromEntries(Object.entries(byPersona).map(([p, xs]) => [p, round4(mean(xs))])),
    convergence: round4(convergence(input.latestPositions, sim)),
    conflict: round4(conflict(input.contributions, input.panel)),
    relevance: round4(Math.min(10, Math.max(0, input.relevance))),
    entropy: round4(entropy(input.latestPositions, 0.8, sim)),
    repetition: round4(repetitionRate(novelties, s.repetitionNoveltyBelow)),
    marginalUtility: round4(marginalUtility(meanNovelty, input.relevance)),
    agreement: round4(clamp01(input.agreement)),
  };
}
