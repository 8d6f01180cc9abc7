import type { NewMemory } from '../ports/memory';
import type { ExpertMemoryPort, Memory, RecallQuery, ScoredMemory as RecalledMemory } from '../ports/memory-store';
import { and, desc, eq, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { expertMemories } from '../db/schema';
import {
  assertSessionsOwned,
  before,
  encodeCursor,
  exactTs,
  fuse,
  iso,
  isUuid,
  recency,
  rows,
  keyTerms,
  textCandidatesEach,
  textShortlist,
  vectorCandidatesEach,
  vectorShortlist,
  type Probe,
  VectorPath,
  type Exec,
} from './hybrid';
import type { LessonStorePort } from '../ports/lesson-store';
import type { UtteranceStorePort } from '../ports/utterance-store';
import { LessonStore, type Lesson, type NewLesson } from './lesson-store';
import { UtteranceStore, type NewUtterance } from './utterance-store';
import { embeddingBits } from './vectors';
import { execOf, sideRowsOf } from '../db/tx';
import type { Tx } from '../ports/session-store';

/**
 * The memory repository: expert memories, lessons and novelty history. The
 * only code that touches those tables, and where tenancy is enforced: every
 * method takes the tenant and every query filters by it.
 */

export type { Memory, NewMemory, RecallQuery, ScoredMemory as RecalledMemory } from '../ports/memory-store';

export interface MemoryStoreOptions {
  /** Use pgvector's HNSW index (after enableVectorIndex returned true); otherwise the portable Hamming prefilter. */
  vectorIndex?: boolean;
}

const m = expertMemories;
const base = {
  id: m.id,
  tenantId: m.tenantId,
  scope: m.scope,
  sessionId: m.sessionId,
  subProblemId: m.subProblemId,
  persona: m.persona,
  category: m.category,
  summary: m.summary,
  position: m.position,
  confidence: m.confidence,
  anonymised: m.anonymised,
  model: m.model,
  promptVersion: m.promptVersion,
  embeddingProvider: m.embeddingProvider,
  embeddingDim: m.embeddingDim,
  supersededBy: m.supersededBy,
  supersededAt: m.supersededAt,
  createdAt: m.createdAt,
};
/** With the exact timestamp for page cursors. */
const fields = { ...base, cursorTs: exactTs(m.createdAt) };
type Row = Omit<Memory, 'scope' | 'createdAt' | 'supersededAt'> & { scope: string; createdAt: Date; supersededAt: Date | null; cursorTs?: string };

const toMemory = ({ cursorTs: _c, scope, createdAt, supersededAt, ...r }: Row): Memory => ({
  ...r,
  scope: scope as Memory['scope'],
  supersededAt: iso(supersededAt),
  createdAt: createdAt.toISOString(),
});

/** What scoring needs of every candidate, read by the candidate queries themselves (no extra round trip). */
type Scoring = { category: string; created_ms: number };
const SCORING = sql`category, (extract(epoch from created_at) * 1000)::float8 as created_ms`;

const BATCH = 1000;
const TEXT_CANDIDATES = 50;
const VECTOR_CANDIDATES = 100;
const CATEGORY_BOOST = 1.2;

/**
 * Which rows recall considers (bare column names, for the candidate queries). `persona` is a value, or an SQL
 * expression: `p.persona`, the persona of each row of recallEach's list.
 */
export function recallFilter(tenantId: string, q: Pick<RecallQuery, 'excludeSessionId' | 'embeddingProvider'> & { persona: string | SQL }): SQL {
  const where = sql`tenant_id = ${tenantId} and scope = 'session' and persona = ${q.persona} and superseded_by is null`;
  if (q.excludeSessionId) where.append(sql` and session_id <> ${q.excludeSessionId}`);
  if (q.embeddingProvider) where.append(sql` and embedding_provider = ${q.embeddingProvider}`);
  return where;
}

/** The two candidate queries recall runs for `q` (for EXPLAIN in tests and the bench). */
export function recallQueries(tenantId: string, q: RecallQuery, pgvector: boolean): { text: SQL; vector: SQL } {
  const where = recallFilter(tenantId, q);
  return {
    text: textShortlist(m, where, q.text, TEXT_CANDIDATES, SCORING),
    vector: vectorShortlist(m, where, q.vector, VECTOR_CANDIDATES, pgvector, SCORING),
  };
}

const count = async (exec: Exec, query: SQL) => (await rows<{ n: number }>(exec, query))[0]?.n ?? 0;

export class MemoryStore implements ExpertMemoryPort, LessonStorePort, UtteranceStorePort {
  private readonly vector: VectorPath;
  private readonly lessons: LessonStore;
  private readonly utterances: UtteranceStore;

  constructor(
    private readonly db: Exec,
    opts: MemoryStoreOptions = {},
  ) {
    this.vector = new VectorPath(opts.vectorIndex ?? false);
    this.lessons = new LessonStore(db, this.vector);
    this.utterances = new UtteranceStore(db);
  }

  /**
   * Idempotent on id (a re-run step writes nothing new). Returns how many rows were new; with a batched commit's
   * handle, how many were handed over (they are written with the commit, its tenancy check included: bo1_side_rows).
   */
  async insertMemories(tenantId: string, list: NewMemory[], tx?: Tx): Promise<number> {
    const side = tx && sideRowsOf(tx);
    if (side) {
      side.expert_memories.push(
        ...list.map(({ createdAt, ...r }) => ({
          id: r.id, tenant_id: tenantId, scope: r.scope, session_id: r.sessionId, sub_problem_id: r.subProblemId, persona: r.persona,
          category: r.category, summary: r.summary, position: r.position, confidence: r.confidence, anonymised: r.anonymised,
          model: r.model, prompt_version: r.promptVersion, embedding: r.embedding, embedding_bits: embeddingBits(r.embedding),
          embedding_provider: r.embeddingProvider, embedding_dim: r.embedding.length, ...(createdAt && { created_at: createdAt.toISOString() }),
        })),
      );
      return list.length;
    }
    const exec = tx ? execOf(tx) : this.db;
    await assertSessionsOwned(exec, tenantId, list.map((r) => r.sessionId));
    let n = 0;
    for (let i = 0; i < list.length; i += BATCH) {
      const values = list.slice(i, i + BATCH).map(({ createdAt, ...r }) => ({
        ...r,
        tenantId,
        embeddingBits: embeddingBits(r.embedding),
        embeddingDim: r.embedding.length,
        ...(createdAt ? { createdAt } : {}),
      }));
      n += (await exec.insert(m).values(values).onConflictDoNothing({ target: m.id }).returning({ id: m.id })).length;
    }
    return n;
  }

  /** This expert's summaries of earlier sub-problems of the session, most recent first. */
  async summariesFor(tenantId: string, sessionId: string, persona: string): Promise<Memory[]> {
    return (await this.sessionSummaries(tenantId, sessionId)).get(persona) ?? [];
  }

  /** Every expert's summaries of the session's sub-problems, by persona, each expert's most recent first: one query. */
  async sessionSummaries(tenantId: string, sessionId: string): Promise<Map<string, Memory[]>> {
    const found = await this.db
      .select(fields)
      .from(m)
      .where(and(eq(m.tenantId, tenantId), eq(m.sessionId, sessionId), eq(m.scope, 'sub_problem')))
      .orderBy(desc(m.createdAt), desc(m.id));
    const out = new Map<string, Memory[]>();
    for (const r of found.map(toMemory)) out.set(r.persona, [...(out.get(r.persona) ?? []), r]);
    return out;
  }

  /**
   * Cross-session recall for one expert: full-text and vector candidates
   * fused by reciprocal rank (k = 60), then weighted by recency (half-life)
   * and a category match. Superseded memories never come back.
   */
  async recall(tenantId: string, q: RecallQuery): Promise<RecalledMemory[]> {
    return (await this.recallMany(tenantId, [q]))[0]!;
  }

  /** Recall for several experts on one query (a board's members at the start of a session). */
  async recallEach(tenantId: string, q: Omit<RecallQuery, 'persona'> & { personas: string[] }): Promise<Record<string, RecalledMemory[]>> {
    const personas = [...new Set(q.personas)];
    const found = await this.recallMany(tenantId, personas.map((persona) => ({ ...q, persona })));
    return Object.fromEntries(personas.map((p, i) => [p, found[i]!]));
  }

  /**
   * Several recalls, each exactly as `recall` would answer it alone, in
   * three statements whatever their number (a board's members at the start
   * of a session, a finished session's summaries as they are contributed):
   * the text and the vector candidates of every query at once (a LATERAL
   * subquery per query, so each keeps its own shortlist and index use), then
   * the returned rows. Queries that differ in what the candidate queries
   * filter on (the excluded session, the embedding provider, the dimension)
   * go in a pair of statements per such group.
   */
  async recallMany(tenantId: string, queries: RecallQuery[]): Promise<RecalledMemory[][]> {
    const out: RecalledMemory[][] = queries.map(() => []);
    for (const q of queries) if (q.limit > 0 && !(q.halfLifeDays > 0)) throw new RangeError('halfLifeDays must be positive');
    const groups = new Map<string, Probe[]>();
    queries.forEach((q, i) => {
      if (q.limit <= 0) return;
      const key = JSON.stringify([q.excludeSessionId ?? null, q.embeddingProvider ?? null, q.vector.length]);
      groups.set(key, [...(groups.get(key) ?? []), { i, persona: q.persona, terms: keyTerms(q.text), vector: q.vector }]);
    });
    if (!groups.size) return out;
    type Candidate = Scoring & { i: number };
    return this.vector.run(this.db, async (exec) => {
      const tops: { i: number; top: { id: string; score: number; ftsRank: number | null; vectorSimilarity: number | null; recency: number; categoryMatch: boolean }[] }[] = [];
      for (const probes of groups.values()) {
        const q0 = queries[probes[0]!.i]!;
        const where = (persona: SQL) => recallFilter(tenantId, { ...q0, persona });
        const text = await textCandidatesEach<Candidate>(exec, m, where, probes, TEXT_CANDIDATES, SCORING);
        const vec = await vectorCandidatesEach<Candidate>(exec, m, where(sql`p.persona`), probes, VECTOR_CANDIDATES, this.vector.on, SCORING);
        for (const { i } of probes) {
          const q = queries[i]!;
          const [t, v] = [text.filter((c) => c.i === i), vec.filter((c) => c.i === i)];
          const scoring = new Map<string, Scoring>([...t, ...v].map((c) => [c.id, c]));
          const top = fuse(t, v)
            .map((f) => {
              const c = scoring.get(f.id)!;
              const rec = recency(new Date(c.created_ms), q.now, q.halfLifeDays);
              const categoryMatch = q.category !== undefined && c.category === q.category;
              const score = f.rrf * rec * (categoryMatch ? CATEGORY_BOOST : 1);
              return { id: f.id, score, ftsRank: f.ftsRank, vectorSimilarity: f.vectorSimilarity, recency: rec, categoryMatch };
            })
            .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
            .slice(0, q.limit);
          tops.push({ i, top });
        }
      }
      // Full rows only for what is returned, for every query at once.
      const byId = await this.fetch(exec, tenantId, [...new Set(tops.flatMap(({ top }) => top.map((t) => t.id)))]);
      for (const { i, top } of tops) {
        out[i] = top.flatMap((t) => {
          const mem = byId.get(t.id);
          return mem ? [{ ...mem, ...t }] : [];
        });
      }
      return out;
    });
  }

  /** Marks `oldId` contradicted by `newId` (both rows stay). False when either is not this tenant's, or it is already superseded by another. */
  async supersede(tenantId: string, oldId: string, newId: string, at: Date, tx?: Tx): Promise<boolean> {
    const exec = tx ? execOf(tx) : this.db;
    if (oldId === newId) return false;
    const updated = await exec
      .update(m)
      .set({ supersededBy: newId, supersededAt: at })
      .where(
        and(
          eq(m.tenantId, tenantId),
          eq(m.id, oldId),
          or(isNull(m.supersededBy), eq(m.supersededBy, newId)),
          sql`exists (select 1 from ${m} n where n.id = ${newId} and n.tenant_id = ${tenantId})`,
        ),
      )
      .returning({ id: m.id });
    return updated.length > 0;
  }

  /** Every memory of the persona, superseded ones included (the stance ledger), newest first. */
  async history(tenantId: string, persona: string, limit = 500): Promise<Memory[]> {
    const found = await this.db
      .select(fields)
      .from(m)
      .where(and(eq(m.tenantId, tenantId), eq(m.persona, persona)))
      .orderBy(desc(m.createdAt), desc(m.id))
      .limit(limit);
    return found.map(toMemory);
  }

  /** Newest first, keyset-paginated; `q` filters by full text. */
  async list(
    tenantId: string,
    q: { persona?: string; q?: string; scope?: Memory['scope']; limit: number; cursor?: string },
  ): Promise<{ items: Memory[]; nextCursor: string | null }> {
    const found = await this.db
      .select(fields)
      .from(m)
      .where(
        and(
          eq(m.tenantId, tenantId),
          q.persona === undefined ? undefined : eq(m.persona, q.persona),
          q.scope === undefined ? undefined : eq(m.scope, q.scope),
          q.q ? sql`${m.tsv} @@ websearch_to_tsquery('english', ${q.q})` : undefined,
          q.cursor === undefined ? undefined : before(m.createdAt, m.id, q.cursor),
        ),
      )
      .orderBy(desc(m.createdAt), desc(m.id))
      .limit(q.limit + 1);
    const items = found.slice(0, q.limit);
    const last = items.at(-1);
    return { items: items.map(toMemory), nextCursor: found.length > q.limit && last ? encodeCursor(last.cursorTs, last.id) : null };
  }

  async get(tenantId: string, id: string): Promise<Memory | null> {
    if (!isUuid(id)) return null;
    return (await this.fetch(this.db, tenantId, [id])).get(id) ?? null;
  }

  /** Deletes one memory; rows it superseded become current again (their pointer would dangle). */
  async delete(tenantId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.db.transaction(async (tx) => {
      await tx
        .update(m)
        .set({ supersededBy: null, supersededAt: null })
        .where(and(eq(m.tenantId, tenantId), eq(m.supersededBy, id)));
      return (await tx.delete(m).where(and(eq(m.tenantId, tenantId), eq(m.id, id))).returning({ id: m.id })).length > 0;
    });
  }

  /** Forgets a session: its memories, utterances and lesson sources; lessons only it supported go too. One transaction. */
  async deleteSessionContributions(tenantId: string, sessionId: string) {
    return this.db.transaction(async (tx) => {
      await tx
        .update(m)
        .set({ supersededBy: null, supersededAt: null })
        .where(
          and(
            eq(m.tenantId, tenantId),
            ne(m.sessionId, sessionId),
            inArray(m.supersededBy, tx.select({ id: m.id }).from(m).where(and(eq(m.tenantId, tenantId), eq(m.sessionId, sessionId)))),
          ),
        );
      const memories = await count(
        tx,
        sql`with d as (delete from ${m} where tenant_id = ${tenantId} and session_id = ${sessionId} returning 1) select count(*)::int as n from d`,
      );
      const utterances = await this.utterances.deleteForSession(tx, tenantId, sessionId);
      const { lessonsDeleted, lessonSourcesDeleted } = await this.lessons.detachSession(tx, tenantId, sessionId);
      return { memories, utterances, lessonsDeleted, lessonSourcesDeleted };
    });
  }

  /** Everything the tenant's memory holds, superseded rows included, embeddings left out. */
  async exportTenant(tenantId: string): Promise<{ memories: Memory[]; lessons: (Lesson & { sourceSessionIds: string[] })[] }> {
    const found = await this.db.select(fields).from(m).where(eq(m.tenantId, tenantId)).orderBy(m.createdAt, m.id);
    return { memories: found.map(toMemory), lessons: await this.lessons.exportLessons(tenantId) };
  }

  // Lessons and novelty history live in their own stores; these keep one repository surface.
  insertLesson(tenantId: string, l: NewLesson, sessionId: string, tx?: Tx) {
    return this.lessons.insertLesson(tenantId, l, sessionId, tx ? execOf(tx) : this.db);
  }
  reinforceLesson(tenantId: string, id: string, sessionId: string, tx?: Tx) {
    return this.lessons.reinforceLesson(tenantId, id, sessionId, tx ? execOf(tx) : this.db);
  }
  nearestLessons(tenantId: string, vector: number[], limit: number) {
    return this.lessons.nearestLessons(tenantId, vector, limit);
  }
  searchLessons(tenantId: string, q: { text: string; vector: number[]; limit: number; minConfidence?: number }) {
    return this.lessons.searchLessons(tenantId, q);
  }
  listLessons(tenantId: string, q: { q?: string; limit: number; cursor?: string }) {
    return this.lessons.listLessons(tenantId, q);
  }
  exportLessons(tenantId: string) {
    return this.lessons.exportLessons(tenantId);
  }
  async insertUtterances(tenantId: string, list: NewUtterance[], tx?: Tx): Promise<number> {
    const side = tx && sideRowsOf(tx);
    if (!side) return this.utterances.insertUtterances(tenantId, list, tx ? execOf(tx) : this.db);
    // With a batched commit: written with it, as insertMemories's rows.
    side.utterances.push(
      ...list.map((u) => ({
        tenant_id: tenantId, session_id: u.sessionId, sub_problem_id: u.subProblemId, round: u.round, persona: u.persona, kind: u.kind,
        text: u.text, embedding: u.embedding, embedding_provider: u.embeddingProvider, ...(u.createdAt && { created_at: u.createdAt.toISOString() }),
      })),
    );
    return list.length;
  }
  utteranceHistory(tenantId: string, sessionId: string, subProblemId: string) {
    return this.utterances.utteranceHistory(tenantId, sessionId, subProblemId);
  }
  purgeUtterances(olderThan: Date) {
    return this.utterances.purgeUtterances(olderThan);
  }

  private async fetch(exec: Exec, tenantId: string, ids: string[]): Promise<Map<string, Memory>> {
    if (!ids.length) return new Map();
    const found = await exec
      .select(base)
      .from(m)
      .where(and(eq(m.tenantId, tenantId), inArray(m.id, ids)));
    return new Map(found.map((r) => [r.id, toMemory(r)]));
  }
}

export type { Lesson, LessonHit, NewLesson } from './lesson-store';
export type { NewUtterance, Utterance } from './utterance-store';
