/**
 * Idempotency-Key records: the first request with a key claims it (no
 * status while it runs), a repeat reads the stored response. Implemented
 * by Postgres (src/db/idempotency-store.ts) and an in-memory twin
 * (src/db/in-memory-idempotency-store.ts), both held to
 * tests/contract/idempotency-store.conformance.ts.
 */

/** A record older than this is ignored (a new request claims it afresh) and purged by the worker's sweep. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A claim still in progress after this long lost its process; a retry may take it over. */
export const ABANDONED_CLAIM_MS = 60_000;

export interface IdempotencyId {
  tenantId: string;
  scope: string;
  key: string;
}

export interface StoredResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface IdempotencyRecord extends IdempotencyId {
  requestHash: string;
  /** Null while the claiming request runs. */
  statusCode: number | null;
  response: unknown;
  headers: unknown;
  createdAt: Date;
}

export interface IdempotencyStorePort {
  /** True when this caller now owns the key: it was free, older than the TTL, or its claim was abandoned. */
  claim(id: IdempotencyId, requestHash: string): Promise<boolean>;
  read(id: IdempotencyId): Promise<IdempotencyRecord | null>;
  /** Stores the owner's response for repeats to replay. */
  complete(id: IdempotencyId, res: StoredResponse): Promise<void>;
  /** Drops an in-progress claim whose request failed, so a retry runs it again; a completed record stays. */
  release(id: IdempotencyId): Promise<void>;
  /** Deletes records created before `olderThan`; returns how many. */
  purge(olderThan: Date): Promise<number>;
}
