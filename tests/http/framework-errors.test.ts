import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { createSession, startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(
    { REQUEST_TIMEOUT_MS: '600', HEADERS_TIMEOUT_MS: '400', CONNECTION_TIMEOUT_MS: '1500', SSE_HEARTBEAT_MS: '200' },
    { worker: false },
  );
});
afterAll(async () => stack?.stop());

function expectRawProblem(res: RawResponse, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body) as { type: string; status: number; detail: string };
  expect(body.status).toBe(status);
  expect(body.type).toMatch(/^urn:bo1:problem:/);
  return body;
}

describe('errors raised before a route runs are problem+json', () => {
  it('a URL that is not validly percent-encoded is a 400 naming the url', async () => {
    await expectProblem(await fetch(`${stack.url}/v1/sessions/%zz`), 400, 'url');
    await expectProblem(await fetch(`${stack.url}/v1/sessions/%E0%A4%A`), 400, 'url');
  });

  it('an over-long path parameter is a 414', async () => {
    await expectProblem(await fetch(`${stack.url}/v1/sessions/${'a'.repeat(500)}`), 414, 'url');
  });

  it('oversized headers (or request line) are a 431', async () => {
    const res = await rawRequest(stack.url, `GET /v1/personas HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    expectRawProblem(res, 431);
    expectRawProblem(await rawRequest(stack.url, `GET /v1/sessions?q=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431);
  });

  it('a request that is not HTTP is a 400', async () => {
    expectRawProblem(await rawRequest(stack.url, 'NOT HTTP AT ALL\r\n\r\n'), 400);
  });

  it('a known path with a method it does not serve is a 405 with Allow, whatever the body', async () => {
    const res = await fetch(`${stack.url}/v1/sessions`, { method: 'DELETE' });
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    await expectProblem(res, 405);
    const put = await fetch(`${stack.url}/v1/sessions/00000000-0000-4000-8000-000000000000`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(put.headers.get('allow')).toBe('GET, HEAD');
    await expectProblem(put, 405);
    const get = await fetch(`${stack.url}/v1/sessions/00000000-0000-4000-8000-000000000000/cancel`);
    expect(get.headers.get('allow')).toBe('POST');
    await expectProblem(get, 405);
    // An unknown path is still a 404.
    await expectProblem(await fetch(`${stack.url}/v1/nothing-here`, { method: 'DELETE' }), 404);
  });
});

describe('server timeouts', () => {
  it('closes a request whose body stops half-way with a 408 problem', async () => {
    const res = await rawRequest(
      stack.url,
      `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"problem":"Should I`,
    );
    expectRawProblem(res, 408);
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(400);
    expect(res.closedAfterMs).toBeLessThan(3000);
  });

  it('closes a request whose headers never finish', async () => {
    const res = await rawRequest(stack.url, `GET /v1/personas HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n`);
    expectRawProblem(res, 408);
    expect(res.closedAfterMs).toBeLessThan(3000);
  });

  it('keeps an SSE stream open past every timeout: its heartbeats keep the connection busy', async () => {
    const id = await createSession(stack.url, { problem: 'Should I move to a four-day week?' });
    const abort = new AbortController();
    const res = await fetch(`${stack.url}/v1/sessions/${id}/stream`, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const started = performance.now();
    let text = '';
    // No worker here: the session stays queued and the stream idle but for heartbeats, for longer than the connection timeout.
    while (performance.now() - started < 2500) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('session.created');
    expect(text.match(/^: ?heartbeat/gm)?.length ?? text.match(/^:/gm)?.length).toBeGreaterThan(3);
    abort.abort();
    await sleep(10);
  });
});
