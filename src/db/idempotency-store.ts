import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from './client';
import { idempotencyKeys } from './schema';

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

export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;

const where = (id: IdempotencyId) =>
  and(eq(idempotencyKeys.tenantId, id.tenantId), eq(idempotencyKeys.scope, id.scope), eq(idempotencyKeys.key, id.key));

/**
 * Claims the key for a request (status null = in progress). True when this
 * caller owns it: the key was free, expired, or abandoned mid-request.
 */
export async function claimIdempotencyKey(db: Db, id: IdempotencyId, requestHash: string): Promise<boolean> {
  const claimed = await db
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

export async function readIdempotencyKey(db: Db, id: IdempotencyId): Promise<IdempotencyRecord | null> {
  const [row] = await db.select().from(idempotencyKeys).where(where(id));
  return row ?? null;
}

export async function completeIdempotencyKey(db: Db, id: IdempotencyId, res: StoredResponse): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ statusCode: res.status, response: res.body ?? null, headers: res.headers ?? {} })
    .where(where(id));
}

/** Drops an in-progress claim whose request failed, so a retry runs it again. */
export async function releaseIdempotencyKey(db: Db, id: IdempotencyId): Promise<void> {
  await db.delete(idempotencyKeys).where(and(where(id), isNull(idempotencyKeys.statusCode)));
}

export async function purgeIdempotencyKeys(db: Db, olderThan: Date): Promise<number> {
  const gone = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, olderThan));
  return gone.rowCount ?? 0;
}
