import { describe, expect, it } from 'vitest';
import { conflict, convergence, cosine, entropy, marginalUtility, novelty, repetitionRate, roundMetrics } from '../../src/domain/metrics';
import { DEFAULT_ENGINE_SETTINGS as S } from '../../src/domain/settings';
import { createLocalEmbedder, embedSync } from '../../src/embeddings/local-embedder';

const PRICE_A = 'We should raise prices for enterprise customers because churn is low.';
const PRICE_B = 'Raising the price for enterprise customers makes sense given low churn.';
const HIRING = 'Hiring a senior backend engineer would speed up the database migration.';
const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
const unit = (...xs: number[]) => xs.map((x) => x / norm(xs));

describe('local embedder', () => {
  it('is deterministic, sized and L2-normalised', async () => {
    const e = createLocalEmbedder(128);
    expect(e.name).toBe('local-hash');
    expect(e.dimension).toBe(128);
    const [a, b] = await e.embed([PRICE_A, PRICE_A]);
    expect(a).toHaveLength(128);
    expect(a).toEqual(b);
    expect(a).toEqual(embedSync(PRICE_A, 128));
    expect(norm(a!)).toBeCloseTo(1, 10);
  });
  it('maps empty or stopword-only text to the zero vector', () => {
    expect(embedSync('', 64).every((x) => x === 0)).toBe(true);
    expect(embedSync('the and of ... !!', 64).every((x) => x === 0)).toBe(true);
  });
  it('scores paraphrases above unrelated text, and ignores case and punctuation', () => {
    const [a, b, c] = [PRICE_A, PRICE_B, HIRING].map((t) => embedSync(t, 256));
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.3);
    expect(cosine(a!, embedSync(PRICE_A.toUpperCase().replace(/\./g, '!'), 256))).toBeCloseTo(1, 10);
  });
  it('stems common suffixes', () => {
    expect(cosine(embedSync('pricing', 256), embedSync('prices', 256))).toBeCloseTo(1, 10);
  });
});

describe('cosine and novelty', () => {
  it('cosine is 0 for zero vectors', () => {
    expect(cosine([0, 0], [1, 0])).toBe(0);
    expect(cosine([1, 0], [1, 0])).toBe(1);
  });
  it('empty history is fully novel; repeating the last round is not', () => {
    const v = unit(1, 0);
    expect(novelty(v, [], 1)).toBe(1);
    expect(novelty(v, [{ vector: v, round: 4 }], 4)).toBeCloseTo(0, 10);
  });
  it('decays similarity by half per half-life', () => {
    const v = unit(1, 0);
    expect(novelty(v, [{ vector: v, round: 1 }], 4)).toBeCloseTo(0.5, 10);
    expect(novelty(v, [{ vector: v, round: 1 }], 4, 1.5)).toBeCloseTo(0.75, 10);
    const older = novelty(v, [{ vector: v, round: 1 }], 7);
    const newer = novelty(v, [{ vector: v, round: 5 }], 7);
    expect(older).toBeGreaterThan(newer);
  });
  it('takes the most similar decayed item and stays in [0,1]', () => {
    const v = unit(1, 0);
    const h = [
      { vector: unit(-1, 0), round: 3 },
      { vector: unit(1, 1), round: 3 },
    ];
    expect(novelty(v, h, 3)).toBeCloseTo(1 - Math.SQRT1_2, 10);
    expect(novelty(v, [{ vector: unit(-1, 0), round: 3 }], 3)).toBe(1);
  });
});

describe('convergence, conflict, entropy', () => {
  it('convergence: mean pairwise cosine, 1 for fewer than two, clamped at 0', () => {
    expect(convergence([])).toBe(1);
    expect(convergence([unit(1, 0)])).toBe(1);
    expect(convergence([unit(1, 0), unit(1, 0), unit(0, 1)])).toBeCloseTo(1 / 3, 10);
    expect(convergence([unit(1, 0), unit(-1, 0)])).toBe(0);
  });
  it('conflict: share of disagreement, ignoring self and unknown codes', () => {
    expect(conflict([])).toBe(0);
    expect(conflict([{ persona: 'a', agreesWith: ['a', 'zz'], disagreesWith: ['a'] }])).toBe(0);
    const stances = [
      { persona: 'a', agreesWith: ['b'], disagreesWith: ['c'] },
      { persona: 'b', agreesWith: [], disagreesWith: ['c', 'c', 'x'] },
      { persona: 'c', agreesWith: [], disagreesWith: ['a'] },
    ];
    expect(conflict(stances)).toBeCloseTo(3 / 4, 10);
    expect(conflict([{ persona: 'a', agreesWith: [], disagreesWith: ['d'] }])).toBe(0);
    expect(conflict([{ persona: 'a', agreesWith: [], disagreesWith: ['d'] }], ['a', 'd'])).toBe(1);
  });
  it('entropy: 0 for one camp or n ≤ 1, 1 when all distinct, in between otherwise', () => {
    const x = unit(1, 0, 0);
    const y = unit(0, 1, 0);
    const z = unit(0, 0, 1);
    expect(entropy([])).toBe(0);
    expect(entropy([x])).toBe(0);
    expect(entropy([x, x, x])).toBe(0);
    expect(entropy([x, y, z])).toBeCloseTo(1, 10);
    const split = entropy([x, x, y, y]);
    expect(split).toBeCloseTo(Math.log(2) / Math.log(4), 10);
    expect(entropy([x, unit(1, 0.3, 0)], 0.8)).toBe(0);
    expect(entropy([x, unit(1, 0.3, 0)], 0.99)).toBe(1);
  });
  it('repetition and marginal utility', () => {
    expect(repetitionRate([], 0.3)).toBe(0);
    expect(repetitionRate([0.1, 0.3, 0.5, 0.29], 0.3)).toBe(0.5);
    expect(marginalUtility(0.5, 8)).toBeCloseTo(0.4, 10);
    expect(marginalUtility(2, 12)).toBe(1);
    expect(marginalUtility(0.5, -1)).toBe(0);
  });
});

describe('roundMetrics', () => {
  it('combines the metrics, rounded to 4 decimals', () => {
    const v = unit(1, 0);
    const w = unit(1, 2);
    const m = roundMetrics(
      {
        round: 2,
        contributions: [
          { persona: 'a', vector: v, positionVector: v, agreesWith: ['b'], disagreesWith: [] },
          { persona: 'b', vector: w, positionVector: w, agreesWith: [], disagreesWith: ['a'] },
        ],
        history: [{ vector: v, round: 2 }],
        latestPositions: [v, w],
        relevance: 7,
        agreement: 0.5,
      },
      S,
    );
    expect(m.noveltyByPersona.a).toBe(0);
    expect(m.noveltyByPersona.b).toBe(0.5528);
    expect(m.novelty).toBe(0.2764);
    expect(m.repetition).toBe(0.5);
    expect(m.conflict).toBe(0.5);
    expect(m.convergence).toBe(0.4472);
    expect(m.entropy).toBe(1);
    expect(m.marginalUtility).toBe(0.1935);
    expect(m).toMatchObject({ round: 2, relevance: 7, agreement: 0.5 });
  });
  it('counts references to board members who did not speak this round when given the panel', () => {
    const v = unit(1, 0);
    const input = {
      round: 3,
      contributions: [{ persona: 'a', vector: v, positionVector: v, agreesWith: [], disagreesWith: ['c'] }],
      history: [],
      latestPositions: [v],
      relevance: 10,
      agreement: 1,
    };
    expect(roundMetrics(input, S).conflict).toBe(0);
    expect(roundMetrics({ ...input, panel: ['a', 'b', 'c'] }, S).conflict).toBe(1);
  });
});
