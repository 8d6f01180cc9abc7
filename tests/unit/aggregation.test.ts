import { describe, expect, it } from 'vitest';
import { aggregate, chooseMechanism, confidenceSpread } from '../../src/domain/aggregation';
import { tallySchema } from '../../src/domain/model';
import { DEFAULT_ENGINE_SETTINGS as S } from '../../src/domain/settings';

const v = (persona: string, optionId: string, confidence = 0.8) => ({ persona, optionId, confidence });

describe('confidenceSpread', () => {
  it('is the population standard deviation, 0 below two values', () => {
    expect(confidenceSpread([])).toBe(0);
    expect(confidenceSpread([0.9])).toBe(0);
    expect(confidenceSpread([0.5, 0.9])).toBeCloseTo(0.2);
    expect(confidenceSpread([0.7, 0.7, 0.7])).toBe(0);
    expect(confidenceSpread([0.2, 0.4, 0.6, 0.8])).toBeCloseTo(Math.sqrt(0.05));
  });
});

describe('chooseMechanism', () => {
  it('uses a supermajority for a one-way door whatever the confidence, naming irreversibility and the threshold', () => {
    for (const c of [[0.8, 0.8], [0.1, 0.9]]) {
      const m = chooseMechanism('one_way', c, S);
      expect(m.mechanism).toBe('supermajority');
      expect(m.why).toMatch(/one-way door/);
      expect(m.why).toMatch(/hard to reverse/);
      expect(m.why).toContain('75%');
    }
    expect(chooseMechanism('one_way', [], { ...S, supermajority: 0.9 }).why).toContain('90%');
  });
  it('uses simple majority for a two-way door up to and including the spread threshold', () => {
    // [0.5, 0.8] has a spread of exactly 0.15 (up to binary rounding).
    const at = chooseMechanism('two_way', [0.5, 0.8], S);
    expect(at.mechanism).toBe('simple_majority');
    expect(at.why).toContain('0.15');
    expect(chooseMechanism('two_way', [0.7, 0.75, 0.8], S).mechanism).toBe('simple_majority');
    expect(chooseMechanism('two_way', [], S).mechanism).toBe('simple_majority');
  });
  it('names the number it states: a standard deviation, not a "spread" a reader takes for a range', () => {
    // The relay trial's sp1: confidences 0.55, 0.55, 0.65 span a range of 0.10 and have a standard deviation of 0.047.
    const m = chooseMechanism('two_way', [0.55, 0.55, 0.65], S);
    expect(m.why).toContain('standard deviation 0.05, at most 0.15');
    expect(m.why).not.toMatch(/spread/);
  });
  it('switches to confidence weighting just above the threshold, and follows the setting', () => {
    const above = chooseMechanism('two_way', [0.5, 0.82], S);
    expect(above.mechanism).toBe('confidence_weighted');
    expect(above.why).toMatch(/standard deviation 0\.16, above 0\.15/);
    expect(chooseMechanism('two_way', [0.5, 0.82], { ...S, confidenceSpreadAbove: 0.2 }).mechanism).toBe('simple_majority');
  });
});

describe('aggregate', () => {
  it('names the winner of a simple majority with counts as weights and zeros in the distribution', () => {
    const t = aggregate([v('a', 'A'), v('b', 'A'), v('c', 'B')], ['A', 'B', 'C'], 'two_way', S);
    expect(t).toMatchObject({ mechanism: 'simple_majority', winner: 'A', tie: [], deferred: false });
    expect(t.distribution).toEqual({ A: 2, B: 1, C: 0 });
    expect(t.weights).toEqual({ A: 2, B: 1, C: 0 });
    expect(t.consensus).toBeCloseTo(2 / 3);
    expect(tallySchema.parse(t)).toEqual(t);
  });

  it('reports a tie with no winner instead of breaking it', () => {
    const t = aggregate([v('a', 'A'), v('b', 'B'), v('c', 'A'), v('d', 'B')], ['A', 'B', 'C'], 'two_way', S);
    expect(t.winner).toBeNull();
    expect(t.tie).toEqual(['A', 'B']);
    expect(t.consensus).toBe(0.5);
    expect(t.deferred).toBe(false);
    expect(t.why).toMatch(/evenly split between A and B/);
  });

  it('weights by confidence when the spread is high, which can overturn the count majority', () => {
    const votes = [v('a', 'A', 0.95), v('b', 'B', 0.35), v('c', 'B', 0.4)];
    const t = aggregate(votes, ['A', 'B'], 'two_way', S);
    expect(t.mechanism).toBe('confidence_weighted');
    expect(t.distribution).toEqual({ A: 1, B: 2 });
    expect(t.weights.A).toBeCloseTo(0.95);
    expect(t.weights.B).toBeCloseTo(0.75);
    expect(t.winner).toBe('A');
    // Consensus stays the share of votes by count behind the leader.
    expect(t.consensus).toBeCloseTo(1 / 3);
  });

  it('reports a tie in weighted sums despite floating-point noise', () => {
    const t = aggregate([v('a', 'A', 0.9), v('b', 'B', 0.7), v('c', 'B', 0.2)], ['A', 'B'], 'two_way', S);
    expect(t.mechanism).toBe('confidence_weighted');
    expect(t.winner).toBeNull();
    expect(t.tie).toEqual(['A', 'B']);
  });

  it('decides a one-way door when the supermajority is met exactly', () => {
    const t = aggregate([v('a', 'A'), v('b', 'A'), v('c', 'A'), v('d', 'B')], ['A', 'B'], 'one_way', S);
    expect(t).toMatchObject({ mechanism: 'supermajority', winner: 'A', deferred: false, consensus: 0.75 });
  });

  it('defers a one-way door when the leader falls short of the supermajority', () => {
    const t = aggregate([v('a', 'A'), v('b', 'A'), v('c', 'B')], ['A', 'B'], 'one_way', S);
    expect(t.winner).toBeNull();
    expect(t.deferred).toBe(true);
    expect(t.tie).toEqual([]);
    expect(t.consensus).toBeCloseTo(2 / 3);
    expect(t.weights).toEqual({ A: 2, B: 1 });
    expect(t.why).toMatch(/Only 67% backed A, short of 75%/);
    // The same votes pass with a lower configured threshold.
    expect(aggregate([v('a', 'A'), v('b', 'A'), v('c', 'B')], ['A', 'B'], 'one_way', { ...S, supermajority: 0.6 }).winner).toBe('A');
  });

  it('needs the supermajority only for a one-way option: a reversible leader wins as on a two-way door', () => {
    // The naming trial: B (buy the $18,000 domain) was the one-way option nobody backed; A, a reversible step, led 2 to 1.
    const t = aggregate([v('a', 'A'), v('b', 'A'), v('c', 'C')], ['A', 'B', 'C'], 'one_way', S, ['B']);
    expect(t).toMatchObject({ mechanism: 'simple_majority', winner: 'A', deferred: false });
    expect(t.why).toMatch(/^At least one option is hard to reverse \(B\), but the leading option, A, is not: only a one-way option needs 75% of the experts behind it\. Among the votes, the experts' confidence is similar/);
    // A one-way leader still needs it, and is deferred short of it.
    expect(aggregate([v('a', 'B'), v('b', 'B'), v('c', 'A')], ['A', 'B', 'C'], 'one_way', S, ['B'])).toMatchObject({ mechanism: 'supermajority', winner: null, deferred: true });
    expect(aggregate([v('a', 'B'), v('b', 'B'), v('c', 'B'), v('d', 'A')], ['A', 'B'], 'one_way', S, ['B'])).toMatchObject({ mechanism: 'supermajority', winner: 'B', deferred: false });
    // A tie that holds a one-way option is deferred; one between reversible options is a plain tie.
    expect(aggregate([v('a', 'A'), v('b', 'B')], ['A', 'B', 'C'], 'one_way', S, ['B'])).toMatchObject({ winner: null, tie: ['A', 'B'], deferred: true });
    expect(aggregate([v('a', 'A'), v('b', 'C')], ['A', 'B', 'C'], 'one_way', S, ['B'])).toMatchObject({ winner: null, tie: ['A', 'C'], deferred: false });
    // Not told which options are one-way, every option of a one-way decision is.
    expect(aggregate([v('a', 'A'), v('b', 'A'), v('c', 'C')], ['A', 'B', 'C'], 'one_way', S)).toMatchObject({ winner: null, deferred: true });
  });

  it('a one-way door tie is both a tie and deferred', () => {
    const t = aggregate([v('a', 'A'), v('b', 'B')], ['A', 'B'], 'one_way', S);
    expect(t).toMatchObject({ winner: null, tie: ['A', 'B'], deferred: true });
  });

  it('ignores votes for unknown options in the tallies without crashing, but counts them in the board', () => {
    const t = aggregate([v('a', 'A'), v('b', 'A'), v('c', 'Z')], ['A', 'B'], 'two_way', S);
    expect(t.distribution).toEqual({ A: 2, B: 0 });
    expect(t.weights).toEqual({ A: 2, B: 0 });
    expect(t.winner).toBe('A');
    expect(t.consensus).toBeCloseTo(2 / 3);
  });

  it('has no winner and zero consensus with no votes', () => {
    const t = aggregate([], ['A', 'B'], 'two_way', S);
    expect(t).toMatchObject({ winner: null, tie: [], consensus: 0, deferred: false, distribution: { A: 0, B: 0 } });
    expect(aggregate([v('a', 'Z')], ['A', 'B'], 'two_way', S).winner).toBeNull();
    expect(aggregate([], ['A', 'B'], 'one_way', S)).toMatchObject({ winner: null, consensus: 0, deferred: true });
  });

  it('is deterministic and does not mutate its input', () => {
    const votes = [v('a', 'B', 0.9), v('b', 'A', 0.3), v('c', 'B', 0.6)];
    const copy = structuredClone(votes);
    expect(aggregate(votes, ['A', 'B'], 'two_way', S)).toEqual(aggregate(votes, ['A', 'B'], 'two_way', S));
    expect(votes).toEqual(copy);
  });
});
