import { currentFacts } from '../../domain/debate/record';
import { facilitatorRoundCall, moderatorCall, researchCall } from '../../calls/debate';
import { evaluateRound, type RoundClock } from '../../domain/debate/evaluate';
import { apply, next, type DebateAction, type DebateResult } from '../../domain/debate/machine';
import { startDebate, type DebateOutcome, type DebateState } from '../../domain/debate/state';
import { expertTurnDone, facilitatorDone, moderatorDone, researchDone } from '../../domain/debate/steps';
import type { Tx } from '../../ports/session-store';
import type { LedgerFact, SubProblem } from '../../domain/model';
import { roundCap } from '../../domain/schedule';
import type { RecalledMemory } from '../../ports/memory';
import { ask } from './checkpoints';
import { brief, type Engine } from './context';
import { leadFirst } from './lead-first';
import { checkStances, type ExpertMemory } from './memory';
import type { Prices } from './prices';

export type { DebateOutcome } from '../../domain/debate/state';

export interface DebateInputs {
  decidedEarlier: string;
  /** Per expert: what memory contributes to their prompt. */
  memory: Record<string, ExpertMemory>;
  recalled: Record<string, RecalledMemory[]>;
  lessons: string;
  /** Seats the person asked for in words, by persona code. */
  requested?: Record<string, { want: string; close: boolean }>;
}

/**
 * The facilitated debate of one sub-problem. The rules are the pure machine
 * in src/domain/debate; this runs what it asks for, each model call a
 * memoized step under the key the machine names, and folds the results back
 * in. A replay returns the committed steps' results, so it reaches the same
 * state and picks up where the last run stopped.
 */
export async function debate(e: Engine, sp: SubProblem, panel: string[], inputs: DebateInputs, prices: Prices): Promise<DebateOutcome> {
  let state = startDebate({
    subProblem: brief(sp),
    panel,
    maxRounds: roundCap(sp.complexity, e.settings.roundCaps),
    decidedEarlier: inputs.decidedEarlier,
    // Filled from the start step's stored result, so a replay's record opens the same way.
    personSaid: [],
    memory: Object.fromEntries(Object.entries(inputs.memory).map(([code, m]) => [code, m.text])),
    requested: inputs.requested ?? {},
    lessons: inputs.lessons,
    checkStances: Object.keys(inputs.recalled).length > 0,
    personAnswersRounds: !!e.checkpoints?.round_end,
    budgetUsd: e.budgetUsd,
    prices,
    calibration: e.embedder.calibration,
  });
  for (;;) {
    const action = next(state, e.settings);
    if (action.kind === 'finish') return action.outcome;
    state = apply(state, await perform(e, sp, state, action, inputs.recalled), e.settings);
  }
}

async function perform(e: Engine, sp: SubProblem, state: DebateState, a: Exclude<DebateAction, { kind: 'finish' }>, recalled: DebateInputs['recalled']): Promise<DebateResult> {
  const id = sp.id;
  switch (a.kind) {
    case 'start': {
      const { startedAt, personSaid } = await e.run.step(a.key, (scope) => ({
        result: { startedAt: scope.now().toISOString(), personSaid: e.run.board().personSaid },
        events: a.events,
        patch: { phase: 'debate', progress: { phase: 'debate' }, subProblemProgress: { id, value: { ...a.progress } } },
      }));
      return { kind: 'started', startedAt, personSaid: personSaid ?? [] };
    }
    case 'open_round': {
      // The ledger as it stands now (siblings run in parallel), stored with the step: a replay reads the same facts.
      // As it stands: a fact replaced before this sub-problem saw it is never shown (a trial's experts cited replaced figures).
      const opened = await e.run.step(a.key, () => ({ result: { facts: currentFacts(e.run.board().facts) } as { facts: LedgerFact[] } | null, events: a.events }));
      return { kind: 'round_opened', facts: opened?.facts ?? [] };
    }
    case 'expert_turns': {
      // The lead speaker's answer begins before the others are asked, so they read the record it writes (lead-first.ts).
      const turns = await leadFirst(a.turns, (t, begun) => e.run.step(t.key, async (scope) => expertTurnDone(t.input, await scope.call(t.call, t.input, begun))));
      return { kind: 'turns', turns };
    }
    case 'facilitate': {
      const facilitator = await e.run.step(a.key, async (scope) => facilitatorDone(a.input, await scope.call(facilitatorRoundCall, a.input)));
      return { kind: 'facilitated', facilitator };
    }
    case 'embed':
      return { kind: 'embedded', vectors: await e.embedder.embed(a.texts) };
    case 'evaluate': {
      const end = await e.run.step(a.key, (scope) => {
        const clock: RoundClock = { now: scope.now(), spentUsd: e.run.spentUsd() };
        const { end, events, progress } = evaluateRound(state, clock, e.settings);
        return { result: end, events, ...utterances(e, id, a), patch: { subProblemProgress: { id, value: { ...progress } } } };
      });
      return { kind: 'evaluated', end };
    }
    case 'check_stances':
      return { kind: 'stances', notices: await checkStances(e, sp, a.positions, recalled) };
    case 'moderate': {
      const text = await e.run.step(a.key, async (scope) => moderatorDone(a.input, a.round, await scope.call(moderatorCall, a.input)));
      return { kind: 'moderated', text };
    }
    case 'research': {
      const findings = await Promise.all(a.requests.map((r) => e.run.step(r.key, async (scope) => researchDone(r.input, a.round, await scope.call(researchCall, r.input)))));
      return { kind: 'researched', findings };
    }
    case 'ask':
      return { kind: 'steered', resolution: await ask(e, 'round_end', a.ask.id, () => a.ask) };
  }
}

/** Novelty memory (seed 003): every contribution and the facilitator's question, embedded, kept for the retention period. */
function utterances(e: Engine, subProblemId: string, a: Extract<DebateAction, { kind: 'evaluate' }>) {
  const memory = e.memory;
  if (!memory) return {};
  const row = { sessionId: e.run.sessionId, subProblemId, round: a.round, embeddingProvider: e.embedder.name };
  return {
    write: async (tx: Tx) => {
      const [question] = await e.embedder.embed([a.question]);
      await memory.insertUtterances(
        e.tenantId,
        [
          ...a.utterances.map((u) => ({ ...row, persona: u.persona, kind: 'contribution' as const, text: u.text, embedding: u.vector })),
          { ...row, persona: null, kind: 'question' as const, text: a.question, embedding: question! },
        ],
        tx,
      );
    },
  };
}
