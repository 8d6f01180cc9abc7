import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { memoryQueueName } from '../../src/queue/memory-queue';
import { withTimeout } from '../../src/http/timeout';
import { checkRedis } from '../../src/main/redis-preflight';
import { connectRedis } from '../../src/queue/redis';
import { SessionsQueue } from '../../src/queue/sessions-queue';
import { nextCheckpoint } from '../support/checkpoints';
import { testDatabaseUrl } from '../support/env';
import { memoryJobsDone } from '../support/memory-jobs';
import { startRedisCluster, type LocalCluster } from '../support/redis-cluster';
import { assertGapless, readStream } from '../support/sse-client';
import { createSession, snapshot, startStack, waitFor, waitForStatus, type Stack } from '../support/stack';

let cluster: LocalCluster;
let stack: Stack;
let database: Database;
beforeAll(async () => {
  cluster = await startRedisCluster(3);
  stack = await startStack({
    REDIS_CLUSTER_NODES: cluster.nodes,
    // Nothing listens there: were any connection to fall back on REDIS_URL, start-up would fail.
    REDIS_URL: 'redis://127.0.0.1:1',
    WORKER_HEALTH_PORT: '0',
    // No backstop poll within the test: streamed events arrive on pub/sub wake-ups through the cluster or not at all.
    SSE_POLL_MS: '600000',
    RATE_LIMIT_PER_MINUTE: '1000',
  });
  database = openDatabase(testDatabaseUrl(), 2);
}, 120_000);
// Stopping a worker and obliterating its queues through a cluster that lost a master took over a minute once on a loaded
// machine. Should it hang, the hook fails saying so, but the cluster's processes still go: a hook that times out never ends.
afterAll(async () => {
  try {
    await withTimeout((async () => {
      await stack?.stop();
      await database?.close();
    })(), 100_000);
  } finally {
    await cluster?.stop();
  }
}, 120_000);

/** Every key on one node whose name contains `match`, through a plain connection to that node alone. */
async function keysOn(port: number, match: string): Promise<string[]> {
  const node = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  try {
    const keys: string[] = [];
    for await (const batch of node.scanStream({ match: `*${match}*`, count: 1000 })) keys.push(...(batch as string[]));
    return keys;
  } finally {
    node.disconnect();
  }
}

async function keyslot(port: number, key: string): Promise<number> {
  const node = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  try {
    return (await node.cluster('KEYSLOT', key)) as number;
  } finally {
    node.disconnect();
  }
}

/** For a failure message: the session's status, its job's state in the queue, the queue's counts. */
async function whereIs(id: string): Promise<string> {
  const connection = connectRedis(stack.config, 'bo1-test-probe');
  const probe = new SessionsQueue(connection, { name: stack.config.QUEUE_NAME, prefix: stack.config.QUEUE_PREFIX, attempts: 1 });
  try {
    const job = await probe.queue.getJob(`${id}.start`);
    const state = job ? await job.getState() : 'no job';
    return `session ${(await snapshot(stack.url, id)).status}, job ${state}, queue ${JSON.stringify(await probe.queue.getJobCounts())}`;
  } catch (err) {
    return `(could not read the queue: ${(err as Error).message})`;
  } finally {
    await probe.close();
    connection.disconnect();
  }
}

const ready = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string>; workers?: number | null } };
};

const problem = { problem: 'Should we move our support desk to a four-day week?', context: 'Twelve agents, two time zones, SLA of four hours.' };

describe('REDIS_CLUSTER_NODES: the API and the worker on a 3-master Redis Cluster', () => {
  it('both readiness endpoints report the cluster, and the API counts the worker', async () => {
    const api = await ready(stack.url);
    expect(api).toMatchObject({ status: 200, body: { status: 'ok', checks: { postgres: 'ok', redis: 'ok' } } });
    expect(api.body.workers).toBeGreaterThanOrEqual(1);
    const worker = await ready(stack.worker!.healthUrl!);
    expect(worker).toMatchObject({ status: 200, body: { status: 'ok', checks: { postgres: 'ok', redis: 'ok', jobs: 'ok' } } });
  });

  it('runs a whole session: queued, run by the worker, streamed on wake-ups, memory jobs done, rate-limited requests counted', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'cluster-1' });
    const got = await readStream(`${stack.url}/v1/sessions/${id}/stream`, { timeoutMs: 120_000 });
    assertGapless(got);
    expect(got.envelopes[0]!.type).toBe('session.created');
    expect(got.envelopes.at(-1)!.type).toBe('session.completed');
    expect((await snapshot(stack.url, id)).status).toBe('completed');
    // The memory queue runs on the cluster too.
    await memoryJobsDone(database, id, 60_000);

    // The limiter's counter lives on the cluster: every request takes one from it.
    const remaining = async () => Number((await fetch(`${stack.url}/v1/sessions/${id}`)).headers.get('ratelimit-remaining'));
    const first = await remaining();
    expect(first).toBeGreaterThan(0);
    expect(await remaining()).toBeLessThan(first);

    // Queue depth for /metrics is read from the cluster.
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`bo1_queue_jobs\\{[^}]*queue="${stack.config.QUEUE_NAME}"`));
  });

  it('a cancel published by the API reaches the stream of an interactive session through the cluster', async () => {
    const id = await createSession(stack.url, { ...problem, mode: 'interactive', seed: 'cluster-2' });
    expect(await nextCheckpoint(stack.url, id)).not.toBeNull();
    let caughtUp!: () => void;
    const firstEvents = new Promise<void>((r) => (caughtUp = r));
    const streamed = readStream(`${stack.url}/v1/sessions/${id}/stream`, { timeoutMs: 30_000, onEvent: () => caughtUp() });
    // Its first read has delivered the log so far; a moment more and its SUBSCRIBE is in, so the cancellation comes as a wake-up.
    await firstEvents;
    await sleep(200);
    expect((await fetch(`${stack.url}/v1/sessions/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    const got = await streamed;
    assertGapless(got);
    expect(got.envelopes.at(-1)!.type).toBe('session.cancelled');
  });

  it('puts every key of the sessions and memory queues in the one hash slot of {bo1}, on one master', async () => {
    const queue = stack.config.QUEUE_NAME;
    const all = await Promise.all(cluster.ports.map(async (port) => ({ port, keys: await keysOn(port, queue) })));
    // The rate limiter's counters carry the queue name too, but are single keys, free to live on any node.
    expect(all.flatMap((n) => n.keys).some((k) => k.startsWith(`bo1:rl:${queue}:`))).toBe(true);
    const perNode = all.map(({ port, keys }) => ({ port, keys: keys.filter((k) => !k.startsWith('bo1:rl:')) }));
    const holders = perNode.filter((n) => n.keys.length > 0);
    expect(holders.map((n) => n.port)).toHaveLength(1);
    const { port, keys } = holders[0]!;
    expect(keys.some((k) => k.includes(memoryQueueName(queue)))).toBe(true);
    const slot = await keyslot(port, stack.config.QUEUE_PREFIX);
    for (const key of keys) {
      expect(key.startsWith(`${stack.config.QUEUE_PREFIX}:`), key).toBe(true);
      expect(await keyslot(port, key), key).toBe(slot);
    }
  });

  it('a lost master: both readiness endpoints fail naming it, and pass again once it is back', async () => {
    const queueKeys = await Promise.all(cluster.ports.map(async (port) => ({ port, n: (await keysOn(port, `${stack.config.QUEUE_PREFIX}:${stack.config.QUEUE_NAME}`)).length })));
    const queueNode = queueKeys.find((k) => k.n > 0)!.port;
    // Another master, so the queue's keys survive (nothing is persisted).
    const victim = cluster.ports.find((p) => p !== queueNode)!;
    await cluster.kill(victim);
    try {
      for (const url of [stack.url, stack.worker!.healthUrl!]) {
        const down = await waitFor(async () => {
          const r = await ready(url);
          return r.status === 503 ? r : null;
        }, 30_000, `${url}/readyz to fail`);
        expect(down.body.checks.postgres).toBe('ok');
        expect(down.body.checks.redis).toMatch(/cluster_state:fail/);
        expect(down.body.checks.redis).toContain(`127.0.0.1:${victim}`);
      }
      // A process starting now would refuse to, and say which node is missing.
      const refused = await checkRedis(stack.config).then(() => null, (err: Error) => err.message);
      const at = `cannot use the Redis Cluster at REDIS_CLUSTER_NODES=${cluster.nodes}: `;
      expect(refused?.startsWith(at), refused ?? 'checkRedis passed').toBe(true);
      expect(refused!.slice(at.length)).toContain(`127.0.0.1:${victim}`);
    } finally {
      await cluster.restart(victim);
    }
    for (const url of [stack.url, stack.worker!.healthUrl!]) {
      await waitFor(async () => (await ready(url)).status === 200, 30_000, `${url}/readyz to pass again`);
    }
    // And the queue still works end to end.
    const id = await createSession(stack.url, { ...problem, seed: 'cluster-3' });
    try {
      await waitForStatus(stack.url, id, ['completed'], 120_000);
    } catch (err) {
      throw new Error(`${(err as Error).message}; ${await whereIs(id)}`);
    }
  }, 180_000);
});
