import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config/config';
import { startApi, startWorker, type Running, type RunningApi } from '../../src/main/services';
import type { LlmProvider } from '../../src/ports/llm';
import { testDatabaseUrl, testRedisUrl } from './env';
import { obliterateQueues, testQueueName } from './queues';

/** A config for one test file: the real test database and Redis, its own queue, a free port. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig(
    {},
    {
      DATABASE_URL: testDatabaseUrl(),
      REDIS_URL: testRedisUrl(),
      PORT: '0',
      QUEUE_NAME: testQueueName(),
      LOG_LEVEL: 'silent',
      MIGRATE_ON_START: 'false',
      SSE_HEARTBEAT_MS: '1000',
      // Test files share one database, and runs share it over hours: a reconciler must never adopt a session another file or
      // an earlier (killed) run left unfinished. An hour was not enough: a trial replay's worker adopted a run's leftovers
      // past that age and they took the replay's recorded answers. Tests of the reconciler set their own, on their own database.
      RECONCILE_STALE_MS: String(100 * 365 * 24 * 3600_000),
      // Sessions earlier test runs finished without memory jobs stay that way (tests/integration/reconciler.test.ts covers it on its own database).
      RECONCILE_MEMORY_JOBS: 'false',
      // No sweep unless a test asks for one: a sweep continues every expired checkpoint in the database on its own queue and
      // model, so a trial replay's worker, starting, took another file's expired sessions and answered them from its recording
      // (the replays' and the expiry test's rare failures). Tests of the sweep set an interval.
      RECONCILE_INTERVAL_MS: '0',
      // Keys, limits and caps are global state in that shared database: tests that exercise them opt in.
      AUTH_MODE: 'open',
      RATE_LIMIT_PER_MINUTE: '0',
      MAX_ACTIVE_SESSIONS_PER_TENANT: '0',
      ...overrides,
    },
  );
}

export interface Stack {
  config: Config;
  api: RunningApi;
  worker: Running | null;
  url: string;
  stop(): Promise<void>;
}

const silent = pino({ level: 'silent' });

/** API and (optionally) a worker in this process, against the real Postgres and Redis. */
export async function startStack(
  overrides: Record<string, string> = {},
  opts: { worker?: boolean; provider?: LlmProvider } = {},
): Promise<Stack> {
  const config = testConfig(overrides);
  const worker = opts.worker === false ? null : await startWorker(config, silent, opts.provider);
  const api = await startApi(config, silent);
  return {
    config,
    api,
    worker,
    url: api.url,
    stop: async () => {
      await api.stop();
      await worker?.stop();
      await obliterateQueues([config.QUEUE_NAME], config, config.QUEUE_PREFIX);
    },
  };
}

export async function createSession(url: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 202) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function snapshot(url: string, id: string): Promise<Record<string, any>> {
  return (await (await fetch(`${url}/v1/sessions/${id}`)).json()) as Record<string, any>;
}

export const waitForStatus = (url: string, id: string, statuses: string[], timeoutMs = 60_000) =>
  waitFor(async () => {
    const s = await snapshot(url, id);
    return statuses.includes(s.status) ? s : null;
  }, timeoutMs, `session ${id} to reach ${statuses.join('|')}`);

/** GET a JSON body, loosely typed: tests assert on its shape. */
export async function getJson(url: string, init?: RequestInit): Promise<any> {
  return (await fetch(url, init)).json();
}
