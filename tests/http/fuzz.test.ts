import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem';
import { anyRequest, operationsOf, send, violation } from '../support/fuzz-requests';
import { createSession, getJson, startStack, type Stack } from '../support/stack';

let stack: Stack;
let doc: Parameters<typeof anyRequest>[0];
const ids: string[] = [];
beforeAll(async () => {
  // No worker: crafted sessions stay queued rather than running; a live stream is opened and dropped.
  stack = await startStack({}, { worker: false });
  doc = await getJson(`${stack.url}/openapi.json`);
  ids.push(await createSession(stack.url, { problem: 'Should I sell the bakery or open a second one?' }));
  ids.push(await createSession(stack.url, { problem: 'Should I move the team to Lisbon?', mode: 'interactive' }));
});
afterAll(async () => stack?.stop());

const post = (path: string, body: unknown) =>
  fetch(`${stack.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const cursorOf = (ts: string, id: string) => Buffer.from(JSON.stringify([ts, id])).toString('base64url');

describe('input Postgres cannot take is a 400 naming the field', () => {
  it('NUL and unpaired surrogates in bodies, keys and queries', async () => {
    await expectProblem(await post('/v1/sessions', { problem: 'Should I\u0000 sell?' }), 400, 'body.problem');
    await expectProblem(await post('/v1/sessions', { problem: 'Should I sell?', context: 'half \ud800 a pair' }), 400, 'body.context');
    await expectProblem(await post('/v1/sessions', { problem: 'Should I sell?', seed: '\udc00' }), 400, 'body.seed');
    await expectProblem(await post(`/v1/sessions/${ids[1]}/checkpoints/clarification/resolve`, { action: 'answer', answers: { 'q\u0000': 'yes' } }), 400, 'body.answers.q\u0000');
    await expectProblem(await fetch(`${stack.url}/v1/memories?q=a%00b`), 400, 'query.q');
  });

  it('crafted cursors: a date the calendar or Postgres does not have, or an id that is not a UUID', async () => {
    for (const cursor of [
      cursorOf('2024-02-30T00:00:00.000Z', ids[0]!),
      cursorOf('0000-01-01T00:00:00.000Z', ids[0]!),
      cursorOf('-271821-04-20T00:00:00.000Z', ids[0]!),
      cursorOf('2024-01-01T00:00:00.000Z', 'not-a-uuid'),
    ]) {
      await expectProblem(await fetch(`${stack.url}/v1/sessions?cursor=${cursor}`), 400, 'query.cursor');
      await expectProblem(await fetch(`${stack.url}/v1/memories?cursor=${cursor}`), 400, 'query.cursor');
      await expectProblem(await fetch(`${stack.url}/v1/insights?cursor=${cursor}`), 400, 'query.cursor');
    }
    await expectProblem(await fetch(`${stack.url}/v1/sessions/${ids[0]}/events?after=2147483648`), 400, 'query.after');
  });
});

describe('fuzzing every route of the OpenAPI document', () => {
  it('covers every operation the document lists', () => {
    expect(operationsOf(doc).length).toBeGreaterThanOrEqual(15);
  });

  it('never answers 5xx, and every error is problem+json', async () => {
    await fc.assert(
      fc.asyncProperty(anyRequest(doc, ids), async (r) => {
        const outcome = await send(stack.url, r);
        const wrong = violation(r, outcome);
        if (wrong) throw new Error(wrong);
      }),
      // Bounded for CI: a few hundred requests, seconds; `npm run chaos` sends ten thousand and more.
      { numRuns: 600, interruptAfterTimeLimit: 40_000 },
    );
  });
});
