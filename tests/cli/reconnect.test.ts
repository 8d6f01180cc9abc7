import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startApi, startWorker, type Running, type RunningApi } from '../../src/main/services';
import { freePort } from '../support/child';
import { getJson, testConfig } from '../support/stack';
import { bo1 } from './cli-process';

const silent = pino({ level: 'silent' });
let api: RunningApi | null = null;
let worker: Running | null = null;
afterAll(async () => {
  await api?.stop();
  await worker?.stop();
});

describe('bo1 across an API restart', () => {
  it('reconnects and renders every event exactly once, then exits 0', async () => {
    // The API must come back on the same address, and the session must be slow enough to restart it mid-stream.
    const port = await freePort();
    const config = testConfig({ PORT: String(port), SIM_LATENCY_MS: '150', SSE_RETRY_MS: '100' });
    worker = await startWorker(config, silent);
    api = await startApi(config, silent);
    const url = `http://127.0.0.1:${port}`;

    const run = bo1(
      ['ask', '--auto', '--trace', '--seed', 'cli-restart', 'Should I pivot my project management tool to serve only law firms, or stay horizontal?'],
      { BO1_URL: url },
    );
    run.child.stdin.end();
    await run.waitFor(/^Round 1\/\d+/m);
    await api.stop();
    api = null;
    // Let a few reconnect attempts fail against the closed port.
    await new Promise((r) => setTimeout(r, 1_000));
    api = await startApi(config, silent);
    expect(await run.exit).toBe(0);

    const out = run.stdout();
    const id = /^Session ([0-9a-f-]{36})/m.exec(out)![1]!;
    const log = (await getJson(`${url}/v1/sessions/${id}/events?limit=1000`)).items as { seq: number; type: string; data: any }[];
    const end = log.find((e) => e.type === 'session.completed')!.seq;
    // --trace lists every event the client accepted: 1..end, each once, in order.
    const traced = [...run.stderr().matchAll(/^#(\d+) (\S+)$/gm)].map((m) => Number(m[1]));
    expect(traced).toEqual(Array.from({ length: end }, (_, i) => i + 1));
    // It was a mid-stream restart: events kept coming after the first reconnect notice.
    const err = run.stderr();
    expect(err).toMatch(/reconnecting in \d+ ms/);
    expect(err.indexOf('reconnecting in')).toBeLessThan(err.indexOf(`#${end} session.completed`));
    expect(run.stderr()).not.toMatch(/^bo1:/m);

    const contributions = log.filter((e) => e.type === 'contribution.completed');
    expect(contributions.length).toBeGreaterThan(3);
    for (const c of contributions) expect(out.split(`[${c.data.name}] ${c.data.text}`).length - 1, `seq ${c.seq}`).toBe(1);
    expect(out.match(/=== RECOMMENDATION ===/g)).toHaveLength(1);
    expect(out.match(/=== PROBLEM STATEMENT ===/g)).toHaveLength(1);
    expect(out).toMatch(/Session completed · cost/);
  });
});
