import type { Logger } from 'pino';
import { withTryLock } from '../db/advisory-lock';
import type { Database } from '../db/client';
import { IdempotencyStore } from '../db/idempotency-store';
import { compactEndedSessions } from '../db/retention-store';
import { IDEMPOTENCY_TTL_MS } from '../ports/idempotency-store';
import type { SessionStorePort } from '../ports/session-store';
import type { MemoryQueue } from '../queue/memory-queue';
import type { SessionsQueue } from '../queue/sessions-queue';
import { expireCheckpoints, type CheckpointDeps } from './checkpoints';
import { reconcile, reconcileMemoryJobs } from './reconciler';

export interface SweepDeps {
  database: Database;
  store: SessionStorePort;
  queue: SessionsQueue;
  memoryQueue: MemoryQueue;
  checkpoints: CheckpointDeps;
  /** Scopes the lock: deployments (and test stacks) sharing one database each sweep their own queue. */
  queueName: string;
  staleMs: number;
  memoryJobs: boolean;
  /** SESSION_RETENTION_DAYS: ended sessions older than this are compacted; 0 never. */
  retentionDays?: number;
  log: Logger;
}

/**
 * The worker's periodic sweep: expired checkpoints follow their policy,
 * sessions and memory jobs Redis lost are re-queued, old idempotency records
 * go, and with SESSION_RETENTION_DAYS old sessions' logs are compacted. Single-flight across every worker process (a Postgres advisory lock)
 * and within one (a flag, so a slow sweep does not pile up connections):
 * two sweeps that overlap would both see the same session without a live
 * job and both re-queue it. Resolves to whether this call swept.
 */
export function workerSweep(d: SweepDeps): () => Promise<boolean> {
  let running = false;
  const idempotency = new IdempotencyStore(d.database.db);
  const sweep = async () => {
    // Expired checkpoints follow their policy (continue or cancel) even when nobody is watching.
    const expired = await expireCheckpoints(d.checkpoints, new Date()).catch((err: Error) => {
      d.log.warn({ err }, 'checkpoint expiry sweep failed');
      return [];
    });
    if (expired.length) d.log.info({ expired }, 'expired checkpoints resolved by their policy');
    try {
      const requeued = await reconcile(d.store, d.queue, d.staleMs);
      if (requeued.length) d.log.warn({ requeued }, 're-queued sessions that had no live job');
      const memoryJobs = d.memoryJobs ? await reconcileMemoryJobs(d.store, d.memoryQueue, d.staleMs) : [];
      if (memoryJobs.length) d.log.info({ sessions: memoryJobs }, 'memory jobs not yet reported: enqueued (a no-op where they still exist)');
    } catch (err) {
      d.log.warn({ err }, 'reconcile failed');
    }
    await idempotency.purge(new Date(Date.now() - IDEMPOTENCY_TTL_MS)).catch((err: Error) =>
      d.log.warn({ err }, 'idempotency key purge failed'),
    );
    if (d.retentionDays) {
      const compacted = await compactEndedSessions(d.database, new Date(Date.now() - d.retentionDays * 24 * 3600_000)).catch((err: Error) => {
        d.log.warn({ err }, 'session retention sweep failed');
        return null;
      });
      if (compacted?.sessions.length) d.log.info(compacted, 'compacted the event logs of sessions past SESSION_RETENTION_DAYS');
    }
  };
  return async () => {
    if (running) return false;
    running = true;
    try {
      return await withTryLock(d.database, `bo1:sweep:${d.queueName}`, sweep);
    } catch (err) {
      d.log.warn({ err }, 'sweep skipped: could not take its lock');
      return false;
    } finally {
      running = false;
    }
  };
}
