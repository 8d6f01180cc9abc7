import type { Tx } from './session-store';

/**
 * What the deliberation needs from expert memory and lessons: recall at the
 * start, rows written with the steps that produce them. Tenant-scoped; the
 * implementation (src/memory/memory-store.ts) enforces it in every query.
 */

export interface NewMemory {
  id: string;
  scope: 'sub_problem' | 'session';
  sessionId: string;
  subProblemId: string;
  persona: string;
  category: string;
  summary: string;
  position: string;
  confidence: number;
  anonymised: boolean;
  model: string;
  promptVersion: string;
  embedding: number[];
  embeddingProvider: string;
  createdAt?: Date;
}

export interface RecalledMemory {
  id: string;
  sessionId: string;
  subProblemId: string;
  persona: string;
  category: string;
  summary: string;
  position: string;
  createdAt: string;
  model: string;
  promptVersion: string;
  score: number;
}

export interface LessonHit {
  id: string;
  lesson: string;
  suggestedFix: string;
  triggerConditions: string;
  confidence: number;
  reinforcements: number;
  score: number;
}

export interface MemoryPort {
  recall(
    tenantId: string,
    q: { persona: string; category?: string; text: string; vector: number[]; limit: number; halfLifeDays: number; now: Date; excludeSessionId?: string },
  ): Promise<RecalledMemory[]>;
  /** `recall` for each of several experts on one query (a board's members), as each would get it alone. */
  recallEach(
    tenantId: string,
    q: { personas: string[]; category?: string; text: string; vector: number[]; limit: number; halfLifeDays: number; now: Date; excludeSessionId?: string },
  ): Promise<Record<string, RecalledMemory[]>>;
  insertMemories(tenantId: string, rows: NewMemory[], tx?: Tx): Promise<unknown>;
  searchLessons(tenantId: string, q: { text: string; vector: number[]; limit: number; minConfidence?: number }): Promise<LessonHit[]>;
  insertUtterances(
    tenantId: string,
    rows: { sessionId: string; subProblemId: string; round: number; persona: string | null; kind: 'contribution' | 'question'; text: string; embedding: number[]; embeddingProvider: string }[],
    tx?: Tx,
  ): Promise<unknown>;
}

/** Per-session switches and limits for memory. */
export interface MemorySettings {
  read: boolean;
  contribute: boolean;
  recallLimit: number;
  halfLifeDays: number;
  tokenCap: number;
}
