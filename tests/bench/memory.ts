/**
 * Memory recall at scale: 100,000 cross-session memories of one tenant (9
 * experts, 10 problem categories, a year of dates, 256-dim local-embedder
 * vectors) next to another tenant's rows, then recall() for one expert with
 * 200 different queries. Measured on the given Postgres (portable Hamming
 * path) and on PGlite with pgvector (HNSW path). Target: p95 < 20 ms.
 * Figures only; nothing here asserts. Cleans up its own tenants.
 */
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { inArray, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_DIR, openDatabase, runMigrations } from '../../src/db/client';
import { sessions } from '../../src/db/schema';
import { embedSync } from '../../src/embeddings/local-embedder';
import { cosine } from '../../src/domain/metrics';
import type { Exec } from '../../src/memory/hybrid';
import { MemoryStore, recallQueries, type NewMemory, type RecallQuery } from '../../src/memory/memory-store';
import { enableVectorIndex } from '../../src/memory/pgvector';
import { pct } from './percentile';

const ROWS = Number(process.env.BENCH_MEMORY_ROWS ?? 100_000);
// PGlite (single-threaded wasm) loads 100k rows in ~1 min but builds their HNSW index in ~5 min: fewer by default.
const PGLITE_ROWS = Number(process.env.BENCH_MEMORY_PGLITE_ROWS ?? Math.min(ROWS, 25_000));
const OTHER_TENANT_ROWS = 10_000;
const QUERIES = 200;
const DIM = 256;
const PERSONAS = ['maria', 'chen', 'tariq', 'nina', 'omar', 'lena', 'raj', 'sofia', 'yuki'];
const CATEGORIES = ['pricing', 'hiring', 'marketing', 'fundraising', 'product', 'operations', 'legal', 'partnerships', 'expansion', 'strategy'];
const WORDS = (
  'price pricing tier subscription churn retention revenue margin cost budget cash runway burn payback cac ltv ' +
  'hire engineer senior junior contractor team culture manager salary equity remote office lease ' +
  'seo ads paid organic content brand funnel conversion trial freemium enterprise smb sales cycle pipeline ' +
  'investor seed series valuation dilution loan grant bootstrap profit forecast scenario risk downside ' +
  'launch roadmap feature mvp pivot market segment competitor moat partner channel reseller integration ' +
  'supplier logistics inventory warehouse compliance contract liability regulation privacy security ' +
  'europe asia expansion localisation currency tax timeline deadline quarter month year growth scale ' +
  'customer interview survey feedback demand willingness evidence assumption experiment metric target ' +
  'onboarding activation dashboard analytics api mobile desktop platform marketplace agency consultant ' +
  'hardware software cloud hosting vendor procurement negotiation discount bundle upsell renewal invoice ' +
  'refund support ticket backlog sprint deploy outage incident quality testing hiring interviewer referral ' +
  'recruiter bonus commission quota territory region franchise retail wholesale distributor shipping ' +
  'packaging manufacturing factory capacity utilisation headcount layoff morale burnout turnover training ' +
  'mentor advisor board founder cofounder ceo cfo cto lawyer accountant audit patent trademark license ' +
  'lawsuit dispute insurance debt credit interest inflation recession competition differentiation niche ' +
  'premium discounting positioning messaging campaign newsletter webinar conference community referral ' +
  'partnership acquisition merger exit ipo liquidity cashflow receivables payables overhead rent utilities'
).split(' ');
const DAY = 86_400_000;

/** Deterministic PRNG (mulberry32), so every run measures the same data and queries. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Skewed word choice (the commonest word in ~1 of 4 memories, most words in ~1 of 30), as in one domain's text. */
const word = (rnd: () => number) => WORDS[Math.floor(WORDS.length * rnd() ** 1.5)]!;
const phrase = (rnd: () => number, n: number) => Array.from({ length: n }, () => word(rnd)).join(' ');

const ms = (n: number) => n.toFixed(2);

function memories(tenantSessions: string[], count: number, seed: number, now: Date): NewMemory[] {
  const rnd = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const summary = `${phrase(rnd, 8 + Math.floor(rnd() * 8))}.`;
    const position = phrase(rnd, 4 + Math.floor(rnd() * 4));
    return {
      id: randomUUID(),
      scope: 'session',
      sessionId: tenantSessions[i % tenantSessions.length]!,
      subProblemId: `sp${i % 5}`,
      persona: PERSONAS[i % PERSONAS.length]!,
      category: CATEGORIES[Math.floor(rnd() * CATEGORIES.length)]!,
      summary,
      position,
      confidence: 0.5 + rnd() / 2,
      anonymised: true,
      model: 'claude-bench',
      promptVersion: 'memory_v1',
      embedding: embedSync(`${summary} ${position}`, DIM),
      embeddingProvider: 'local-hash',
      createdAt: new Date(now.getTime() - rnd() * 365 * DAY),
    };
  });
}

async function seed(db: Exec, store: MemoryStore, tenantId: string, rows: number, rngSeed: number, now: Date): Promise<string[]> {
  const ids = Array.from({ length: Math.max(1, Math.ceil(rows / 100)) }, () => randomUUID());
  for (let i = 0; i < ids.length; i += 1000) {
    await db.insert(sessions).values(
      ids.slice(i, i + 1000).map((id) => ({ id, tenantId, status: 'completed', phase: 'done', problem: 'bench', provider: 'simulated', seed: 'bench' })),
    );
  }
  // Generated and written in slices: 100k 256-dim rows at once would hold ~1 GB of JS arrays.
  for (let done = 0; done < rows; done += 10_000) {
    await store.insertMemories(tenantId, memories(ids, Math.min(10_000, rows - done), rngSeed + done, now));
  }
  return ids;
}

interface Measured {
  p50: number;
  p95: number;
  /** Server time (planning + execution, EXPLAIN ANALYZE) of the two candidate queries, summed. */
  server50: number;
  server95: number;
  avgResults: number;
  overlap: number;
}

/** Postgres-side milliseconds of recall's candidate queries for `q` (the final fetch of ≤ limit rows by key is ~0.1 ms). */
async function serverMs(db: Exec, tenantId: string, q: RecallQuery, pgvector: boolean): Promise<number> {
  const { text, vector } = recallQueries(tenantId, q, pgvector);
  return db.transaction(async (tx) => {
    if (pgvector) await tx.execute(sql`select set_config('hnsw.ef_search', '100', true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
    let total = 0;
    for (const query of [text, vector]) {
      const r = await tx.execute(sql`explain (analyze, timing off, format json) ${query}`);
      const [plan] = (r.rows[0] as { 'QUERY PLAN': { 'Planning Time': number; 'Execution Time': number }[] })['QUERY PLAN'];
      total += plan!['Planning Time'] + plan!['Execution Time'];
    }
    return total;
  });
}

/** 200 recalls for one expert; also how many of the exact top-10 cosine neighbours the shortlist kept (vector recall@10). */
async function measure(store: MemoryStore, db: Exec, tenantId: string, now: Date, pgvector: boolean): Promise<Measured> {
  const rnd = prng(99);
  const queries = Array.from({ length: QUERIES + 20 }, () => phrase(rnd, 2 + Math.floor(rnd() * 3)));
  const times: number[] = [];
  const server: number[] = [];
  let results = 0;
  for (const [i, text] of queries.entries()) {
    const q = { persona: 'maria', category: CATEGORIES[i % CATEGORIES.length]!, text, vector: embedSync(text, DIM), limit: 8, halfLifeDays: 90, now };
    const t0 = performance.now();
    const got = await store.recall(tenantId, q);
    const dt = performance.now() - t0;
    if (i >= 20) {
      times.push(dt); // the first 20 warm caches
      results += got.length;
      server.push(await serverMs(db, tenantId, q, pgvector));
    }
  }
  // Shortlist quality on 20 queries: exact top-10 by cosine over all of the expert's rows, vs the top-10 vector candidates.
  const all = (await db.execute(sql`select id, embedding from expert_memories where tenant_id = ${tenantId} and persona = 'maria'`)) as unknown as {
    rows: { id: string; embedding: number[] }[];
  };
  let kept = 0;
  for (const text of queries.slice(0, 20)) {
    const v = embedSync(text, DIM);
    const exact = all.rows
      .map((r) => ({ id: r.id, s: cosine(v, r.embedding) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 10)
      .map((r) => r.id);
    const got = await store.recall(tenantId, { persona: 'maria', text: '', vector: v, limit: 10, halfLifeDays: 1e12, now });
    kept += got.filter((g) => exact.includes(g.id)).length;
  }
  return {
    p50: pct(times, 50),
    p95: pct(times, 95),
    server50: pct(server, 50),
    server95: pct(server, 95),
    avgResults: results / times.length,
    overlap: kept / 200,
  };
}

const line = (what: string, r: Measured) =>
  `${what}: database side p50 ${ms(r.server50)} ms, p95 ${ms(r.server95)} ms (target p95 < 20 ms); ` +
  `recall() end to end p50 ${ms(r.p50)} ms, p95 ${ms(r.p95)} ms; ${r.avgResults.toFixed(1)} results/query; vector recall@10 vs exact ${(r.overlap * 100).toFixed(0)}%`;

async function onPostgres(databaseUrl: string, now: Date): Promise<string[]> {
  const database = openDatabase(databaseUrl, 4);
  const tenant = `bench-memory-${randomUUID().slice(0, 8)}`;
  const other = `${tenant}-other`;
  try {
    await runMigrations(database);
    const store = new MemoryStore(database.db);
    const t0 = performance.now();
    await seed(database.db, store, tenant, ROWS, 1, now);
    await seed(database.db, store, other, OTHER_TENANT_ROWS, 7, now);
    const loadS = (performance.now() - t0) / 1000;
    await database.db.execute(sql`vacuum analyze expert_memories`);
    const shape = `${ROWS} rows for the tenant + ${OTHER_TENANT_ROWS} for another, one expert (${Math.floor(ROWS / PERSONAS.length)} rows), ${QUERIES} queries`;
    const out = [
      `memory bench: ${shape}; loaded in ${loadS.toFixed(1)} s. Database side = planning + execution of recall's two candidate queries ` +
        `(they run side by side on the portable path); end to end = recall() from the client, with the final fetch and the re-rank`,
    ];
    // The covering prefilter index (migration 0003) lets the Hamming shortlist read index tuples, not scattered heap rows.
    out.push(line('  Postgres, portable Hamming path (covering prefilter index)', await measure(store, database.db, tenant, now, false)));
    return out;
  } finally {
    // By tenant, so a run that failed half-way is cleaned too; deleting the sessions cascades to their memories.
    await database.db.delete(sessions).where(inArray(sessions.tenantId, [tenant, other]));
    await database.close();
  }
}

async function onPglite(now: Date): Promise<string[]> {
  const client = new PGlite({ extensions: { vector } });
  try {
    const db = drizzle({ client });
    await migrate(db, { migrationsFolder: MIGRATIONS_DIR });
    const tenant = 'bench';
    const t0 = performance.now();
    await seed(db, new MemoryStore(db), tenant, PGLITE_ROWS, 1, now);
    await seed(db, new MemoryStore(db), 'other', Math.min(OTHER_TENANT_ROWS, PGLITE_ROWS / 10), 7, now);
    const loadS = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    await db.execute(sql`set maintenance_work_mem = '512MB'`);
    const on = await enableVectorIndex(db, DIM);
    const indexS = (performance.now() - t1) / 1000;
    await db.execute(sql`vacuum analyze expert_memories`);
    const r = await measure(new MemoryStore(db, { vectorIndex: on }), db, tenant, now, on);
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
      const q = { persona: 'maria', text: 'cash runway', vector: embedSync('cash runway', DIM), limit: 8, halfLifeDays: 90, now };
      const p = await tx.execute(sql`explain ${recallQueries(tenant, q, true).vector}`);
      return (p.rows as { 'QUERY PLAN': string }[]).some((x) => x['QUERY PLAN'].includes('embedding_vec_idx')) ? 'HNSW index' : 'no HNSW index';
    });
    const scaled = PGLITE_ROWS < ROWS ? ` (not ${ROWS}: the wasm HNSW build is slow; set BENCH_MEMORY_PGLITE_ROWS for more)` : '';
    return [
      line(`  PGlite + pgvector (in-process wasm, plan uses ${plan}), ${PGLITE_ROWS} rows${scaled}`, r) +
        `; loaded in ${loadS.toFixed(1)} s, index built in ${indexS.toFixed(1)} s`,
    ];
  } finally {
    await client.close();
  }
}

export async function memoryBench(databaseUrl: string): Promise<string[]> {
  const now = new Date();
  return [...(await onPostgres(databaseUrl, now)), ...(await onPglite(now))];
}
