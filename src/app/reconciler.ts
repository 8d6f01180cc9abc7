import type { SessionStorePort } from '../ports/session-store';
import type { SessionsQueue } from '../queue/sessions-queue';
import type { MemoryQueue } from '../queue/memory-queue';

/**
 * Postgres is the record; Redis may have lost jobs (flushed, restarted,
 * enqueue failed). Re-queues every queued or running session that has not
 * moved for `staleMs` and has no live job. The lease fences any duplicate run.
 */
export async function reconcile(store: SessionStorePort, queue: SessionsQueue, staleMs: number): Promise<string[]> {
  const candidates = await store.unfinished(staleMs);
  if (!candidates.length) return [];
  const live = await queue.liveSessionIds();
  const requeued: string[] = [];
  for (const id of candidates) {
    if (live.has(id)) continue;
    await queue.enqueue(id, `reconcile-${Date.now()}`);
    requeued.push(id);
  }
  return requeued;
}

/** How far back ended sessions are checked for lost memory jobs. */
export const MEMORY_RECONCILE_WINDOW_MS = 24 * 3600_000;

/**
 * The same for the memory jobs of sessions that ended in the last day: a
 * session whose log has no `memory.contributed` / `lessons.extracted` a while
 * after it ended gets its jobs enqueued again. Their ids are deterministic,
 * so a job still waiting, running or kept as failed is not added twice.
 */
export async function reconcileMemoryJobs(store: SessionStorePort, queue: MemoryQueue, staleMs: number, now = new Date()): Promise<string[]> {
  const missing = await store.memoryJobsMissing(new Date(now.getTime() - MEMORY_RECONCILE_WINDOW_MS), new Date(now.getTime() - staleMs));
  for (const m of missing) await queue.enqueue(m.id, m);
  return missing.map((m) => m.id);
}
