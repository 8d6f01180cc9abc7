import {
  ABANDONED_CLAIM_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyId,
  type IdempotencyRecord,
  type IdempotencyStorePort,
  type StoredResponse,
} from '../ports/idempotency-store';

const keyOf = (id: IdempotencyId) => JSON.stringify([id.tenantId, id.scope, id.key]);

/**
 * Idempotency records in process memory, the Postgres store's twin. A claim
 * is decided synchronously (no await between the check and the write), which
 * is what the upsert's atomicity gives the Postgres store.
 */
export class InMemoryIdempotencyStore implements IdempotencyStorePort {
  private readonly records = new Map<string, IdempotencyRecord>();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async claim(id: IdempotencyId, requestHash: string): Promise<boolean> {
    const now = this.clock();
    const held = this.records.get(keyOf(id));
    const age = held ? now.getTime() - held.createdAt.getTime() : Infinity;
    const free = !held || age > IDEMPOTENCY_TTL_MS || (held.statusCode === null && age > ABANDONED_CLAIM_MS);
    if (!free) return false;
    this.records.set(keyOf(id), { ...id, requestHash, statusCode: null, response: null, headers: null, createdAt: now });
    return true;
  }

  async read(id: IdempotencyId): Promise<IdempotencyRecord | null> {
    const r = this.records.get(keyOf(id));
    return r ? structuredClone(r) : null;
  }

  async complete(id: IdempotencyId, res: StoredResponse): Promise<void> {
    const r = this.records.get(keyOf(id));
    if (r) Object.assign(r, { statusCode: res.status, response: structuredClone(res.body ?? null), headers: { ...res.headers } });
  }

  async release(id: IdempotencyId): Promise<void> {
    if (this.records.get(keyOf(id))?.statusCode === null) this.records.delete(keyOf(id));
  }

  /** Makes a record `ms` older: a test's stand-in for the time passing (the Postgres tests update created_at). */
  backdate(id: IdempotencyId, ms: number): void {
    const r = this.records.get(keyOf(id));
    if (r) r.createdAt = new Date(r.createdAt.getTime() - ms);
  }

  async purge(olderThan: Date): Promise<number> {
    let n = 0;
    for (const [k, r] of this.records) {
      if (r.createdAt < olderThan) {
        this.records.delete(k);
        n++;
      }
    }
    return n;
  }
}
