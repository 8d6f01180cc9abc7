import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { startApi } from '../../src/main/services';
import { pino } from 'pino';
import { envFor, exited, spawnEntry } from '../support/child';
import { assertGapless, readStream } from '../support/sse-client';
import { createSession, startStack, waitFor, waitForStatus, type Stack } from '../support/stack';
import { testDatabaseUrl } from '../support/env';

const problem = {
  problem: 'Should I bring on a co-founder, hire a part-time salesperson, or stay solo?',
  context: '$8K MRR, plateaued, weak at sales, cash flow is tight.',
};

let database: Database;
let store: SessionStore;
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 4);
  store = new SessionStore(database);
});
afterAll(async () => database?.close());

/** Every step, contribution and vote happened once; no finished step was paid twice. */
async function assertNoDuplicates(id: string) {
  const events = await store.events(id, 0, 10_000);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const identity = (e: (typeof events)[number]) =>
    e.type === 'contribution.completed' || e.type === 'vote.cast'
      ? `${e.type}/${e.data.subProblemId}/${e.data.round ?? ''}/${e.data.persona}`
      : ['session.started', 'problem.stated', 'decomposition.completed', 'board.assembled', 'recommendation.completed', 'session.completed'].includes(e.type)
        ? e.type
        : null;
  const ids = events.map(identity).filter((x): x is string => x !== null);
  expect(new Set(ids).size).toBe(ids.length);
  const ledger = await store.ledger(id);
  // A step may make several different calls (e.g. a lesson query, then a ranking), but each only once.
  const okPerStep = new Map<string, number>();
  for (const row of ledger) if (row.outcome === 'ok') okPerStep.set(`${row.stepKey} ${row.purpose}`, (okPerStep.get(`${row.stepKey} ${row.purpose}`) ?? 0) + 1);
  for (const [step, n] of okPerStep) expect(n, step).toBe(1);
  return { events, ledger };
}

describe('a worker killed mid-session', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
  });
  afterAll(async () => stack?.stop());

  it('is taken over by another worker and completes with no duplicate events or ledger rows', async () => {
    const workerEnv = envFor(stack.config, { SIM_LATENCY_MS: '40', JOB_LOCK_MS: '1500', STALLED_INTERVAL_MS: '500' });
    const first = spawnEntry('worker', workerEnv);
    const id = await createSession(stack.url, { ...problem, seed: 'kill-1' });
    await waitFor(async () => (await store.get(id))!.lastSeq >= 20, 60_000, 'the first worker to make progress');
    first.kill('SIGKILL');
    await exited(first);
    const killedAt = (await store.get(id))!.lastSeq;
    const second = spawnEntry('worker', workerEnv);
    try {
      const s = await waitForStatus(stack.url, id, ['completed', 'failed'], 90_000);
      expect(s.status).toBe('completed');
      const { events } = await assertNoDuplicates(id);
      expect(events.length).toBeGreaterThan(killedAt);
      // The second run took a new lease: session.started was not emitted again.
      expect(events.filter((e) => e.type === 'session.started')).toHaveLength(1);
    } finally {
      second.kill('SIGTERM');
      await exited(second);
    }
  });

  it('a SIGTERMed worker hands its job back and a new worker resumes it', async () => {
    const workerEnv = envFor(stack.config, { SIM_LATENCY_MS: '40', LOG_LEVEL: 'warn' });
    const first = spawnEntry('worker', workerEnv);
    const id = await createSession(stack.url, { ...problem, seed: 'term-1' });
    await waitFor(async () => (await store.get(id))!.lastSeq >= 12, 60_000, 'progress');
    first.kill('SIGTERM');
    expect(await exited(first), first.output()).toBe(0);
    const row = (await store.get(id))!;
    expect(row.status).toBe('running');
    const second = spawnEntry('worker', workerEnv);
    try {
      const s = await waitForStatus(stack.url, id, ['completed', 'failed'], 90_000);
      expect(s.status).toBe('completed');
      await assertNoDuplicates(id);
    } finally {
      second.kill('SIGTERM');
      await exited(second);
    }
  });
});

describe('the API restarting mid-stream', () => {
  it('tells clients to reconnect, and they resume from Last-Event-ID with nothing lost or repeated', async () => {
    const stack = await startStack({ SIM_LATENCY_MS: '30', SSE_RETRY_MS: '50' });
    const port = new URL(stack.url).port;
    let second: Awaited<ReturnType<typeof startApi>> | null = null;
    try {
      const id = await createSession(stack.url, { ...problem, seed: 'restart-1' });
      let restarted = false;
      const got = await readStream(`${stack.url}/v1/sessions/${id}/stream`, {
        timeoutMs: 90_000,
        onEvent: (e) => {
          if (e.seq === 10 && !restarted) {
            restarted = true;
            void (async () => {
              await stack.api.stop();
              second = await startApi({ ...stack.config, PORT: Number(port) }, pino({ level: 'silent' }));
            })();
          }
        },
      });
      assertGapless(got);
      expect(got.envelopes.at(-1)!.type).toBe('session.completed');
      expect(got.closings).toBe(1);
      expect(got.connections).toBeGreaterThanOrEqual(2);
    } finally {
      await (second as { stop(): Promise<void> } | null)?.stop();
      await stack.worker?.stop();
    }
  });
});
