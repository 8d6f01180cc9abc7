/**
 * `npm run chaos`: fault injection on the simulated board, loopback only,
 * bounded in count and time. Starts its own Redis (`redis-server` on a free
 * port, killed and restarted for the outage) and uses its own database on
 * the local Postgres (`bo1_chaos`, truncated first; Postgres itself is not
 * killed). Runs three faults — worker SIGKILL, API restart, Redis outage —
 * each with sessions running and late subscribers joining their streams,
 * then fuzzes every route, and prints the figures the README quotes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config/config';
import { ensureDatabase, openDatabase, runMigrations } from '../../src/db/client';
import { startApi, type RunningApi } from '../../src/main/services';
import { envFor, exited, freePort, spawnEntry } from '../support/child';
import { anyRequest, send, violation } from '../support/fuzz-requests';
import { readStream, type Received } from '../support/sse-client';

const DEADLINE = Date.now() + Number(process.env.CHAOS_MAX_MS ?? 15 * 60_000);
const SESSIONS_PER_FAULT = Number(process.env.CHAOS_SESSIONS ?? 12);
const SUBSCRIBERS_PER_FAULT = Number(process.env.CHAOS_SUBSCRIBERS ?? 250);
const FUZZ_REQUESTS = Number(process.env.CHAOS_FUZZ ?? 10_000);
const silent = pino({ level: 'silent' });

const pgBase = process.env.CHAOS_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseUrl = Object.assign(new URL(pgBase), { pathname: '/bo1_chaos' }).toString();

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}

async function waitForRedis(port: number): Promise<void> {
  const { Redis } = await import('ioredis');
  for (;;) {
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    const ok = await probe.connect().then(() => probe.ping().then(() => true), () => false);
    probe.disconnect();
    if (ok) return;
    await sleep(50);
  }
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};

interface Figures {
  subscribers: number;
  missed: number;
  repeated: number;
  notEnded: number;
  unsettledSessions: number;
}

const totals: Figures = { subscribers: 0, missed: 0, repeated: 0, notEnded: 0, unsettledSessions: 0 };
const outageLatencies: { create: number[]; cancel: number[] } = { create: [], cancel: [] };

/** Seqs a subscriber should have got (after+1 … its terminal event) against what it got. */
function tally(after: number, got: Received): { missed: number; repeated: number } {
  const seqs = got.envelopes.map((e) => e.seq);
  const last = seqs.at(-1) ?? after;
  const seen = new Map<number, number>();
  for (const s of seqs) seen.set(s, (seen.get(s) ?? 0) + 1);
  let missed = 0;
  for (let s = after + 1; s <= last; s++) if (!seen.has(s)) missed++;
  const repeated = [...seen.values()].reduce((n, c) => n + c - 1, 0);
  return { missed, repeated };
}

class Chaos {
  api!: RunningApi;
  workers: ChildProcess[] = [];
  redis!: ChildProcess;

  constructor(
    readonly config: Config,
    readonly redisPort: number,
  ) {}

  get url() {
    return this.api.url;
  }

  workerEnv() {
    return envFor(this.config, {
      SIM_LATENCY_MS: '40',
      JOB_LOCK_MS: '2000',
      STALLED_INTERVAL_MS: '1000',
      RECONCILE_STALE_MS: '3000',
      RECONCILE_INTERVAL_MS: '1000',
    });
  }

  spawnWorker() {
    const w = spawnEntry('worker', this.workerEnv());
    this.workers.push(w);
    return w;
  }

  async killWorker() {
    const w = this.workers.splice(randomInt(this.workers.length), 1)[0];
    if (!w) return;
    w.kill('SIGKILL');
    await exited(w);
  }

  async create(body: Record<string, unknown>): Promise<{ id: string | null; ms: number }> {
    const t = performance.now();
    const res = await fetch(`${this.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) }).catch(() => null);
    const ms = performance.now() - t;
    return { id: res?.status === 202 ? ((await res.json()) as { id: string }).id : null, ms };
  }

  async cancel(id: string): Promise<number> {
    const t = performance.now();
    await fetch(`${this.url}/v1/sessions/${id}/cancel`, { method: 'POST', signal: AbortSignal.timeout(20_000) }).catch(() => null);
    return performance.now() - t;
  }

  async snapshot(id: string): Promise<{ status: string; last_seq: number } | null> {
    const res = await fetch(`${this.url}/v1/sessions/${id}`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
    return res?.ok ? ((await res.json()) as { status: string; last_seq: number }) : null;
  }

  /** Sessions running while `fault` happens, and late subscribers joining them throughout. */
  async round(name: string, fault: (ids: string[]) => Promise<void>): Promise<void> {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS_PER_FAULT; i++) {
      const { id } = await this.create({ problem: `Should we expand into market ${i} this year or consolidate? (${name})`, seed: `chaos-${name}-${i}` });
      if (id) ids.push(id);
    }
    const readers: Promise<void>[] = [];
    let joined = 0;
    const joining = (async () => {
      while (joined < SUBSCRIBERS_PER_FAULT && Date.now() < DEADLINE) {
        const id = ids[randomInt(ids.length)]!;
        const snap = await this.snapshot(id);
        if (!snap) {
          // The API is restarting: try again in a moment.
          await sleep(50);
          continue;
        }
        if (!['queued', 'running'].includes(snap.status)) {
          if ((await Promise.all(ids.map((s) => this.snapshot(s)))).every((s) => s && !['queued', 'running'].includes(s.status))) break;
          continue;
        }
        // Somewhere in what is already logged (at least one event still to replay, so an ending session cannot leave the reader with nothing).
        const after = randomInt(Math.max(1, snap.last_seq));
        joined++;
        readers.push(
          // `?after=`, not a Last-Event-ID header: the header would override the one EventSource sends when it reconnects.
          readStream(`${this.url}/v1/sessions/${id}/stream?after=${after}`, { timeoutMs: 180_000 }).then(
            (got) => {
              const t = tally(after, got);
              totals.subscribers++;
              totals.missed += t.missed;
              totals.repeated += t.repeated;
            },
            () => {
              totals.subscribers++;
              totals.notEnded++;
            },
          ),
        );
        await sleep(randomInt(5, 30));
      }
    })();
    await sleep(1000);
    await fault(ids);
    await joining;
    await Promise.all(readers);
    // After the fault, every session must end (or wait on a person) on its own.
    const unsettled = async () =>
      (await Promise.all(ids.map((id) => this.snapshot(id)))).filter((s) => !s || !['completed', 'failed', 'cancelled', 'awaiting_input'].includes(s.status)).length;
    let left = await unsettled();
    while (left && Date.now() < DEADLINE) {
      await sleep(500);
      left = await unsettled();
    }
    totals.unsettledSessions += left;
    console.log(`${name}: ${ids.length} sessions, ${joined} late subscribers, ${left} sessions neither ended nor waiting`);
  }
}

async function main() {
  await ensureDatabase(databaseUrl);
  const database = openDatabase(databaseUrl, 2);
  await runMigrations(database);
  await database.pool.query('truncate sessions cascade');
  await database.close();

  const redisPort = await freePort();
  const apiPort = await freePort();
  const config = loadConfig(
    {},
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      PORT: String(apiPort),
      LOG_LEVEL: 'silent',
      MIGRATE_ON_START: 'false',
      AUTH_MODE: 'open',
      RATE_LIMIT_PER_MINUTE: '0',
      MAX_ACTIVE_SESSIONS_PER_TENANT: '0',
      SSE_POLL_MS: '500',
      SSE_RETRY_MS: '100',
      RECONCILE_STALE_MS: '3000',
      RECONCILE_INTERVAL_MS: '1000',
      QUEUE_NAME: 'chaos',
    },
  );
  const chaos = new Chaos(config, redisPort);
  chaos.redis = startRedis(redisPort);
  await waitForRedis(redisPort);
  chaos.api = await startApi(config, silent);
  chaos.spawnWorker();
  chaos.spawnWorker();
  try {
    await chaos.round('worker-kill', async () => {
      for (let i = 0; i < 4; i++) {
        await chaos.killWorker();
        chaos.spawnWorker();
        await sleep(1500);
      }
    });

    await chaos.round('api-restart', async () => {
      for (let i = 0; i < 3; i++) {
        await chaos.api.stop();
        chaos.api = await startApi(config, silent);
        await sleep(1500);
      }
    });

    await chaos.round('redis-outage', async (ids) => {
      chaos.redis.kill('SIGKILL');
      await exited(chaos.redis);
      const outageEnds = Date.now() + 4000;
      let i = 0;
      while (Date.now() < outageEnds) {
        const c = await chaos.create({ problem: `Should I open a shop in town ${i++}? (during the outage)`, seed: `outage-${i}` });
        outageLatencies.create.push(c.ms);
        if (c.id) ids.push(c.id);
        const victim = await chaos.create({ problem: 'Should I cancel this?', mode: 'interactive' });
        outageLatencies.create.push(victim.ms);
        if (victim.id) outageLatencies.cancel.push(await chaos.cancel(victim.id));
      }
      chaos.redis = startRedis(redisPort);
      await waitForRedis(redisPort);
    });

    // Fuzz: every route of the app's OpenAPI document, with the workers idle.
    const doc = (await (await fetch(`${chaos.url}/openapi.json`)).json()) as Parameters<typeof anyRequest>[0];
    const seed = (await chaos.create({ problem: 'Should I fuzz this?' })).id;
    const requests = fc.sample(anyRequest(doc, seed ? [seed] : []), FUZZ_REQUESTS);
    let fuzz5xx = 0;
    let fuzzNotProblem = 0;
    const examples = new Set<string>();
    for (let i = 0; i < requests.length && Date.now() < DEADLINE; i += 8) {
      await Promise.all(
        requests.slice(i, i + 8).map(async (r) => {
          const o = await send(chaos.url, r).catch(() => ({ status: 599, contentType: '' }));
          const wrong = violation(r, o);
          if (!wrong) return;
          if (o.status >= 500) fuzz5xx++;
          else fuzzNotProblem++;
          if (examples.size < 5) examples.add(wrong);
        }),
      );
    }

    console.log('\n=== chaos figures ===');
    console.log(`late subscribers: ${totals.subscribers}${totals.subscribers < 400 ? ' (goal: at least 400)' : ''} (events missed: ${totals.missed}, repeated: ${totals.repeated}, streams that never reached the end: ${totals.notEnded})`);
    console.log(`fuzzed requests: ${requests.length} (5xx: ${fuzz5xx}, errors not problem+json: ${fuzzNotProblem})${examples.size ? `; e.g. ${[...examples].join(' | ')}` : ''}`);
    console.log(
      `during the Redis outage: ${outageLatencies.create.length} creates p50 ${percentile(outageLatencies.create, 50).toFixed(0)} ms, p99 ${percentile(outageLatencies.create, 99).toFixed(0)} ms, max ${Math.max(...outageLatencies.create).toFixed(0)} ms; ` +
        `${outageLatencies.cancel.length} cancels p50 ${percentile(outageLatencies.cancel, 50).toFixed(0)} ms, p99 ${percentile(outageLatencies.cancel, 99).toFixed(0)} ms, max ${Math.max(...outageLatencies.cancel).toFixed(0)} ms`,
    );
    console.log(`sessions neither terminal nor waiting after a fault: ${totals.unsettledSessions}`);
    const ok =
      totals.subscribers >= 400 && totals.missed === 0 && totals.repeated === 0 && totals.notEnded === 0 && fuzz5xx === 0 && fuzzNotProblem === 0 &&
      percentile(outageLatencies.create, 99) <= 1000 && percentile(outageLatencies.cancel, 99) <= 1000 && totals.unsettledSessions === 0;
    console.log(ok ? 'all goals met' : 'GOALS MISSED');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await chaos.api.stop().catch(() => {});
    for (const w of chaos.workers) w.kill('SIGKILL');
    chaos.redis.kill('SIGKILL');
  }
}

await main();
process.exit();
