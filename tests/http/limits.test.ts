import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-keys';
import { openDatabase, type Database } from '../../src/db/client';
import { sessions } from '../../src/db/schema';
import { ACTIVE_STATUSES } from '../../src/db/session-store';
import { registerAuth } from '../../src/http/auth';
import { redisCounter, registerRateLimit } from '../../src/http/rate-limit';
import { openRedis } from '../../src/queue/redis';
import { testDatabaseUrl } from '../support/env';
import { expectProblem } from '../support/problem';
import { startStack, waitFor, type Stack } from '../support/stack';

let database: Database;
let keys: ApiKeyStore;
const tag = randomUUID().slice(0, 8);
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 2);
  keys = new ApiKeyStore(database.db);
});
afterAll(async () => database?.close());

const json = { 'content-type': 'application/json' };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('rate limit', () => {
  let stack: Stack;
  // A one-hour window: the test cannot straddle a window boundary.
  beforeAll(async () => {
    stack = await startStack({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_WINDOW_MS: '3600000' }, { worker: false });
  });
  afterAll(async () => stack?.stop());

  const limits = (res: Response) => ({
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    reset: Number(res.headers.get('ratelimit-reset')),
  });

  it('counts every /v1 response per client in open mode and answers 429 problem+json with Retry-After past the limit', async () => {
    const created = await fetch(`${stack.url}/v1/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ problem: `Rate limited? ${tag}` }) });
    expect(created.status).toBe(202);
    expect(limits(created)).toMatchObject({ limit: '5', remaining: '4' });
    expect(limits(created).reset).toBeGreaterThan(0);
    expect(limits(created).reset).toBeLessThanOrEqual(3600);
    const { id } = (await created.json()) as { id: string };

    const abort = new AbortController();
    const stream = await fetch(`${stack.url}/v1/sessions/${id}/stream`, { signal: abort.signal });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(limits(stream)).toMatchObject({ remaining: '3' });
    abort.abort();

    const missing = await fetch(`${stack.url}/v1/sessions/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(limits(missing)).toMatchObject({ remaining: '2' });
    expect(limits(await fetch(`${stack.url}/v1/personas`))).toMatchObject({ remaining: '1' });
    expect(limits(await fetch(`${stack.url}/v1/sessions`))).toMatchObject({ remaining: '0' });

    const limited = await fetch(`${stack.url}/v1/sessions`);
    expect(limits(limited)).toMatchObject({ limit: '5', remaining: '0' });
    expect(Number(limited.headers.get('retry-after'))).toBe(limits(limited).reset);
    const body = await expectProblem(limited, 429);
    expect(body.type).toBe('urn:bo1:problem:rate-limited');

    const health = await fetch(`${stack.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('ratelimit-limit')).toBeNull();
  });

  it('counts each API key on its own', async () => {
    const { key } = await keys.create(`rl-${tag}`, 'limits');
    const res = await fetch(`${stack.url}/v1/sessions`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(limits(res)).toMatchObject({ limit: '5', remaining: '4' });
  });

  it('lets requests through when the counter fails, rather than taking the API down', async () => {
    const app = Fastify();
    registerAuth(app, {} as ApiKeyStore, 'open');
    registerRateLimit(app, async () => Promise.reject(new Error('redis down')), { limit: 1, windowMs: 60_000, namespace: 'x' });
    app.get('/v1/ping', async () => 'pong');
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: '/v1/ping' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    await app.close();
  });

  it('limits requests with a bad key per client IP, as it does requests without one', async () => {
    // This client's IP has spent part (or all) of its window above; a wrong key draws on the same count.
    const bad = bearer(`bo1_not-a-key-${tag}`);
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 7 && !limited; i++) {
      const res = await fetch(`${stack.url}/v1/sessions`, { headers: bad });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await expectProblem(res, 401);
    }
    expect(statuses.at(-1), `statuses ${statuses.join(',')}`).toBe(429);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await expectProblem(limited!, 429)).type).toBe('urn:bo1:problem:rate-limited');
  });

  it('fails fast while Redis is down', async () => {
    // Nothing listens on port 1: the client keeps reconnecting, as in an outage.
    const redis = openRedis('redis://127.0.0.1:1', 'bo1-test-down');
    try {
      await waitFor(async () => redis.status === 'reconnecting', 5000, 'a reconnecting client');
      const started = Date.now();
      await expect(redisCounter(redis)('bo1:rl:test', 1000)).rejects.toThrow(/redis is reconnecting/);
      expect(Date.now() - started).toBeLessThan(100);
    } finally {
      redis.disconnect();
    }
  });
});

describe('per-tenant cap of active sessions, and the body limit', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ AUTH_MODE: 'required', MAX_ACTIVE_SESSIONS_PER_TENANT: '2', BODY_LIMIT_BYTES: '2048' }, { worker: false });
  });
  afterAll(async () => stack?.stop());

  const create = (key: string, extra: Record<string, string> = {}) =>
    fetch(`${stack.url}/v1/sessions`, { method: 'POST', headers: { ...json, ...bearer(key), ...extra }, body: JSON.stringify({ problem: 'Should I expand?' }) });
  const active = async (tenant: string) =>
    (
      await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(sessions)
        .where(and(eq(sessions.tenantId, tenant), inArray(sessions.status, [...ACTIVE_STATUSES])))
    )[0]?.n;

  it('answers 429 naming the cap once a tenant has that many active sessions; other tenants are unaffected; an ended one frees a slot', async () => {
    const { key } = await keys.create(`cap-${tag}`, 'cap');
    const { key: other } = await keys.create(`cap-other-${tag}`, 'cap');
    const first = (await (await create(key)).json()) as { id: string };
    expect((await create(key)).status).toBe(202);
    const idempotencyKey = { 'idempotency-key': randomUUID() };
    const refused = await create(key, idempotencyKey);
    const body = await expectProblem(refused, 429);
    expect(body.type).toBe('urn:bo1:problem:too-many-sessions');
    expect(body.detail).toMatch(/\b2 active sessions\b/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBeNull(); // the limiter is off here
    expect((await create(other)).status).toBe(202);

    const cancelled = await fetch(`${stack.url}/v1/sessions/${first.id}/cancel`, { method: 'POST', headers: bearer(key) });
    expect(cancelled.status).toBe(200);
    // The refused request's Idempotency-Key was released: its retry runs.
    const retried = await create(key, idempotencyKey);
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await active(`cap-${tag}`)).toBe(2);
  });

  it('holds the cap under concurrent creates', async () => {
    const tenant = `cap-race-${tag}`;
    const { key } = await keys.create(tenant, 'race');
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => create(key)))).map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 429, 429, 429, 429]);
    expect(await active(tenant)).toBe(2);
  });

  it('answers a body over BODY_LIMIT_BYTES with a 413 problem', async () => {
    const { key } = await keys.create(`body-${tag}`, 'body');
    const res = await fetch(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { ...json, ...bearer(key) },
      body: JSON.stringify({ problem: 'x'.repeat(3000) }),
    });
    const body = await expectProblem(res, 413);
    expect(body.type).toBe('urn:bo1:problem:payload-too-large');
  });
});
