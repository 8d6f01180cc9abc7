import { describe, expect, it } from 'vitest';
import { CALL_TOKENS, estimateMinimumSessionCostUsd, estimateSessionCost, roundCostUsd, TYPICAL_PROBLEM_CHARS } from '../../src/domain/budget';
import { DEFAULT_ENGINE_SETTINGS as S } from '../../src/domain/settings';

const prices = { smart: { input: 3, output: 15 }, fast: { input: 1, output: 5 } };
const estimate = (subProblems: { complexity: number; panelSize: number }[], settings = S) => estimateSessionCost({ subProblems, prices }, settings);

describe('roundCostUsd', () => {
  it('prices each speaker turn and the facilitator from the token assumptions', () => {
    // Round 1, 3 speakers, panel 3: 3 × (2,500 in + 250 out, fast) + facilitator (2,000 + 3×300 + 3×50 in, 250 out, fast).
    const expected = (3 * (2_500 * 1 + 250 * 5) + ((2_000 + 900 + 150) * 1 + 250 * 5)) / 1e6;
    expect(roundCostUsd(3, 3, 1, prices)).toBeCloseTo(expected, 10);
  });
  it('grows with the round, the speakers and the panel, but stays bounded', () => {
    const byRound = [1, 2, 3, 4, 5, 6, 7].map((r) => roundCostUsd(4, 3, r, prices));
    for (let i = 1; i < byRound.length; i++) expect(byRound[i]!).toBeGreaterThan(byRound[i - 1]!);
    expect(roundCostUsd(4, 3, 30, prices)).toBe(roundCostUsd(4, 3, 8, prices));
    expect(roundCostUsd(4, 3, 30, prices)).toBeLessThan(3 * roundCostUsd(4, 3, 1, prices));
    expect(roundCostUsd(4, 4, 3, prices)).toBeGreaterThan(roundCostUsd(4, 3, 3, prices));
    expect(roundCostUsd(5, 3, 3, prices)).toBeGreaterThan(roundCostUsd(4, 3, 3, prices));
  });
  it('is zero with free models', () => {
    expect(roundCostUsd(4, 3, 2, { smart: { input: 0, output: 0 }, fast: { input: 0, output: 0 } })).toBe(0);
  });
});

describe('estimateSessionCost', () => {
  it('orders minimum < expected < maximum, for the session and each sub-problem', () => {
    const e = estimate([
      { complexity: 2, panelSize: 3 },
      { complexity: 5, panelSize: 4 },
      { complexity: 9, panelSize: 5 },
    ]);
    expect(e.minimumUsd).toBeGreaterThan(0);
    expect(e.minimumUsd).toBeLessThan(e.expectedUsd);
    expect(e.expectedUsd).toBeLessThan(e.maximumUsd);
    expect(e.perSubProblem).toHaveLength(3);
    for (const p of e.perSubProblem) {
      expect(p.minimumUsd).toBeLessThan(p.expectedUsd);
      expect(p.expectedUsd).toBeLessThan(p.maximumUsd);
    }
    // The session adds intake, decomposition, board selection (fast tier) and the final recommendation once (the last reads every sub-problem's synthesis in full).
    const fixed = e.minimumUsd - e.perSubProblem.reduce((a, p) => a + p.minimumUsd, 0);
    const { input, output } = CALL_TOKENS.board;
    expect(fixed).toBeCloseTo((2 * (1_500 * 3 + 800 * 15) + (3_500 * 3 + 800 * 15) + input * prices.fast.input + output * prices.fast.output) / 1e6, 10);
    expect(e.maximumUsd - e.perSubProblem.reduce((a, p) => a + p.maximumUsd, 0)).toBeCloseTo(fixed, 10);
  });

  it('the maximum follows the round cap of the complexity band and the settings', () => {
    const simple = estimate([{ complexity: 2, panelSize: 4 }]).maximumUsd;
    const moderate = estimate([{ complexity: 5, panelSize: 4 }]).maximumUsd;
    const complex = estimate([{ complexity: 9, panelSize: 4 }]).maximumUsd;
    expect(simple).toBeLessThan(moderate);
    expect(moderate).toBeLessThan(complex);
    const fewer = estimate([{ complexity: 9, panelSize: 4 }], { ...S, roundCaps: { ...S.roundCaps, complex: 6 } }).maximumUsd;
    expect(fewer).toBeLessThan(complex);
    // Minimum and expected do not depend on the cap once it is at least 4 rounds.
    expect(estimate([{ complexity: 2, panelSize: 4 }]).minimumUsd).toBeCloseTo(estimate([{ complexity: 9, panelSize: 4 }]).minimumUsd, 12);
    expect(estimate([{ complexity: 5, panelSize: 4 }]).expectedUsd).toBeCloseTo(estimate([{ complexity: 9, panelSize: 4 }]).expectedUsd, 12);
  });

  it('is monotonic in panel size and number of sub-problems', () => {
    for (const k of ['minimumUsd', 'expectedUsd', 'maximumUsd'] as const) {
      const byPanel = [2, 3, 4, 5, 6].map((panelSize) => estimate([{ complexity: 5, panelSize }])[k]);
      for (let i = 1; i < byPanel.length; i++) expect(byPanel[i]!).toBeGreaterThan(byPanel[i - 1]!);
      expect(estimate([{ complexity: 5, panelSize: 4 }, { complexity: 5, panelSize: 4 }])[k]).toBeGreaterThan(estimate([{ complexity: 5, panelSize: 4 }])[k]);
    }
  });

  it('expected uses at most the cap: with a 2-round cap expected sits between 1 round and the cap', () => {
    const caps = { simple: 2, moderate: 2, complex: 2, hard: 15 };
    const e = estimate([{ complexity: 2, panelSize: 3 }], { ...S, roundCaps: caps });
    expect(e.expectedUsd).toBeLessThanOrEqual(e.maximumUsd);
    expect(e.minimumUsd).toBeLessThan(e.expectedUsd);
  });

  it('scales linearly with prices and is zero when models are free', () => {
    const sub = [{ complexity: 5, panelSize: 4 }];
    const double = estimateSessionCost(
      { subProblems: sub, prices: { smart: { input: 6, output: 30 }, fast: { input: 2, output: 10 } } },
      S,
    );
    expect(double.expectedUsd).toBeCloseTo(2 * estimate(sub).expectedUsd, 10);
    expect(estimateSessionCost({ subProblems: sub, prices: { smart: { input: 0, output: 0 }, fast: { input: 0, output: 0 } } }, S).maximumUsd).toBe(0);
  });
});

describe('estimateMinimumSessionCostUsd', () => {
  it('equals the minimum of one simple sub-problem with three experts for a typical problem', () => {
    const one = estimate([{ complexity: 1, panelSize: 3 }]).minimumUsd;
    expect(estimateMinimumSessionCostUsd(200, prices)).toBeCloseTo(one, 12);
    expect(estimateMinimumSessionCostUsd(TYPICAL_PROBLEM_CHARS, prices)).toBeCloseTo(one, 12);
  });
  it('grows for long problems and stays below any fuller session', () => {
    expect(estimateMinimumSessionCostUsd(20_000, prices)).toBeGreaterThan(estimateMinimumSessionCostUsd(1_000, prices));
    expect(estimateMinimumSessionCostUsd(500, prices)).toBeLessThan(estimate([{ complexity: 1, panelSize: 3 }]).expectedUsd);
    expect(estimateMinimumSessionCostUsd(500, prices)).toBeLessThan(estimate([{ complexity: 3, panelSize: 4 }, { complexity: 5, panelSize: 4 }]).minimumUsd);
  });
  it('documents its assumptions as constants', () => {
    expect(CALL_TOKENS.expertTurn).toEqual({ tier: 'fast', input: 2_500, output: 250 });
    // A voter reads a digest of the debate and every option's pros, cons and best-if.
    expect(CALL_TOKENS.vote).toEqual({ tier: 'fast', input: 2_800, output: 150 });
  });
});
