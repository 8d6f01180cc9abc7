/**
 * `npm run chaos`: fault injection on the simulated board, loopback only,
 * bounded in count and time. Starts its own Redis (`redis-server` on a free
 * port, killed and restarted for the outage) and its own Postgres (a
 * throwaway cluster made with `initdb` as the postgres OS user on a free
 * port, stopped in immediate mode and started again for its outage, removed
 * at the end; where that is impossible, the shared server, cut off through a
 * TCP proxy instead). Runs four faults — worker SIGKILL, API restart, Redis
 * outage, Postgres outage — each with sessions running and late subscribers
 * joining their streams, then fuzzes every route, and prints the figures the
 * README quotes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import fc from 'fast-check';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config/config';
import { ensureDatabase, openDatabase, runMigrations } from '../../src/db/client';
import { startApi, type RunningApi } from '../../src/main/services';
import { envFor, exited, freePort, spawnEntry } from '../support/child';
import { anyRequest, send, violation } from '../support/fuzz-requests';
import { readStream, type Received, type StreamFailure } from '../support/sse-client';
import { TcpProxy } from '../support/tcp-proxy';

const DEADLINE = Date.now() + Number(process.env.CHAOS_MAX_MS ?? 15 * 60_000);
const SESSIONS_PER_FAULT = Number(process.env.CHAOS_SESSIONS ?? 12);
/** Late subscribers each round aims for; a round tops its sessions up (to SESSIONS_PER_FAULT × 3 at most) while it has fewer live ones than it started with. */
const SUBSCRIBERS_PER_FAULT = Number(process.env.CHAOS_SUBSCRIBERS ?? 150);
const ROUND_MAX_MS = Number(process.env.CHAOS_ROUND_MAX_MS ?? 90_000);
const PG_OUTAGE_MS = 4000;
const FAULT_AFTER = Math.min(40, SUBSCRIBERS_PER_FAULT);
/** Which fault rounds to run (all by default), e.g. CHAOS_ROUNDS=postgres-outage for one. */
const ROUNDS = new Set((process.env.CHAOS_ROUNDS ?? 'worker-kill,api-restart,redis-outage,postgres-outage').split(','));
const FUZZ_REQUESTS = Number(process.env.CHAOS_FUZZ ?? 10_000);
const silent = pino({ level: 'silent' });

const pgShared = process.env.CHAOS_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const inDatabase = (url: string) => Object.assign(new URL(url), { pathname: '/bo1_chaos' }).toString();

/** The Postgres the stack uses, and how to take it away and bring it back. */
interface Postgres {
  /** What the service connects to (database bo1_chaos). */
  url: string;
  describe: string;
  down(): Promise<void>;
  up(): Promise<void>;
  cleanup(): void;
}

/**
 * A throwaway cluster: initdb as the postgres OS user when running as root
 * (initdb refuses root), trust auth, listening on 127.0.0.1 only, its socket
 * in its own directory. Stopped in immediate mode (a crash: no checkpoint,
 * every backend killed) and started again, recovering from its WAL.
 */
async function ownCluster(): Promise<Postgres> {
  const bin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync('/tmp/bo1-chaos-pg-');
  let removed = false;
  const cleanup = () => {
    if (removed) return;
    removed = true;
    try {
      execFileSync(...as(`${bin}/pg_ctl`, ['-D', `${dir}/data`, 'stop', '-m', 'immediate', '-w']), { stdio: 'ignore' });
    } catch {
      // Not running.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  function as(cmd: string, args: string[]): [string, string[]] {
    return root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  }
  try {
    if (root) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
      chownSync(dir, uid, gid);
      chmodSync(dir, 0o700);
    }
    execFileSync(...as(`${bin}/initdb`, ['-D', `${dir}/data`, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']), { stdio: 'pipe' });
    const port = await freePort();
    const start = () =>
      execFileSync(
        ...as(`${bin}/pg_ctl`, ['-D', `${dir}/data`, '-l', `${dir}/log`, '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`, 'start']),
        { stdio: 'ignore' },
      );
    start();
    process.once('exit', cleanup);
    return {
      url: inDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`),
      describe: `its own Postgres cluster (${bin}, ${dir}, port ${port})`,
      down: async () => void execFileSync(...as(`${bin}/pg_ctl`, ['-D', `${dir}/data`, 'stop', '-m', 'immediate', '-w']), { stdio: 'ignore' }),
      up: async () => void start(),
      cleanup,
    };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** The fallback: the shared server, which must not be killed, behind a TCP proxy whose cut looks the same to the service. */
async function sharedBehindProxy(): Promise<Postgres> {
  const target = inDatabase(pgShared);
  await ensureDatabase(target);
  const { proxy, url } = await TcpProxy.in(target);
  return {
    url,
    describe: `the shared Postgres at ${new URL(pgShared).host} (database bo1_chaos), cut off through a TCP proxy for its outage`,
    down: () => proxy.cut(),
    up: () => proxy.restore(),
    cleanup: () => void proxy.close(),
  };
}

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
  /** Subscribers whose stream was open at some point while a fault was in progress. */
  acrossFault: number;
  missed: number;
  repeated: number;
  outOfOrder: number;
  notEnded: number;
  unsettledSessions: number;
}

const totals: Figures = { subscribers: 0, acrossFault: 0, missed: 0, repeated: 0, outOfOrder: 0, notEnded: 0, unsettledSessions: 0 };
/** Workers that died of anything but the SIGKILLs the worker-kill round sends. */
let workersDied = 0;
const outageLatencies: { create: number[]; cancel: number[] } = { create: [], cancel: [] };
/** What the API answered while Postgres was down: 503 with a Retry-After, or anything else (status and route). */
const pgOutage = { answered503: 0, other: [] as string[] };

/**
 * A subscriber that resumed after `after` is owed after+1 … its terminal
 * event, each once, in order, with `id:` equal to the seq: `missed` counts
 * seqs in that range it never got, `repeated` every event it got a second
 * time or at or before its cursor, `outOfOrder` every event that came after
 * a later one or carried the wrong id.
 */
function tally(after: number, got: Received): { missed: number; repeated: number; outOfOrder: number } {
  const seqs = got.envelopes.map((e) => e.seq);
  const last = seqs.at(-1) ?? after;
  const seen = new Set<number>();
  let repeated = 0;
  let outOfOrder = 0;
  seqs.forEach((s, i) => {
    if (s <= after || seen.has(s)) repeated++;
    else if (i > 0 && s < seqs[i - 1]!) outOfOrder++;
    else if (got.ids[i] !== String(s)) outOfOrder++;
    seen.add(s);
  });
  let missed = 0;
  for (let s = after + 1; s <= last; s++) if (!seen.has(s)) missed++;
  return { missed, repeated, outOfOrder };
}

/**
 * A late subscriber that behaves as a client should: it opens the stream
 * after `after` (with Last-Event-ID or `?after=`), lets EventSource reconnect
 * after a dropped connection or `stream.closing`, and when EventSource gives
 * up on a 503 (the API cannot reach Postgres, or is shutting down) it waits a
 * second (Retry-After) and resumes after the last event it got, a few times.
 */
async function follow(base: string, after: number, useHeader: boolean): Promise<Received> {
  const all: Received = { envelopes: [], ids: [], closings: 0, connections: 0 };
  const add = (got: Received) => {
    all.envelopes.push(...got.envelopes);
    all.ids.push(...got.ids);
    all.closings += got.closings;
    all.connections += got.connections;
  };
  for (let attempt = 0; ; attempt++) {
    const from = all.envelopes.at(-1)?.seq ?? after;
    try {
      add(await readStream(useHeader ? base : `${base}?after=${from}`, { headers: useHeader ? { 'Last-Event-ID': String(from) } : {}, timeoutMs: 180_000 }));
      return all;
    } catch (err) {
      const failure = err as StreamFailure;
      if (failure.received) add(failure.received);
      if (failure.status !== 503 || attempt >= 10) throw Object.assign(failure, { received: all });
      await sleep(1000);
    }
  }
}

const ACTIVE = ['queued', 'running'];
const SETTLED = ['completed', 'failed', 'cancelled', 'awaiting_input'];

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
      LOG_LEVEL: process.env.CHAOS_WORKER_LOG_LEVEL ?? 'silent',
    });
  }

  spawnWorker() {
    const w = spawnEntry('worker', this.workerEnv());
    this.workers.push(w);
    // A worker that dies of anything but our SIGKILL is a finding: say so, with what it last said.
    w.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') return;
      workersDied++;
      console.log(`  a worker exited on its own (code ${code}, signal ${signal}): ${w.output().slice(-2000)}`);
    });
    return w;
  }

  /** Until every worker process has started and registered with the queue (a worker still starting refuses a Postgres that is down, by design). */
  async workersReady(): Promise<void> {
    const { Redis } = await import('ioredis');
    const connection = new Redis(this.redisPort, '127.0.0.1', { maxRetriesPerRequest: null });
    connection.on('error', () => {});
    const queue = new Queue(this.config.QUEUE_NAME, { connection });
    try {
      for (const until = Date.now() + 60_000; Date.now() < until; await sleep(200)) {
        const alive = this.workers.filter((w) => w.exitCode === null && w.signalCode === null).length;
        if ((await queue.getWorkersCount().catch(() => -1)) >= alive) return;
      }
    } finally {
      await queue.close();
      connection.disconnect();
    }
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

  /**
   * Sessions running while `fault` happens, and late subscribers joining them
   * at staggered times before, during and after it, each from a random point
   * of the log already written (half with Last-Event-ID, half with `?after=`).
   * While fewer sessions are live than it started with, the round creates
   * more, so subscribers keep joining until it has SUBSCRIBERS_PER_FAULT, or
   * ROUND_MAX_MS passes, or it has made SESSIONS_PER_FAULT × 3 sessions.
   */
  async round(name: string, fault: (ids: string[]) => Promise<void>): Promise<void> {
    if (!ROUNDS.has(name)) return;
    await this.workersReady();
    const roundEnds = Math.min(DEADLINE, Date.now() + ROUND_MAX_MS);
    const ids: string[] = [];
    const ended = new Set<string>();
    let made = 0;
    const createOne = async () => {
      const i = made++;
      const { id } = await this.create({ problem: `Should we expand into market ${i} this year or consolidate? (${name})`, seed: `chaos-${name}-${i}` });
      if (id) ids.push(id);
      return id;
    };
    for (let i = 0; i < SESSIONS_PER_FAULT; i++) await createOne();
    const readers: Promise<void>[] = [];
    let joined = 0;
    let acrossFault = 0;
    const faultWindow = { from: Infinity, to: Infinity };
    const join = (id: string, after: number) => {
      joined++;
      const opened = Date.now();
      // Half resume with the header EventSource itself sends on reconnect, half with the query parameter (the header wins on a reconnect).
      const useHeader = joined % 2 === 0;

      const count = (closed: number) => {
        totals.subscribers++;
        if (opened <= faultWindow.to && closed >= faultWindow.from) {
          acrossFault++;
          totals.acrossFault++;
        }
      };
      readers.push(
        follow(`${this.url}/v1/sessions/${id}/stream`, after, useHeader).then(
          (got) => {
            count(Date.now());
            const t = tally(after, got);
            totals.missed += t.missed;
            totals.repeated += t.repeated;
            totals.outOfOrder += t.outOfOrder;
            if (t.missed || t.repeated || t.outOfOrder) console.log(`  ${name}: subscriber to ${id} after ${after}: ${JSON.stringify(t)} seqs ${got.envelopes.map((e) => e.seq).join(',')}`);
          },
          (err: Error) => {
            count(Date.now());
            totals.notEnded++;
            console.log(`  ${name}: subscriber to ${id} after ${after} never reached the end: ${err.message}`);
          },
        ),
      );
    };
    const joining = (async () => {
      while (joined < SUBSCRIBERS_PER_FAULT && Date.now() < roundEnds) {
        const live = ids.filter((id) => !ended.has(id));
        if (live.length < SESSIONS_PER_FAULT && made < SESSIONS_PER_FAULT * 3) {
          if (!(await createOne())) await sleep(50);
          continue;
        }
        if (!live.length) break;
        const id = live[randomInt(live.length)]!;
        const snap = await this.snapshot(id);
        if (!snap) {
          // The API is restarting, or Postgres is down: try again in a moment.
          await sleep(50);
          continue;
        }
        if (!ACTIVE.includes(snap.status)) {
          ended.add(id);
          continue;
        }
        // Somewhere in what is already logged (at least one event still to replay, so an ending session cannot leave the reader with nothing).
        join(id, randomInt(Math.max(1, snap.last_seq)));
        await sleep(randomInt(5, 30));
      }
    })();
    // The fault starts once FAULT_AFTER subscribers have joined (or 10 s have passed), so many streams are open through it.
    for (const until = Date.now() + 10_000; joined < FAULT_AFTER && Date.now() < until; ) await sleep(100);
    faultWindow.from = Date.now();
    await fault(ids);
    faultWindow.to = Date.now();
    await joining;
    await Promise.all(readers);
    // After the fault, every session must end (or wait on a person) on its own.
    const unsettled = async () => (await Promise.all(ids.map((id) => this.snapshot(id)))).filter((s) => !s || !SETTLED.includes(s.status)).length;
    let left = await unsettled();
    while (left && Date.now() < DEADLINE) {
      await sleep(500);
      left = await unsettled();
    }
    totals.unsettledSessions += left;
    if (left) {
      const snaps = await Promise.all(ids.map(async (id) => ({ id, snap: await this.snapshot(id) })));
      const stuck = snaps.filter(({ snap }) => !snap || !SETTLED.includes(snap.status)).map(({ id, snap }) => `${id} ${snap ? `${snap.status} at seq ${snap.last_seq}` : 'unreadable'}`);
      console.log(`  ${name}: unsettled ${stuck.join(', ')}; workers alive: ${this.workers.filter((w) => w.exitCode === null && w.signalCode === null).length}`);
    }
    console.log(
      `${name}: ${ids.length} sessions, ${joined} late subscribers (${acrossFault} streaming while the fault was on, ${((faultWindow.to - faultWindow.from) / 1000).toFixed(1)} s), ${left} sessions neither ended nor waiting`,
    );
  }
}

async function main() {
  // Interrupted, the 'exit' handlers still stop and remove the cluster and kill the children.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  let pg: Postgres;
  try {
    if (process.env.CHAOS_POSTGRES === 'shared') throw new Error('CHAOS_POSTGRES=shared');
    pg = await ownCluster();
  } catch (err) {
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1) || (err as Error).message;
    pg = await sharedBehindProxy();
    console.log(
      process.env.CHAOS_POSTGRES === 'shared'
        ? `chaos: CHAOS_POSTGRES=shared: using ${pg.describe}`
        : `chaos: could not start a Postgres cluster of its own (${why}); FALLING BACK to ${pg.describe}`,
    );
  }
  console.log(`chaos: Postgres is ${pg.describe}`);
  try {
    await run(pg);
  } finally {
    pg.cleanup();
  }
}

async function run(pg: Postgres) {
  const databaseUrl = pg.url;
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
  const killChildren = () => {
    for (const w of chaos.workers) w.kill('SIGKILL');
    chaos.redis.kill('SIGKILL');
  };
  process.once('exit', killChildren);
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

    await chaos.round('postgres-outage', async (ids) => {
      await pg.down();
      // While it is down, every route that needs it answers 503 with a Retry-After, not a 500 (and not a hang).
      const outageEnds = Date.now() + PG_OUTAGE_MS;
      const id = ids[0] ?? '00000000-0000-4000-8000-000000000000';
      const probes: [string, RequestInit?][] = [
        [`/v1/sessions/${id}`],
        [`/v1/sessions`],
        [`/v1/sessions/${id}/events`],
        [`/v1/sessions/${id}/stream`],
        [`/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ problem: 'Should I open a shop while the database is down?' }) }],
        [`/v1/sessions/${id}/cancel`, { method: 'POST' }],
      ];
      for (let i = 0; Date.now() < outageEnds; i++) {
        const [path, init] = probes[i % probes.length]!;
        const res = await fetch(`${chaos.url}${path}`, { ...init, signal: AbortSignal.timeout(15_000) }).catch((err: Error) => err);
        if (res instanceof Error) pgOutage.other.push(`${init?.method ?? 'GET'} ${path}: ${res.message}`);
        else {
          await res.body?.cancel();
          if (res.status === 503 && Number(res.headers.get('retry-after')) > 0) pgOutage.answered503++;
          else pgOutage.other.push(`${init?.method ?? 'GET'} ${path}: ${res.status} (retry-after ${res.headers.get('retry-after')})`);
        }
        await sleep(100);
      }
      await pg.up();
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
    console.log(`Postgres: ${pg.describe}`);
    console.log(
      `late subscribers: ${totals.subscribers}${totals.subscribers < 400 ? ' (goal: at least 400)' : ''}, ${totals.acrossFault} of them streaming while a fault was on ` +
        `(events missed: ${totals.missed}, repeated: ${totals.repeated}, out of order: ${totals.outOfOrder}, streams that never reached the end: ${totals.notEnded})`,
    );
    console.log(
      `while Postgres was down (${PG_OUTAGE_MS / 1000} s): ${pgOutage.answered503} answers 503 with Retry-After, ${pgOutage.other.length} other${pgOutage.other.length ? `: ${pgOutage.other.slice(0, 5).join(' | ')}` : ''}`,
    );
    console.log(`fuzzed requests: ${requests.length} (5xx: ${fuzz5xx}, errors not problem+json: ${fuzzNotProblem})${examples.size ? `; e.g. ${[...examples].join(' | ')}` : ''}`);
    console.log(
      `during the Redis outage: ${outageLatencies.create.length} creates p50 ${percentile(outageLatencies.create, 50).toFixed(0)} ms, p99 ${percentile(outageLatencies.create, 99).toFixed(0)} ms, max ${Math.max(...outageLatencies.create).toFixed(0)} ms; ` +
        `${outageLatencies.cancel.length} cancels p50 ${percentile(outageLatencies.cancel, 50).toFixed(0)} ms, p99 ${percentile(outageLatencies.cancel, 99).toFixed(0)} ms, max ${Math.max(...outageLatencies.cancel).toFixed(0)} ms`,
    );
    console.log(`sessions neither terminal nor waiting after a fault: ${totals.unsettledSessions}; worker processes that died on their own: ${workersDied}`);
    const ok =
      totals.subscribers >= 400 && totals.missed === 0 && totals.repeated === 0 && totals.outOfOrder === 0 && totals.notEnded === 0 && fuzz5xx === 0 && fuzzNotProblem === 0 &&
      pgOutage.answered503 > 0 && pgOutage.other.length === 0 &&
      percentile(outageLatencies.create, 99) <= 1000 && percentile(outageLatencies.cancel, 99) <= 1000 && totals.unsettledSessions === 0 && workersDied === 0;
    console.log(ok ? 'all goals met' : 'GOALS MISSED');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await chaos.api.stop().catch(() => {});
    killChildren();
  }
}

await main();
process.exit();
