import { estimateMinimumSessionCostUsd, type TierPrices } from '../domain/budget';
import { checkpointSettingsSchema } from '../domain/checkpoints';
import { AppError, isAppError } from '../domain/errors';
import { event } from '../domain/events';
import type { IdempotencyStorePort, StoredResponse } from '../ports/idempotency-store';
import type { SessionStorePort } from '../ports/session-store';
import { idempotent, type Outcome } from './idempotent';

export interface CreateSessionDeps {
  sessions: SessionStorePort;
  idempotency: IdempotencyStorePort;
  /** Queues the session's first run. Expected to be bounded (a Redis outage must not hold the request). */
  enqueue(sessionId: string, reason: string): Promise<void>;
  newId(): string;
  providerName: string;
  /** MAX_ACTIVE_SESSIONS_PER_TENANT; 0 for no cap. */
  activeCap: number;
  prices: TierPrices;
  /** What is wrong with the models a session asks for (none: usable); absent, every choice is accepted. */
  modelProblems?(models: unknown): string[];
  warn(msg: string, extra: object): void;
}

/** A validated create request, as the API defines it. */
export interface CreateSessionRequest {
  problem: string;
  context: string;
  mode: 'auto' | 'interactive';
  seed?: string | undefined;
  checkpoints?: unknown;
  budget_usd?: number | undefined;
  settings?: Record<string, unknown> | undefined;
  memory?: { read: boolean; contribute: boolean } | undefined;
}

/** What the created session is, for the caller to present (its response is what a replay repeats). */
export interface CreatedSession {
  id: string;
  status: string;
}

/**
 * Starts a deliberation: refuses a budget that cannot cover the cheapest
 * session, then — once per Idempotency-Key — records the session within the
 * tenant's cap and queues it. The response `present` builds is stored with
 * the key, so a retry gets the same bytes.
 */
export async function createSession(
  deps: CreateSessionDeps,
  tenant: string,
  req: CreateSessionRequest,
  idempotencyKey: string | undefined,
  present: (s: CreatedSession) => StoredResponse,
): Promise<Outcome> {
  const problems = req.settings?.models === undefined ? [] : (deps.modelProblems?.(req.settings.models) ?? []);
  if (problems.length) {
    throw new AppError('unusable-models', `body.settings.models: ${problems.join('; ')}`, { errors: problems.map((message) => ({ field: 'body.settings.models', message })) });
  }
  if (req.budget_usd !== undefined) {
    const minimum = estimateMinimumSessionCostUsd(req.problem.length + req.context.length, deps.prices);
    if (req.budget_usd < minimum) {
      throw new AppError(
        'budget-too-small',
        `body.budget_usd: $${req.budget_usd} cannot cover even the cheapest session (about $${minimum.toFixed(4)} with the configured models)`,
        { errors: [{ field: 'body.budget_usd', message: `must be at least ${minimum.toFixed(4)}` }], details: { minimumUsd: minimum } },
      );
    }
  }
  return idempotent({ store: deps.idempotency, tenant, scope: 'createSession', key: idempotencyKey, body: req }, async () =>
    present(await start(deps, tenant, req)),
  );
}

async function start(deps: CreateSessionDeps, tenant: string, req: CreateSessionRequest): Promise<CreatedSession> {
  const id = deps.newId();
  const cap = deps.activeCap;
  const session = {
    id,
    tenantId: tenant,
    problem: req.problem,
    context: req.context,
    options: {
      mode: req.mode,
      ...(req.mode === 'interactive' && { checkpoints: checkpointSettingsSchema.parse(req.checkpoints ?? {}) }),
      ...(req.budget_usd !== undefined && { budgetUsd: req.budget_usd }),
      ...(req.settings && { settings: req.settings }),
      ...(req.memory && { memory: req.memory }),
    },
    provider: deps.providerName,
    seed: req.seed ?? deps.newId(),
  };
  const created = event('session.created', { problem: req.problem, context: req.context, provider: deps.providerName, mode: req.mode });
  const row = await deps.sessions.create(session, created, cap).catch((err: unknown) => {
    if (!isAppError(err, 'too-many-sessions')) throw err;
    throw new AppError(
      'too-many-sessions',
      `this tenant already has ${cap} active sessions (queued, running or awaiting input), the cap MAX_ACTIVE_SESSIONS_PER_TENANT=${cap}; wait for one to end or cancel one`,
      { details: { cap }, cause: err },
    );
  });
  // Postgres holds the session now: the enqueue waits at most a moment; if Redis is down the job is added
  // when it is back, or the worker's reconciler queues the session.
  await deps.enqueue(id, 'start').catch((err: Error) => deps.warn('enqueue did not complete; Redis or the reconciler will queue the session', { err, sessionId: id }));
  return { id, status: row.status };
}
