import { afterAll, beforeAll, expect, it } from 'vitest';
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
