import { expiryResolution, type PendingCheckpoint, type Resolution } from '../domain/checkpoints';
import { event, type Envelope, type EventDraft } from '../domain/events';
import { AppError, isAppError, notFoundError } from '../domain/errors';
import type { SessionPatch, SessionRow, SessionStorePort } from '../ports/session-store';
import type { Notifier } from '../ports/notifier';
import type { CaseMemoryPolicy } from './session-run';

/** What resolving a checkpoint touches: the record, the queue that continues the run, the stream's wake-up. */
export interface CheckpointDeps {
  store: SessionStorePort;
  enqueue(sessionId: string, reason: string): Promise<void>;
  notifier: Notifier;
  caseMemory?: CaseMemoryPolicy;
  warn(msg: string, extra: object): void;
}

/** The checkpoint is not (or no longer) the one the session waits on. */
const notPending = (message: string) => new AppError('checkpoint-not-pending', message);

export const pendingCheckpoint = (row: SessionRow): PendingCheckpoint | null =>
  row.status === 'awaiting_input' ? ((row.checkpoint as PendingCheckpoint | null) ?? null) : null;

export const isExpired = (cp: PendingCheckpoint, now: Date) => Date.parse(cp.expiresAt) <= now.getTime();

/**
 * Answers the pending checkpoint `checkpointId` of a session: stores the
 * resolution as the checkpoint's step, appends `checkpoint.resolved`, puts
 * the session back in the queue, all under the row lock — so of two
 * concurrent answers exactly one commits and the other is a conflict. The
 * job id is derived from the checkpoint, so the continuation is enqueued
 * once; if Redis is down the reconciler queues it later.
 */
export async function resolveCheckpoint(
  deps: CheckpointDeps,
  row: SessionRow,
  checkpointId: string,
  decide: (cp: PendingCheckpoint) => Resolution,
): Promise<{ checkpoint: PendingCheckpoint; resolution: Resolution }> {
  const cp = pendingCheckpoint(row);
  if (!cp || cp.id !== checkpointId) throw conflict(row, checkpointId);
  const resolution = decide(cp);
  const { by, action, ...payload } = resolution;
  await commitGuarded(deps, row.id, checkpointId, {
    step: { key: cp.stepKey, result: resolution },
    events: [event('checkpoint.resolved', { checkpointId, kind: cp.kind, action, by, ...payload })],
    patch: { status: 'queued', checkpoint: null },
  });
  await deps.enqueue(row.id, `cp-${checkpointId}`).catch((err: Error) =>
    deps.warn('enqueue after a checkpoint failed; the reconciler will queue the session', { err: err.message, sessionId: row.id }),
  );
  return { checkpoint: cp, resolution };
}

/**
 * A client's answer to checkpoint `checkpointId` of the tenant's session. An
 * expired checkpoint the sweep has not got to yet has its policy applied
 * now, so the answer and the record agree, and the answer is refused.
 */
export async function answerCheckpoint(
  deps: CheckpointDeps,
  tenant: string,
  sessionId: string,
  checkpointId: string,
  decide: (cp: PendingCheckpoint) => Resolution,
  now: Date,
): Promise<{ session: SessionRow; checkpoint: PendingCheckpoint; resolution: Resolution }> {
  const row = await deps.store.get(sessionId, tenant);
  if (!row) throw notFoundError(`session ${sessionId}`);
  const cp = pendingCheckpoint(row);
  if (cp?.id === checkpointId && isExpired(cp, now)) {
    const applied = await expireCheckpoint(deps, row).catch((err: unknown) => {
      if (isAppError(err, 'checkpoint-not-pending')) return null;
      throw err;
    });
    throw new AppError('checkpoint-expired', `checkpoint ${cp.id} expired at ${cp.expiresAt}; its policy (${cp.onExpiry}) ${applied ? 'was applied' : 'had already been applied'}`);
  }
  return { session: row, ...(await resolveCheckpoint(deps, row, checkpointId, decide)) };
}

/** Applies an expired checkpoint's policy: continue with what was proposed, or cancel the session. Both are recorded. */
export async function expireCheckpoint(deps: CheckpointDeps, row: SessionRow): Promise<'continued' | 'cancelled'> {
  const cp = pendingCheckpoint(row);
  if (!cp) throw conflict(row, '(none)');
  if (cp.onExpiry === 'continue') {
    await resolveCheckpoint(deps, row, cp.id, expiryResolution);
    return 'continued';
  }
  await commitGuarded(deps, row.id, cp.id, {
    events: [
      event('checkpoint.resolved', { checkpointId: cp.id, kind: cp.kind, action: 'cancel', by: 'expiry' }),
      event('session.cancelled', { reason: `checkpoint ${cp.id} expired at ${cp.expiresAt} without an answer (policy: cancel)` }),
    ],
    patch: { status: 'cancelled', phase: 'cancelled', checkpoint: null, ended: true },
  });
  return 'cancelled';
}

/** Every session whose checkpoint has expired gets its policy applied; one failure does not stop the sweep. */
export async function expireCheckpoints(deps: CheckpointDeps, now: Date): Promise<string[]> {
  const done: string[] = [];
  for (const row of await deps.store.expiredCheckpoints(now)) {
    try {
      await expireCheckpoint(deps, row);
      done.push(row.id);
    } catch (err) {
      // Answered between the query and the commit: nothing to do.
      if (!isAppError(err, 'checkpoint-not-pending')) deps.warn('expiring a checkpoint failed', { sessionId: row.id, err: (err as Error).message });
    }
  }
  return done;
}

async function commitGuarded(
  deps: CheckpointDeps,
  sessionId: string,
  checkpointId: string,
  c: { step?: { key: string; result: unknown }; events: EventDraft[]; patch: SessionPatch },
): Promise<void> {
  const policy = deps.caseMemory;
  let envelopes: Envelope[];
  try {
    envelopes = await deps.store.commit(sessionId, null, {
      ...c,
      guard: (locked) => {
        const waiting = locked.status === 'awaiting_input' ? (locked.checkpoint as PendingCheckpoint | null) : null;
        if (waiting?.id !== checkpointId) throw notPending(`checkpoint ${checkpointId} is no longer pending (session is ${locked.status})`);
      },
      ...(policy && { caseMemory: (current: unknown, envs: Envelope[]) => policy.reduce(current, envs) }),
    });
  } catch (err) {
    if (isAppError(err, 'lease-lost')) throw notPending(err.message);
    throw err;
  }
  const last = envelopes.at(-1);
  if (last) await deps.notifier.publish(sessionId, last.seq).catch(() => {});
}

function conflict(row: SessionRow, checkpointId: string): AppError {
  const cp = (row.checkpoint as PendingCheckpoint | null) ?? null;
  if (row.status !== 'awaiting_input') return notPending(`session ${row.id} is ${row.status}, not waiting for input; checkpoint ${checkpointId} is not pending`);
  return notPending(`checkpoint ${checkpointId} is not pending; the session waits on ${cp?.id ?? 'nothing'}`);
}
