import type { SessionStore } from '../db/session-store';
import type { SessionsQueue } from '../queue/sessions-queue';

/**
 * Postgres is the record; Redis may have lost jobs (flushed, restarted,
 * enqueue failed). Re-queues every queued or running session that has not
 * moved for `staleMs` and has no live job. The lease fences any duplicate run.
 */
export async function reconcile(store: SessionStore, queue: SessionsQueue, staleMs: number): Promise<string[]> {
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
