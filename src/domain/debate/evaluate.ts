import { roundCostUsd, type TierPrices } from '../budget';
import { event, type EventDraft } from '../events';
import { calibratedSimilarity, round4, roundMetrics } from '../metrics';
import { moderatorFor, type Moderator } from '../moderators';
import type { EngineSettings } from '../settings';
import { nameOf } from '../personas';
import { stopDecision, type StopDecision } from '../stopping';
import { currentRound, type DebateState, type RoundEnd } from './state';

/**
 * The end of a round: its measurements, whether to stop, which moderator (if
 * any) speaks, whether the facilitator redirects, which research requests
 * run. Pure given the clock and the spend so far, which the engine reads
 * inside the round's `end` step, so a replay reuses the stored verdict.
 */

export interface RoundClock {
  now: Date;
  /** USD the session has spent so far. */
  spentUsd: number;
}

/** The sub-problem's progress as the session row shows it. */
export interface DebateProgress {
  stage: 'debate';
  round: number;
  maxRounds: number;
  fraction: number;
}

export const debateProgress = (round: number, maxRounds: number): DebateProgress => ({ stage: 'debate', round, maxRounds, fraction: round4((0.8 * round) / maxRounds) });

/** Money kept back for the vote, calibration and synthesis of a sub-problem when budgeting a further round. */
export function reserveUsd(panelSize: number, prices: TierPrices): number {
  const perMTok = (tier: { input: number; output: number }, input: number, output: number) => (input * tier.input + output * tier.output) / 1e6;
  return perMTok(prices.smart, 3000, 600) * 2 + perMTok(prices.fast, 1500, 200) * panelSize * 2;
}

/** The speaker of a round's moderator step, if any: a deadlock's break comes before any moderator. */
export const moderatorKind = (end: RoundEnd): Moderator | 'deadlock' | null => (end.stop.action === 'break_deadlock' ? 'deadlock' : end.moderator);

export function evaluateRound(state: DebateState, clock: RoundClock, s: EngineSettings): { end: RoundEnd; events: EventDraft[]; progress: DebateProgress } {
  const { setup } = state;
  const { panel, maxRounds, prices } = setup;
  const r = currentRound(state);
  const { round, turns, facilitator, vectors } = r;
  if (!facilitator || !vectors || !state.startedAt) throw new Error(`round ${round} of ${setup.subProblem.id} evaluated before its results`);

  const contributions = turns.map((t, i) => ({
    persona: t.persona,
    vector: vectors[i]!.text,
    positionVector: vectors[i]!.position,
    agreesWith: t.agreesWith,
    disagreesWith: t.disagreesWith,
  }));
  const metrics = roundMetrics(
    {
      round,
      contributions,
      history: state.history,
      latestPositions: Object.values(state.positionVectors),
      relevance: facilitator.relevance,
      agreement: facilitator.agreement,
      panel,
      similarity: calibratedSimilarity(setup.calibration),
    },
    s,
  );
  const elapsedMs = clock.now.getTime() - Date.parse(state.startedAt);
  const ruled = stopDecision(
    {
      round,
      maxRounds,
      history: [...state.metrics, metrics],
      elapsedMs,
      budgetLeftUsd: setup.budgetUsd === null ? null : setup.budgetUsd - clock.spentUsd - reserveUsd(panel.length, prices),
      nextRoundCostUsd: roundCostUsd(panel.length, Math.min(panel.length, s.speakersPerRound), round + 1, prices),
      allSeatsSpoken: panel.every((c) => (state.spoken[c] ?? 0) > 0),
      deadlockBreakAttempted: state.deadlockBreakAttempted,
    },
    s,
  );
  // A unanimous, confident straw vote on a two-way door goes straight to the vote (settings.debate).
  const straw = round === 1 ? state.straw : null;
  const stop: StopDecision =
    !ruled.stop && straw?.skipsDebate
      ? { stop: true, reason: 'straw_consensus', action: 'vote', detail: `The straw vote after the opening round was unanimous for option ${straw.winner} on a two-way door, every expert at least ${s.strawConsensusConfidence} sure: the board goes to the vote without further rounds.` }
      : ruled;
  const moderator = stop.stop
    ? null
    : moderatorFor(
        {
          round,
          agreement: facilitator.agreement,
          unverifiedClaims: turns.reduce((n, t) => n + t.claims.filter((c) => c.basis === 'assumption').length, 0),
          deadlocked: stop.action === 'break_deadlock',
          sentiment: facilitator.sentiment,
          used: state.used,
        },
        s,
      );
  const redirect = !stop.stop && facilitator.relevance < s.driftRedirectBelow;
  // Research is capped per sub-problem; every request is answered next round or declined with its reason, never dropped silently.
  const requested = turns.filter((t) => !!t.researchRequest?.trim()).map((t) => ({ persona: t.persona, query: t.researchRequest!.trim() }));
  const room = stop.stop ? 0 : Math.max(0, s.researchPerSubProblem - state.researchUsed);
  const research = requested.slice(0, room).map((r) => r.query);
  const declined = requested.slice(room).map((r) => ({
    ...r,
    reason: stop.stop
      ? 'the debate ended this round, so no later round could use the findings'
      : `the ${s.researchPerSubProblem} research answers this sub-problem allows are used`,
  }));
  const personQuestions = turns.filter((t) => !!t.questionForPerson?.trim()).map((t) => ({ persona: t.persona, question: t.questionForPerson!.trim(), round }));

  const subProblemId = setup.subProblem.id;
  const events: EventDraft[] = [
    ...(straw ? [event('vote.straw', { subProblemId, ...straw, votes: straw.votes.map((v) => ({ ...v, name: nameOf(v.persona) })) })] : []),
    event('round.completed', { subProblemId, round, metrics, stop }),
  ];
  if (redirect) {
    events.push(
      event('facilitator.message', {
        subProblemId,
        round,
        kind: 'redirect',
        text: `Let us come back to the goal: ${setup.subProblem.goal} (relevance this round ${facilitator.relevance}/10).`,
      }),
    );
  }
  for (const d of declined) events.push(event('research.declined', { subProblemId, round, ...d }));
  return { end: { metrics, stop, moderator, redirect, research, declined, personQuestions, elapsedMs }, events, progress: debateProgress(round, maxRounds) };
}
