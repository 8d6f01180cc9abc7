import { currentFacts } from '../../domain/debate/record';
import type { SubProblemBrief } from '../../calls/debate';
import { NO_CONTEXT } from '../../calls/intake';
import type { CheckpointSettings } from '../../domain/checkpoints';
import type { ProblemStatement, SubProblem } from '../../domain/model';
import type { EngineSettings } from '../../domain/settings';
import type { Embedder } from '../../ports/embeddings';
import type { MemoryPort, MemorySettings } from '../../ports/memory';
import type { SessionRun } from '../session-run';
import { rulesOnlyScreen, type RequestScreen } from '../request-screen';

/** Thrown when the request must not be deliberated; the run ends it with a refusal. */
export class RefusedError extends Error {
  override name = 'RefusedError';
  constructor(
    readonly category: string,
    readonly reason: string,
    readonly by: 'screen' | 'model',
  ) {
    super(`refused (${category}): ${reason}`);
  }
}

/** What the run knows about the session before the deliberation starts. */
export interface EngineSession {
  problem: string;
  context: string;
  tenantId: string;
  /** Optional spending cap for the session, in USD. */
  budgetUsd: number | null;
  /** Expert memory and lessons; null when the deployment runs without them. */
  memory: MemoryPort | null;
  memorySettings: MemorySettings;
  models: { fast: string; smart: string };
  /** Interactive mode: which checkpoints stop the session; null in auto mode. */
  checkpoints: CheckpointSettings | null;
}

/** Everything a phase of the deliberation needs; built once per run. */
export interface Engine extends EngineSession {
  run: SessionRun;
  settings: EngineSettings;
  embedder: Embedder;
  /** The harm screen run at intake before any model call. */
  screen: RequestScreen;
  /** The problem's category, known after intake (memory is keyed by it). */
  category: string;
}

export function createEngine(
  run: SessionRun,
  settings: EngineSettings,
  embedder: Embedder,
  session: EngineSession,
  screen: RequestScreen = rulesOnlyScreen,
): Engine {
  // Every prompt of the session carries the decision, its context and the case memory (src/calls/render.ts).
  run.frame = { problem: session.problem, context: session.context || NO_CONTEXT };
  return { run, settings, embedder, screen, ...session, category: 'other' };
}

export { nameOf, personaOf as persona } from '../../domain/personas';

/** The facts about a sub-problem every prompt about it carries. */
/** A sub-problem's facts in the session's ledger as it stands (what options, voters and the synthesis read). */
export const subProblemFacts = (e: Engine, subProblemId: string) => currentFacts(e.run.board().facts).filter((f) => f.subProblemId === subProblemId);

export const brief = (sp: SubProblem): SubProblemBrief => ({
  id: sp.id,
  title: sp.title,
  goal: sp.goal,
  context: sp.context || '(none)',
  complexity: sp.complexity,
});

export interface Framing {
  statement: ProblemStatement;
  subProblems: SubProblem[];
  order: string[];
}

export { round4 } from '../../domain/metrics';
