import type { RoundMetrics } from './metrics';
import type { EngineSettings } from './settings';

/**
 * When to end a sub-problem's debate (seed 002, 4.2 "adaptive stopping
 * criteria"). Checked after every round; pure so a replay stops at the same
 * round. Order matters: hard limits are safety nets and beat everything; no
 * adaptive stop before every seat has spoken (all voices heard); then
 * consensus, diminishing returns, deadlock (which first gets one break attempt).
 */

/** `person`: the person moved the board to the vote at a checkpoint (not a rule of this module). */
export type StopReason = 'continue' | 'consensus' | 'diminishing_returns' | 'deadlock' | 'max_rounds' | 'time_limit' | 'budget' | 'person' | 'straw_consensus';

export interface StopInput {
  round: number;
  maxRounds: number;
  /** This sub-problem's rounds so far; the last entry is the current round. */
  history: RoundMetrics[];
  elapsedMs: number;
  budgetLeftUsd: number | null;
  nextRoundCostUsd: number;
  allSeatsSpoken: boolean;
  deadlockBreakAttempted: boolean;
}

export interface StopDecision {
  stop: boolean;
  reason: StopReason;
  action: 'continue' | 'vote' | 'break_deadlock';
  detail: string;
}

const f = (x: number) => Number(x.toFixed(2)).toString();
const vote = (reason: StopReason, detail: string): StopDecision => ({ stop: true, reason, action: 'vote', detail });
const go = (detail: string): StopDecision => ({ stop: false, reason: 'continue', action: 'continue', detail });

export function stopDecision(input: StopInput, s: EngineSettings): StopDecision {
  const { round } = input;
  if (round >= input.maxRounds) return vote('max_rounds', `Round ${round} reached the cap of ${input.maxRounds} rounds.`);
  if (input.elapsedMs >= s.subProblemTimeLimitMs)
    return vote('time_limit', `Debate ran ${Math.round(input.elapsedMs / 1000)}s, limit ${Math.round(s.subProblemTimeLimitMs / 1000)}s.`);
  if (input.budgetLeftUsd !== null && input.nextRoundCostUsd > input.budgetLeftUsd)
    return vote('budget', `Next round would cost about $${input.nextRoundCostUsd.toFixed(4)}, only $${input.budgetLeftUsd.toFixed(4)} left.`);

  const now = input.history.at(-1);
  if (!input.allSeatsSpoken) return go(`Round ${round}: not every expert has spoken yet.`);
  if (!now) return go(`Round ${round}: no measurements yet.`);

  const c = s.consensus;
  if (round >= s.consensusMinRounds && now.convergence > c.convergenceAbove && now.novelty < c.noveltyBelow && now.conflict < c.conflictBelow)
    return vote(
      'consensus',
      `Consensus at round ${round}: convergence ${f(now.convergence)} > ${c.convergenceAbove}, novelty ${f(now.novelty)} < ${c.noveltyBelow}, conflict ${f(now.conflict)} < ${c.conflictBelow}.`,
    );

  const d = s.diminishingReturns;
  if (round >= 2) {
    const window = input.history.slice(-d.consecutiveRounds);
    if (window.length === d.consecutiveRounds && window.every((m) => m.marginalUtility < d.marginalUtilityBelow))
      return vote(
        'diminishing_returns',
        `Marginal utility ${window.map((m) => f(m.marginalUtility)).join(', ')} below ${d.marginalUtilityBelow} for ${d.consecutiveRounds} rounds.`,
      );
    if (now.repetition > d.repetitionAbove)
      return vote('diminishing_returns', `Repetition ${f(now.repetition)} above ${d.repetitionAbove} in round ${round}.`);
  }

  const k = s.deadlock;
  const recent = input.history.slice(-k.rounds);
  if (recent.length === k.rounds && recent.every((m) => m.conflict > k.conflictAbove)) {
    const detail = `Conflict above ${k.conflictAbove} for ${k.rounds} rounds (now ${f(now.conflict)})`;
    return input.deadlockBreakAttempted
      ? vote('deadlock', `${detail}; the break attempt did not resolve it, forcing a vote.`)
      : { stop: false, reason: 'deadlock', action: 'break_deadlock', detail: `${detail}; facilitator tries to break the deadlock.` };
  }

  return go(
    `Round ${round}: convergence ${f(now.convergence)}, novelty ${f(now.novelty)}, conflict ${f(now.conflict)}, utility ${f(now.marginalUtility)}; continuing.`,
  );
}
