import type { Tx } from './session-store';

/**
 * Novelty history (seed 003): every contribution and facilitator question,
 * embedded, kept for the retention period. Implemented by Postgres
 * (src/memory/utterance-store.ts behind MemoryStore) and an in-memory twin
 * (src/memory/in-memory-utterance-store.ts), both held to
 * tests/contract/utterance-store.conformance.ts.
 */

export interface NewUtterance {
  sessionId: string;
  subProblemId: string;
  round: number;
  persona: string | null;
  kind: 'contribution' | 'question';
  text: string;
  embedding: number[];
  embeddingProvider: string;
  /** Defaults to now; set by imports and by tests of retention. */
  createdAt?: Date;
}

export interface Utterance extends Omit<NewUtterance, 'createdAt'> {
  /** Increasing in insertion order: history is read in it. */
  id: number;
  createdAt: string;
}

export interface UtteranceStorePort {
  /** Returns how many rows were written. Refuses (tenancy) another tenant's session. With `tx`, written in that session-store commit. */
  insertUtterances(tenantId: string, list: NewUtterance[], tx?: Tx): Promise<number>;
  /** One sub-problem's history in a session, oldest first. */
  utteranceHistory(tenantId: string, sessionId: string, subProblemId: string): Promise<Utterance[]>;
  /** Retention cleanup across all tenants (the one call not tenant-scoped, by design). Returns how many rows went. */
  purgeUtterances(olderThan: Date): Promise<number>;
}
