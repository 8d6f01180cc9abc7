import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, openDatabase, runMigrations, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { event } from '../../src/domain/events';
import { openRedis } from '../../src/queue/redis';
import { MemoryQueue } from '../../src/queue/memory-queue';
import { siblingDatabaseUrl } from '../support/env';
import { startStack, waitFor, type Stack } from '../support/stack';

// Its own database (`<test database>_reconcile`): a reconciler that adopts every lost session must not reach other test files' sessions.
const url = siblingDatabaseUrl('reconcile');

let database: Database;
let store: SessionStore;
let stack: Stack;
beforeAll(async () => {
  await ensureDatabase(url);
  database = openDatabase(url, 2);
  await runMigrations(database);
  await database.pool.query('truncate sessions cascade');
  store = new SessionStore(database);
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

const problem = 'Should I hire a part-time salesperson or keep selling myself?';
const record = (id: string) =>
  store.create(
    { id, tenantId: 'default', problem, context: 'Solo founder, $8K MRR.', options: { mode: 'auto' }, provider: 'simulated', seed: `reconcile-${id.slice(0, 8)}` },
    event('session.created', { problem, context: 'Solo founder, $8K MRR.', provider: 'simulated', mode: 'auto' }),
  );

describe('the reconciler (Postgres is the record, Redis may forget)', () => {
  it('runs a queued session that was never enqueued and a running one whose worker and job are gone, then the memory jobs Redis lost', async () => {
    const queued = randomUUID();
    const running = randomUUID();
    await record(queued);
    await record(running);
    // A worker took it, then died, and Redis lost its job: status running, lease 1, no job anywhere.
    expect(await store.acquireLease(running)).not.toBeNull();
    await database.pool.query(`update sessions set updated_at = now() - interval '10 seconds' where id = any($1)`, [[queued, running]]);

    stack = await startStack({ DATABASE_URL: url, RECONCILE_STALE_MS: '1000', RECONCILE_INTERVAL_MS: '300', RECONCILE_MEMORY_JOBS: 'true' });
    for (const id of [queued, running]) {
      await waitFor(async () => (await store.get(id))?.status === 'completed', 60_000, `session ${id} to be adopted and completed`);
      const types = (await store.events(id, 0, 10_000)).map((e) => e.type);
      expect(types.filter((t) => t === 'recommendation.completed')).toHaveLength(1);
    }
    // The adopting run fenced out the dead worker's lease.
    expect((await store.get(running))!.lease).toBeGreaterThan(1);

    // Both finished under this stack, so their memory jobs ran; now Redis forgets a finished session's jobs before they report.
    for (const id of [queued, running]) {
      await waitFor(async () => (await store.events(id, 0, 10_000)).some((e) => e.type === 'lessons.extracted'), 30_000, `memory jobs of ${id}`);
    }
    const lost = randomUUID();
    await record(lost);
    const redis = openRedis(stack.config.REDIS_URL, 'test-reconcile');
    const memoryQueue = new MemoryQueue(redis, stack.config.QUEUE_NAME);
    try {
      // It ends without its memory jobs ever reaching the queue (as after a flush), a while ago.
      const lease = (await store.acquireLease(lost))!.lease;
      await store.commit(lost, lease, { events: [event('session.completed', { usage: await store.usage(lost) })], patch: { status: 'completed', phase: 'completed', ended: true } });
      await database.pool.query(`update sessions set ended_at = now() - interval '10 seconds' where id = $1`, [lost]);
      await memoryQueue.queue.obliterate({ force: true });
      await waitFor(async () => {
        const types = (await store.events(lost, 0, 100)).map((e) => e.type);
        return types.includes('memory.contributed') && types.includes('lessons.extracted');
      }, 30_000, 'the lost memory jobs to be enqueued again and report');
      // Re-enqueueing is idempotent: each job reported once however many sweeps ran.
      await new Promise((r) => setTimeout(r, 1000));
      const annex = (await store.events(lost, 0, 100)).map((e) => e.type).filter((t) => t === 'memory.contributed' || t === 'lessons.extracted');
      expect(annex.sort()).toEqual(['lessons.extracted', 'memory.contributed']);
    } finally {
      await memoryQueue.close();
      redis.disconnect();
    }
  }, 120_000);
});
