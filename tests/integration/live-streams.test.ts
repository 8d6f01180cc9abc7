import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem';
import { assertGapless, readStream } from '../support/sse-client';
import { createSession, snapshot, startStack, waitFor, waitForStatus, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ SIM_LATENCY_MS: '25', SSE_RETRY_MS: '50' });
});
afterAll(async () => stack?.stop());

const problem = { problem: 'Should I hire a head of sales or a second engineer first?', context: '$30K MRR, 2 founders, 9 months of runway.' };

describe('many clients watching one live session on one API process', () => {
  it('gives each of dozens of late joiners every event after its cursor exactly once, in order', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'late-joiners' });
    await waitFor(async () => (await snapshot(stack.url, id)).last_seq >= 3, 30_000, 'the session to start');
    const readers: Promise<{ from: number; got: Awaited<ReturnType<typeof readStream>> }>[] = [];
    for (let i = 0; i < 36; i++) {
      const { last_seq: lastSeq, status } = await snapshot(stack.url, id);
      if (status !== 'running' && status !== 'queued') break;
      // A third from the start, a third from where the log is now, a third from somewhere in between.
      const from = [0, lastSeq, Math.floor(lastSeq / 2)][i % 3]!;
      const headers: Record<string, string> = from ? { 'Last-Event-ID': String(from) } : {};
      readers.push(readStream(`${stack.url}/v1/sessions/${id}/stream`, { headers, timeoutMs: 90_000 }).then((got) => ({ from, got })));
      await sleep(40);
    }
    const results = await Promise.all(readers);
    expect(results.length).toBeGreaterThanOrEqual(24);
    const end = (await waitForStatus(stack.url, id, ['completed'])).last_seq as number;
    for (const { from, got } of results) {
      assertGapless(got, from + 1);
      expect(got.envelopes.at(-1)!.type).toBe('session.completed');
      expect(got.envelopes.at(-1)!.seq).toBeLessThanOrEqual(end);
    }
  });
});

describe('a stream resumed at or past the end of the log', () => {
  it('refuses a cursor beyond the last seq naming the field, and ends an ended session with 204 so EventSource stops', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'past-the-end' });
    const { last_seq: lastSeq } = await waitForStatus(stack.url, id, ['completed']);
    // Memory jobs append after the end; let them finish so the last seq is stable.
    await sleep(500);
    const end = (await snapshot(stack.url, id)).last_seq as number;
    expect(end).toBeGreaterThanOrEqual(lastSeq);

    const past = await fetch(`${stack.url}/v1/sessions/${id}/stream`, { headers: { 'Last-Event-ID': String(end + 5) }, signal: AbortSignal.timeout(5000) });
    const body = await expectProblem(past, 400, 'headers.last-event-id');
    expect(body.detail).toContain(`its last event is ${end}`);
    await expectProblem(await fetch(`${stack.url}/v1/sessions/${id}/stream?after=${end + 1}`, { signal: AbortSignal.timeout(5000) }), 400, 'query.after');
    await expectProblem(await fetch(`${stack.url}/v1/sessions/${id}/stream?after=2147483648`, { signal: AbortSignal.timeout(5000) }), 400, 'query.after');
    await expectProblem(
      await fetch(`${stack.url}/v1/sessions/${id}/stream`, { headers: { 'Last-Event-ID': '9007199254740993' }, signal: AbortSignal.timeout(5000) }),
      400,
      'headers.last-event-id',
    );

    const atEnd = await fetch(`${stack.url}/v1/sessions/${id}/stream`, { headers: { 'Last-Event-ID': String(end) }, signal: AbortSignal.timeout(5000) });
    expect(atEnd.status).toBe(204);

    // An EventSource resuming there gives up instead of reconnecting every `retry` for ever.
    let connections = 0;
    const es = new EventSource(`${stack.url}/v1/sessions/${id}/stream`, {
      fetch: (input, init) => {
        connections += 1;
        return fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'Last-Event-ID': String(end) } });
      },
    });
    await waitFor(async () => es.readyState === EventSource.CLOSED, 5000, 'the EventSource to close');
    await sleep(300);
    expect(connections).toBe(1);
    es.close();
  });
});
