import { AppError, isAppError } from '../domain/errors';
import { event } from '../domain/events';
import { TERMINAL_STATUSES, type SessionStatus, type SessionStorePort } from '../ports/session-store';

export interface CancelSessionDeps {
  sessions: SessionStorePort;
  /** Tells the workers to abort the session's run. Expected to be bounded; the record is cancelled first either way. */
  broadcastCancel(sessionId: string): Promise<void>;
  warn(msg: string, extra: object): void;
}

/**
 * The kill switch: ends the session as cancelled with a `session.cancelled`
 * event, then asks whichever worker runs it to abort its model call. The
 * record decides: a broadcast that misses only lets the run stop at its next
 * commit, which the terminal status refuses.
 */
export async function cancelSession(deps: CancelSessionDeps, tenant: string, sessionId: string): Promise<{ id: string; status: 'cancelled' }> {
  const row = await deps.sessions.get(sessionId, tenant);
  if (!row) throw new AppError('not-found', `session ${sessionId} does not exist`);
  const ended = () => new AppError('already-ended', `session ${row.id} is already ${row.status}`);
  if (TERMINAL_STATUSES.has(row.status as SessionStatus)) throw ended();
  try {
    await deps.sessions.commit(row.id, null, {
      events: [event('session.cancelled', { reason: 'cancelled by the client' })],
      patch: { status: 'cancelled', phase: 'cancelled', checkpoint: null, ended: true },
    });
  } catch (err) {
    // Finished between the read and the commit.
    if (isAppError(err, 'lease-lost')) throw ended();
    throw err;
  }
  await deps.broadcastCancel(row.id).catch((err: Error) => deps.warn('cancel broadcast failed; the run stops at its next commit', { err, sessionId: row.id }));
  return { id: row.id, status: 'cancelled' };
}
