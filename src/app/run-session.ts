import { event } from '../domain/events';
import { isAppError } from '../domain/errors';
import type { SessionStorePort } from '../ports/session-store';
import type { LlmGateway } from '../llm/gateway';
import type { Template } from '../llm/prompts';
import type { Notifier } from '../ports/notifier';
import type { Embedder } from '../ports/embeddings';
import type { RequestScreen } from './request-screen';
import type { MemoryPort, MemorySettings } from '../ports/memory';
import { DEFAULT_ENGINE_SETTINGS, engineSettingsSchema, type EngineSettings } from '../domain/settings';
import { checkpointSettingsSchema } from '../domain/checkpoints';
import { sessionModels } from '../domain/models';
import { deliberate, type Results } from './deliberate';
import { classifyFailure } from './failure';
import { createEngine, RefusedError } from './engine/context';
import { AwaitingInputError, ReleasedError, SessionRun, StepFailedError, type CaseMemoryPolicy } from './session-run';

export interface RunnerDeps {
  store: SessionStorePort;
  gateway: LlmGateway;
  notifier: Notifier;
  prompts: Map<string, Template>;
  embedder: Embedder;
  /** The intake harm screen; the rules alone when absent. */
  screen?: RequestScreen;
  /** How the case memory follows events and shows in prompts; none keeps it empty. */
  caseMemory?: CaseMemoryPolicy;
  /** Expert memory and lessons; without it sessions neither recall nor contribute. */
  memory?: MemoryPort;
  memoryDefaults?: Omit<MemorySettings, 'read' | 'contribute'>;
  /** Called once a session has ended as completed or failed (not refused), e.g. to queue its memory jobs. */
  afterSession?: (sessionId: string, outcome: 'completed' | 'failed') => Promise<void>;
  /** Deployment-wide engine settings; a session's own `settings` are merged over them. */
  settings?: EngineSettings;
  clock?: () => Date;
}

export interface RunOptions {
  /** No retry follows this one: a failure must end the session, never leave it hanging. */
  finalAttempt: boolean;
  signal?: AbortSignal;
  /** Polled between steps; true makes the run stop and hand the session back to the queue. */
  shouldRelease?: () => boolean;
}

export type RunOutcome = 'completed' | 'failed' | 'skipped' | 'superseded' | 'awaiting_input';

/** Thrown to ask the queue for another attempt: the failure looked transient and attempts remain. */
export class RetryableRunError extends Error {
  override name = 'RetryableRunError';
}

/**
 * Advances one session as far as it goes: takes the lease, replays committed
 * steps, runs the rest, and ends the session as completed or failed. A
 * transient failure with attempts left is rethrown for the queue to retry;
 * anything else is written as `session.failed` with its reason.
 */
export async function runSession(deps: RunnerDeps, sessionId: string, opts: RunOptions): Promise<RunOutcome> {
  const { store, notifier } = deps;
  const taken = await store.acquireLease(sessionId);
  if (!taken) return 'skipped';
  const { lease, row } = taken;
  const publish = (seq: number | undefined) => (seq ? notifier.publish(sessionId, seq).catch(() => {}) : undefined);
  // The session's own models (`settings.models`, checked at create) over the deployment's.
  const gateway = deps.gateway.forSession(sessionModels(row.options));
  const run = new SessionRun(
    { ...deps, gateway },
    sessionId,
    lease,
    row.seed,
    await store.completedSteps(sessionId),
    opts.signal ?? new AbortController().signal,
    opts.shouldRelease,
    await store.ledger(sessionId),
    row.caseMemory,
  );
  const options = row.options as {
    budgetUsd?: number;
    settings?: Record<string, unknown>;
    memory?: { read?: boolean; contribute?: boolean };
    mode?: string;
    checkpoints?: unknown;
  };
  const settings = engineSettingsSchema.parse({ ...(deps.settings ?? DEFAULT_ENGINE_SETTINGS), ...options.settings });
  const engine = createEngine(run, settings, deps.embedder, {
    problem: row.problem,
    context: row.context,
    tenantId: row.tenantId,
    budgetUsd: options.budgetUsd ?? null,
    memory: deps.memory ?? null,
    memorySettings: {
      read: options.memory?.read ?? true,
      contribute: options.memory?.contribute ?? true,
      ...(deps.memoryDefaults ?? { recallLimit: 5, halfLifeDays: 90, tokenCap: 300 }),
    },
    models: deps.gateway.models,
    checkpoints: options.mode === 'interactive' ? checkpointSettingsSchema.parse(options.checkpoints ?? {}) : null,
  }, deps.screen);
  const partial: Results = { subProblemResults: {} };
  try {
    await run.step('start', () => ({
      result: null,
      events: [event('session.started', { attempt: lease })],
      patch: { phase: 'intake', progress: { phase: 'intake', percent: 1 } },
    }));
    const results = await deliberate(engine, deps.gateway.tierPrices(), partial);
    // Every step's commit landed (the run does not wait for them as it goes), so the ledger is whole.
    await run.settled();
    const usage = await store.usage(sessionId);
    const envs = await store.commit(sessionId, lease, {
      step: { key: 'complete', result: null },
      events: [event('usage.updated', usage), event('session.completed', { usage })],
      patch: {
        status: 'completed',
        phase: 'completed',
        progress: { phase: 'completed', percent: 100 },
        results: results as unknown as Record<string, unknown>,
        ended: true,
      },
    });
    await publish(envs.at(-1)?.seq);
    await deps.afterSession?.(sessionId, 'completed').catch(() => {});
    return 'completed';
  } catch (thrown) {
    // The model calls of a failed step were paid for: they go in the ledger either way.
    // Unfenced: a cancelled or superseded run's calls were made all the same.
    if (thrown instanceof StepFailedError && thrown.calls.length) await store.recordCalls(sessionId, thrown.calls).catch(() => {});
    // The run's commits still on their way decide first: one that did not land (a lost lease, storage) is what ended
    // the run, whatever a later step then threw.
    const err = await run.settled().then(
      () => thrown,
      (failure: unknown) => failure,
    );
    if (isAppError(err, 'lease-lost')) return 'superseded';
    if (err instanceof AwaitingInputError) return 'awaiting_input';
    if (err instanceof ReleasedError) throw err;
    if (err instanceof RefusedError) return refuse(deps, sessionId, lease, err);
    const failure = classifyFailure(err, opts.signal?.aborted === true);
    if (failure.retryable && !opts.finalAttempt) {
      throw new RetryableRunError(`session ${sessionId}: ${failure.detail}`, { cause: err instanceof StepFailedError ? err.cause : err });
    }
    try {
      const envs = await store.commit(sessionId, lease, {
        events: [event('session.failed', { reason: failure.message, kind: failure.kind, step: failure.step, retryable: failure.retryable, detail: failure.detail })],
        patch: {
          status: 'failed',
          phase: 'failed',
          error: { reason: failure.message, step: failure.step, kind: failure.kind, detail: failure.detail },
          // What the session produced before it failed stays readable: statement, sub-problems, decided ones.
          results: { ...partial, partial: true } as unknown as Record<string, unknown>,
          ended: true,
        },
      });
      await publish(envs.at(-1)?.seq);
    } catch (commitErr) {
      if (isAppError(commitErr, 'lease-lost')) return 'superseded';
      throw commitErr;
    }
    await deps.afterSession?.(sessionId, 'failed').catch(() => {});
    return 'failed';
  }
}

/** A request the board must not deliberate: a clear event, no debate, a terminal failure that is not retried. */
async function refuse(deps: RunnerDeps, sessionId: string, lease: number, err: RefusedError): Promise<RunOutcome> {
  const reason = `This request was declined: ${err.reason.replace(/[.\s]+$/u, '')}. bo1 deliberates business and personal decisions, not requests that are illegal or could harm people.`;
  try {
    const envs = await deps.store.commit(sessionId, lease, {
      events: [
        event('guardrail.refused', { category: err.category, reason: err.reason, by: err.by }),
        event('session.failed', { reason, kind: 'refused', step: err.by === 'screen' ? 'screen' : 'intake', retryable: false }),
      ],
      patch: { status: 'failed', phase: 'refused', error: { kind: 'refused', reason, category: err.category }, ended: true },
    });
    await deps.notifier.publish(sessionId, envs.at(-1)!.seq).catch(() => {});
    return 'failed';
  } catch (commitErr) {
    if (isAppError(commitErr, 'lease-lost')) return 'superseded';
    throw commitErr;
  }
}

