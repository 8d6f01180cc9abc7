import type { ExpertTurnInput, FacilitatorInput, ModeratorInput, ResearchInput } from '../../calls/debate';
import { event, type EventDraft } from '../events';
import type { Contribution, FacilitatorRound } from '../model';
import { nameOf } from '../personas';
import { withFactIds } from './record';
import { currentRound, type DebateState, type Turn } from './state';

/**
 * What each step of the debate stores and logs, given its call's answer. The
 * event log, the transcript and the SSE clients read these events, and the
 * stored results are what a replay folds back in: both keep their shape.
 */

export interface StepDone<T> {
  result: T;
  events: EventDraft[];
}

const wordCount = (t: string) => t.split(/\s+/).filter(Boolean).length;

export function debateStartedEvents(state: DebateState): EventDraft[] {
  const { subProblem: sp, maxRounds, panel } = state.setup;
  return [event('subproblem.started', { subProblemId: sp.id, title: sp.title, goal: sp.goal, maxRounds, panel, complexity: sp.complexity })];
}

/** The round's plan, then what the facilitator says before anyone speaks: the person's intervention, an invitation to the silent. */
export function roundOpenedEvents(state: DebateState): EventDraft[] {
  const subProblemId = state.setup.subProblem.id;
  const { round, phase, speakers, invited, inputs } = currentRound(state);
  return [
    event('round.started', { subProblemId, round, maxRounds: state.setup.maxRounds, phase, speakers, invited }),
    ...(inputs.intervention
      ? [event('facilitator.message', { subProblemId, round, kind: 'intervention', text: `The person intervened: "${inputs.intervention}". Experts, respond to this first.` })]
      : []),
    ...(round > 1 && invited.length
      ? [event('facilitator.message', { subProblemId, round, kind: 'invite', text: `${invited.map(nameOf).join(' and ')}, we have not heard from you yet: what do you see that the others missed?` })]
      : []),
  ];
}

export function expertTurnDone(input: ExpertTurnInput, out: Contribution): StepDone<Turn> {
  const { subProblem, round, persona: p } = input;
  return {
    result: { persona: p.code, ...out },
    events: [
      // Told to explain a change from a remembered position, the expert has now answered: the contradiction is addressed.
      ...(input.notice ? [event('memory.contradiction_resolved', { id: `${subProblem.id}:${p.code}`, subProblemId: subProblem.id, persona: p.code, round })] : []),
      event('contribution.completed', {
        subProblemId: subProblem.id,
        round,
        persona: p.code,
        name: p.name,
        text: out.text,
        position: out.position,
        words: wordCount(out.text),
        agreesWith: out.agreesWith,
        disagreesWith: out.disagreesWith,
        confidence: out.confidence,
        researchRequest: out.researchRequest,
        questionForPerson: out.questionForPerson ?? null,
      }),
    ],
  };
}

/** Who wants to speak is kept only for members of the board: the next round's speakers come from it. */
export function facilitatorDone(input: FacilitatorInput, out: FacilitatorRound): StepDone<FacilitatorRound> {
  const facts = withFactIds(`${input.subProblem.id}.r${input.round}`, out.facts);
  return {
    result: { ...out, wantsToSpeak: out.wantsToSpeak.filter((c) => input.panel.includes(c)) },
    events: [
      event('facilitator.message', { subProblemId: input.subProblem.id, round: input.round, kind: 'summary', text: `${out.summary} Next: ${out.nextQuestion}` }),
      ...(facts.length ? [event('facts.recorded', { subProblemId: input.subProblem.id, round: input.round, facts })] : []),
    ],
  };
}

/** A moderator's intervention; the deadlock break is the facilitator speaking. */
export function moderatorDone(input: ModeratorInput, round: number, out: { text: string }): StepDone<string> {
  const subProblemId = input.subProblem.id;
  return {
    result: out.text,
    events: [
      input.kind === 'deadlock'
        ? event('facilitator.message', { subProblemId, round, kind: 'deadlock', text: out.text })
        : event('moderator.intervened', { subProblemId, round, moderator: input.kind, text: out.text }),
    ],
  };
}

export function researchDone(input: ResearchInput, round: number, out: { findings: string; confidence: number }): StepDone<{ query: string; findings: string }> {
  return {
    result: { query: input.query, findings: out.findings },
    events: [
      event('research.completed', { subProblemId: input.subProblem.id, round, query: input.query, findings: out.findings, source: 'model_knowledge', confidence: out.confidence }),
    ],
  };
}
