import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { sql } from 'drizzle-orm';
import { drizzle, type PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/client';
import { lessons, sessions } from '../../src/db/schema';
import { embedSync } from '../../src/embeddings/local-embedder';
import { vectorShortlist } from '../../src/memory/hybrid';
import { MemoryStore, recallQueries, type NewMemory } from '../../src/memory/memory-store';
import { enableVectorIndex } from '../../src/memory/pgvector';

/**
 * The pgvector path, on PGlite in-process (it ships the extension; the
 * service's test Postgres does not): the HNSW index is built and used, and
 * recall answers exactly what the portable Hamming path answers.
 */

const DIM = 64;
const NOW = new Date('2026-03-01T00:00:00Z');
const TOPICS = ['pricing tier churn', 'hire senior engineer', 'seo versus paid ads', 'cash runway months', 'enterprise sales cycle', 'pivot to b2b market'];
const EXTRAS = ['risk', 'budget', 'timeline', 'team', 'customers', 'growth', 'margin', 'competitors'];

let client: PGlite;
let db: PgliteDatabase;
let portable: MemoryStore;
let indexed: MemoryStore;

async function session(tenantId: string): Promise<string> {
  const id = randomUUID();
  await db.insert(sessions).values({ id, tenantId, status: 'completed', phase: 'done', problem: 'p', provider: 'simulated', seed: 's' });
  return id;
}

function rowsFor(sessionId: string, personas: string[], perPersona: number): NewMemory[] {
  return personas.flatMap((persona, p) =>
    Array.from({ length: perPersona }, (_, i) => {
      const summary = `${TOPICS[(i + p) % TOPICS.length]} ${EXTRAS[i % EXTRAS.length]} ${EXTRAS[(i * 3 + p) % EXTRAS.length]} note ${i}`;
      return {
        id: randomUUID(),
        scope: 'session' as const,
        sessionId,
        subProblemId: `sp${i % 3}`,
        persona,
        category: i % 2 ? 'pricing' : 'hiring',
        summary,
        position: i % 4 ? 'for' : 'against',
        confidence: 0.7,
        anonymised: true,
        model: 'claude-test',
        promptVersion: 'memory_v1',
        embedding: embedSync(summary, DIM),
        embeddingProvider: 'local-hash',
        createdAt: new Date(NOW.getTime() - ((i * 37) % 300) * 86_400_000),
      };
    }),
  );
}

const plan = async (query: ReturnType<typeof sql>) =>
  db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('hnsw.ef_search', '100', true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
    const r = await tx.execute(sql`explain ${query}`);
    return (r.rows as { 'QUERY PLAN': string }[]).map((x) => x['QUERY PLAN']).join('\n');
  });

/** Prices sorting out, so even a small table's shortlist comes off the HNSW index (PGlite is one connection: a session setting holds). */
async function withoutSort(fn: () => Promise<void>): Promise<void> {
  await db.execute(sql`set enable_sort = off`);
  try {
    await fn();
  } finally {
    await db.execute(sql`reset enable_sort`);
  }
}

const small = { tenant: 'small', personas: ['maria', 'chen', 'tariq'] };

beforeAll(async () => {
  client = new PGlite({ extensions: { vector } });
  db = drizzle({ client });
  await migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  portable = new MemoryStore(db);
  indexed = new MemoryStore(db, { vectorIndex: true });
  // Written before the index exists: enableVectorIndex must backfill them.
  await portable.insertMemories(small.tenant, rowsFor(await session(small.tenant), small.personas, 60));
}, 120_000);
afterAll(async () => client?.close());

describe('pgvector path (PGlite)', () => {
  it('enables the index idempotently and backfills existing rows', async () => {
    expect(await enableVectorIndex(db, DIM)).toBe(true);
    expect(await enableVectorIndex(db, DIM)).toBe(true);
    await expect(enableVectorIndex(db, DIM * 2)).rejects.toThrow(/needs a migration/);
    const missing = await db.execute(sql`select count(*)::int as n from expert_memories where embedding_vec is null`);
    expect((missing.rows[0] as { n: number }).n).toBe(0);
    const indexes = await db.execute(sql`select indexname from pg_indexes where indexdef like '%USING hnsw%' order by 1`);
    expect(indexes.rows.map((r) => (r as { indexname: string }).indexname)).toEqual(['expert_memories_embedding_vec_idx', 'lessons_embedding_vec_idx']);
  });

  it('plans the vector candidate query on the HNSW index', async () => {
    // One expert with 2,000 memories: enough that the planner prefers the index to a sort (measured, not forced).
    const big = 'big';
    await indexed.insertMemories(big, rowsFor(await session(big), ['maria'], 2000));
    await db.execute(sql`analyze expert_memories`);
    const q = { persona: 'maria', text: 'pricing risk', vector: embedSync('pricing tier churn risk', DIM), limit: 8, halfLifeDays: 90, now: NOW };
    // Exactly the query recall runs.
    expect(await plan(recallQueries(big, q, true).vector)).toMatch(/Index Scan using expert_memories_embedding_vec_idx/);
    // The portable query of the same shortlist never touches it.
    expect(await plan(recallQueries(big, q, false).vector)).not.toMatch(/embedding_vec_idx/);
    // Rows written after enabling carry the vector too (a generated column: no writer can skip it).
    const missing = await db.execute(sql`select count(*)::int as n from expert_memories where embedding_vec is null`);
    expect((missing.rows[0] as { n: number }).n).toBe(0);
  });

  it('recalls exactly what the portable path recalls, whichever plan runs', async () => {
    const queries = ['pricing tier churn', 'hire a senior engineer soon', 'paid ads or seo', 'runway risk', 'enterprise customers growth'];
    const compare = async () => {
      for (const text of queries) {
        for (const persona of small.personas) {
          const q = { persona, category: 'pricing', text, vector: embedSync(text, DIM), limit: 10, halfLifeDays: 90, now: NOW };
          const [a, b] = [await portable.recall(small.tenant, q), await indexed.recall(small.tenant, q)];
          expect(a.length).toBeGreaterThan(0);
          expect(b.map((r) => r.id)).toEqual(a.map((r) => r.id));
          b.forEach((r, i) => expect(r.score).toBeCloseTo(a[i]!.score, 12));
        }
      }
    };
    await compare();
    await withoutSort(async () => {
      const q = { persona: 'chen', text: 'runway risk', vector: embedSync('runway risk', DIM), limit: 10, halfLifeDays: 90, now: NOW };
      expect(await plan(recallQueries(small.tenant, q, true).vector)).toMatch(/Index Scan using expert_memories_embedding_vec_idx/);
      await compare();
    });
  });

  it('searches lessons the same way on both paths', async () => {
    const t = 'lessons';
    const s = await session(t);
    for (const [i, topic] of TOPICS.entries()) {
      const text = `When ${topic} decides the outcome, check the numbers first`;
      await indexed.insertLesson(
        t,
        {
          id: randomUUID(),
          type: 'best_practice',
          lesson: text,
          triggerConditions: topic,
          suggestedFix: 'ask for evidence',
          confidence: i % 3 ? 0.8 : 0.3,
          tags: [],
          model: 'claude-test',
          promptVersion: 'lessons_v1',
          embedding: embedSync(text, DIM),
          embeddingProvider: 'local-hash',
        },
        s,
      );
    }
    const v = embedSync('cash runway months', DIM);
    const q = { text: 'cash runway', vector: v, limit: 5 };
    const compare = async () => {
      const [a, b] = [await portable.searchLessons(t, q), await indexed.searchLessons(t, q)];
      expect(a.length).toBe(4);
      expect(b.map((x) => x.id)).toEqual(a.map((x) => x.id));
      expect(b.every((x) => x.confidence >= 0.5)).toBe(true);
      const [na, nb] = [await portable.nearestLessons(t, v, 3), await indexed.nearestLessons(t, v, 3)];
      expect(nb.map((x) => x.lesson.id)).toEqual(na.map((x) => x.lesson.id));
    };
    await compare();
    await withoutSort(async () => {
      expect(await plan(vectorShortlist(lessons, sql`tenant_id = ${t}`, v, 100, true))).toMatch(/Index Scan using lessons_embedding_vec_idx/);
      await compare();
    });
  });
});
