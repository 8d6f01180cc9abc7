import { randomUUID } from 'node:crypto';
import { AUTOVACUUM_OFF } from '../../src/main/preflight';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore, generateKey } from '../../src/auth/api-keys';
import { openDatabase, type Database } from '../../src/db/client';
import { embedSync } from '../../src/embeddings/local-embedder';
import { startApi } from '../../src/main/services';
import { MemoryStore } from '../../src/memory/memory-store';
import { testDatabaseUrl } from '../support/env';
import { expectProblem } from '../support/problem';
import { startStack, testConfig, waitFor, type Stack } from '../support/stack';

// Keys are required here; the cache is off so a revocation shows at once.
let stack: Stack;
let database: Database;
let keys: ApiKeyStore;
const tag = randomUUID().slice(0, 8);
const tenantA = `auth-a-${tag}`;
const tenantB = `auth-b-${tag}`;
let keyA: string;
let keyB: string;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const get = (path: string, key?: string) => fetch(`${stack.url}${path}`, key ? { headers: bearer(key) } : {});

async function expectUnauthorized(res: Response) {
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="bo1"');
  const body = await expectProblem(res, 401);
  expect(body.type).toBe('urn:bo1:problem:unauthorized');
}

beforeAll(async () => {
  stack = await startStack({ AUTH_MODE: 'required', AUTH_CACHE_MS: '0' }, { worker: false });
  database = openDatabase(testDatabaseUrl(), 2);
  keys = new ApiKeyStore(database.db);
  keyA = (await keys.create(tenantA, 'a')).key;
  keyB = (await keys.create(tenantB, 'b')).key;
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

describe('bearer auth', () => {
  it('answers a /v1 request without a key with a 401 problem and WWW-Authenticate; health, docs and the OpenAPI document stay open', async () => {
    await expectUnauthorized(await get('/v1/sessions'));
    await expectUnauthorized(await get('/v1/personas'));
    await expectUnauthorized(await fetch(`${stack.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"problem":"x"}' }));
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/openapi.json')).status).toBe(200);
    expect((await fetch(`${stack.url}/docs`, { redirect: 'follow' })).status).toBe(200);
  });

  it('refuses an unknown key, a malformed key and a non-Bearer scheme', async () => {
    await expectUnauthorized(await get('/v1/sessions', generateKey()));
    await expectUnauthorized(await get('/v1/sessions', 'not-a-key'));
    await expectUnauthorized(await fetch(`${stack.url}/v1/sessions`, { headers: { authorization: `Basic ${keyA}` } }));
    await expectUnauthorized(await fetch(`${stack.url}/v1/sessions`, { headers: { authorization: 'Bearer' } }));
  });

  it('serves a valid key as its tenant, records its use, and refuses it once revoked', async () => {
    const created = await keys.create(tenantA, 'to-revoke');
    expect((await get('/v1/sessions', created.key)).status).toBe(200);
    await waitFor(async () => (await keys.list(tenantA)).find((k) => k.id === created.id)?.lastUsedAt, 5000, 'last_used_at');
    expect(await keys.revoke(created.prefix)).toBe(true);
    await expectUnauthorized(await get('/v1/sessions', created.key));
    expect((await get('/v1/sessions', keyA)).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  let sessionId: string;
  let memoryId: string;
  const marker = `isolation${tag}`;

  beforeAll(async () => {
    const res = await fetch(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(keyA) },
      body: JSON.stringify({ problem: `Should tenant A expand to Lisbon? ${marker}` }),
    });
    expect(res.status).toBe(202);
    sessionId = ((await res.json()) as { id: string }).id;
    memoryId = randomUUID();
    await new MemoryStore(database.db).insertMemories(tenantA, [
      {
        id: memoryId,
        scope: 'session',
        sessionId,
        subProblemId: 'sp1',
        persona: 'financial_analyst',
        category: 'expansion',
        summary: `Expansion needs a local partner ${marker}`,
        position: 'Partner first',
        confidence: 0.7,
        anonymised: true,
        model: 'claude-haiku-5-5',
        promptVersion: 'expert_summary@1',
        embedding: embedSync('expansion partner', 256),
        embeddingProvider: 'local-hash',
      },
    ]);
  });

  it("makes tenant A's session a 404 for tenant B on get, events, stream, transcript, cancel and memory deletion", async () => {
    const base = `/v1/sessions/${sessionId}`;
    for (const path of [base, `${base}/events`, `${base}/stream`, `${base}/transcript`]) {
      await expectProblem(await get(path, keyB), 404);
    }
    await expectProblem(await fetch(`${stack.url}${base}/cancel`, { method: 'POST', headers: bearer(keyB) }), 404);
    await expectProblem(await fetch(`${stack.url}${base}/memories`, { method: 'DELETE', headers: bearer(keyB) }), 404);
    const listed = (await (await get('/v1/sessions?limit=100', keyB)).json()) as { items: { id: string }[] };
    expect(listed.items.map((s) => s.id)).not.toContain(sessionId);
    // Tenant A still sees it, untouched by B's cancel.
    const own = (await (await get(base, keyA)).json()) as { id: string; status: string };
    expect(own).toMatchObject({ id: sessionId, status: 'queued' });
  });

  it("hides tenant A's memories from tenant B", async () => {
    const mine = (await (await get(`/v1/memories?q=${marker}`, keyA)).json()) as { items: { id: string }[] };
    expect(mine.items.map((m) => m.id)).toEqual([memoryId]);
    const theirs = (await (await get(`/v1/memories?q=${marker}`, keyB)).json()) as { items: unknown[] };
    expect(theirs.items).toEqual([]);
    await expectProblem(await get(`/v1/memories/${memoryId}`, keyB), 404);
    await expectProblem(await fetch(`${stack.url}/v1/memories/${memoryId}`, { method: 'DELETE', headers: bearer(keyB) }), 404);
    const exported = (await (await get('/v1/memories/export', keyB)).json()) as { memories: unknown[] };
    expect(exported.memories).toEqual([]);
    expect((await get(`/v1/memories/${memoryId}`, keyA)).status).toBe(200);
  });

  it('lets the owner cancel its session', async () => {
    const res = await fetch(`${stack.url}/v1/sessions/${sessionId}/cancel`, { method: 'POST', headers: bearer(keyA) });
    expect(res.status).toBe(200);
  });
});

describe('open mode announcement', () => {
  async function startupWarnings(mode: string): Promise<string[]> {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const api = await startApi(testConfig({ AUTH_MODE: mode }), log);
    await api.stop();
    // The server's own warning (autovacuum off on this machine's Postgres) is not the auth mode's.
    return lines.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => m !== AUTOVACUUM_OFF);
  }

  it('warns loudly at start when requests without a key are served, and not when keys are required', async () => {
    expect(await startupWarnings('open')).toEqual([expect.stringMatching(/^OPEN MODE .*tenant "default" without authentication/)]);
    expect(await startupWarnings('required')).toEqual([]);
  });
});
