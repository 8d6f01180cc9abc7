import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { openRedis } from '../../src/queue/redis';
import { SessionsQueue } from '../../src/queue/sessions-queue';
import { envFor, exited, freePort, spawnEntry } from '../support/child';
import { nextCheckpoint, resolve } from '../support/checkpoints';
import { testDatabaseUrl } from '../support/env';
import { createSession, snapshot, testConfig, waitFor } from '../support/stack';

let database: Database;
let store: SessionStore;
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 2);
  store = new SessionStore(database);
});
afterAll(async () => database?.close());

describe('a session waiting for input', () => {
  it('survives the API and the worker restarting and its queue being flushed, then continues when answered', async () => {
    const config = testConfig();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = envFor(config, { PORT: String(port), HOST: '127.0.0.1' });
    const up = async () => {
      const procs = [spawnEntry('api', env), spawnEntry('worker', env)];
      await waitFor(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000, 'the API to listen');
      return procs;
    };
    const down = async (procs: ReturnType<typeof spawnEntry>[]) => {
      for (const p of procs) p.kill('SIGTERM');
      await Promise.all(procs.map(exited));
    };

    let procs = await up();
    const id = await createSession(url, {
      problem: 'Should I raise prices for my design agency by 30% or keep them and take on more clients?',
      context: 'Solo founder.',
      mode: 'interactive',
      seed: 'restart-1',
      checkpoints: { round_end: false, next_sub_problem: false },
    });
    const first = (await nextCheckpoint(url, id))!;
    const before = await store.get(id);
    await down(procs);

    // A Redis flush, scoped to this test's queue (other test files share the server): nothing is lost, because nothing waits in Redis.
    const redis = openRedis(config.REDIS_URL, 'test-flush');
    const queue = new SessionsQueue(redis, { name: config.QUEUE_NAME, attempts: 1 });
    await queue.queue.obliterate({ force: true });

    procs = await up();
    try {
      const after = await snapshot(url, id);
      expect(after.status).toBe('awaiting_input');
      expect(after.checkpoint).toEqual(first);
      expect((await store.get(id))!.lastSeq).toBe(before!.lastSeq);

      // Every later checkpoint is answered with `continue` until the end.
      const answered: string[] = [];
      for (let cp: typeof first | null = first; cp; cp = await nextCheckpoint(url, id, cp.id)) {
        const res = await resolve(url, id, cp.id, { action: 'continue' });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        answered.push(cp.kind);
      }
      expect(answered).toEqual(expect.arrayContaining(['statement', 'sub_problems', 'board']));
      expect((await snapshot(url, id)).status).toBe('completed');
      const events = await store.events(id, 0, 10_000);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'checkpoint.resolved')).toHaveLength(answered.length);
      expect(events.filter((e) => e.type === 'recommendation.completed')).toHaveLength(1);
    } finally {
      await down(procs);
      await queue.close();
      redis.disconnect();
    }
  }, 120_000);
});
