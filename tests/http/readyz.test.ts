import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testRedisUrl } from '../support/env';
import { startStack, waitFor, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

it('readyz counts the worker connected to the queue', async () => {
  const body = await waitFor(async () => {
    const res = await fetch(`${stack.url}/readyz`);
    const json = res.status === 200 ? ((await res.json()) as { workers: number }) : null;
    return json && json.workers >= 1 ? json : null;
  }, 10_000, 'readyz to count the worker');
  expect(body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' }, workers: 1 });
});

it('readyz does not count a worker of the same queue name on another Redis database', async () => {
  // CLIENT LIST spans every database of the server: staging on /5 beside production on /4 shares one Redis.
  const url = new URL(testRedisUrl());
  const other = Object.assign(new URL(url), { pathname: `/${(Number(url.pathname.slice(1) || 0) + 1) % 16}` }).toString();
  const connection = new Redis(other, { maxRetriesPerRequest: null });
  const stranger = new Worker(stack.config.QUEUE_NAME, async () => {}, { connection, prefix: stack.config.QUEUE_PREFIX });
  try {
    await stranger.waitUntilReady();
    // The stranger is connected (CLIENT LIST lists it) before the count is read.
    await waitFor(async () => ((await connection.client('LIST')) as string).includes(`db=${new URL(other).pathname.slice(1)}`) || null, 5_000, 'the stranger to connect');
    const res = await fetch(`${stack.url}/readyz`);
    expect(((await res.json()) as { workers: number }).workers).toBe(1);
  } finally {
    await stranger.close();
    await connection.quit();
  }
});
