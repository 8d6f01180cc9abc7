import { spawn, spawnSync } from 'node:child_process';
import { createServer, Socket, type Server } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, startWorker, type RunningApi } from '../../src/main/services';
import { freePort } from '../support/child';
import { testDatabaseUrl } from '../support/env';
import { createSession, startStack, testConfig, waitFor, waitForStatus, type Stack } from '../support/stack';

let stack: Stack;
const logLines: string[] = [];
beforeAll(async () => {
  stack = await startStack({ CORS_ORIGINS: 'https://app.example.com' });
});
afterAll(async () => stack?.stop());

describe('request ids', () => {
  let api: RunningApi;
  beforeAll(async () => {
    // Its own API with a logger that keeps its lines, to see the id in them.
    const log = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    api = await startApi(testConfig({ QUEUE_NAME: stack.config.QUEUE_NAME }), log);
  });
  afterAll(async () => api?.stop());

  it('echoes a caller X-Request-Id and logs every line of the request with it', async () => {
    const res = await fetch(`${api.url}/v1/personas`, { headers: { 'X-Request-Id': 'trace-abc.123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
    const tagged = logLines.map((l) => JSON.parse(l) as { reqId?: string; msg: string }).filter((l) => l.reqId === 'trace-abc.123');
    expect(tagged.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
  });

  it('generates a UUID when none is sent, or when the sent one is not a sane token', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect((await fetch(`${api.url}/livez`)).headers.get('x-request-id')).toMatch(uuid);
    const forged = await fetch(`${api.url}/livez`, { headers: { 'X-Request-Id': 'a b"}{' } });
    expect(forged.headers.get('x-request-id')).toMatch(uuid);
  });

  it('sends it on an SSE stream too, whose headers go out before the handler ends', async () => {
    const id = await createSession(api.url, { problem: 'Should I stream with an id?' });
    const ctl = new AbortController();
    const res = await fetch(`${api.url}/v1/sessions/${id}/stream`, { headers: { 'X-Request-Id': 'stream-1' }, signal: ctl.signal });
    expect(res.headers.get('x-request-id')).toBe('stream-1');
    ctl.abort();
  });
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin, before auth, and exposes the headers a client reads', async () => {
    const res = await fetch(`${stack.url}/v1/sessions`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,idempotency-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Idempotency-Key/);
    const get = await fetch(`${stack.url}/v1/personas`, { headers: { Origin: 'https://app.example.com' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(get.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
  });

  it('gives another origin no CORS headers', async () => {
    const res = await fetch(`${stack.url}/v1/personas`, { headers: { Origin: 'https://evil.example.net' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('/metrics', () => {
  it('reports requests by route template, queue depth, sessions by status, the ledger by phase and model, and streams', async () => {
    const id = await createSession(stack.url, { problem: 'Should I measure before I optimise?' });
    await waitForStatus(stack.url, id, ['completed']);
    const res = await fetch(`${stack.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/bo1_http_requests_total\{method="GET",route="\/v1\/sessions\/:id",status="200"\} \d+/);
    expect(text).not.toContain(id);
    expect(text).toMatch(new RegExp(`bo1_queue_jobs\\{queue="${stack.config.QUEUE_NAME}",state="waiting"\\} 0`));
    expect(text).toMatch(/bo1_sessions\{status="completed"\} [1-9]\d*/);
    expect(text).toMatch(/bo1_model_calls\{phase="[a-z_]+",model="claude-haiku-5-5"\} [1-9]\d*/);
    expect(text).toMatch(/bo1_model_tokens\{phase="[a-z_]+",model="[^"]+",kind="input"\} [1-9]\d*/);
    expect(text).toMatch(/bo1_model_cost_usd\{phase="[a-z_]+",model="[^"]+"\} [\d.e-]+/);
    expect(text).toMatch(/bo1_stream_subscribers \d+/);
    expect(text).toMatch(/process_cpu_user_seconds_total/);
  });
});

describe('the worker health server', () => {
  it('serves /livez, /readyz (Postgres, Redis, the job loop) and /metrics on WORKER_HEALTH_PORT', async () => {
    const worker = await startWorker(testConfig({ QUEUE_NAME: stack.config.QUEUE_NAME, WORKER_HEALTH_PORT: '0' }), pino({ level: 'silent' }));
    try {
      expect(worker.healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(`${worker.healthUrl}/livez`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${worker.healthUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok', jobs: 'ok' } });
      expect(await (await fetch(`${worker.healthUrl}/metrics`)).text()).toContain(`bo1_queue_jobs{queue="${stack.config.QUEUE_NAME}-memory",state="active"}`);
    } finally {
      await worker.stop();
    }
  });
});

/** A TCP proxy to Postgres that can be cut, so the test takes Postgres away from one API without touching the server. */
async function cuttableProxy(target: URL): Promise<{ port: number; cut(): void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket().connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

describe('readiness when a dependency goes away', () => {
  it('readyz is 503 naming postgres once Postgres is unreachable; livez stays up', async () => {
    const proxy = await cuttableProxy(new URL(testDatabaseUrl()));
    const url = Object.assign(new URL(testDatabaseUrl()), { host: `127.0.0.1:${proxy.port}` }).toString();
    const api = await startApi(testConfig({ DATABASE_URL: url }), pino({ level: 'silent' }));
    try {
      expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
      proxy.cut();
      const res = await fetch(`${api.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe('fail');
      expect(body.checks.postgres).toMatch(/^fail: /);
      expect(body.checks.redis).toBe('ok');
      expect((await fetch(`${api.url}/livez`)).status).toBe(200);
    } finally {
      await api.stop().catch(() => {});
    }
  });

  const redisServer = spawnSync('redis-server', ['--version']).status === 0;
  it.skipIf(!redisServer)('readyz is 503 naming redis once Redis is unreachable', async () => {
    const port = await freePort();
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    try {
      const config = testConfig({ REDIS_URL: `redis://127.0.0.1:${port}` });
      const api = await waitFor(() => startApi(config, pino({ level: 'silent' })).catch(() => null), 10_000, 'the api on its own redis');
      try {
        expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
        redis.kill('SIGKILL');
        const body = await waitFor(async () => {
          const res = await fetch(`${api.url}/readyz`);
          return res.status === 503 ? ((await res.json()) as { checks: Record<string, string> }) : null;
        }, 10_000, 'readyz to fail');
        expect(body.checks.redis).toMatch(/^fail: /);
        expect(body.checks.postgres).toBe('ok');
      } finally {
        await api.stop().catch(() => {});
      }
    } finally {
      redis.kill('SIGKILL');
    }
  });
});
