import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, exited, freePort, spawnEntry } from '../support/child';
import { assertGapless, readStream } from '../support/sse-client';
import { createSession, testConfig, waitFor } from '../support/stack';

type Child = ReturnType<typeof spawnEntry>;

/**
 * The README's scaling model, as processes: N API processes and M workers share
 * one Postgres, one Redis and one QUEUE_NAME, and nothing else. A session may be
 * created on one API, run on any worker and streamed from another API.
 */
describe('two API processes and two worker processes', () => {
  const config = testConfig();
  const children: Child[] = [];
  const apis: string[] = [];
  let workers: Child[] = [];

  beforeAll(async () => {
    // Concurrency 2 each and six sessions at once: one worker alone cannot hold them all, so both must take some.
    const workerEnv = envFor(config, { SIM_LATENCY_MS: '20', WORKER_CONCURRENCY: '2', LOG_LEVEL: 'info' });
    workers = [spawnEntry('worker', workerEnv), spawnEntry('worker', workerEnv)];
    children.push(...workers);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      children.push(spawnEntry('api', envFor(config, { HOST: '127.0.0.1', PORT: String(port) })));
      apis.push(`http://127.0.0.1:${port}`);
    }
    for (const url of apis) await waitFor(() => fetch(`${url}/readyz`).then((r) => r.ok, () => false), 60_000, `${url} to be ready`);
  }, 90_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map(exited));
  });

  it('runs sessions created on one API to completion, spread over both workers, each streamed gaplessly from the other API', async () => {
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createSession(apis[i % 2]!, { problem: `Should we open office number ${i + 1} in another city?`, seed: `scale-${i}` })),
    );
    // Each stream is read from the API that did not create the session: its events reach that process through Redis and Postgres.
    const streams = await Promise.all(ids.map((id, i) => readStream(`${apis[(i + 1) % 2]}/v1/sessions/${id}/stream`, { timeoutMs: 240_000 })));
    for (const [i, got] of streams.entries()) {
      assertGapless(got);
      expect(got.envelopes.at(-1)!.type, ids[i]).toBe('session.completed');
    }
    // Which worker ran which session: each logs `session run ended` with the session id, just after the terminal event.
    const ranOn = () => workers.map((w) => ids.filter((id) => w.output().split('\n').some((l) => l.includes('session run ended') && l.includes(id))));
    await waitFor(async () => new Set(ranOn().flat()).size === ids.length, 30_000, 'every worker to log the end of its runs');
    const [first, second] = ranOn();
    expect(first!.length, workers[0]!.output().slice(-2000)).toBeGreaterThan(0);
    expect(second!.length, workers[1]!.output().slice(-2000)).toBeGreaterThan(0);
  }, 300_000);
});
