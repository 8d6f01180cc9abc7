/**
 * `npm run bench`: starts bo1 (API + worker, simulated board) as a child
 * process against the local Postgres and Redis, then measures from outside:
 *   1. POST /v1/sessions → first SSE event, and → session.started (p50, p99)
 *   2. one session watched by N concurrent SSE subscribers: events/s delivered
 *      and the commit → receipt delay (p50, p99)
 *   3. interactive sessions: resolve → 202, and resolve → the continuation's
 *      first event (a queued job that replays every committed step) (p50, p99)
 *   4. deliberations of every shared scenario at a fixed simulated latency:
 *      wall time vs the critical-path bound, calls, tokens, cost, prompt
 *      growth per round and the prompt-cache share (tests/bench/deliberation.ts)
 *   0. first, in-process: the intake harm screen's recall, false refusals and
 *      time per request on its labelled set, per layer (rules, semantic,
 *      combined: tests/bench/harm-screen.ts); BENCH_ONLY=harm-screen prints
 *      that alone, in about a minute
 *   5. last, in-process: the prompt cache's read share of input tokens and the
 *      cost per session and per sub-problem, on the simulated board and on the
 *      recorded model-written trials (tests/bench/cache.ts); BENCH_ONLY=cache
 *      (BENCH_ONLY=deliberation runs step 4 alone)
 *      prints that alone (with the harm screen before it), in under a minute
 * BENCH_ONLY=throughput runs only the worker-throughput figures (issue 16,
 * tests/bench/throughput.ts): worker CPU per model call at zero latency, and
 * wall ÷ bound with 200 sessions on one worker; BENCH_ONLY=sse only the
 * 1,000-subscriber fan-out against a bare Fastify SSE server (tests/bench/sse-fanout.ts); BENCH_ONLY=first-event
 * only POST → first SSE event, with the API and worker in one process and then in two.
 * Figures only; nothing here asserts. BENCH_SESSIONS, BENCH_SUBSCRIBERS,
 * BENCH_SIM_LATENCY_MS and BENCH_CALL_LATENCY_MS tune it.
 */
import { untilReady } from './ready';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { freePort } from '../support/child';
import { fileURLToPath } from 'node:url';
import { deliberationBench } from './deliberation';
import { memoryBench } from './memory';
import { checkpointBench } from './checkpoints';
import { harmScreenBench } from './harm-screen';
import { cacheBench } from './cache';
import { subscribe } from './sse';
import { startPair, throughputBench } from './throughput';
import { sseFanoutBench } from './sse-fanout';
import { ensureDatabase } from '../../src/db/client';
import { pct } from './percentile';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);
const WARM_UP = 20;
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 200);
const FANOUT_LATENCY = process.env.BENCH_SIM_LATENCY_MS ?? '20';
const CALL_LATENCY = process.env.BENCH_CALL_LATENCY_MS ?? '250';
// The harm screen needs no service: print it first, so a quick run can stop there. Another BENCH_ONLY leaves it out.
if (!process.env.BENCH_ONLY || process.env.BENCH_ONLY === 'harm-screen') {
  console.log(`\nharm screen (${new Date().toISOString()}, node ${process.version})`);
  for (const line of await harmScreenBench()) console.log(line);
  if (process.env.BENCH_ONLY === 'harm-screen') process.exit(0);
}

// Its own database, so sessions left over by tests (and the reconciler) do not run alongside.
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bo1_bench';
await ensureDatabase(DATABASE_URL);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
if (process.env.BENCH_ONLY === 'cache') {
  for (const line of await cacheBench(DATABASE_URL, REDIS_URL)) console.log(line);
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'throughput') {
  for (const line of await throughputBench(DATABASE_URL)) console.log(line);
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'sse') {
  for (const line of await sseFanoutBench(DATABASE_URL)) console.log(line);
  process.exit(0);
}

const fmt = (n: number) => n.toFixed(1);

async function startService(extra: Record<string, string>) {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL,
    REDIS_URL,
    PORT: String(port),
    QUEUE_NAME: `bench-${randomUUID().slice(0, 8)}`,
    LOG_LEVEL: 'warn',
    // Sessions an earlier, killed bench left running in this database are not adopted mid-measurement.
    RECONCILE_STALE_MS: String(100 * 365 * 24 * 3600_000),
    SIM_LATENCY_MS: '0',
    WORKER_CONCURRENCY: '8',
    // The bench is one client creating hundreds of sessions: no rate limit, no per-tenant cap.
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_ACTIVE_SESSIONS_PER_TENANT: '0',
    ...extra,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await untilReady(url, 200);
  return { url, stop: () => new Promise<void>((r) => (child.once('exit', () => r()), child.kill('SIGTERM'))) };
}

async function create(url: string, seed: string): Promise<string> {
  const res = await fetch(`${url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ problem: 'Should I introduce a $29/month tier or usage-based pricing?', context: '500 free users', seed }),
  });
  return ((await res.json()) as { id: string }).id;
}

/**
 * POST → first SSE event and → session.started, one POST after another. Loaded (the default): the sessions
 * created before go on running (at zero model latency the worker is then busy throughout). `alone`: each
 * session is cancelled once started and has ended before the next POST, so each measures the path of a
 * single session on an otherwise idle service.
 */
async function firstEvent(url: string, alone = false) {
  const toFirst: number[] = [];
  const toStarted: number[] = [];
  const ids: string[] = [];
  // The first sessions of a fresh process pay for the JIT and for opening pooled connections: warm up uncounted.
  const warmUp = alone ? WARM_UP : 0;
  for (let i = 0; i < SESSIONS + warmUp; i++) {
    if (i === warmUp) toFirst.length = toStarted.length = 0;
    const t0 = performance.now();
    const id = await create(url, `first-${i}`);
    ids.push(id);
    await new Promise<void>((resolve) => {
      let first = true;
      const s = subscribe(
        `${url}/v1/sessions/${id}/stream`,
        (type) => {
          if (first) {
            first = false;
            toFirst.push(performance.now() - t0);
          }
          if (type === 'session.started') {
            toStarted.push(performance.now() - t0);
            if (!alone) {
              s.close();
              resolve();
            } else void fetch(`${url}/v1/sessions/${id}/cancel`, { method: 'POST' });
          }
        },
        resolve,
      );
    });
  }
  // Nothing left running for the next measurement (or a later service's reconciler) to compete with.
  if (!alone) await Promise.all(ids.map((id) => fetch(`${url}/v1/sessions/${id}/cancel`, { method: 'POST' }).then((r) => r.body?.cancel())));
  return { toFirst, toStarted };
}

async function fanout(url: string) {
  const id = await create(url, 'fanout');
  const delays: number[] = [];
  let received = 0;
  let firstAt = 0;
  let lastAt = 0;
  let connected = 0;
  let allConnectedAt = Infinity;
  const pending: { at: number; ts: number }[] = [];
  await Promise.all(
    Array.from(
      { length: SUBSCRIBERS },
      () =>
        new Promise<void>((resolve) => {
          let first = true;
          subscribe(
            `${url}/v1/sessions/${id}/stream`,
            (_type, data, at) => {
              const env = JSON.parse(data) as { seq: number; ts: string };
              received += 1;
              firstAt ||= at;
              lastAt = at;
              if (first) {
                first = false;
                if (++connected === SUBSCRIBERS) allConnectedAt = at;
              }
              pending.push({ at, ts: Date.parse(env.ts) });
            },
            resolve,
          );
        }),
    ),
  );
  // Only events committed after every subscriber was attached are live deliveries (earlier ones were replays).
  for (const p of pending) if (p.ts > allConnectedAt) delays.push(p.at - p.ts);
  return { delays, received, seconds: (lastAt - firstAt) / 1000 };
}

if (process.env.BENCH_ONLY === 'first-event') {
  // As the full run measures it (API and worker in one process), then with the API in its own process, as deployed
  // (npm run api, npm run worker): the worker's load is then not the API's event loop's.
  const one = await startService({});
  // Alone first: the loaded run leaves its sessions running.
  const single = await firstEvent(one.url, true);
  const together = await firstEvent(one.url);
  await one.stop();
  const pair = await startPair(DATABASE_URL, { SIM_LATENCY_MS: '0', WORKER_CONCURRENCY: '8' });
  const singleApart = await firstEvent(pair.url, true);
  const apart = await firstEvent(pair.url);
  await pair.stop();
  for (const [how, r] of [
    ['API and worker in one process, loaded', together],
    ['API and worker in one process, one session at a time', single],
    ['API in its own process, loaded', apart],
    ['API in its own process, one session at a time', singleApart],
  ] as const) {
    console.log(`POST → first SSE event (${how}) over ${r.toFirst.length} sessions: p50 ${fmt(pct(r.toFirst, 50))} ms, p99 ${fmt(pct(r.toFirst, 99))} ms, max ${fmt(Math.max(...r.toFirst))} ms; → session.started p50 ${fmt(pct(r.toStarted, 50))} ms, p99 ${fmt(pct(r.toStarted, 99))} ms`);
  }
  process.exit(0);
}

if (process.env.BENCH_ONLY === 'deliberation') {
  const timed = await startService({ SIM_LATENCY_MS: CALL_LATENCY, SIM_JITTER: '0' });
  for (const line of await deliberationBench(timed.url, DATABASE_URL, Number(CALL_LATENCY))) console.log(line);
  await timed.stop();
  process.exit(0);
}

const fast = await startService({});
const { toFirst, toStarted } = await firstEvent(fast.url);
const checkpoints = await checkpointBench(fast.url, Number(process.env.BENCH_INTERACTIVE ?? 20));
await fast.stop();

const slow = await startService({ SIM_LATENCY_MS: FANOUT_LATENCY });
const fan = await fanout(slow.url);
await slow.stop();

const timed = await startService({ SIM_LATENCY_MS: CALL_LATENCY, SIM_JITTER: '0' });
const deliberation = await deliberationBench(timed.url, DATABASE_URL, Number(CALL_LATENCY));
await timed.stop();

console.log(`\nbo1 bench (${new Date().toISOString()}, node ${process.version})`);
console.log(`POST → first SSE event      over ${toFirst.length} sessions: p50 ${fmt(pct(toFirst, 50))} ms, p99 ${fmt(pct(toFirst, 99))} ms (target p99 < 100 ms)`);
console.log(`POST → session.started      over ${toStarted.length} sessions: p50 ${fmt(pct(toStarted, 50))} ms, p99 ${fmt(pct(toStarted, 99))} ms`);
console.log(
  `fan-out to ${SUBSCRIBERS} subscribers of one session (sim latency ${FANOUT_LATENCY} ms): ${fan.received} events in ${fmt(fan.seconds)} s = ${fmt(fan.received / fan.seconds)} events/s delivered`,
);
console.log(`commit → receipt delay       over ${fan.delays.length} deliveries: p50 ${fmt(pct(fan.delays, 50))} ms, p99 ${fmt(pct(fan.delays, 99))} ms (target p99 < 50 ms)`);
for (const line of checkpoints) console.log(line);
for (const line of deliberation) console.log(line);

// Memory recall at 100,000 rows: its own database work, no service needed (BENCH_SKIP_MEMORY=1 skips it).
if (!process.env.BENCH_SKIP_MEMORY) for (const line of await memoryBench(DATABASE_URL)) console.log(line);

for (const line of await cacheBench(DATABASE_URL, REDIS_URL)) console.log(line);
