import { applyIn } from '../db/in-memory-tx';
import { cosine } from '../domain/metrics';
import type { ExpertMemoryPort, Memory, NewMemory, RecallQuery, ScoredMemory } from '../ports/memory-store';
import type { SessionStorePort, Tx } from '../ports/session-store';
import { recency, tenancyError } from './hybrid';
import { queryWords, SUBSTRING_BONUS } from './in-memory-ranking';

const CATEGORY_BOOST = 1.2;

interface Stored extends Memory {
  embedding: number[];
}

/**
 * Expert memories in process memory: the Postgres store's twin for unit
 * tests. Recall is deliberately simple — cosine similarity plus a bonus per
 * query word found in the summary or position, times recency and the
 * category boost — not the Postgres store's reciprocal-rank fusion of
 * full-text and vector candidates: the conformance suite pins what both
 * must agree on (tenancy, filters, supersession, the obvious best match),
 * not exact scores. Session ownership is checked against the twin session
 * store, and writes given its transaction land when that commit applies.
 */
export class InMemoryMemoryStore implements ExpertMemoryPort {
  private readonly rows = new Map<string, Stored>();

  constructor(private readonly sessions: Pick<SessionStorePort, 'get'>) {}

  async insertMemories(tenantId: string, list: NewMemory[], tx?: Tx): Promise<number> {
    for (const sessionId of new Set(list.map((r) => r.sessionId))) {
      if (!(await this.sessions.get(sessionId, tenantId))) throw tenancyError();
    }
    const fresh = list.filter((r, i) => !this.rows.has(r.id) && list.findIndex((x) => x.id === r.id) === i);
    applyIn(tx, () => {
      for (const { createdAt, ...r } of fresh) {
        if (this.rows.has(r.id)) continue;
        this.rows.set(r.id, {
          ...structuredClone(r),
          tenantId,
          embeddingDim: r.embedding.length,
          supersededBy: null,
          supersededAt: null,
          createdAt: (createdAt ?? new Date()).toISOString(),
        });
      }
    });
    return fresh.length;
  }

  async recall(tenantId: string, q: RecallQuery): Promise<ScoredMemory[]> {
    if (q.limit <= 0) return [];
    if (!(q.halfLifeDays > 0)) throw new RangeError('halfLifeDays must be positive');
    const words = queryWords(q.text);
    return [...this.rows.values()]
      .filter(
        (m) =>
          m.tenantId === tenantId &&
          m.scope === 'session' &&
          m.persona === q.persona &&
          m.supersededBy === null &&
          m.sessionId !== q.excludeSessionId &&
          (q.embeddingProvider === undefined || m.embeddingProvider === q.embeddingProvider),
      )
      .map((m) => {
        const text = `${m.summary} ${m.position}`.toLowerCase();
        const hits = words.filter((w) => text.includes(w)).length;
        const similarity = m.embedding.length === q.vector.length ? cosine(m.embedding, q.vector) : 0;
        const rec = recency(new Date(m.createdAt), q.now, q.halfLifeDays);
        const categoryMatch = q.category !== undefined && m.category === q.category;
        const score = (Math.max(0, similarity) + SUBSTRING_BONUS * hits) * rec * (categoryMatch ? CATEGORY_BOOST : 1);
        const { embedding: _e, ...memory } = m;
        return { ...structuredClone(memory), score, ftsRank: hits ? hits : null, vectorSimilarity: similarity, recency: rec, categoryMatch };
      })
      .filter((m) => m.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, q.limit);
  }

  async recallEach(tenantId: string, q: Omit<RecallQuery, 'persona'> & { personas: string[] }): Promise<Record<string, ScoredMemory[]>> {
    const out: Record<string, ScoredMemory[]> = {};
    for (const persona of q.personas) out[persona] = await this.recall(tenantId, { ...q, persona });
    return out;
  }

  async recallMany(tenantId: string, queries: RecallQuery[]): Promise<ScoredMemory[][]> {
    return Promise.all(queries.map((q) => this.recall(tenantId, q)));
  }

  async supersede(tenantId: string, oldId: string, newId: string, at: Date, tx?: Tx): Promise<boolean> {
    const old = this.rows.get(oldId);
    const replacement = this.rows.get(newId);
    if (oldId === newId || old?.tenantId !== tenantId || replacement?.tenantId !== tenantId) return false;
    if (old.supersededBy !== null && old.supersededBy !== newId) return false;
    applyIn(tx, () => Object.assign(old, { supersededBy: newId, supersededAt: at.toISOString() }));
    return true;
  }

  async get(tenantId: string, id: string): Promise<Memory | null> {
    const m = this.rows.get(id);
    if (!m || m.tenantId !== tenantId) return null;
    const { embedding: _e, ...memory } = m;
    return structuredClone(memory);
  }
}
