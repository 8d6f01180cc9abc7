import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { testDatabaseUrl } from '../support/env';
import { assertGapless, readStream } from '../support/sse-client';
import { createSession, getJson, startStack, waitFor, type Stack } from '../support/stack';

let stack: Stack;
let database: Database;
beforeAll(async () => {
  // Slow model calls, so one is in flight when the client cancels.
  stack = await startStack({ SIM_LATENCY_MS: '2000', SIM_JITTER: '0' });
  database = openDatabase(testDatabaseUrl(), 2);
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

describe('POST /v1/sessions/{id}/cancel', () => {
  it('stops the session within the model call in flight, ends its stream, and keeps what it produced', async () => {
    const store = new SessionStore(database);
    const id = await createSession(stack.url, { problem: 'Should I rewrite my application in Rust or stick with Python?', context: '3 Python developers.' });
    const streamed = readStream(`${stack.url}/v1/sessions/${id}/stream`, { timeoutMs: 30_000 });
    // Wait until intake has committed and the decomposition call is in flight.
    await waitFor(async () => (await store.events(id, 0, 100)).some((e) => e.type === 'problem.stated'), 20_000, 'intake');
    const started = Date.now();
    const res = await fetch(`${stack.url}/v1/sessions/${id}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id, status: 'cancelled' });

    const got = await streamed;
    assertGapless(got);
    expect(got.envelopes.at(-1)!.type).toBe('session.cancelled');
    // The aborted call never commits: after a full model latency, nothing has followed the cancellation.
    await new Promise((r) => setTimeout(r, 2500));
    const events = await store.events(id, 0, 1000);
    expect(events.at(-1)!.type).toBe('session.cancelled');
    expect(events.some((e) => e.type === 'decomposition.completed')).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);

    const s = await getJson(`${stack.url}/v1/sessions/${id}`);
    expect(s.status).toBe('cancelled');
    expect(s.ended_at).toEqual(expect.any(String));
    const transcript = await (await fetch(`${stack.url}/v1/sessions/${id}/transcript`)).text();
    expect(transcript).toMatch(/PROBLEM STATEMENT/);
    expect(transcript).toMatch(/Cancelled: cancelled by the client/);

    const again = await fetch(`${stack.url}/v1/sessions/${id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await fetch(`${stack.url}/v1/sessions/00000000-0000-4000-8000-000000000000/cancel`, { method: 'POST' })).status).toBe(404);
  });

  it('mid-round: the experts\' calls in flight are aborted and the round never completes', async () => {
    const store = new SessionStore(database);
    const id = await createSession(stack.url, { problem: 'Should I hire a second engineer now or wait six months?', context: 'Seed-funded, 12 months runway.' });
    await waitFor(async () => (await store.events(id, 0, 1000)).some((e) => e.type === 'round.started'), 60_000, 'the first round to start');
    const res = await fetch(`${stack.url}/v1/sessions/${id}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    const events = await store.events(id, 0, 1000);
    expect(events.at(-1)!.type).toBe('session.cancelled');
    expect(events.some((e) => e.type === 'round.completed')).toBe(false);
    // Nothing the aborted calls would have produced was written after the cancellation.
    const cancelledAt = events.at(-1)!.seq;
    expect(events.filter((e) => e.seq > cancelledAt)).toHaveLength(0);
    expect((await store.ledger(id)).every((row) => row.stepKey.startsWith('sp1/r1/') === false || row.outcome !== 'ok')).toBe(true);
  }, 60_000);
});
