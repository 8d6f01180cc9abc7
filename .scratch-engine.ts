import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { runSession, type RunnerDeps } from './src/app/run-session';
import { openDatabase, runMigrations } from './src/db/client';
import { event } from './src/domain/events';
import { SessionStore } from './src/db/session-store';
import { LlmGateway } from './src/llm/gateway';
import { loadPrompts } from './src/llm/prompts';
import { createSimulatedProvider } from './src/llm/simulated/simulated-provider';
import { DEFAULT_PRICES } from './src/config/config';
import { createLocalEmbedder } from './src/embeddings/local-embedder';

const url = 'postgres://postgres@127.0.0.1:5432/bo1_sim_scratch';
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
if (!(await admin.query("select 1 from pg_database where datname = 'bo1_sim_scratch'")).rowCount) await admin.query('create database bo1_sim_scratch');
await admin.end();
const database = openDatabase(url, 10);
await runMigrations(database);
const store = new SessionStore(database);
const deps: RunnerDeps = {
  store,
  gateway: new LlmGateway(createSimulatedProvider({ latencyMs: 0, jitter: 0 }), { models: { fast: 'claude-haiku-5-5', smart: 'claude-sonnet-5-5' }, prices: DEFAULT_PRICES }),
  notifier: { publish: async () => {} },
  prompts: loadPrompts(),
  embedder: createLocalEmbedder(),
};
const S = JSON.parse(readFileSync('/work/shared/problems/scenarios.json', 'utf8')).filter((s: any) => s.context);
const tallyOf: Record<string, number> = {};
const inc = (k: string) => (tallyOf[k] = (tallyOf[k] ?? 0) + 1);
const N = Number(process.env.N ?? 16);
for (let i = 0; i < N; i++) {
  const sc = S[i % S.length];
  const id = randomUUID();
  await store.create({ id, tenantId: 'default', problem: sc.problem, context: sc.context, options: {}, provider: 'simulated', seed: `eng${i}` }, event('session.created', { problem: sc.problem, context: sc.context, provider: 'simulated', mode: 'auto' }));
  let outcome: string;
  try { outcome = await runSession(deps, id, { finalAttempt: true }); } catch (e) { outcome = `threw ${(e as Error).message}`; }
  inc(`outcome:${outcome}`);
  const evs = await store.events(id, 0, 100000);
  for (const e of evs) {
    const d = e.data as any;
    if (e.type === 'round.completed' && d.stop?.stop) { inc(`stop:${d.stop.reason}`); inc(`stopRound:${d.round}`); }
    if (e.type === 'round.completed' && process.env.VERBOSE) console.log(d.subProblemId, d.round, JSON.stringify({ n: d.metrics.novelty, c: d.metrics.convergence, k: d.metrics.conflict, rel: d.metrics.relevance, mu: d.metrics.marginalUtility, rep: d.metrics.repetition, ag: d.metrics.agreement }), d.stop.reason);
    if (e.type === 'round.completed' && d.stop?.action === 'break_deadlock') inc('break_deadlock');
    if (e.type === 'moderator.intervened') inc(`moderator:${d.moderator}`);
    if (e.type === 'facilitator.message') inc(`facilitator:${d.kind}`);
    if (e.type === 'research.completed') inc('research');
    if (e.type === 'vote.completed') { inc(`mechanism:${d.tally.mechanism}`); if (d.tally.deferred) inc('deferred'); if (d.tally.tie?.length) inc('tie'); inc(`rev:${d.reversibility}`); }
    if (e.type === 'subproblem.completed' && d.quality?.deadlocksResolved) inc('deadlockResolved');
    if (e.type === 'synthesis.completed' && d.commitment) inc('commitment');
    if (e.type === 'session.failed') console.log('FAILED', JSON.stringify(d).slice(0, 500));
    if (e.type === 'recommendation.completed' && d.conflicts?.length) inc('finalConflicts');
  }
  inc(`events:${evs.length > 0}`);
}
console.log(JSON.stringify(tallyOf, null, 1));
await database.close();
