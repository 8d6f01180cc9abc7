import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-keys';
import { openDatabase, type Database } from '../../src/db/client';
import { startApi, startWorker, type Running, type RunningApi } from '../../src/main/services';
import { testDatabaseUrl } from '../support/env';
import { expectProblem } from '../support/problem';
import { obliterateQueues } from '../support/queues';
import { assertGapless, readStream } from '../support/sse-client';
import { testConfig } from '../support/stack';

// Keys required; the API logs at info level into `lines`, to show that no token reaches the log.
const config = testConfig({ AUTH_MODE: 'required', AUTH_CACHE_MS: '0' });
const lines: string[] = [];
let api: RunningApi;
let worker: Running;
let database: Database;
const tag = randomUUID().slice(0, 8);
let keyA: string;
let keyB: string;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const mint = (id: string, key?: string) => fetch(`${api.url}/v1/sessions/${id}/stream-token`, { method: 'POST', headers: key ? bearer(key) : {} });

async function createSession(key: string): Promise<string> {
  const res = await fetch(`${api.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify({ problem: 'Should I pivot my project management tool to serve only law firms?', seed: `st-${tag}` }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function tokenFor(id: string, key: string): Promise<{ token: string; stream: string; expires_in: number; expires_at: string }> {
  const res = await mint(id, key);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as never;
}

beforeAll(async () => {
  database = openDatabase(testDatabaseUrl(), 2);
  const keys = new ApiKeyStore(database.db);
  keyA = (await keys.create(`st-a-${tag}`, 'a')).key;
  keyB = (await keys.create(`st-b-${tag}`, 'b')).key;
  worker = await startWorker(config, pino({ level: 'silent' }));
  api = await startApi(config, pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }));
});
afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await database?.close();
  await obliterateQueues([config.QUEUE_NAME], config.REDIS_URL, config.QUEUE_PREFIX);
});

describe('stream tokens', () => {
  it("are minted with a key for one of the tenant's sessions, and open that session's stream without the key (an EventSource)", async () => {
    const id = await createSession(keyA);
    const minted = await tokenFor(id, keyA);
    expect(minted.token).toMatch(/^bo1st_[\w-]{43}$/);
    expect(minted.expires_in).toBe(config.STREAM_TOKEN_TTL_SECONDS);
    expect(Date.parse(minted.expires_at) - Date.now()).toBeGreaterThan((config.STREAM_TOKEN_TTL_SECONDS - 5) * 1000);
    expect(minted.stream).toBe(`/v1/sessions/${id}/stream?stream_token=${minted.token}`);
    const got = await readStream(`${api.url}${minted.stream}`);
    assertGapless(got);
    expect(got.envelopes.at(-1)!.type).toBe('session.completed');
    // Still good for a resume (an EventSource's reconnect, or ?after=) until it expires.
    const resumed = await readStream(`${api.url}${minted.stream}&after=3`);
    assertGapless(resumed, 4);
  });

  it('need a key to be minted, and only for a session of its tenant', async () => {
    const id = await createSession(keyA);
    const unauthorized = await expectProblem(await mint(id), 401);
    expect(unauthorized.type).toBe('urn:bo1:problem:unauthorized');
    await expectProblem(await mint(id, keyB), 404);
    await expectProblem(await mint(randomUUID(), keyA), 404);
    await expectProblem(await mint('not-a-uuid', keyA), 400, 'params.id');
  });

  it("are refused for another session's stream, on every other route, and when unknown or malformed", async () => {
    const mine = await createSession(keyA);
    const other = await createSession(keyA);
    const { token } = await tokenFor(mine, keyA);
    const withToken = (path: string, init: RequestInit = {}) => fetch(`${api.url}${path}${path.includes('?') ? '&' : '?'}stream_token=${token}`, init);
    const refused = await withToken(`/v1/sessions/${other}/stream`);
    const other401 = (await expectProblem(refused.clone(), 401)) as { detail: string };
    expect(other401.detail).toMatch(/another session/);
    // The problem names the request without the token: clients show and log problem bodies.
    expect(((await refused.json()) as { instance: string }).instance).toBe(`/v1/sessions/${other}/stream?stream_token=[redacted]`);
    for (const path of [`/v1/sessions/${mine}`, `/v1/sessions/${mine}/events`, `/v1/sessions/${mine}/transcript`, '/v1/sessions']) {
      const body = await expectProblem(await withToken(path), 401);
      expect(body.detail).toMatch(/accepted by GET \/v1\/sessions\/\{id\}\/stream only/);
    }
    await expectProblem(await withToken(`/v1/sessions/${mine}/cancel`, { method: 'POST' }), 401);
    await expectProblem(await withToken(`/v1/sessions/${mine}/stream-token`, { method: 'POST' }), 401);
    await expectProblem(await fetch(`${api.url}/v1/sessions/${mine}/stream?stream_token=bo1st_${'x'.repeat(43)}`), 401);
    await expectProblem(await fetch(`${api.url}/v1/sessions/${mine}/stream?stream_token=nonsense`), 401);
    await expectProblem(await fetch(`${api.url}/v1/sessions/${mine}/stream?stream_token=${token}&stream_token=${token}`), 401);
    // A key is still a key: sent with the token, it decides (here: tenant B, for whom the session does not exist).
    await expectProblem(await withToken(`/v1/sessions/${mine}/events`, { headers: bearer(keyB) }), 404);
  });

  it('never reach the log: the request line shows the URL with the token redacted', async () => {
    const id = await createSession(keyA);
    const { token, stream } = await tokenFor(id, keyA);
    await readStream(`${api.url}${stream}`);
    await fetch(`${api.url}/v1/sessions/${id}?stream_token=${token}`);
    const log = lines.join('');
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.slice(6));
    const urls = lines.map((l) => JSON.parse(l) as { req?: { url: string } }).flatMap((l) => (l.req ? [l.req.url] : []));
    expect(urls).toContain(`/v1/sessions/${id}/stream?stream_token=[redacted]`);
    expect(urls).toContain(`/v1/sessions/${id}?stream_token=[redacted]`);
  });
});
