import { contributionCall, openingStatementCall, type ExpertTurnInput, type FacilitatorInput, type ModeratorInput, type ResearchInput } from '../../calls/debate';
import type { Resolution } from '../checkpoints';
import type { EventDraft } from '../events';
import type { FacilitatorRound, LedgerFact } from '../model';
import { strawVote } from '../straw';
import { sealRound } from './record';
import { noveltyVerdicts, prioritise } from '../novelty';
import { nameOf } from '../personas';
import type { EngineSettings } from '../settings';
import { debatePhase, selectSpeakers } from '../speakers';
import { debateProgress, moderatorKind, type DebateProgress } from './evaluate';
import { expertTurnInputs, facilitatorInput, moderatorInput, researchInput } from './inputs';
import { debateOutcome, personStops, roundEndAsk, type RoundEndAsk } from './outcome';
import { emptyCarry, currentRound, type DebateOutcome, type DebateState, type RoundEnd, type RoundInProgress, type Turn } from './state';
import { debateStartedEvents, roundOpenedEvents } from './steps';

/**
 * The debate of one sub-problem as a state machine: `next(state)` says what
 * to do, the engine does it (model calls, the clock, embeddings, a person's
 * answer) and `apply(state, result)` folds the result in. An opening round
 * with everyone, then rounds where the facilitator polls who has something
 * material, until an adaptive stopping rule, a hard limit or the person moves
 * the board to the vote. Every rule lives in the pure policies it calls
 * (speakers, stopping, moderators, metrics, novelty, context).
 *
 * Step keys are the engine's memo keys: a replay finds each committed step
 * under the same key, so they must not change.
 */

type ExpertCall = typeof openingStatementCall;

export type DebateAction =
  | { kind: 'start'; key: string; events: EventDraft[]; progress: DebateProgress }
  | { kind: 'open_round'; key: string; events: EventDraft[] }
  /** One step per speaker, run in parallel. */
  | { kind: 'expert_turns'; turns: { key: string; call: ExpertCall; input: ExpertTurnInput }[] }
  | { kind: 'facilitate'; key: string; input: FacilitatorInput }
  /** Embed each turn's text and position (not a step: embeddings are recomputed on replay, as the metrics' history needs them). */
  | { kind: 'embed'; texts: string[] }
  /** The round's end (evaluate.ts), with what the novelty memory keeps of it. */
  | { kind: 'evaluate'; key: string; round: number; utterances: { persona: string; text: string; vector: number[] }[]; question: string }
  /** Compare the opening positions with what the experts concluded in earlier sessions. */
  | { kind: 'check_stances'; positions: Record<string, string> }
  | { kind: 'moderate'; key: string; round: number; input: ModeratorInput }
  /** One step per request, run in parallel. */
  | { kind: 'research'; round: number; requests: { key: string; input: ResearchInput }[] }
  | { kind: 'ask'; ask: RoundEndAsk }
  | { kind: 'finish'; outcome: DebateOutcome };

export type DebateResult =
  | { kind: 'started'; startedAt: string; personSaid?: string[] }
  /** With the other sub-problems' ledger facts new since the last round (stored with the step, so a replay sees the same). */
  | { kind: 'round_opened'; facts?: LedgerFact[] }
  | { kind: 'turns'; turns: Turn[] }
  | { kind: 'facilitated'; facilitator: FacilitatorRound }
  | { kind: 'embedded'; vectors: number[][] }
  | { kind: 'evaluated'; end: RoundEnd }
  | { kind: 'stances'; notices: Record<string, string> }
  | { kind: 'moderated'; text: string }
  | { kind: 'researched'; findings: { query: string; findings: string }[] }
  | { kind: 'steered'; resolution: Resolution };

/** The result each stage waits for. */
const EXPECTS: Record<DebateState['stage'], DebateResult['kind'] | null> = {
  start: 'started',
  round: 'round_opened',
  experts: 'turns',
  facilitator: 'facilitated',
  embed: 'embedded',
  evaluate: 'evaluated',
  stances: 'stances',
  moderator: 'moderated',
  research: 'researched',
  checkpoint: 'steered',
  done: null,
};

export function next(state: DebateState, s: EngineSettings): DebateAction {
  const sp = state.setup.subProblem.id;
  const key = (k: string) => `${sp}/${k}`;
  const at = (k: string) => key(`r${currentRound(state).round}/${k}`);
  switch (state.stage) {
    case 'start':
      return { kind: 'start', key: key('start'), events: debateStartedEvents(state), progress: debateProgress(0, state.setup.maxRounds) };
    case 'round':
      return { kind: 'open_round', key: at('start'), events: roundOpenedEvents(state) };
    case 'experts':
      return {
        kind: 'expert_turns',
        // The fast tier for the parallel bulk of the debate (the spec's cost plan); judgement calls stay smart.
        turns: expertTurnInputs(state, s).map((input) => ({ key: at(input.persona.code), call: input.round === 1 ? openingStatementCall : contributionCall, input })),
      };
    case 'facilitator':
      return { kind: 'facilitate', key: at('facilitator'), input: facilitatorInput(state, s) };
    case 'embed':
      return { kind: 'embed', texts: currentRound(state).turns.flatMap((t) => [t.text, t.position]) };
    case 'evaluate': {
      const { round, turns, vectors, facilitator } = currentRound(state);
      return {
        kind: 'evaluate',
        key: at('end'),
        round,
        utterances: turns.map((t, i) => ({ persona: t.persona, text: t.text, vector: vectors![i]!.text })),
        question: facilitator!.nextQuestion,
      };
    }
    case 'stances':
      return { kind: 'check_stances', positions: state.positions };
    case 'moderator': {
      const { round, end } = currentRound(state);
      const kind = moderatorKind(end!)!;
      return { kind: 'moderate', key: at(kind), round, input: moderatorInput(state, kind, s) };
    }
    case 'research': {
      const { round, end } = currentRound(state);
      return { kind: 'research', round, requests: end!.research.map((query, i) => ({ key: at(`research${i + 1}`), input: researchInput(state, query) })) };
    }
    case 'checkpoint':
      return { kind: 'ask', ask: roundEndAsk(state) };
    case 'done':
      return { kind: 'finish', outcome: debateOutcome(state, s) };
  }
}

/**
 * Folds a result into the state; returns a new state and leaves the given one
 * untouched. Copy-on-write: the new state shares every part this result does
 * not change, and each fold below copies what it edits (the state and the
 * round under way, then the one record or list it changes) instead of
 * editing in place. A structured clone of the whole state per result was a
 * tenth of a worker's CPU: the state carries every turn's embeddings and the
 * whole record, and is folded once or more per model call.
 */
export function apply(state: DebateState, result: DebateResult, s: EngineSettings): DebateState {
  const expected = EXPECTS[state.stage];
  if (result.kind !== expected) throw new Error(`debate of ${state.setup.subProblem.id}: got ${result.kind} at stage ${state.stage}, expected ${expected ?? 'nothing'}`);
  const st: DebateState = { ...state };
  switch (result.kind) {
    case 'started':
      st.startedAt = result.startedAt;
      st.setup = { ...st.setup, personSaid: result.personSaid ?? [] };
      return openRound(st, s);
    case 'round_opened': {
      const fresh = (result.facts ?? []).filter((f) => f.subProblemId !== st.setup.subProblem.id && !st.seenFacts.includes(f.id));
      if (fresh.length) {
        const last = st.chapters.at(-1)!;
        st.chapters = [...st.chapters.slice(0, -1), { ...last, siblingFacts: [...last.siblingFacts, ...fresh] }];
        st.seenFacts = [...st.seenFacts, ...fresh.map((f) => f.id)];
      }
      st.stage = 'experts';
      return st;
    }
    case 'turns':
      return foldTurns(st, result.turns);
    case 'facilitated': {
      const r = editRound(st, { facilitator: result.facilitator });
      st.wantsToSpeak = result.facilitator.wantsToSpeak;
      st.keyArguments = result.facilitator.keyArguments;
      if (r.round === 1 && result.facilitator.straw) st.straw = strawVote(result.facilitator.straw, r.turns, st.setup.panel, s);
      st.rounds = [...st.rounds, { round: r.round, turns: r.turns.map((t) => ({ name: nameOf(t.persona), text: t.text })), summary: result.facilitator.summary }];
      st.stage = 'embed';
      return st;
    }
    case 'embedded': {
      const cur = currentRound(st);
      if (result.vectors.length !== 2 * cur.turns.length) throw new Error(`round ${cur.round}: ${result.vectors.length} embeddings for ${cur.turns.length} turns`);
      const r = editRound(st, { vectors: cur.turns.map((_, i) => ({ text: result.vectors[2 * i]!, position: result.vectors[2 * i + 1]! })) });
      st.positionVectors = { ...st.positionVectors };
      for (const [i, t] of r.turns.entries()) st.positionVectors[t.persona] = r.vectors![i]!.position;
      st.stage = 'evaluate';
      return st;
    }
    case 'evaluated':
      return foldEnd(st, result.end, s);
    case 'stances': {
      const { next } = currentRound(st);
      editRound(st, { next: { ...next, notices: { ...next.notices, ...result.notices } } });
      return afterStances(st);
    }
    case 'moderated': {
      const cur = currentRound(st);
      const kind = moderatorKind(cur.end!)!;
      editRound(st, { next: { ...cur.next, moderator: { kind, text: result.text } } });
      st.interventions = [...st.interventions, { kind, round: cur.round }];
      if (kind === 'deadlock') st.deadlockBreakAttempted = true;
      else st.used = [...st.used, kind];
      return afterModerator(st);
    }
    case 'researched':
      editRound(st, { next: { ...currentRound(st).next, research: result.findings } });
      st.researchUsed += result.findings.length;
      return afterResearch(st);
    case 'steered': {
      const cur = currentRound(st);
      const intervened = result.resolution.action === 'intervene' && !!result.resolution.message;
      editRound(st, { steer: result.resolution, ...(intervened && { next: { ...cur.next, intervention: result.resolution.message! } }) });
      // The questions the checkpoint showed stay open whatever the person chose: an intervention may answer some, or none
      // (a pricing trial's person intervened about a competitor, and an expert's unrelated question vanished). The person's
      // words travel with them (the case's "what the person told the board"), and the final step leaves out what they answer.
      st.openQuestions = [...st.openQuestions, ...(cur.end!.personQuestions ?? [])];
      if (personStops(result.resolution)) {
        st.stage = 'done';
        return st;
      }
      return openRound(st, s);
    }
  }
}

/** The round under way, replaced by a copy with `changes` (the state `st` is already the new one). */
function editRound(st: DebateState, changes: Partial<RoundInProgress>): RoundInProgress {
  st.current = { ...currentRound(st), ...changes };
  return st.current;
}

/** Plans the next round: its phase and speakers, and what they respond to (the last round's carry). */
function openRound(st: DebateState, s: EngineSettings): DebateState {
  // The finished round becomes a chapter of the record before anyone speaks again.
  if (st.current) st.chapters = [...st.chapters, sealRound(st.current)];
  const round = (st.current?.round ?? 0) + 1;
  const { speakers, invited } = selectSpeakers({
    round,
    panel: st.setup.panel,
    spokenCount: st.spoken,
    lastSpeaker: st.lastSpeaker,
    wantsToSpeak: st.wantsToSpeak,
    perRound: s.speakersPerRound,
  });
  const inputs = st.current?.next ?? emptyCarry();
  st.current = { round, phase: debatePhase(round, st.setup.maxRounds), speakers, invited, inputs, turns: [], facilitator: null, vectors: null, end: null, next: emptyCarry(), steer: null };
  st.stage = 'round';
  return st;
}

function foldTurns(st: DebateState, turns: Turn[]): DebateState {
  const cur = currentRound(st);
  const who = turns.map((t) => t.persona);
  if (who.join() !== cur.speakers.join()) throw new Error(`round ${cur.round}: turns from ${who.join(', ')}, speakers ${cur.speakers.join(', ')}`);
  editRound(st, { turns });
  st.spoken = { ...st.spoken };
  st.positions = { ...st.positions };
  st.turnsByPersona = { ...st.turnsByPersona };
  st.disagreements = { ...st.disagreements };
  for (const t of turns) {
    st.spoken[t.persona] = (st.spoken[t.persona] ?? 0) + 1;
    st.positions[t.persona] = t.position;
    st.turnsByPersona[t.persona] = [...(st.turnsByPersona[t.persona] ?? []), t.text];
    st.disagreements[t.persona] = t.disagreesWith;
  }
  st.lastSpeaker = turns.at(-1)?.persona ?? st.lastSpeaker;
  st.stage = 'facilitator';
  return st;
}

/** The round's verdict, and what the next round carries from it. */
function foldEnd(st: DebateState, end: RoundEnd, s: EngineSettings): DebateState {
  const cur = currentRound(st);
  st.metrics = [...st.metrics, end.metrics];
  st.history = [...st.history, ...cur.vectors!.map((v) => ({ vector: v.text, round: cur.round }))];
  if (end.redirect) st.redirects += 1;

  const next = { ...cur.next, notices: { ...cur.next.notices } };
  next.question = cur.facilitator!.nextQuestion;
  // A notice stays until its expert speaks.
  for (const [code, text] of Object.entries(cur.inputs.notices)) if (!cur.turns.some((t) => t.persona === code)) next.notices[code] = text;
  next.redirect = end.redirect;
  // Novelty memory: who repeated themselves speaks later and is asked for something new; who brought new material, sooner.
  const verdicts = noveltyVerdicts(end.metrics.noveltyByPersona, s);
  st.wantsToSpeak = prioritise(st.wantsToSpeak, verdicts);
  const repeated = new Set(verdicts.blocked);
  for (const [code, n] of Object.entries(end.metrics.noveltyByPersona)) if (n < s.repetitionNoveltyBelow) repeated.add(code);
  next.repeated = [...repeated];
  editRound(st, { end, next });

  if (cur.round === 1 && st.setup.checkStances) {
    st.stage = 'stances';
    return st;
  }
  return afterStances(st);
}

function afterStances(st: DebateState): DebateState {
  if (moderatorKind(currentRound(st).end!)) {
    st.stage = 'moderator';
    return st;
  }
  return afterModerator(st);
}

function afterModerator(st: DebateState): DebateState {
  if (currentRound(st).end!.research.length) {
    st.stage = 'research';
    return st;
  }
  return afterResearch(st);
}

/** Only a debate the rules let continue asks the person; a stopped one goes to the vote. */
function afterResearch(st: DebateState): DebateState {
  st.stage = currentRound(st).end!.stop.stop ? 'done' : 'checkpoint';
  return st;
}
