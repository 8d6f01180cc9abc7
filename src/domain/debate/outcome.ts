import { chaptersOf, renderRecord } from './record';
import type { Proposal, Resolution } from '../checkpoints';
import { debateContext } from '../context';
import { nameOf } from '../personas';
import type { EngineSettings } from '../settings';
import { currentRound, type DebateOutcome, type DebateState } from './state';

/** What the person is asked after a round the rules let continue (the round_end checkpoint). */
export interface RoundEndAsk {
  /** The checkpoint's id, derived from where the debate is, so a replay reaches the same one. */
  id: string;
  prompt: string;
  subProblemId: string;
  round: number;
  proposal: Proposal;
}

export function roundEndAsk(state: DebateState): RoundEndAsk {
  const { subProblem: sp, maxRounds } = state.setup;
  const { round, facilitator, end } = currentRound(state);
  const questions = (end?.personQuestions ?? []).map((q) => ({ persona: q.persona, name: nameOf(q.persona), question: q.question }));
  const asked = questions.length
    ? ` The experts have ${questions.length === 1 ? 'a question only you can answer' : `${questions.length} questions only you can answer`}: answer in an intervention, or they stay open and the recommendation will depend on them.`
    : '';
  return {
    id: `${sp.id}.r${round}`,
    prompt: `Round ${round}/${maxRounds} of "${sp.title}" is done. Continue, move to the vote, intervene with your own point, or skip to the final recommendation.${asked}`,
    subProblemId: sp.id,
    round,
    proposal: {
      subProblemId: sp.id,
      round,
      maxRounds,
      summary: facilitator?.summary ?? '',
      positions: Object.entries(state.positions).map(([persona, position]) => ({ persona, name: nameOf(persona), position })),
      ...(questions.length && { questions }),
    },
  };
}

/** The person ended the debate at the checkpoint: to the vote, or past every remaining sub-problem. */
export const personStops = (steer: Resolution | null): boolean => steer?.action === 'skip_to_vote' || steer?.action === 'skip_to_final';

export function debateOutcome(state: DebateState, s: EngineSettings): DebateOutcome {
  const { round, end, steer } = currentRound(state);
  if (!end) throw new Error(`debate of ${state.setup.subProblem.id} finished before round ${round} was evaluated`);
  const byPerson = personStops(steer);
  return {
    rounds: round,
    maxRounds: state.setup.maxRounds,
    stopReason: byPerson ? 'person' : end.stop.reason,
    stopDetail: byPerson ? `The person moved the board to the vote after round ${round}.` : end.stop.detail,
    skipToFinal: steer?.action === 'skip_to_final',
    elapsedMs: end.elapsedMs,
    positions: state.positions,
    turnsByPersona: state.turnsByPersona,
    keyArguments: state.keyArguments,
    disagreements: state.disagreements,
    lastTurnRound: Object.fromEntries(chaptersOf(state).flatMap((c) => c.turns.map((t) => [t.persona, c.round] as const))),
    // A disagreement an expert states only in words (no `disagreesWith`) still reaches the voters through it.
    lastSummary: state.rounds.findLast((r) => r.summary !== null)?.summary ?? null,
    transcript: debateContext(state.rounds, state.keyArguments, s),
    record: renderRecord(state.setup, chaptersOf(state), s),
    straw: state.straw,
    metrics: state.metrics,
    researchUsed: state.researchUsed,
    research: chaptersOf(state).flatMap((c) => c.research),
    interventions: state.interventions,
    redirects: state.redirects,
    // A deadlock counts as resolved when the facilitator's break led to a stop for another reason.
    deadlocksResolved: state.deadlockBreakAttempted && end.stop.reason !== 'deadlock' ? 1 : 0,
    // The last round's questions were shown to nobody when the debate stopped there.
    openQuestions: [...state.openQuestions, ...(steer ? [] : (end.personQuestions ?? []))],
  };
}
