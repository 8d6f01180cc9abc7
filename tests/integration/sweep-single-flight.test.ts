import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerSweep, type SweepDeps } from '../../src/app/sweep';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { event } from '../../src/domain/events';
import { MemoryQueue } from '../../src/queue/memory-queue';
import { openRedis, RedisNotifier } from '../../src/queue/redis';
import { SessionsQueue } from '../../src/queue/sessions-queue';
import { testDatabaseUrl, testRedisUrl } from '../support/env';

/** The fault: Redis answers slowly, so a sweep spends a while between reading Postgres and enqueueing. */
class SlowQueue extends SessionsQueue {
  override async liveSessionIds(): Promise<Set<string>> {
    await sleep(300);
    return super.liveSessionIds();
  }
}

const queueName = `test-sweep-${randomUUID().slice(0, 8)}`;
const redis = openRedis(testRedisUrl(), 'bo1-test-sweep');
const processes: { database: Database; sweep: () => Promise<boolean>; queue: SessionsQueue; memoryQueue: MemoryQueue }[] = [];
let store: SessionStore;
const created: string[] = [];

/** One worker process's sweep: its own pool (so its own lock session) and its own queue client. */
function workerProcess() {
  const database = openDatabase(testDatabaseUrl(), 3);
  const ownStore = new SessionStore(database);
  const queue = new SlowQueue(redis, { name: queueName, attempts: 1 });
  const memoryQueue = new MemoryQueue(redis, queueName);
  const deps: SweepDeps = {
    database,
    store: ownStore,
    queue,
    memoryQueue,
    checkpoints: { store: ownStore, enqueue: (id, reason) => queue.enqueue(id, reason), notifier: new RedisNotifier(redis), warn: () => {} },
    queueName,
    staleMs: 1000,
    memoryJobs: false,
    log: pino({ level: 'silent' }),
  };
  const p = { database, sweep: workerSweep(deps), queue, memoryQueue };
  processes.push(p);
  return p;
}

beforeAll(() => {
  store = new SessionStore(processes.length ? processes[0]!.database : workerProcess().database);
});
afterAll(async () => {
  // Ended, so no later sweep on this shared database adopts them.
  await processes[0]?.database.pool.query(`update sessions set status = 'cancelled', ended_at = now() where id = any($1)`, [created]);
  for (const p of processes) {
    await p.queue.queue.obliterate({ force: true }).catch(() => {});
    await p.queue.close();
    await p.memoryQueue.close();
    await p.database.close();
  }
  redis.disconnect();
});

const problem = 'Should I sell the company or raise a Series A?';
async function staleSession(): Promise<string> {
  const id = randomUUID();
  created.push(id);
  await store.create(
    { id, tenantId: `sweep-${id.slice(0, 8)}`, problem, context: '', options: { mode: 'auto' }, provider: 'simulated', seed: 'sweep' },
    event('session.created', { problem, context: '', provider: 'simulated', mode: 'auto' }),
  );
  // Recorded a while ago and never enqueued (Redis lost it).
  await processes[0]!.database.pool.query(`update sessions set updated_at = now() - interval '10 seconds' where id = $1`, [id]);
  return id;
}

async function jobsPerSession(queue: SessionsQueue, ids: string[]): Promise<number[]> {
  const jobs = await queue.queue.getJobs(['waiting', 'delayed', 'prioritized', 'active']);
  return ids.map((id) => jobs.filter((j) => j?.data.sessionId === id).length);
}

describe('the reconciler sweep', () => {
  it('is single-flight across processes: two sweeps 4 ms apart re-queue each lost session once', async () => {
    const a = processes[0]!;
    const b = workerProcess();
    const ids = [await staleSession(), await staleSession(), await staleSession()];
    const first = a.sweep();
    await sleep(4);
    const second = b.sweep();
    expect((await Promise.all([first, second])).sort()).toEqual([false, true]);
    expect(await jobsPerSession(a.queue, ids)).toEqual([1, 1, 1]);

    // Once it is over the lock is free again, and the next sweep sees the live jobs and adds none.
    expect(await b.sweep()).toBe(true);
    expect(await jobsPerSession(a.queue, ids)).toEqual([1, 1, 1]);
  });

  it('is single-flight within a process: a tick while a sweep runs is skipped', async () => {
    const a = processes[0]!;
    const ids = [await staleSession()];
    const results = await Promise.all([a.sweep(), sleep(4).then(() => a.sweep())]);
    expect(results).toEqual([true, false]);
    expect(await jobsPerSession(a.queue, ids)).toEqual([1]);
  });
});
