import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { expertMemories, sessions } from '../../src/db/schema';
import { cosine } from '../../src/domain/metrics';
import { eachQuery, float4Array, norm2, textCandidatesEach, textEachQuery, vectorCandidates, vectorCandidatesEach, vectorShortlist } from '../../src/memory/hybrid';
import { embedSync } from '../../src/embeddings/local-embedder';
import { embeddingBits, HASH_BITS, signBits, toPgVector } from '../../src/memory/vectors';
import { MemoryStore, type NewLesson, type NewMemory } from '../../src/memory/memory-store';
import type { MemoryPort } from '../../src/ports/memory';
import { testDatabaseUrl } from '../support/env';

const DIM = 64;
const NOW = new Date('2026-03-01T00:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);
const vec = (text: string) => embedSync(text, DIM);

let database: Database;
let store: MemoryStore;
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 4);
  store = new MemoryStore(database.db);
});
afterAll(async () => database?.close());

// Fresh tenants per test: the database is shared with other test files and runs.
const tenant = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

async function session(tenantId: string): Promise<string> {
  const id = randomUUID();
  await database.db.insert(sessions).values({ id, tenantId, status: 'completed', phase: 'done', problem: 'p', provider: 'simulated', seed: 's' });
  return id;
}

function memory(sessionId: string, over: Partial<NewMemory> & { summary: string }): NewMemory {
  return {
    id: randomUUID(),
    scope: 'session',
    sessionId,
    subProblemId: 'sp1',
    persona: 'maria',
    category: 'pricing',
    position: '',
    confidence: 0.8,
    anonymised: true,
    model: 'claude-test',
    promptVersion: 'memory_v1',
    embedding: vec(over.summary),
    embeddingProvider: 'local-hash',
    createdAt: daysAgo(1),
    ...over,
  };
}

function lesson(over: Partial<NewLesson> & { lesson: string }): NewLesson {
  return {
    id: randomUUID(),
    type: 'best_practice',
    triggerConditions: 'when a decision hinges on one unverified number',
    suggestedFix: 'ask for the number before debating',
    confidence: 0.8,
    tags: ['evidence'],
    model: 'claude-test',
    promptVersion: 'lessons_v1',
    embedding: vec(over.lesson),
    embeddingProvider: 'local-hash',
    ...over,
  };
}

const recallQ = (text: string, over: Partial<Parameters<MemoryStore['recall']>[1]> = {}) => ({
  persona: 'maria',
  text,
  vector: vec(text),
  limit: 10,
  halfLifeDays: 30,
  now: NOW,
  ...over,
});

const countOf = async (query: ReturnType<typeof sql>) =>
  Number(((await database.db.execute(query)).rows[0] as { n: number | string }).n);

describe('MemoryStore', () => {
  it('satisfies the engine port', () => {
    const port: MemoryPort = store;
    expect(port).toBe(store);
  });

  it('never crosses tenants', async () => {
    const [a, b] = [tenant('a'), tenant('b')];
    const s = await session(a);
    const row = memory(s, { summary: 'Paid ads beat SEO while payback must stay under 18 months' });
    await store.insertMemories(a, [row]);
    await store.insertLesson(a, lesson({ lesson: 'Check payback period before choosing a channel' }), s);

    expect(await store.recall(a, recallQ('paid ads payback'))).toHaveLength(1);
    expect(await store.recall(b, recallQ('paid ads payback'))).toEqual([]);
    expect((await store.list(b, { limit: 10 })).items).toEqual([]);
    expect(await store.get(b, row.id)).toBeNull();
    expect(await store.get(a, 'not-a-uuid')).toBeNull();
    expect(await store.delete(b, row.id)).toBe(false);
    expect(await store.supersede(b, row.id, row.id.replace(/.$/, '0'), NOW)).toBe(false);
    expect(await store.exportTenant(b)).toEqual({ memories: [], lessons: [] });
    expect(await store.searchLessons(b, { text: 'payback channel', vector: vec('payback channel'), limit: 5 })).toEqual([]);
    expect(await store.nearestLessons(b, vec('payback channel'), 5)).toEqual([]);
    expect(await store.deleteSessionContributions(b, s)).toEqual({ memories: 0, utterances: 0, lessonsDeleted: 0, lessonSourcesDeleted: 0 });
    // Writing under B against A's session is refused: it would hang B's rows off A's session.
    await expect(store.insertMemories(b, [memory(s, { summary: 'x' })])).rejects.toMatchObject({ code: 'tenancy' });

    expect(await store.get(a, row.id)).toMatchObject({ id: row.id, tenantId: a, sessionId: s });
    const exported = await store.exportTenant(a);
    expect(exported.memories.map((x) => x.id)).toEqual([row.id]);
    expect(exported.memories[0]).not.toHaveProperty('embedding');
    expect(exported.lessons).toHaveLength(1);
    expect(exported.lessons[0]!.sourceSessionIds).toEqual([s]);
  });

  it('ranks a text-and-vector match above a vector-only or text-only one, with provenance', async () => {
    const t = tenant('hybrid');
    const s = await session(t);
    const query = 'subscription pricing tier churn';
    const both = memory(s, { summary: 'Subscription pricing tier churn', embedding: vec(query) });
    // Nearly the query's vector, no query word in its text.
    const vectorOnly = memory(s, { summary: 'Customers left after the plan change', embedding: vec(`${query} customers left`) });
    // Every query word, the words spread out (a lower cover density), an unrelated vector.
    const textOnly = memory(s, { summary: 'Subscription churn rose after the pricing review of each tier', embedding: vec('warehouse forklift safety audit') });
    await store.insertMemories(t, [textOnly, vectorOnly, both]);

    const got = await store.recall(t, recallQ(query));
    expect(got[0]!.id).toBe(both.id);
    expect(got[0]!.ftsRank).toBeGreaterThan(0);
    expect(got[0]!.vectorSimilarity).toBeCloseTo(1, 5);
    expect(got.find((g) => g.id === vectorOnly.id)!.ftsRank).toBeNull();
    expect(got.find((g) => g.id === textOnly.id)!.ftsRank).toBeGreaterThan(0);
    expect(got[0]!.score).toBeGreaterThan(got[1]!.score);
    expect(got[0]).toMatchObject({ sessionId: s, subProblemId: 'sp1', persona: 'maria', category: 'pricing', model: 'claude-test', promptVersion: 'memory_v1' });
    expect(got[0]!.createdAt).toBe(both.createdAt!.toISOString());
    // Another persona's memories, this session's own, and other providers' vectors stay out.
    expect(await store.recall(t, recallQ(query, { persona: 'chen' }))).toEqual([]);
    expect(await store.recall(t, recallQ(query, { excludeSessionId: s }))).toEqual([]);
    expect(await store.recall(t, recallQ(query, { embeddingProvider: 'other', text: 'unrelated words' }))).toEqual([]);
  });

  it('decays by half-life: a newer memory outranks a better-matching old one', async () => {
    const t = tenant('recency');
    const s = await session(t);
    const old = memory(s, { summary: 'Hire a second engineer before launch', createdAt: daysAgo(60) });
    // A weaker match on both sides (no "launch"), so without decay the old one wins outright, never on a tie-break.
    const recent = memory(s, { summary: 'Hire a second engineer soon', createdAt: daysAgo(1) });
    await store.insertMemories(t, [old, recent]);

    const got = await store.recall(t, recallQ('Hire a second engineer before launch'));
    expect(got.map((g) => g.id)).toEqual([recent.id, old.id]);
    expect(got[1]!.recency).toBeCloseTo(0.25, 6);
    expect(got[0]!.recency).toBeCloseTo(0.5 ** (1 / 30), 6);
    // With (almost) no decay the better match wins again.
    const flat = await store.recall(t, recallQ('Hire a second engineer before launch', { halfLifeDays: 1e9 }));
    expect(flat[0]!.id).toBe(old.id);
  });

  it('boosts a category match without filtering on it', async () => {
    const t = tenant('category');
    const s = await session(t);
    const [id1, id2] = [randomUUID(), randomUUID()].sort();
    // Same text and date: the id tie-break ranks `other` (smaller id) first unless the category boost applies.
    const other = memory(s, { id: id1!, summary: 'Lease the office for two years', category: 'real_estate' });
    const match = memory(s, { id: id2!, summary: 'Lease the office for two years', category: 'hiring' });
    await store.insertMemories(t, [other, match]);

    expect((await store.recall(t, recallQ('lease office'))).map((g) => g.id)).toEqual([other.id, match.id]);
    const boosted = await store.recall(t, recallQ('lease office', { category: 'hiring' }));
    expect(boosted.map((g) => g.id)).toEqual([match.id, other.id]);
    expect(boosted.map((g) => g.categoryMatch)).toEqual([true, false]);
  });

  it('supersedes without deleting, and deleting the newer row restores the older', async () => {
    const t = tenant('supersede');
    const s = await session(t);
    const old = memory(s, { summary: 'Target CAC below 150 dollars', createdAt: daysAgo(10) });
    const newer = memory(s, { summary: 'Target CAC below 120 dollars now', createdAt: daysAgo(2) });
    await store.insertMemories(t, [old, newer]);
    const at = daysAgo(2);
    expect(await store.supersede(t, old.id, newer.id, at)).toBe(true);

    expect((await store.recall(t, recallQ('target CAC dollars'))).map((g) => g.id)).toEqual([newer.id]);
    const hist = await store.history(t, 'maria');
    expect(hist.map((h) => h.id)).toEqual([newer.id, old.id]);
    expect(hist[1]).toMatchObject({ supersededBy: newer.id, supersededAt: at.toISOString() });
    expect(hist[0]).toMatchObject({ supersededBy: null, supersededAt: null });

    expect(await store.delete(t, newer.id)).toBe(true);
    expect(await store.delete(t, newer.id)).toBe(false);
    expect(await store.get(t, newer.id)).toBeNull();
    expect(await store.get(t, old.id)).toMatchObject({ supersededBy: null, supersededAt: null });
    expect((await store.recall(t, recallQ('target CAC dollars'))).map((g) => g.id)).toEqual([old.id]);
  });

  it('tolerates rows of another dimension or bit encoding in the same expert', async () => {
    const t = tenant('mixed');
    const s = await session(t);
    const ok = memory(s, { summary: 'Raise prices for the enterprise tier' });
    const otherDim = memory(s, { summary: 'Raise prices for the enterprise tier', embedding: embedSync('Raise prices for the enterprise tier', 32) });
    const staleBits = memory(s, { summary: 'Raise prices for the enterprise tier too' });
    await store.insertMemories(t, [ok, otherDim, staleBits]);
    // As if written by an older encoding: bits of another length, which Postgres cannot XOR with the query's.
    await database.db.execute(sql`update expert_memories set embedding_bits = ${signBits(staleBits.embedding)}::varbit where id = ${staleBits.id}`);

    const got = await store.recall(t, recallQ('raise prices enterprise tier'));
    expect(got.map((g) => g.id).sort()).toEqual([ok.id, otherDim.id, staleBits.id].sort());
    // Only the row with a comparable vector is a vector candidate; the others come from full text alone.
    expect(got.filter((g) => g.vectorSimilarity !== null).map((g) => g.id)).toEqual([ok.id]);
    expect(embeddingBits(ok.embedding)).toHaveLength(HASH_BITS);
    expect(embeddingBits(ok.embedding)).toBe(embeddingBits([...ok.embedding]));
    expect(toPgVector([1, -0.5])).toBe('[1,-0.5]');
  });

  it('inserts idempotently and lists sub-problem summaries newest first', async () => {
    const t = tenant('idem');
    const s = await session(t);
    const rows = [
      memory(s, { scope: 'sub_problem', subProblemId: 'sp1', summary: 'first', createdAt: daysAgo(3) }),
      memory(s, { scope: 'sub_problem', subProblemId: 'sp2', summary: 'second', createdAt: daysAgo(2) }),
      memory(s, { scope: 'session', summary: 'cross-session', createdAt: daysAgo(1) }),
    ];
    expect(await store.insertMemories(t, rows)).toBe(3);
    expect(await store.insertMemories(t, rows)).toBe(0);
    expect(await countOf(sql`select count(*) as n from expert_memories where tenant_id = ${t}`)).toBe(3);
    expect((await store.summariesFor(t, s, 'maria')).map((r) => r.subProblemId)).toEqual(['sp2', 'sp1']);
    expect(await store.summariesFor(t, s, 'chen')).toEqual([]);
  });

  it('pages the list with an opaque cursor, ties included', async () => {
    const t = tenant('list');
    const s = await session(t);
    const same = daysAgo(5);
    const rows = Array.from({ length: 23 }, (_, i) =>
      memory(s, { summary: i % 2 ? `budget item ${i}` : `hiring item ${i}`, createdAt: i < 6 ? same : daysAgo(i) }),
    );
    await store.insertMemories(t, rows);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list(t, { limit: 10, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((x) => x.id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(23);
    const all = (await store.list(t, { limit: 100 })).items;
    expect(all.map((x) => x.id)).toEqual(seen);
    expect([...all.map((x) => x.createdAt)]).toEqual([...all.map((x) => x.createdAt)].sort().reverse());
    expect((await store.list(t, { q: 'budget', limit: 100 })).items).toHaveLength(11);
    expect((await store.list(t, { persona: 'chen', limit: 100 })).items).toEqual([]);
    await expect(store.list(t, { limit: 10, cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'invalid-cursor' });
  });

  it('never returns lessons under 0.5 confidence, though it keeps them', async () => {
    const t = tenant('lessons');
    const s = await session(t);
    const weak = lesson({ lesson: 'Quarterly board meetings slow pricing decisions', confidence: 0.4 });
    const strong = lesson({ lesson: 'Validate willingness to pay before changing pricing', confidence: 0.9 });
    await store.insertLesson(t, weak, s);
    await store.insertLesson(t, strong, s);

    const hits = await store.searchLessons(t, { text: weak.lesson, vector: weak.embedding, limit: 5 });
    expect(hits.map((h) => h.id)).toEqual([strong.id]);
    expect(hits[0]).toMatchObject({ lesson: strong.lesson, reinforcements: 1, confidence: 0.9 });
    expect((await store.listLessons(t, { limit: 10 })).items.map((l) => l.id).sort()).toEqual([weak.id, strong.id].sort());
    // Duplicate detection still sees it.
    const [nearest] = await store.nearestLessons(t, weak.embedding, 1);
    expect(nearest!.lesson.id).toBe(weak.id);
    expect(nearest!.similarity).toBeCloseTo(1, 5);
    expect(nearest!.lesson.embedding).toHaveLength(DIM);
  });

  it('reinforces a lesson once per new session', async () => {
    const t = tenant('reinforce');
    const [s1, s2] = [await session(t), await session(t)];
    const l = lesson({ lesson: 'Name the reversible option first' });
    expect(await store.insertLesson(t, l, s1)).toBe(true);
    expect(await store.insertLesson(t, l, s1)).toBe(false);
    expect(await store.reinforceLesson(t, l.id, s1)).toEqual({ reinforced: false, reinforcements: 1 });
    expect(await store.reinforceLesson(t, l.id, s2)).toEqual({ reinforced: true, reinforcements: 2 });
    expect(await store.reinforceLesson(t, l.id, s2)).toEqual({ reinforced: false, reinforcements: 2 });
    expect(await store.reinforceLesson(tenant('other'), l.id, s2).catch((e: unknown) => e)).toMatchObject({ code: 'tenancy' });
  });

  it("deletes a session's contributions and what derives only from them", async () => {
    const t = tenant('forget');
    const [s1, s2] = [await session(t), await session(t)];
    const kept = memory(s2, { summary: 'Older view from another session', createdAt: daysAgo(9) });
    const gone = [
      memory(s1, { summary: 'Newer view that contradicts it', createdAt: daysAgo(1) }),
      memory(s1, { scope: 'sub_problem', summary: 'sub-problem summary' }),
    ];
    await store.insertMemories(t, [kept, ...gone]);
    await store.supersede(t, kept.id, gone[0]!.id, daysAgo(1));
    const utter = (sessionId: string, round: number) => ({
      sessionId,
      subProblemId: 'sp1',
      round,
      persona: 'maria',
      kind: 'contribution' as const,
      text: `point ${round}`,
      embedding: vec(`point ${round}`),
      embeddingProvider: 'local-hash',
    });
    await store.insertUtterances(t, [utter(s1, 1), utter(s1, 2), utter(s2, 1)]);
    const onlyS1 = lesson({ lesson: 'Only the first session learned this' });
    const shared = lesson({ lesson: 'Both sessions learned this' });
    await store.insertLesson(t, onlyS1, s1);
    await store.insertLesson(t, shared, s2);
    await store.reinforceLesson(t, shared.id, s1);

    expect(await store.deleteSessionContributions(t, s1)).toEqual({ memories: 2, utterances: 2, lessonsDeleted: 1, lessonSourcesDeleted: 2 });
    expect(await countOf(sql`select count(*) as n from expert_memories where session_id = ${s1}`)).toBe(0);
    expect(await countOf(sql`select count(*) as n from utterances where session_id = ${s1}`)).toBe(0);
    expect(await countOf(sql`select count(*) as n from lesson_sources where session_id = ${s1}`)).toBe(0);
    const lessonsLeft = (await store.exportTenant(t)).lessons;
    expect(lessonsLeft.map((l) => [l.id, l.reinforcements, l.sourceSessionIds])).toEqual([[shared.id, 1, [s2]]]);
    // The memory it had superseded is current again; the other session's utterances are untouched.
    expect(await store.get(t, kept.id)).toMatchObject({ supersededBy: null });
    expect(await store.utteranceHistory(t, s2, 'sp1')).toHaveLength(1);
  });

  it('keeps utterance history in order and purges it by age', async () => {
    const t = tenant('utter');
    const s = await session(t);
    const rows = [1, 2, 3].map((round) => ({
      sessionId: s,
      subProblemId: 'sp1',
      round,
      persona: round === 2 ? null : 'maria',
      kind: round === 2 ? ('question' as const) : ('contribution' as const),
      text: `utterance ${round}`,
      embedding: vec(`utterance ${round}`),
      embeddingProvider: 'local-hash',
    }));
    expect(await store.insertUtterances(t, rows)).toBe(3);
    const hist = await store.utteranceHistory(t, s, 'sp1');
    expect(hist.map((h) => [h.round, h.kind, h.persona])).toEqual([
      [1, 'contribution', 'maria'],
      [2, 'question', null],
      [3, 'contribution', 'maria'],
    ]);
    expect(hist[0]!.embedding).toHaveLength(DIM);
    expect(await store.utteranceHistory(tenant('other'), s, 'sp1')).toEqual([]);

    await database.db.execute(sql`update utterances set created_at = now() - interval '40 days' where session_id = ${s} and round < 3`);
    expect(await store.purgeUtterances(new Date(Date.now() - 30 * 86_400_000))).toBeGreaterThanOrEqual(2);
    expect((await store.utteranceHistory(t, s, 'sp1')).map((h) => h.round)).toEqual([3]);
  });

  it("scores the shortlist in Postgres with exactly the double cosine() gives on the stored floats, both query shapes", async () => {
    const t = tenant('cosine');
    const s = await session(t);
    // Dense random vectors (not the sparse hashed ones), a zero vector among them, compared as stored: Postgres's real
    // can round a near-tie otherwise than Math.fround, so the stored floats are read back exactly (array_send).
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const rows = Array.from({ length: 12 }, (_, k) => memory(s, { summary: `dense ${k}`, embedding: Array.from({ length: DIM }, () => (k === 5 ? 0 : rnd())) }));
    await store.insertMemories(t, rows);
    const read = (await database.db.execute(sql`select id, array_send(embedding) as e from expert_memories where tenant_id = ${t}`)) as unknown as { rows: { id: string; e: Uint8Array }[] };
    const stored = new Map(read.rows.map((r) => [r.id, float4Array(r.e)]));
    const query = Array.from({ length: DIM }, rnd);
    const where = sql`tenant_id = ${t} and persona = 'maria'`;
    const single = await vectorCandidates(database.db, expertMemories, where, query, 100, false);
    expect(single).toHaveLength(12);
    for (const c of single) expect(c.similarity).toBe(cosine(query, stored.get(c.id)!));
    expect(single.find((c) => c.id === rows[5]!.id)!.similarity).toBe(0);
    expect(single.map((c) => c.similarity)).toEqual([...single.map((c) => c.similarity)].sort((a, b) => b - a));
    const each = await vectorCandidatesEach(database.db, expertMemories, sql`tenant_id = ${t} and persona = p.persona`, [{ i: 0, persona: 'maria', terms: '', vector: query }], 100, false);
    expect(each.map((c) => [c.id, c.similarity])).toEqual(single.map((c) => [c.id, c.similarity]));
  });

  it('runs a recall on one connection from start to end, so concurrent recalls finish in turn rather than all at the end', async () => {
    const t = tenant('turns');
    const s = await session(t);
    await store.insertMemories(t, ['cash runway', 'pricing tiers', 'hiring plan'].map((summary) => memory(s, { summary })));
    // One connection: side by side, each recall's last statement (fetching what it returns) had queued behind every
    // other recall's candidate statements, so the first recall finished only after all of them had started.
    const narrow = openDatabase(testDatabaseUrl(), 1);
    try {
      const one = new MemoryStore(narrow.db);
      let checkouts = 0;
      narrow.pool.on('acquire', () => checkouts++);
      const firstDoneAt: number[] = [];
      await Promise.all(
        Array.from({ length: 5 }, (_, k) =>
          one.recall(t, { persona: 'maria', text: 'cash runway', vector: vec('cash runway'), limit: 2, halfLifeDays: 90, now: NOW }).then((got) => {
            expect(got.length).toBeGreaterThan(0);
            if (!firstDoneAt.length) firstDoneAt.push(checkouts);
            return k;
          }),
        ),
      );
      // Its own checkout, and at most the next recall's, which the release hands the connection to before this resolves.
      expect(firstDoneAt[0]).toBeLessThanOrEqual(2);
      expect(checkouts).toBe(5);
    } finally {
      await narrow.close();
    }
  });

  it("plans a board's searches for its own number of probes, matches their shared terms once, and parses each probe's bits once", async () => {
    const t = tenant('plan');
    const s = await session(t);
    const personas = ['maria', 'chen', 'tariq'];
    await store.insertMemories(t, personas.flatMap((persona) => ['cash runway plan', 'runway and cash'].map((summary) => memory(s, { persona, summary }))));
    const probes = personas.map((persona, i) => ({ i, persona, terms: 'cash runway', vector: vec('cash runway') }));
    const where = (persona: SQL) => sql`tenant_id = ${t} and persona = ${persona}`;
    const SCORING = sql`category`;
    type PlanNode = { 'Node Type': string; 'Plan Rows': number; 'Actual Loops': number; 'Relation Name'?: string; 'Sort Key'?: string[]; Plans?: PlanNode[] };
    const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
    const plan = async (q: SQL) => {
      const r = (await database.db.execute(sql`explain (analyze, verbose, format json) ${q}`)) as unknown as { rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] };
      return nodes(r.rows[0]!['QUERY PLAN'][0].Plan);
    };
    const text = await plan(textEachQuery(expertMemories, where, probes, 50, SCORING));
    const vector = await plan(
      eachQuery(probes, vectorShortlist(expertMemories, where(sql`p.persona`), probes[0]!.vector, 100, false, SCORING, { bits: sql`p.bits`, vec: sql`p.vec`, emb: sql`p.emb`, norm2: sql`p.norm2` }), false),
    );
    for (const found of [text, vector]) {
      // A function's rows are estimated at 100 otherwise: a board's text search was costed past jit_above_cost.
      const probeScan = found.find((n) => n['Node Type'] === 'Limit' && n.Plans?.[0]?.['Node Type'] === 'Function Scan');
      expect(probeScan?.['Plan Rows']).toBe(3);
    }
    // The three members share their terms: the table is searched once, not once per member.
    expect(text.filter((n) => n['Relation Name'] === 'expert_memories').map((n) => n['Actual Loops'])).toEqual([1]);
    expect(await textCandidatesEach(database.db, expertMemories, where, probes, 50)).toHaveLength(6);
    // Typed as bit varying in the record: read as text, each probe's 512 characters were parsed again for every row scanned.
    const sortKeys = vector.flatMap((n) => n['Sort Key'] ?? []).join(' ');
    expect(sortKeys).toContain('bit_count');
    expect(sortKeys).not.toMatch(/p\.bits\)::bit varying/);
  });

  it('multiplies only the non-zero components, with the same double: sparse rows, a sparse probe, and rows it does not touch', async () => {
    const t = tenant('sparse');
    const s = await session(t);
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    // The probe is zero on odd components; `apart` has negative values only there (every product -0: a sum that must
    // read 0, as cosine's does), `hashed` is what the local embedder makes, `mixed` is sparse and overlaps.
    const query = Array.from({ length: DIM }, (_, i) => (i % 2 ? 0 : rnd()));
    const apart = Array.from({ length: DIM }, (_, i) => (i % 2 ? -Math.abs(rnd()) : 0));
    const mixed = Array.from({ length: DIM }, (_, i) => (i % 7 === 0 ? rnd() : 0));
    const rows = [apart, mixed, vec('cash runway before the seed round'), vec('pricing tiers')].map((embedding, k) =>
      memory(s, { summary: `sparse ${k}`, embedding }),
    );
    await store.insertMemories(t, rows);
    const read = (await database.db.execute(
      sql`select id, array_send(embedding) as e, embedding_at as at, embedding_norm2 as n from expert_memories where tenant_id = ${t}`,
    )) as unknown as { rows: { id: string; e: Uint8Array; at: number[]; n: number }[] };
    const stored = new Map(read.rows.map((r) => [r.id, float4Array(r.e)]));
    for (const r of read.rows) {
      const v = stored.get(r.id)!;
      expect(r.at).toEqual(v.flatMap((x, i) => (x !== 0 ? [i] : [])));
      expect(r.n).toBe(norm2(v));
    }
    const where = sql`tenant_id = ${t} and persona = 'maria'`;
    const single = await vectorCandidates(database.db, expertMemories, where, query, 100, false);
    expect(single).toHaveLength(4);
    for (const c of single) expect(c.similarity).toBe(cosine(query, stored.get(c.id)!));
    expect(Object.is(single.find((c) => c.id === rows[0]!.id)!.similarity, 0)).toBe(true);
    const each = await vectorCandidatesEach(database.db, expertMemories, sql`tenant_id = ${t} and persona = p.persona`, [{ i: 0, persona: 'maria', terms: '', vector: query }], 100, false);
    expect(each.map((c) => [c.id, c.similarity])).toEqual(single.map((c) => [c.id, c.similarity]));
  });
});
