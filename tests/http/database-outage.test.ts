import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-keys';
import { openDatabase } from '../../src/db/client';
import { startApi, type RunningApi } from '../../src/main/services';
import { testDatabaseUrl } from '../support/env';
import { expectProblem } from '../support/problem';
import { TcpProxy } from '../support/tcp-proxy';
import { testConfig } from '../support/stack';

let proxy: TcpProxy;
let api: RunningApi;
let auth: Record<string, string>;
beforeAll(async () => {
  const direct = openDatabase(testDatabaseUrl(), 1);
  auth = { authorization: `Bearer ${(await new ApiKeyStore(direct.db).create(`pg-down-${Date.now()}`, 'outage')).key}` };
  await direct.close();
  const front = await TcpProxy.in(testDatabaseUrl());
  proxy = front.proxy;
  // Auth that reads keys from Postgres on every request (no cache), so even the auth hook meets the outage.
  api = await startApi(testConfig({ DATABASE_URL: front.url, AUTH_MODE: 'required', AUTH_CACHE_MS: '0' }), pino({ level: 'silent' }));
});
afterAll(async () => {
  await proxy?.close();
  await api?.stop();
});

describe('Postgres down', () => {
  it('is a 503 problem with Retry-After on every route that needs it, and service resumes when it is back', async () => {
    const created = await fetch(`${api.url}/v1/sessions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ problem: 'Should I expand to Germany before France?' }) });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    await proxy.cut();
    try {
      const requests: [string, RequestInit?][] = [
        [`/v1/sessions`],
        [`/v1/sessions/${id}`],
        [`/v1/sessions/${id}/events`],
        [`/v1/sessions/${id}/stream`],
        [`/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ problem: 'Should I?' }) }],
        [`/v1/personas`],
        [`/v1/sessions/${id}/cancel`, { method: 'POST' }],
      ];
      for (const [path, init] of requests) {
        const res = await fetch(`${api.url}${path}`, { ...init, headers: { ...auth, ...(init?.headers as Record<string, string>) }, signal: AbortSignal.timeout(15_000) });
        const body = await expectProblem(res, 503);
        expect(body.type, path).toBe('urn:bo1:problem:database-unavailable');
        expect(Number(res.headers.get('retry-after')), path).toBeGreaterThan(0);
      }
    } finally {
      await proxy.restore();
    }
    expect((await fetch(`${api.url}/v1/sessions/${id}`, { headers: auth })).status).toBe(200);
  });
});
