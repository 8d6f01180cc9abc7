import { describe, expect, it } from 'vitest';
import type { RoundMetrics } from '../../src/domain/metrics';
import { DEFAULT_ENGINE_SETTINGS as S } from '../../src/domain/settings';
import { stopDecision, type StopInput } from '../../src/domain/stopping';

/** A healthy, mid-debate round: nothing should fire. */
const healthy = (round: number, over: Partial<RoundMetrics> = {}): RoundMetrics => ({
  round,
  novelty: 0.6,
  noveltyByPersona: {},
  convergence: 0.5,
  conflict: 0.5,
  relevance: 8,
  entropy: 0.6,
  repetition: 0.2,
  marginalUtility: 0.5,
  agreement: 0.5,
  ...over,
});
const rounds = (n: number, over: Partial<RoundMetrics> = {}) => Array.from({ length: n }, (_, i) => healthy(i + 1, over));

const input = (over: Partial<StopInput> = {}): StopInput => {
  const round = over.round ?? 4;
  return {
    round,
    maxRounds: 10,
    history: rounds(round),
    elapsedMs: 10_000,
    budgetLeftUsd: null,
    nextRoundCostUsd: 0.05,
    allSeatsSpoken: true,
    deadlockBreakAttempted: false,
    ...over,
  };
};
const consensusRound = (round: number) => healthy(round, { convergence: 0.9, novelty: 0.1, conflict: 0.1 });

describe('stopDecision: hard limits', () => {
  it('continues a healthy debate', () => {
    expect(stopDecision(input(), S)).toMatchObject({ stop: false, reason: 'continue', action: 'continue' });
  });
  it('max rounds at the cap, not before', () => {
    expect(stopDecision(input({ round: 10 }), S)).toMatchObject({ stop: true, reason: 'max_rounds', action: 'vote' });
    expect(stopDecision(input({ round: 9 }), S).stop).toBe(false);
  });
  it('time limit at the limit, not a millisecond before', () => {
    expect(stopDecision(input({ elapsedMs: S.subProblemTimeLimitMs }), S)).toMatchObject({ stop: true, reason: 'time_limit' });
    expect(stopDecision(input({ elapsedMs: S.subProblemTimeLimitMs - 1 }), S).stop).toBe(false);
  });
  it('budget only when the next round costs more than what is left; null = unlimited', () => {
    expect(stopDecision(input({ budgetLeftUsd: 0.04 }), S)).toMatchObject({ stop: true, reason: 'budget', action: 'vote' });
    expect(stopDecision(input({ budgetLeftUsd: 0.05 }), S).stop).toBe(false);
    expect(stopDecision(input({ budgetLeftUsd: null, nextRoundCostUsd: 1e9 }), S).stop).toBe(false);
  });
  it('hard limits beat seats not yet heard and every adaptive rule', () => {
    const h = [...rounds(4), consensusRound(5)];
    expect(stopDecision(input({ round: 5, maxRounds: 5, history: h, allSeatsSpoken: false }), S).reason).toBe('max_rounds');
    expect(stopDecision(input({ round: 5, history: h, elapsedMs: 1e9 }), S).reason).toBe('time_limit');
    expect(stopDecision(input({ round: 5, history: h, budgetLeftUsd: 0 }), S).reason).toBe('budget');
  });
});

describe('stopDecision: adaptive rules', () => {
  it('never stops adaptively before every seat has spoken', () => {
    const h = [...rounds(4), consensusRound(5)];
    expect(stopDecision(input({ round: 5, history: h, allSeatsSpoken: false }), S)).toMatchObject({ stop: false, action: 'continue' });
    expect(stopDecision(input({ round: 5, history: h }), S)).toMatchObject({ stop: true, reason: 'consensus', action: 'vote' });
  });
  it('consensus needs the minimum round', () => {
    const at = S.consensusMinRounds;
    expect(stopDecision(input({ round: at, history: [...rounds(at - 1), consensusRound(at)] }), S).reason).toBe('consensus');
    const before = at - 1;
    expect(stopDecision(input({ round: before, history: [...rounds(before - 1), consensusRound(before)] }), S).reason).not.toBe('consensus');
  });
  it('consensus thresholds are strict on every metric', () => {
    const c = S.consensus;
    for (const over of [{ convergence: c.convergenceAbove }, { novelty: c.noveltyBelow }, { conflict: c.conflictBelow }]) {
      const d = stopDecision(input({ round: 5, history: [...rounds(4), { ...consensusRound(5), ...over }] }), S);
      expect(d.reason).not.toBe('consensus');
    }
  });
  it('consensus detail carries the numbers', () => {
    const d = stopDecision(input({ round: 5, history: [...rounds(4), consensusRound(5)] }), S);
    expect(d.detail).toContain('0.9');
    expect(d.detail).toContain(String(S.consensus.convergenceAbove));
  });
  it('diminishing returns: low utility for the required consecutive rounds, strictly below', () => {
    const n = S.diminishingReturns.consecutiveRounds;
    const low = S.diminishingReturns.marginalUtilityBelow - 0.01;
    const h = [...rounds(5 - n), ...rounds(n, { marginalUtility: low }).map((m, i) => ({ ...m, round: 6 - n + i }))];
    expect(stopDecision(input({ round: 5, history: h }), S)).toMatchObject({ stop: true, reason: 'diminishing_returns', action: 'vote' });
    const once = [...rounds(4), healthy(5, { marginalUtility: low })];
    expect(stopDecision(input({ round: 5, history: once }), S).stop).toBe(n <= 1);
    const atEdge = h.map((m, i) => (i === h.length - 1 ? { ...m, marginalUtility: S.diminishingReturns.marginalUtilityBelow } : m));
    expect(stopDecision(input({ round: 5, history: atEdge }), S).stop).toBe(false);
  });
  it('diminishing returns: repetition strictly above the threshold', () => {
    const above = [...rounds(3), healthy(4, { repetition: S.diminishingReturns.repetitionAbove + 0.01 })];
    expect(stopDecision(input({ history: above }), S).reason).toBe('diminishing_returns');
    const at = [...rounds(3), healthy(4, { repetition: S.diminishingReturns.repetitionAbove })];
    expect(stopDecision(input({ history: at }), S).stop).toBe(false);
  });
  it('diminishing returns never fires in round 1', () => {
    const s = { ...S, diminishingReturns: { ...S.diminishingReturns, consecutiveRounds: 1 } };
    const h = [healthy(1, { marginalUtility: 0, repetition: 1 })];
    expect(stopDecision(input({ round: 1, history: h }), s).stop).toBe(false);
    expect(stopDecision(input({ round: 2, history: [...h, healthy(2, { marginalUtility: 0 })] }), s).stop).toBe(true);
  });
  it('consensus wins over diminishing returns when both hold', () => {
    const h = rounds(5, { convergence: 0.9, novelty: 0.1, conflict: 0.1, marginalUtility: 0.05, repetition: 0.9 });
    expect(stopDecision(input({ round: 5, history: h }), S).reason).toBe('consensus');
  });
});

describe('stopDecision: deadlock', () => {
  const k = S.deadlock;
  const hot = (n: number, from: number) => Array.from({ length: n }, (_, i) => healthy(from + i, { conflict: k.conflictAbove + 0.05 }));
  const round = k.rounds + 1;
  const locked = [healthy(1), ...hot(k.rounds, 2)];

  it('first asks the facilitator to break it, then forces a vote', () => {
    expect(stopDecision(input({ round, history: locked }), S)).toMatchObject({ stop: false, reason: 'deadlock', action: 'break_deadlock' });
    expect(stopDecision(input({ round, history: locked, deadlockBreakAttempted: true }), S)).toMatchObject({
      stop: true,
      reason: 'deadlock',
      action: 'vote',
    });
  });
  it('needs the full run of rounds, strictly above the threshold', () => {
    const short = [healthy(1), healthy(2), ...hot(k.rounds - 1, 3)];
    expect(stopDecision(input({ round, history: short }), S).reason).toBe('continue');
    const atEdge = locked.map((m, i) => (i === 3 ? { ...m, conflict: k.conflictAbove } : m));
    expect(stopDecision(input({ round, history: atEdge }), S).reason).toBe('continue');
  });
  it('a hard limit still wins over a deadlock break', () => {
    expect(stopDecision(input({ round, maxRounds: round, history: locked }), S).reason).toBe('max_rounds');
  });
});
