import type { Tx } from './session-store';

/**
 * Generalised lessons (seed 004), per tenant, reinforced by each further
 * session rather than duplicated. Implemented by Postgres
 * (src/memory/lesson-store.ts behind MemoryStore, hybrid full-text + vector
 * search) and an in-memory twin (src/memory/in-memory-lesson-store.ts, cosine
 * + substring ranking), both held to tests/contract/lesson-store.conformance.ts.
 */

export interface NewLesson {
  id: string;
  type: string;
  lesson: string;
  triggerConditions: string;
  suggestedFix: string;
  confidence: number;
  tags: string[];
  model: string;
  promptVersion: string;
  embedding: number[];
  embeddingProvider: string;
}

export interface Lesson extends Omit<NewLesson, 'embedding'> {
  tenantId: string;
  reinforcements: number;
  embeddingDim: number;
  createdAt: string;
  updatedAt: string;
}

export interface LessonHit extends Lesson {
  score: number;
  ftsRank: number | null;
  vectorSimilarity: number | null;
}

export interface LessonSearch {
  text: string;
  vector: number[];
  limit: number;
  /** Lessons under it (default 0.5) stay stored but never surface. */
  minConfidence?: number;
}

export interface LessonStorePort {
  /** Idempotent on id; records `sessionId` as a source. True when the row is new. Refuses (tenancy) another tenant's session. */
  insertLesson(tenantId: string, l: NewLesson, sessionId: string, tx?: Tx): Promise<boolean>;
  /** +1 reinforcement when `sessionId` is a new source (a re-run adds none). Null when the lesson is not the tenant's. */
  reinforceLesson(tenantId: string, id: string, sessionId: string, tx?: Tx): Promise<{ reinforced: boolean; reinforcements: number } | null>;
  /** Closest by cosine whatever their confidence, with embeddings: what duplicate detection needs. */
  nearestLessons(tenantId: string, vector: number[], limit: number): Promise<{ lesson: Lesson & { embedding: number[] }; similarity: number }[]>;
  searchLessons(tenantId: string, q: LessonSearch): Promise<LessonHit[]>;
  /** Newest first; `q` filters by text. */
  listLessons(tenantId: string, q: { q?: string; limit: number; cursor?: string }): Promise<{ items: Lesson[]; nextCursor: string | null }>;
  /** Every lesson of the tenant, oldest first, with the sessions it came from in the order they did. */
  exportLessons(tenantId: string): Promise<(Lesson & { sourceSessionIds: string[] })[]>;
}
