import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem';
import { createSession, getJson, startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({}, { worker: false });
});
afterAll(async () => stack?.stop());

const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${stack.url}/v1/sessions`, { method: 'POST', headers, body });

describe('POST /v1/sessions', () => {
  it('accepts a problem: 202, Location, id, status and links', async () => {
    const res = await post(JSON.stringify({ problem: 'Should I hire a contractor for the refactor?' }));
    expect(res.status).toBe(202);
    const body = (await res.json()) as { id: string; status: string; links: Record<string, string> };
    expect(res.headers.get('location')).toBe(`/v1/sessions/${body.id}`);
    expect(body.status).toBe('queued');
    expect(body.links).toEqual({
      self: `/v1/sessions/${body.id}`,
      stream: `/v1/sessions/${body.id}/stream`,
      events: `/v1/sessions/${body.id}/events`,
    });
    const events = await getJson(`${stack.url}${body.links.events}`);
    expect(events.items[0]).toMatchObject({ seq: 1, type: 'session.created', session_id: body.id });
  });

  it('rejects an empty or missing problem, naming the field', async () => {
    await expectProblem(await post(JSON.stringify({ problem: '   ' })), 400, 'body.problem');
    await expectProblem(await post(JSON.stringify({ context: 'x' })), 400, 'body.problem');
    await expectProblem(await post(JSON.stringify({ problem: 42 })), 400, 'body.problem');
  });

  it('rejects a problem over 20,000 characters', async () => {
    const body = await expectProblem(await post(JSON.stringify({ problem: 'x'.repeat(20_001) })), 400, 'body.problem');
    expect(body.detail).toMatch(/20000/);
  });

  it('rejects unknown fields (typos are not silently ignored)', async () => {
    await expectProblem(await post(JSON.stringify({ problem: 'Should I?', contxt: 'typo' })), 400);
  });

  it('rejects malformed JSON, a non-JSON body and an oversized body as problems', async () => {
    await expectProblem(await post('{"problem": '), 400);
    await expectProblem(await post('problem=x', { 'content-type': 'text/plain' }), 415);
    await expectProblem(await post(JSON.stringify({ problem: 'x'.repeat(300_000) })), 413);
  });
});

describe('reading sessions', () => {
  it('404s an unknown session and 400s a malformed id, as problems', async () => {
    await expectProblem(await fetch(`${stack.url}/v1/sessions/00000000-0000-4000-8000-000000000000`), 404);
    await expectProblem(await fetch(`${stack.url}/v1/sessions/not-a-uuid`), 400, 'params.id');
    await expectProblem(await fetch(`${stack.url}/v1/sessions/00000000-0000-4000-8000-000000000000/stream`), 404);
    await expectProblem(await fetch(`${stack.url}/v1/sessions/00000000-0000-4000-8000-000000000000/events`), 404);
    await expectProblem(await fetch(`${stack.url}/v1/nothing-here`), 404);
  });

  it('shows a queued session with its provider before any worker touches it', async () => {
    const id = await createSession(stack.url, { problem: 'Should I rewrite in Rust?' });
    const s = await getJson(`${stack.url}/v1/sessions/${id}`);
    expect(s).toMatchObject({ id, status: 'queued', provider: 'simulated', simulated: true, last_seq: 1, results: null });
    expect(s.usage).toMatchObject({ calls: 0, costUsd: 0 });
  });

  it('lists sessions with cursor pagination and validates the query', async () => {
    for (let i = 0; i < 3; i++) await createSession(stack.url, { problem: `Paged problem ${i}?` });
    const page1 = await getJson(`${stack.url}/v1/sessions?limit=2`);
    expect(page1.items).toHaveLength(2);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const page2 = await getJson(`${stack.url}/v1/sessions?limit=2&cursor=${page1.next_cursor}`);
    expect(page2.items[0].id).not.toBe(page1.items[1].id);
    await expectProblem(await fetch(`${stack.url}/v1/sessions?limit=0`), 400, 'query.limit');
    await expectProblem(await fetch(`${stack.url}/v1/sessions?cursor=bogus`), 400, 'query.cursor');
    await expectProblem(await fetch(`${stack.url}/v1/sessions?status=sleeping`), 400, 'query.status');
  });

  it('rejects a bad Last-Event-ID and a bad after', async () => {
    const id = await createSession(stack.url, { problem: 'Stream validation?' });
    await expectProblem(await fetch(`${stack.url}/v1/sessions/${id}/stream`, { headers: { 'Last-Event-ID': 'abc' } }), 400, 'headers.last-event-id');
    await expectProblem(await fetch(`${stack.url}/v1/sessions/${id}/stream?after=-1`), 400, 'query.after');
    await expectProblem(await fetch(`${stack.url}/v1/sessions/${id}/events?limit=5000`), 400, 'query.limit');
  });
});

describe('ops', () => {
  it('livez and healthz are up; readyz is ready without a worker (the API serves regardless) and counts none', async () => {
    expect(await getJson(`${stack.url}/livez`)).toEqual({ status: 'ok' });
    expect(await getJson(`${stack.url}/healthz`)).toEqual({ status: 'ok' });
    const res = await fetch(`${stack.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' }, workers: 0 });
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const doc = await getJson(`${stack.url}/openapi.json`);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/sessions', '/v1/sessions/{id}/stream']));
    const docs = await fetch(`${stack.url}/docs`, { redirect: 'follow' });
    expect(docs.status).toBe(200);
  });
});

describe('personas', () => {
  it('lists the pool with every attribute the spec names, and serves one by code', async () => {
    const { items } = await getJson(`${stack.url}/v1/personas`);
    expect(items.length).toBeGreaterThanOrEqual(8);
    for (const role of ['Technical Architect', 'Financial Analyst', 'User Advocate', 'Risk Manager', 'Growth Strategist', 'Operations Expert', 'Behavioral Psychologist', 'Data Scientist']) {
      expect(items.map((p: { title: string }) => p.title)).toContain(role);
    }
    const one = await getJson(`${stack.url}/v1/personas/financial_analyst`);
    expect(one).toMatchObject({ code: 'financial_analyst', riskTolerance: expect.any(String), timeHorizon: expect.any(String), optimism: expect.any(String) });
    expect(one.typicalConcerns.length).toBeGreaterThan(0);
    await expectProblem(await fetch(`${stack.url}/v1/personas/nobody_here`), 404);
    await expectProblem(await fetch(`${stack.url}/v1/personas/Bad-Code`), 400, 'params.code');
  });
});
