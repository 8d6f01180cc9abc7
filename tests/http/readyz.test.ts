import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, waitFor, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

it('readyz is ready once a worker is connected to the queue', async () => {
  const body = await waitFor(async () => {
    const res = await fetch(`${stack.url}/readyz`);
    return res.status === 200 ? res.json() : null;
  }, 10_000, 'readyz');
  expect(body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok', worker: 'ok' } });
});
