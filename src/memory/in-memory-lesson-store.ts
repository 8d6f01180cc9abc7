import { decodeCursor, encodeCursor } from '../db/cursor';
import { applyIn } from '../db/in-memory-tx';
import { cosine } from '../domain/metrics';
import type { Lesson, LessonHit, LessonSearch, LessonStorePort, NewLesson } from '../ports/lesson-store';
import type { SessionStorePort, Tx } from '../ports/session-store';
import { tenancyError } from './hybrid';
import { queryWords, SUBSTRING_BONUS } from './in-memory-ranking';


interface Stored extends Lesson {
  embedding: number[];
  /** Source sessions in the order they arrived (export keeps it). */
  sources: string[];
}

const textOf = (l: Lesson) => `${l.lesson} ${l.triggerConditions} ${l.suggestedFix}`.toLowerCase();
const similarity = (a: number[], b: number[]) => (a.length === b.length ? cosine(a, b) : 0);
const strip = ({ embedding: _e, sources: _s, ...l }: Stored): Lesson => structuredClone(l);

/**
 * Lessons in process memory: the Postgres store's twin for unit tests.
 * Search is deliberately simple — cosine similarity plus a bonus per query
 * word found in the lesson's text — not Postgres's reciprocal-rank fusion of
 * full-text and vector candidates, and listing's `q` is a substring match on
 * every query word, not websearch_to_tsquery: the conformance suite pins what
 * both agree on (tenancy, sources, the confidence filter, the obvious best
 * match), not exact scores. Writes given a twin transaction land on its commit.
 */
export class InMemoryLessonStore implements LessonStorePort {
  private readonly rows = new Map<string, Stored>();
  private lastCreated = 0;

  constructor(private readonly sessions: Pick<SessionStorePort, 'get'>) {}

  async insertLesson(tenantId: string, l: NewLesson, sessionId: string, tx?: Tx): Promise<boolean> {
    await this.assertOwned(tenantId, sessionId);
    const fresh = !this.rows.has(l.id);
    applyIn(tx, () => {
      let row = this.rows.get(l.id);
      if (!row) {
        const at = this.tick();
        row = { ...structuredClone(l), tenantId, reinforcements: 1, embeddingDim: l.embedding.length, createdAt: at, updatedAt: at, sources: [] };
        this.rows.set(l.id, row);
      }
      // As in Postgres, an id taken by another tenant gains no source.
      if (row.tenantId === tenantId && !row.sources.includes(sessionId)) row.sources.push(sessionId);
    });
    return fresh;
  }

  async reinforceLesson(tenantId: string, id: string, sessionId: string, tx?: Tx) {
    await this.assertOwned(tenantId, sessionId);
    const row = this.rows.get(id);
    if (row?.tenantId !== tenantId) return null;
    const reinforced = !row.sources.includes(sessionId);
    const reinforcements = row.reinforcements + (reinforced ? 1 : 0);
    applyIn(tx, () => {
      if (row.sources.includes(sessionId)) return;
      row.sources.push(sessionId);
      row.reinforcements += 1;
      row.updatedAt = new Date().toISOString();
    });
    return { reinforced, reinforcements };
  }

  async nearestLessons(tenantId: string, vector: number[], limit: number) {
    return this.own(tenantId)
      .map((l) => ({ lesson: { ...strip(l), embedding: [...l.embedding] }, similarity: similarity(l.embedding, vector) }))
      .sort((a, b) => b.similarity - a.similarity || (a.lesson.id < b.lesson.id ? -1 : 1))
      .slice(0, Math.max(0, limit));
  }

  async searchLessons(tenantId: string, q: LessonSearch): Promise<LessonHit[]> {
    if (q.limit <= 0) return [];
    const terms = queryWords(q.text);
    return this.own(tenantId)
      .filter((l) => l.confidence >= (q.minConfidence ?? 0.5))
      .map((l) => {
        const hits = terms.filter((w) => textOf(l).includes(w)).length;
        const sim = similarity(l.embedding, q.vector);
        return { ...strip(l), score: Math.max(0, sim) + SUBSTRING_BONUS * hits, ftsRank: hits ? hits : null, vectorSimilarity: sim };
      })
      .filter((h) => h.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, q.limit);
  }

  async listLessons(tenantId: string, q: { q?: string; limit: number; cursor?: string }) {
    const after = q.cursor === undefined ? null : decodeCursor(q.cursor);
    const terms = q.q ? queryWords(q.q) : [];
    const found = this.own(tenantId)
      .filter((l) => terms.every((w) => textOf(l).includes(w)))
      .filter((l) => !after || l.createdAt < after[0] || (l.createdAt === after[0] && l.id < after[1]))
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, q.limit + 1);
    const items = found.slice(0, q.limit).map(strip);
    const last = items.at(-1);
    return { items, nextCursor: found.length > q.limit && last ? encodeCursor(last.createdAt, last.id) : null };
  }

  async exportLessons(tenantId: string) {
    return this.own(tenantId)
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
      .map((l) => ({ ...strip(l), sourceSessionIds: [...l.sources] }));
  }

  private own(tenantId: string): Stored[] {
    return [...this.rows.values()].filter((l) => l.tenantId === tenantId);
  }

  private async assertOwned(tenantId: string, sessionId: string): Promise<void> {
    if (!(await this.sessions.get(sessionId, tenantId))) throw tenancyError();
  }

  /** Strictly increasing creation times: Postgres has microseconds, so two inserts in one millisecond still list in order. */
  private tick(): string {
    this.lastCreated = Math.max(Date.now(), this.lastCreated + 1);
    return new Date(this.lastCreated).toISOString();
  }
}
