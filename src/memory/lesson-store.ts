import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { lessons, lessonSources } from '../db/schema';
import { assertSessionsOwned, before, encodeCursor, exactTs, float4Array, fuse, rows, textCandidates, vectorCandidates, VectorPath, type Exec } from './hybrid';
import { embeddingBits } from './vectors';

/** Generalised lessons (seed 004), per tenant, reinforced by each further session rather than duplicated. */

import type { Lesson, LessonHit, LessonSearch, NewLesson } from '../ports/lesson-store';

export type { Lesson, LessonHit, NewLesson };

const fields = {
  id: lessons.id,
  tenantId: lessons.tenantId,
  type: lessons.type,
  lesson: lessons.lesson,
  triggerConditions: lessons.triggerConditions,
  suggestedFix: lessons.suggestedFix,
  confidence: lessons.confidence,
  tags: lessons.tags,
  reinforcements: lessons.reinforcements,
  model: lessons.model,
  promptVersion: lessons.promptVersion,
  embeddingProvider: lessons.embeddingProvider,
  embeddingDim: lessons.embeddingDim,
  createdAt: lessons.createdAt,
  updatedAt: lessons.updatedAt,
  cursorTs: exactTs(lessons.createdAt),
};

type Row = Omit<Lesson, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date; cursorTs: string };

const toLesson = ({ cursorTs: _c, createdAt, updatedAt, ...r }: Row): Lesson => ({
  ...r,
  createdAt: createdAt.toISOString(),
  updatedAt: updatedAt.toISOString(),
});

export class LessonStore {
  constructor(
    private readonly db: Exec,
    private readonly vector: VectorPath,
  ) {}

  /** Inserts the lesson (idempotent on id) and records `sessionId` as its first source. True when the row is new. */
  async insertLesson(tenantId: string, l: NewLesson, sessionId: string, exec: Exec = this.db): Promise<boolean> {
    await assertSessionsOwned(exec, tenantId, [sessionId]);
    const inserted = await exec
      .insert(lessons)
      .values({ ...l, tenantId, embeddingBits: embeddingBits(l.embedding), embeddingDim: l.embedding.length })
      .onConflictDoNothing({ target: lessons.id })
      .returning({ id: lessons.id });
    // Through a select on the tenant's lessons, so an id taken by another tenant gains no source.
    await exec.execute(
      sql`insert into ${lessonSources} (lesson_id, session_id)
          select id, ${sessionId} from ${lessons} where id = ${l.id} and tenant_id = ${tenantId}
          on conflict do nothing`,
    );
    return inserted.length > 0;
  }

  /**
   * Another session arrived at the same lesson: +1 reinforcement when the
   * session is a new source (a re-run adds none). Null when the lesson is not this tenant's.
   */
  async reinforceLesson(tenantId: string, id: string, sessionId: string, exec: Exec = this.db) {
    await assertSessionsOwned(exec, tenantId, [sessionId]);
    const [r] = await rows<{ reinforcements: number; added: number }>(
      exec,
      sql`with src as (
            insert into ${lessonSources} (lesson_id, session_id)
            select id, ${sessionId} from ${lessons} where id = ${id} and tenant_id = ${tenantId}
            on conflict do nothing returning 1)
          update ${lessons} set reinforcements = reinforcements + (select count(*) from src)::int, updated_at = now()
          where id = ${id} and tenant_id = ${tenantId}
          returning reinforcements, (select count(*) from src)::int as added`,
    );
    return r ? { reinforced: r.added > 0, reinforcements: r.reinforcements } : null;
  }

  /** Closest lessons by exact cosine, whatever their confidence, with their embeddings: what duplicate detection needs. */
  async nearestLessons(
    tenantId: string,
    vector: number[],
    limit: number,
  ): Promise<{ lesson: Lesson & { embedding: number[] }; similarity: number }[]> {
    return this.vector.run(this.db, async (exec) => {
      const near = (await vectorCandidates(exec, lessons, sql`tenant_id = ${tenantId}`, vector, 100, this.vector.on)).slice(0, limit);
      const byId = await this.fetch(exec, tenantId, near.map((c) => c.id), true);
      return near.flatMap((c) => {
        const found = byId.get(c.id);
        if (!found) return [];
        const { embedding, ...lesson } = found;
        return [{ lesson: { ...lesson, embedding: float4Array(embedding!) }, similarity: c.similarity }];
      });
    });
  }

  /** Hybrid retrieval as for memories (no recency: a lesson does not age). Lessons under `minConfidence` stay stored but never surface. */
  async searchLessons(tenantId: string, q: LessonSearch): Promise<LessonHit[]> {
    if (q.limit <= 0) return [];
    const where = sql`tenant_id = ${tenantId} and confidence >= ${q.minConfidence ?? 0.5}`;
    return this.vector.run(this.db, async (exec) => {
      const text = await textCandidates(exec, lessons, where, q.text, 50);
      const vec = await vectorCandidates(exec, lessons, where, q.vector, 100, this.vector.on);
      const fused = fuse(text, vec)
        .sort((a, b) => b.rrf - a.rrf || (a.id < b.id ? -1 : 1))
        .slice(0, q.limit);
      const byId = await this.fetch(exec, tenantId, fused.map((f) => f.id));
      return fused.flatMap((f) => {
        const l = byId.get(f.id);
        return l ? [{ ...l, score: f.rrf, ftsRank: f.ftsRank, vectorSimilarity: f.vectorSimilarity }] : [];
      });
    });
  }

  /** Newest first; `q` filters by full text. */
  async listLessons(
    tenantId: string,
    q: { q?: string; limit: number; cursor?: string },
  ): Promise<{ items: Lesson[]; nextCursor: string | null }> {
    const found = await this.db
      .select(fields)
      .from(lessons)
      .where(
        and(
          eq(lessons.tenantId, tenantId),
          q.q ? sql`${lessons.tsv} @@ websearch_to_tsquery('english', ${q.q})` : undefined,
          q.cursor === undefined ? undefined : before(lessons.createdAt, lessons.id, q.cursor),
        ),
      )
      .orderBy(desc(lessons.createdAt), desc(lessons.id))
      .limit(q.limit + 1);
    const items = found.slice(0, q.limit);
    const last = items.at(-1);
    return { items: items.map(toLesson), nextCursor: found.length > q.limit && last ? encodeCursor(last.cursorTs, last.id) : null };
  }

  /** Every lesson of the tenant with the sessions it came from (for export). */
  async exportLessons(tenantId: string): Promise<(Lesson & { sourceSessionIds: string[] })[]> {
    const found = await this.db
      .select({
        ...fields,
        sources: sql<string[]>`coalesce((select array_agg(s.session_id::text order by s.created_at) from ${lessonSources} s where s.lesson_id = ${lessons.id}), '{}')`,
      })
      .from(lessons)
      .where(eq(lessons.tenantId, tenantId))
      .orderBy(lessons.createdAt, lessons.id);
    return found.map(({ sources, ...r }) => ({ ...toLesson(r), sourceSessionIds: sources }));
  }

  /**
   * Part of deleting a session's contributions (caller's transaction): drops
   * its source rows, deletes lessons no other session supports, and takes one
   * reinforcement off those that others still support.
   */
  async detachSession(exec: Exec, tenantId: string, sessionId: string): Promise<{ lessonsDeleted: number; lessonSourcesDeleted: number }> {
    const detached = await rows<{ lesson_id: string }>(
      exec,
      sql`delete from ${lessonSources} s using ${lessons} l
          where s.lesson_id = l.id and l.tenant_id = ${tenantId} and s.session_id = ${sessionId}
          returning s.lesson_id`,
    );
    const ids = detached.map((d) => d.lesson_id);
    if (!ids.length) return { lessonsDeleted: 0, lessonSourcesDeleted: 0 };
    const orphaned = sql`not exists (select 1 from ${lessonSources} s where s.lesson_id = ${lessons.id})`;
    const deleted = await exec
      .delete(lessons)
      .where(and(eq(lessons.tenantId, tenantId), inArray(lessons.id, ids), orphaned))
      .returning({ id: lessons.id });
    await exec
      .update(lessons)
      .set({ reinforcements: sql`greatest(${lessons.reinforcements} - 1, 1)`, updatedAt: sql`now()` })
      .where(and(eq(lessons.tenantId, tenantId), inArray(lessons.id, ids)));
    return { lessonsDeleted: deleted.length, lessonSourcesDeleted: ids.length };
  }

  /** With `embeddings`, each row's stored floats too (array_send, decoded by float4Array), for the few rows asked for. */
  private async fetch(exec: Exec, tenantId: string, ids: string[], embeddings = false): Promise<Map<string, Lesson & { embedding?: Uint8Array }>> {
    if (!ids.length) return new Map();
    const found = await exec
      .select({ ...fields, ...(embeddings && { embedding: sql<Uint8Array>`array_send(${lessons.embedding})` }) })
      .from(lessons)
      .where(and(eq(lessons.tenantId, tenantId), inArray(lessons.id, ids)));
    return new Map(found.map(({ embedding, ...r }) => [r.id, { ...toLesson(r), ...(embedding && { embedding }) }]));
  }
}
