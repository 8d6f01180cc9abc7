/**
 * The commit path alone (issue 16), in process: S sessions at once, each
 * running R rounds of P parallel steps (one event, one ledger row written
 * ahead and settled, the case-memory fold of the real policy), against the
 * SessionStore given by BENCH_STORE_MODULE (default: this tree's). Prints
 * CPU and wall per step, and statements per step.
 * `node --import tsx tests/bench/commit-path.ts`
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../src/db/client';
import { event } from '../../src/domain/events';
import { caseMemoryPolicy } from '../../src/memory/case-memory-policy';
import type { SessionStorePort } from '../../src/ports/session-store';

const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bo1_bench';
const S = Number(process.env.S ?? 40);
const R = Number(process.env.R ?? 10);
const P = Number(process.env.P ?? 5);
const mod = (await import(process.env.BENCH_STORE_MODULE ?? '../../src/db/session-store')) as { SessionStore: new (d: unknown) => SessionStorePort };
const database = openDatabase(url, 10);
let statements = 0;
const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
  statements += 1;
  return query.apply(this, a);
} as typeof pg.Client.prototype.query;
const store = new mod.SessionStore(database);
const policy = caseMemoryPolicy(1500);
const fold = (cur: unknown, envs: Parameters<typeof policy.reduce>[1]) => policy.reduce(cur, envs);

async function session(): Promise<void> {
  const id = randomUUID();
  await store.create({ id, tenantId: 'commit-bench', problem: 'p', context: '', options: {}, provider: 'simulated', seed: 's' }, event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' }));
  const { lease } = (await store.acquireLease(id))!;
  for (let r = 0; r < R; r++) {
    await Promise.all(
      Array.from({ length: P }, async (_, p) => {
        const key = `sp1/r${r}/p${p}`;
        const entry = { stepKey: key, provider: 'simulated', model: 'm', phase: 'debate', purpose: 'contribution', promptVersion: 'v1', inputTokens: 2000, outputTokens: 200, costUsd: 0.01, latencyMs: 0, attempt: 1, outcome: 'pending' };
        const callId = await store.openCall(id, entry);
        await store.commit(id, lease, {
          step: { key, result: { text: 'x'.repeat(400) } },
          events: [event('session.started', { attempt: r })],
          calls: [{ ...entry, id: callId, outcome: 'ok' }],
          caseMemory: fold,
        });
      }),
    );
  }
}

await session(); // warm up
statements = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(Array.from({ length: S }, session));
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const steps = S * R * P;
console.log(
  `${process.env.BENCH_STORE_MODULE ?? 'this tree'}: ${steps} steps (${S} sessions × ${R} rounds × ${P} parallel): CPU ${((cpu.user + cpu.system) / 1000 / steps).toFixed(3)} ms/step, wall ${(wall / steps).toFixed(3)} ms/step, ${(statements / steps).toFixed(2)} statements/step`,
);
await database.close();
