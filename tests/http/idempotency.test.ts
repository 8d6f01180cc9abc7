import { randomUUID } from 'node:crypto';
import { and, eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { IdempotencyStore } from '../../src/db/idempotency-store';
import { idempotencyKeys, sessions } from '../../src/db/schema';
import { idempotent } from '../../src/app/idempotent';
import { AppError } from '../../src/domain/errors';
import { toProblem } from '../../src/http/problem';
import { testDatabaseUrl } from '../support/env';
import { expectProblem } from '../support/problem';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let database: Database;
beforeAll(async () => {
  stack = await startStack({}, { worker: false });
  database = openDatabase(testDatabaseUrl(), 4);
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

const create = (body: unknown, key?: string) =>
  fetch(`${stack.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });

const sessionsMentioning = async (marker: string) =>
  (await database.db.select({ id: sessions.id }).from(sessions).where(like(sessions.problem, `%${marker}%`))).map((r) => r.id);

describe('Idempotency-Key on POST /v1/sessions', () => {
  it('replays the first response for the same key and body: same status, id and Location, flagged, one session', async () => {
    const marker = randomUUID();
    const key = `create-${marker}`;
    const first = await create({ problem: `Should I open a second office? ${marker}`, context: 'ten staff' }, key);
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = (await first.json()) as { id: string };
    // The same request with its fields in another order is the same request.
    const again = await create({ context: 'ten staff', problem: `Should I open a second office? ${marker}` }, key);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(`/v1/sessions/${firstBody.id}`);
    expect(await again.json()).toEqual(firstBody);
    expect(await sessionsMentioning(marker)).toEqual([firstBody.id]);
  });

  it('refuses the same key with a different body: 422 naming the header', async () => {
    const key = `reuse-${randomUUID()}`;
    expect((await create({ problem: 'Should I hire a CFO?' }, key)).status).toBe(202);
    const body = await expectProblem(await create({ problem: 'Should I hire a CTO?' }, key), 422, 'headers.idempotency-key');
    expect(body.type).toBe('urn:bo1:problem:idempotency-key-reused');
  });

  it('runs concurrent duplicates once: every response carries the same session id', async () => {
    const marker = randomUUID();
    const key = `race-${marker}`;
    const responses = await Promise.all(Array.from({ length: 5 }, () => create({ problem: `Should I raise prices? ${marker}` }, key)));
    const ids = await Promise.all(responses.map(async (r) => (r.status === 202 ? ((await r.json()) as { id: string }).id : r.status)));
    const created = await sessionsMentioning(marker);
    expect(created).toHaveLength(1);
    expect(ids).toEqual(Array(5).fill(created[0]));
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
  });

  it('runs every request without a key', async () => {
    const marker = randomUUID();
    expect((await create({ problem: `No key ${marker}` })).status).toBe(202);
    expect((await create({ problem: `No key ${marker}` })).status).toBe(202);
    expect(await sessionsMentioning(marker)).toHaveLength(2);
  });

  it('rejects a malformed key: 400 naming the header', async () => {
    await expectProblem(await create({ problem: 'Should I?' }, 'k'.repeat(256)), 400, 'headers.idempotency-key');
    await expectProblem(await create({ problem: 'Should I?' }, ''), 400, 'headers.idempotency-key');
    await expectProblem(await create({ problem: 'Should I?' }, 'tab\there'), 400, 'headers.idempotency-key');
  });
});

describe('idempotent()', () => {
  const tenant = `idem-${randomUUID().slice(0, 8)}`;
  const ok = (body: unknown) => async () => ({ status: 201, body, headers: { Location: '/x' } });
  const request = (key: string, extra: Partial<Parameters<typeof idempotent>[0]> = {}) => ({
    store: new IdempotencyStore(database.db),
    tenant,
    scope: 'test',
    key,
    body: { a: 1 },
    ...extra,
  });

  it('releases the claim when the request throws or answers 5xx, so a retry runs', async () => {
    const key = randomUUID();
    await expect(idempotent(request(key), async () => Promise.reject(new AppError('too-many-sessions', 'cap')))).rejects.toThrow('cap');
    expect(await new IdempotencyStore(database.db).read({ tenantId: tenant, scope: 'test', key })).toBeNull();
    expect(await idempotent(request(key), async () => ({ status: 503, body: { down: true } }))).toMatchObject({ status: 503, replayed: false });
    expect(await new IdempotencyStore(database.db).read({ tenantId: tenant, scope: 'test', key })).toBeNull();
    expect(await idempotent(request(key), ok('ran'))).toMatchObject({ status: 201, body: 'ran', replayed: false });
    expect(await idempotent(request(key), ok('again'))).toEqual({ status: 201, body: 'ran', headers: { Location: '/x' }, replayed: true });
  });

  it('answers 409 with Retry-After when the first request is still running after the wait', async () => {
    const key = randomUUID();
    let finish!: () => void;
    const slow = idempotent(request(key), () => new Promise((resolve) => (finish = () => resolve({ status: 201, body: 'slow' }))));
    await new Promise((r) => setTimeout(r, 100));
    const err = (await idempotent(request(key, { waitMs: 200 }), ok('dup')).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('idempotency-in-progress');
    expect(toProblem(err)).toMatchObject({ status: 409, slug: 'idempotency-in-progress', headers: { 'Retry-After': '1' } });
    finish();
    expect(await slow).toMatchObject({ body: 'slow', replayed: false });
  });

  it('scopes a key by tenant and by scope', async () => {
    const key = randomUUID();
    await idempotent(request(key), ok('first'));
    expect(await idempotent(request(key, { tenant: `${tenant}-other` }), ok('other tenant'))).toMatchObject({ body: 'other tenant', replayed: false });
    expect(await idempotent(request(key, { scope: 'resolve:s:c' }), ok('other scope'))).toMatchObject({ body: 'other scope', replayed: false });
  });

  it('ignores a record older than 24 h, and purges old records', async () => {
    const key = randomUUID();
    await idempotent(request(key), ok('old'));
    const where = and(eq(idempotencyKeys.tenantId, tenant), eq(idempotencyKeys.key, key));
    await database.db.update(idempotencyKeys).set({ createdAt: sql`now() - interval '25 hours'` }).where(where);
    expect(await idempotent(request(key, { body: { different: true } }), ok('new'))).toMatchObject({ body: 'new', replayed: false });
    await database.db.update(idempotencyKeys).set({ createdAt: sql`now() - interval '25 hours'` }).where(where);
    expect(await new IdempotencyStore(database.db).purge(new Date(Date.now() - 24 * 3600_000))).toBeGreaterThanOrEqual(1);
    expect(await new IdempotencyStore(database.db).read({ tenantId: tenant, scope: 'test', key })).toBeNull();
  });
});
