/**
 * SSE fan-out against a yardstick (issue 16): BENCH_SSE_SUBSCRIBERS (1,000)
 * clients on one session of one bo1 API process (a worker runs the session at
 * BENCH_SSE_LATENCY_MS, 1,000 by default, per model call), then the same number on a bare
 * Fastify + @fastify/sse server (tests/bench/bare-sse-server.ts) replaying the
 * very events bo1 streamed live, in the same bursts and at the same offsets (a
 * round's commits land as one batch, so bo1 sends bursts of a dozen envelopes,
 * some of tens of KB: a yardstick of evenly paced small envelopes measured a
 * different load). Per server: delivery delay (receipt − the event's ts, events
 * emitted after every client connected), and resident memory per subscriber
 * (peak RSS while streaming − RSS before the clients).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/child';
import { pct } from './percentile';
import { subscribe } from './sse';
import { cpuMs, create, startPair } from './throughput';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const N = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 1000);

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

interface Run {
  delays: number[];
  received: number;
  kbPerSub: number;
  /** The server process's CPU per event delivered to one subscriber, µs. */
  cpuUsPerDelivery: number;
  /** What one subscriber received live (after every client connected), in order: the bare server replays it. */
  live: { type: string; data: string; ts: number }[];
}

/** N clients on `url` until each sees `terminal`; the server's RSS sampled every 50 ms meanwhile. */
async function watch(url: string, pid: number, terminal: string): Promise<Run> {
  await new Promise((r) => setTimeout(r, 500));
  const before = rssKb(pid);
  const cpu0 = cpuMs(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 50);
  const pending: { at: number; ts: number }[] = [];
  const seen: Run['live'] = [];
  let connected = 0;
  let allAt = Infinity;
  await Promise.all(
    Array.from(
      { length: N },
      (_, k) =>
        new Promise<void>((resolve) => {
          let first = true;
          const s = subscribe(
            url,
            (type, data, at) => {
              if (first && ++connected === N) allAt = at;
              first = false;
              const ts = Date.parse((JSON.parse(data) as { ts: string }).ts);
              pending.push({ at, ts });
              if (k === 0) seen.push({ type, data, ts });
              if (type === terminal) (s.close(), resolve());
            },
            resolve,
          );
        }),
    ),
  );
  clearInterval(sampler);
  const cpu = cpuMs(pid) - cpu0;
  const delays = pending.filter((p) => p.ts > allAt).map((p) => p.at - p.ts);
  const live = seen.filter((e) => e.ts > allAt);
  return { delays, received: pending.length, kbPerSub: (peak - before) / N, cpuUsPerDelivery: (1000 * cpu) / pending.length, live };
}

async function bo1(databaseUrl: string): Promise<Run> {
  const svc = await startPair(databaseUrl, { SIM_LATENCY_MS: process.env.BENCH_SSE_LATENCY_MS ?? '1000', WORKER_CONCURRENCY: '4' });
  try {
    const id = await create(svc.url, { problem: 'Should I introduce a $29/month tier or usage-based pricing?', context: '500 free users', seed: 'sse-fanout' });
    return await watch(`${svc.url}/v1/sessions/${id}/stream`, svc.api.pid!, 'session.completed');
  } finally {
    await svc.stop();
  }
}

/** The bare server, replaying `live` (bo1's live events): the same envelopes, bursts and offsets. */
async function bare(live: Run['live']): Promise<Run> {
  const port = await freePort();
  const timeline = join(mkdtempSync(join(tmpdir(), 'bo1-sse-')), 'timeline.json');
  writeFileSync(timeline, JSON.stringify(live.map(({ type, data, ts }) => ({ type, data: JSON.parse(data) as unknown, offsetMs: ts - live[0]!.ts }))));
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/bare-sse-server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), SUBSCRIBERS: String(N), TIMELINE: timeline },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((r) => child.stdout!.once('data', () => r()));
  try {
    return await watch(`http://127.0.0.1:${port}/stream`, child.pid!, 'session.completed');
  } finally {
    await new Promise<void>((r) => (child.once('exit', () => r()), child.kill('SIGTERM')));
  }
}

export async function sseFanoutBench(databaseUrl: string): Promise<string[]> {
  const a = await bo1(databaseUrl);
  if (!a.live.length || a.live.at(-1)!.type !== 'session.completed') throw new Error('sse bench: the session ended before every subscriber connected');
  const b = await bare(a.live);
  const line = (name: string, r: Run) =>
    `  ${name.padEnd(6)} ${String(r.delays.length).padStart(7)} live deliveries: p50 ${pct(r.delays, 50).toFixed(1)} ms, p99 ${pct(r.delays, 99).toFixed(1)} ms; ${r.kbPerSub.toFixed(0)} KB resident per subscriber; ${r.cpuUsPerDelivery.toFixed(0)} µs server CPU per delivery`;
  return [
    `\nSSE fan-out to ${N} subscribers of one session, bo1's API (the worker at ${process.env.BENCH_SSE_LATENCY_MS ?? '1000'} ms per call) against a bare Fastify + @fastify/sse server replaying the same ${a.live.length} live events (${(a.live.reduce((n, e) => n + e.data.length, 0) / 1024).toFixed(0)} KB) in the same bursts`,
    line('bo1', a),
    line('bare', b),
    `  bo1 / bare: delivery p99 ${(pct(a.delays, 99) / pct(b.delays, 99)).toFixed(2)}× (target ≤ 1.5×), memory ${(a.kbPerSub / b.kbPerSub).toFixed(2)}× (target ≤ 2×)`,
  ];
}
