import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import {
  ABANDONED_CLAIM_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyId,
  type IdempotencyRecord,
  type IdempotencyStorePort,
  type StoredResponse,
} from '../ports/idempotency-store';
import type { Db } from './client';
import { idempotencyKeys } from './schema';

export { ABANDONED_CLAIM_MS, IDEMPOTENCY_TTL_MS };
export type { IdempotencyId, IdempotencyRecord, StoredResponse };

const where = (id: IdempotencyId) =>
  and(eq(idempotencyKeys.tenantId, id.tenantId), eq(idempotencyKeys.scope, id.scope), eq(idempotencyKeys.key, id.key));

/** Idempotency records in Postgres: one upsert decides the claim, so concurrent duplicates cannot both own a key. */
export class IdempotencyStore implements IdempotencyStorePort {
  constructor(private readonly db: Db) {}

  async claim(id: IdempotencyId, requestHash: string): Promise<boolean> {
    const claimed = await this.db
      .insert(idempotencyKeys)
      .values({ ...id, requestHash })
      .onConflictDoUpdate({
        target: [idempotencyKeys.tenantId, idempotencyKeys.scope, idempotencyKeys.key],
        set: { requestHash, statusCode: null, response: null, headers: null, createdAt: sql`now()` },
        setWhere: sql`${idempotencyKeys.createdAt} < now() - make_interval(secs => ${IDEMPOTENCY_TTL_MS / 1000})
          or (${idempotencyKeys.statusCode} is null and ${idempotencyKeys.createdAt} < now() - make_interval(secs => ${ABANDONED_CLAIM_MS / 1000}))`,
      })
      .returning({ key: idempotencyKeys.key });
    return claimed.length === 1;
  }

  async read(id: IdempotencyId): Promise<IdempotencyRecord | null> {
    const [row] = await this.db.select().from(idempotencyKeys).where(where(id));
    return row ?? null;
  }

  async complete(id: IdempotencyId, res: StoredResponse): Promise<void> {
    await this.db
      .update(idempotencyKeys)
      .set({ statusCode: res.status, response: res.body ?? null, headers: res.headers ?? {} })
      .where(where(id));
  }

  async release(id: IdempotencyId): Promise<void> {
    await this.db.delete(idempotencyKeys).where(and(where(id), isNull(idempotencyKeys.statusCode)));
  }

  async purge(olderThan: Date): Promise<number> {
    const gone = await this.db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, olderThan));
    return gone.rowCount ?? 0;
  }
}
