import type { ExpertTurnInput, FacilitatorInput, ModeratorInput, ResearchInput } from '../../calls/debate';
import { chaptersOf, renderRecord, turnsChapter } from './record';
import { personaOf } from '../personas';
import type { EngineSettings } from '../settings';
import { currentRound, type DebateState } from './state';

/**
 * What each participant sees: the typed inputs of the catalogue's calls
 * (src/calls/debate.ts), built from the debate state alone.
 */

/** Each speaker of the round under way, with the discussion and positions as they stood before the round. */
export function expertTurnInputs(state: DebateState, s: EngineSettings): ExpertTurnInput[] {
  const { setup, positions } = state;
  const r = currentRound(state);
  const record = renderRecord(setup, state.chapters, s);
  return r.speakers.map((code, n) => ({
    persona: personaOf(code),
    subProblem: setup.subProblem,
    decidedEarlier: setup.decidedEarlier,
    panel: setup.panel,
    round: r.round,
    maxRounds: setup.maxRounds,
    phase: r.phase,
    memory: setup.memory[code] ?? '',
    requested: setup.requested?.[code] ?? null,
    record,
    previous: positions[code] ?? null,
    others: Object.entries(positions)
      .filter(([c]) => c !== code)
      .map(([c, position]) => ({ persona: c, position })),
    moderator: r.inputs.moderator,
    research: r.inputs.research,
    question: r.inputs.question,
    redirect: r.inputs.redirect,
    intervention: r.inputs.intervention,
    repeated: r.inputs.repeated.includes(code),
    notice: r.inputs.notices[code] ?? null,
    // As evaluateRound grants it: none after the last round, and at most what the sub-problem's cap leaves.
    researchLeft: r.round >= setup.maxRounds ? 0 : Math.max(0, s.researchPerSubProblem - state.researchUsed),
    // A round_end checkpoint follows every round the debate may continue from, never the last.
    personAnswers: setup.personAnswersRounds && r.round < setup.maxRounds,
    // The order leadFirst asks them in, and evaluateRound grants research in.
    speaking: { at: n + 1, of: r.speakers.length },
  }));
}

/** The facilitator reads this round's turns, as the record's last block. */
export function facilitatorInput(state: DebateState, s: EngineSettings): FacilitatorInput {
  const { setup } = state;
  const r = currentRound(state);
  return {
    record: renderRecord(setup, [...state.chapters, turnsChapter(r)], s),
    subProblem: setup.subProblem,
    round: r.round,
    maxRounds: setup.maxRounds,
    phase: r.phase,
    panel: setup.panel,
    perRound: s.speakersPerRound,
    lessons: setup.lessons,
    keyArguments: state.keyArguments,
    intervention: r.inputs.intervention,
    contributions: r.turns.map((t) => ({
      persona: t.persona,
      text: t.text,
      position: t.position,
      agreesWith: t.agreesWith,
      disagreesWith: t.disagreesWith,
      researchRequest: t.researchRequest,
      claims: t.claims,
      confidence: t.confidence,
      questionForPerson: t.questionForPerson ?? null,
    })),
  };
}

/** A moderator (or the facilitator's deadlock break) answers the positions as they stand. */
export function moderatorInput(state: DebateState, kind: ModeratorInput['kind'], s: EngineSettings): ModeratorInput {
  return {
    record: renderRecord(state.setup, chaptersOf(state), s),
    kind,
    subProblem: state.setup.subProblem,
    positions: Object.entries(state.positions).map(([c, position]) => ({ persona: c, position })),
  };
}

export function researchInput(state: DebateState, query: string): ResearchInput {
  return { subProblem: state.setup.subProblem, query };
}
