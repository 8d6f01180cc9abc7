import type { NewMemory } from './memory';
import type { Tx } from './session-store';

/**
 * The core of the expert-memory repository: writing memories, recalling
 * them, superseding one by another, reading one — tenant-scoped throughout.
 * Implemented by Postgres (src/memory/memory-store.ts, hybrid full-text +
 * vector recall) and an in-memory twin (src/memory/in-memory-memory-store.ts,
 * a simple cosine + substring ranking), both held to
 * tests/contract/memory-store.conformance.ts. Lessons and utterances have
 * their own ports (./lesson-store.ts, ./utterance-store.ts); listing and
 * deletion are Postgres-only for now.
 */

export type { NewMemory };

export interface Memory extends Omit<NewMemory, 'embedding' | 'createdAt'> {
  tenantId: string;
  embeddingDim: number;
  supersededBy: string | null;
  supersededAt: string | null;
  createdAt: string;
}

export interface ScoredMemory extends Memory {
  /** RRF over the text and vector rankings × recency × category boost. */
  score: number;
  /** ts_rank_cd, null when the row was not a full-text candidate. */
  ftsRank: number | null;
  /** Exact cosine, null when the row was not a vector candidate. */
  vectorSimilarity: number | null;
  recency: number;
  categoryMatch: boolean;
}

export interface RecallQuery {
  persona: string;
  /** A boost (×1.2), not a filter: an expert's memories from other kinds of problem still count. */
  category?: string;
  text: string;
  vector: number[];
  limit: number;
  halfLifeDays: number;
  now: Date;
  excludeSessionId?: string;
  /** Only compare against embeddings from this provider (vectors of different models are not comparable). */
  embeddingProvider?: string;
}

export interface ExpertMemoryPort {
  /**
   * Idempotent on id (a re-run step writes nothing new); returns how many rows
   * were new. Refuses (tenancy) a row whose session is not the tenant's. With
   * `tx`, the rows are written in that session-store commit.
   */
  insertMemories(tenantId: string, rows: NewMemory[], tx?: Tx): Promise<number>;
  /** The tenant's current (not superseded) session-scope memories of one expert, best first. */
  recall(tenantId: string, q: RecallQuery): Promise<ScoredMemory[]>;
  /** `recall` for each of several personas on one query, as each would get it alone; every persona has an entry. */
  recallEach(tenantId: string, q: Omit<RecallQuery, 'persona'> & { personas: string[] }): Promise<Record<string, ScoredMemory[]>>;
  /** `recall` for each of several queries, as each would get it alone, in their order. */
  recallMany(tenantId: string, queries: RecallQuery[]): Promise<ScoredMemory[][]>;
  /** Marks `oldId` contradicted by `newId` (both stay). False when either is not the tenant's, or `oldId` is superseded by another. */
  supersede(tenantId: string, oldId: string, newId: string, at: Date, tx?: Tx): Promise<boolean>;
  get(tenantId: string, id: string): Promise<Memory | null>;
}
