import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, startWorker, type Running, type RunningApi } from '../../src/main/services';
import { testRedisUrl } from '../support/env';
import { TcpProxy } from '../support/tcp-proxy';
import { createSession, testConfig, waitForStatus } from '../support/stack';

const silent = pino({ level: 'silent' });
let proxy: TcpProxy;
let api: RunningApi;
let worker: Running;
beforeAll(async () => {
  const front = await TcpProxy.in(testRedisUrl());
  proxy = front.proxy;
  // The API reaches Redis through the proxy (the outage); the worker directly, so queued work runs once the API's commands land.
  const config = testConfig({ REDIS_URL: front.url, RATE_LIMIT_PER_MINUTE: '10000' });
  worker = await startWorker({ ...config, REDIS_URL: testRedisUrl() }, silent);
  api = await startApi(config, silent);
});
afterAll(async () => {
  await proxy?.close();
  await api?.stop();
  await worker?.stop();
});

const body = (n: string) => JSON.stringify({ problem: `Should I move the team to a four-day week? (${n})`, seed: `redis-outage-${n}` });

/** One create and one cancel, each timed; the fetch gives up at 5 s so a hang fails the assertion rather than the test timeout. */
async function createAndCancel(label: string): Promise<{ created: string; createMs: number; cancelMs: number }> {
  const victim = await createSession(api.url, { problem: 'Should I open on Sundays?', mode: 'interactive', seed: `victim-${label}` });
  let t = performance.now();
  const res = await fetch(`${api.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(label), signal: AbortSignal.timeout(5000) });
  const createMs = performance.now() - t;
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  t = performance.now();
  const cancelled = await fetch(`${api.url}/v1/sessions/${victim}/cancel`, { method: 'POST', signal: AbortSignal.timeout(5000) });
  const cancelMs = performance.now() - t;
  expect(cancelled.status).toBe(200);
  return { created: id, createMs, cancelMs };
}

describe('a Redis outage seen by the API', () => {
  it('a hung Redis: create and cancel answer within a second, and the sessions run once Redis answers again', async () => {
    const victims = await Promise.all([0, 1, 2].map((i) => createSession(api.url, { problem: 'Should I open on Sundays?', mode: 'interactive', seed: `hung-${i}` })));
    proxy.freeze();
    const created: string[] = [];
    try {
      for (const [i, victim] of victims.entries()) {
        let t = performance.now();
        const res = await fetch(`${api.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(`hung-${i}`), signal: AbortSignal.timeout(5000) });
        expect(res.status).toBe(202);
        expect(performance.now() - t).toBeLessThan(1000);
        created.push(((await res.json()) as { id: string }).id);
        t = performance.now();
        const cancelled = await fetch(`${api.url}/v1/sessions/${victim}/cancel`, { method: 'POST', signal: AbortSignal.timeout(5000) });
        expect(cancelled.status).toBe(200);
        expect(performance.now() - t).toBeLessThan(1000);
      }
    } finally {
      proxy.thaw();
    }
    for (const id of created) expect((await waitForStatus(api.url, id, ['completed', 'failed'])).status).toBe('completed');
    for (const id of victims) expect((await waitForStatus(api.url, id, ['cancelled'])).status).toBe('cancelled');
  });

  it('Redis refusing connections: the same, and the commands issued during the outage land when it is back', async () => {
    await proxy.cut();
    // Let the API's clients notice and start reconnecting.
    await sleep(300);
    const created: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const r = await createAndCancel(`down-${i}`);
        expect(r.createMs).toBeLessThan(1000);
        expect(r.cancelMs).toBeLessThan(1000);
        created.push(r.created);
      }
    } finally {
      await proxy.restore();
    }
    for (const id of created) expect((await waitForStatus(api.url, id, ['completed', 'failed'], 90_000)).status).toBe('completed');
  });
});
