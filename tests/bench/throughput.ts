/**
 * Worker throughput (issue 16): the API and one worker as separate processes,
 * so the worker's own CPU can be read from /proc.
 *   1. zero model latency: BENCH_TP_WARM sessions (default 3 × BENCH_TP_SESSIONS)
 *      to warm the worker up, then BENCH_TP_WINDOWS (default 3) windows of
 *      BENCH_TP_SESSIONS sessions at once: worker CPU and wall time per model
 *      call (every ledger row the worker wrote), per window and their median;
 *   2. SIM_LATENCY_MS=BENCH_TP_LATENCY_MS, SIM_JITTER=BENCH_TP_JITTER (default
 *      0: every call takes exactly the latency, so sessions started together
 *      stay in lockstep and their steps reach the worker in bursts, the worst
 *      case; 0.2 is the service's default), WORKER_CONCURRENCY =
 *      BENCH_TP_CONCURRENT: that many sessions at once, each session's wall
 *      time over its critical-path bound (p50, p90, max).
 * BENCH_TP_MODEL=sdk answers the zero-latency run's calls from the fake
 * Anthropic server (the simulated board's answers, its prompt-cache emulation)
 * in this process, the worker calling it through the real SDK: the worker's CPU
 * is then its own and the SDK's, as in production, without the stand-in
 * model's (the simulated provider, in the worker, is 14% of its CPU).
 * BENCH_CPU_PROF=dir runs the worker under `node --cpu-prof` into dir
 * (summarise with `node --import tsx tests/bench/cpu-profile.ts dir`);
 * BENCH_COUNT_QUERIES=1 makes the worker print the statements it sent, by kind;
 * BENCH_NODE_ARGS adds flags to the worker's node (`--perf-basic-prof` for
 * `perf record -p`, `--trace-opt`).
 */
import { untilReady } from './ready';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../support/child';
import { loadScenarios } from '../support/scenarios';
import { criticalPathBound } from './deliberation';
import { startFakeAnthropic } from '../support/fake-anthropic';
import { simulatedAnthropicResponder } from '../support/fake-answers';
import { pct } from './percentile';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TICK_MS = 1000 / 100; // USER_HZ on Linux
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** utime + stime of a process, in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

function start(entry: 'api' | 'worker', env: Record<string, string>, nodeArgs: string[] = []): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, `src/main/${entry}.ts`], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

const stop = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null ? r() : (c.once('exit', () => r()), c.kill('SIGTERM'))));

/** The API and one worker as two processes against `databaseUrl`, ready once a worker is on the queue. */
export async function startPair(databaseUrl: string, extra: Record<string, string>) {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    PORT: String(port),
    QUEUE_NAME: `tp-${randomUUID().slice(0, 8)}`,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_ACTIVE_SESSIONS_PER_TENANT: '0',
    // Sessions an earlier, killed bench left running in this database are not adopted mid-measurement.
    RECONCILE_STALE_MS: String(100 * 365 * 24 * 3600_000),
    SIM_JITTER: '0',
    ...(process.env.DATABASE_POOL_MAX && { DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX }),
    ...extra,
  };
  const api = start('api', env);
  const prof = process.env.BENCH_CPU_PROF;
  const worker = start('worker', env, [
    ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
    ...((process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)),
    ...(process.env.BENCH_COUNT_QUERIES ? ['--import', './tests/bench/count-queries.ts'] : []),
  ]);
  const url = `http://127.0.0.1:${port}`;
  await untilReady(url, 300);
  return { url, api, worker, stop: async () => (await stop(api), await stop(worker)) };
}

export async function create(url: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Waits until every session ended; returns their rows from Postgres. */
async function allDone(db: pg.Client, ids: string[]) {
  for (;;) {
    const { rows } = await db.query<{ id: string; status: string; started_at: Date; ended_at: Date | null; results: any }>(
      'select id, status, started_at, ended_at, results from sessions where id = any($1)',
      [ids],
    );
    if (rows.length === ids.length && rows.every((r) => ['completed', 'failed'].includes(r.status))) return rows;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Ledger rows the worker wrote for these sessions so far (memory jobs included: the worker runs them too). */
async function calls(db: pg.Client, ids: string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from llm_calls where session_id = any($1)', [ids]);
  return rows[0]!.n;
}

async function batch(url: string, n: number, tag: string): Promise<string[]> {
  const scenarios = loadScenarios();
  return Promise.all(
    Array.from({ length: n }, (_, i) => {
      const sc = scenarios[i % scenarios.length]!;
      return create(url, { problem: sc.problem, context: sc.context, seed: `${tag}-${i}` });
    }),
  );
}

/**
 * A server with autovacuum off (this machine's is) never vacuums or analyses the bench database as it grows: with
 * 65,000 memories recall's text shortlist scanned every row of a persona (no statistics, so no GIN index: 1.7 ms,
 * 0.13 ms after ANALYZE) and its index-only scans fetched every heap row, and 200 sessions measured p90 1.296 where
 * the same database after one VACUUM ANALYZE measured 1.131. The bench measures a maintained server: it does once
 * what autovacuum would have done, and says so.
 */
async function vacuumedIfOff(db: pg.Client): Promise<string | null> {
  const { rows } = await db.query<{ autovacuum: string }>('show autovacuum');
  if (rows[0]?.autovacuum !== 'off') return null;
  const t0 = performance.now();
  await db.query('vacuum analyze');
  return `\nautovacuum is off on this server: ran VACUUM ANALYZE on the bench database first, as autovacuum would have (${((performance.now() - t0) / 1000).toFixed(1)} s)`;
}

/** Rows of expert memory in the database: recall fills prompts with more remembered text, and costs more, as it grows. */
const memoryRows = async (db: pg.Client) => (await db.query<{ n: number }>('select count(*)::int as n from expert_memories')).rows[0]!.n;

export async function throughputBench(databaseUrl: string): Promise<string[]> {
  const out: string[] = [];
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const zeroN = Number(process.env.BENCH_TP_SESSIONS ?? 20);
  const conc = Number(process.env.BENCH_TP_CONCURRENT ?? 200);
  const latency = Number(process.env.BENCH_TP_LATENCY_MS ?? 1000);
  const run = randomUUID().slice(0, 6);
  const maintained = await vacuumedIfOff(db);
  if (maintained) out.push(maintained);

  if (!process.env.BENCH_TP_SKIP_ZERO) {
    const sdk = process.env.BENCH_TP_MODEL === 'sdk';
    const fake = sdk ? await startFakeAnthropic(simulatedAnthropicResponder) : null;
    const model = fake
      ? { LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-bench', ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MAX_RETRIES: '0' }
      : { SIM_LATENCY_MS: '0' };
    const svc = await startPair(databaseUrl, { ...model, WORKER_CONCURRENCY: String(zeroN) });
    // Warm up (JIT, pools, prompts) on a batch like the measured one first: after two sessions V8 was still
    // optimising the hot code, and its compiler threads were a quarter of the measured window's CPU (perf).
    const warm = Number(process.env.BENCH_TP_WARM ?? 3 * zeroN);
    for (let done = 0; done < warm; done += zeroN) await allDone(db, await batch(svc.url, Math.min(zeroN, warm - done), `tp-warm-${run}-${done}`));
    await new Promise((r) => setTimeout(r, 1000));
    // Several windows one after another: one alone swung by ±10% on this shared machine, and their run shows whether
    // the worker has settled (V8 still optimises functions first reached late, such as a rare vote shape).
    const windows = Number(process.env.BENCH_TP_WINDOWS ?? 3);
    const perCall: number[] = [];
    const lines: string[] = [];
    const from = monotonicUs();
    for (let w = 0; w < windows; w++) {
      const cpu0 = cpuMs(svc.worker.pid!);
      const t0 = performance.now();
      const ids = await batch(svc.url, zeroN, `tp-zero-${run}-${w}`);
      await allDone(db, ids);
      const wall = performance.now() - t0;
      const cpu = cpuMs(svc.worker.pid!) - cpu0;
      const n = await calls(db, ids);
      perCall.push(cpu / n);
      lines.push(`    window ${w + 1}: ${n} model calls, ${(cpu / n).toFixed(2)} ms CPU per call (${(cpu / 1000).toFixed(1)} s over ${(wall / 1000).toFixed(1)} s wall, ${((100 * cpu) / wall).toFixed(0)}% of a core); wall ${(wall / n).toFixed(2)} ms per call`);
    }
    // The measured windows, on the profile's clock (CLOCK_MONOTONIC, µs): cpu-profile.ts leaves start-up and warm-up out.
    if (process.env.BENCH_CPU_PROF) {
      // The worker's --cpu-prof-dir makes the folder when it exits, after this: a missing folder had thrown here and left the pair running.
      mkdirSync(process.env.BENCH_CPU_PROF, { recursive: true });
      writeFileSync(`${process.env.BENCH_CPU_PROF}/window.json`, JSON.stringify({ from, to: monotonicUs() }));
    }
    const memories = await memoryRows(db);
    await svc.stop();
    await fake?.close();
    out.push(
      `\nworker throughput, zero model latency: ${windows} windows of ${zeroN} sessions at once after ${warm} to warm up, WORKER_CONCURRENCY=${zeroN}, ${memories} expert memories in the database, ${sdk ? 'through the SDK to the fake Anthropic server in the bench process' : 'the simulated board in the worker'}`,
      ...lines,
      `  worker CPU ${pct(perCall, 50).toFixed(2)} ms per model call, the windows' median (target ≤ 1 ms CPU per call)`,
    );
  }

  if (!process.env.BENCH_TP_SKIP_CONCURRENT) {
    const jitter = process.env.BENCH_TP_JITTER ?? '0';
    const svc = await startPair(databaseUrl, { SIM_LATENCY_MS: String(latency), SIM_JITTER: jitter, WORKER_CONCURRENCY: String(conc) });
    const cpu0 = cpuMs(svc.worker.pid!);
    const t0 = performance.now();
    const ids = await batch(svc.url, conc, `tp-conc-${run}`);
    const rows = await allDone(db, ids);
    const wall = performance.now() - t0;
    const cpu = cpuMs(svc.worker.pid!) - cpu0;
    const ratios: number[] = [];
    const nominal: number[] = [];
    // Wall ÷ bound runs from a session's start: how long sessions queued before a worker took them is its own figure.
    const queued = rows.map((s) => s.started_at.getTime()).sort((a, b) => a - b);
    const lastEnd = Math.max(...rows.map((s) => s.ended_at!.getTime()));
    for (const s of rows) {
      if (s.status !== 'completed') continue;
      const ledger = (await db.query('select step_key, latency_ms from llm_calls where session_id = $1 order by id', [s.id])).rows as any[];
      const subProblems = (s.results?.subProblems ?? []) as { id: string; dependsOn: string[] }[];
      const took = s.ended_at!.getTime() - s.started_at.getTime();
      ratios.push(took / criticalPathBound(ledger, subProblems));
      // The ledger's latency is measured around the call, so it also holds the wait for the pending row and a busy
      // event loop: under load it grows with the overhead it should expose. The nominal bound counts each call at
      // exactly the simulated latency.
      nominal.push(took / criticalPathBound(ledger.map((r) => ({ ...r, latency_ms: latency })), subProblems));
    }
    const n = await calls(db, ids);
    const memories = await memoryRows(db);
    await svc.stop();
    out.push(`\nworker throughput, ${conc} sessions at once on one worker (WORKER_CONCURRENCY=${conc}, ${latency} ms per call, ${Number(jitter) ? `jitter ±${Math.round(Number(jitter) * 100)}%` : 'no jitter'}): ${ratios.length}/${conc} completed, ${n} calls, ${memories} expert memories in the database`);
    out.push(
      `  wall / critical-path bound: p50 ${pct(ratios, 50).toFixed(3)}, p90 ${pct(ratios, 90).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)} (target p90 ≤ 1.10); worker CPU ${((100 * cpu) / wall).toFixed(0)}% of a core over ${(wall / 1000).toFixed(1)} s`,
      `  against the nominal bound (every call exactly ${latency} ms): p50 ${pct(nominal, 50).toFixed(3)}, p90 ${pct(nominal, 90).toFixed(3)}, max ${Math.max(...nominal).toFixed(3)}`,
      `  starts spread over ${((queued.at(-1)! - queued[0]!) / 1000).toFixed(1)} s; first start → last end ${((lastEnd - queued[0]!) / 1000).toFixed(1)} s`,
    );
  }
  await db.end();
  return out;
}
