import { and, eq, sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client';
import { IdempotencyStore } from '../../src/db/idempotency-store';
import { idempotencyKeys } from '../../src/db/schema';
import { testDatabaseUrl } from '../support/env';
import { idempotencyStoreConformance } from './idempotency-store.conformance';

idempotencyStoreConformance('Postgres', async () => {
  const database = openDatabase(testDatabaseUrl(), 4);
  return {
    store: new IdempotencyStore(database.db),
    age: async (id, ms) => {
      await database.db
        .update(idempotencyKeys)
        .set({ createdAt: sql`${idempotencyKeys.createdAt} - make_interval(secs => ${ms / 1000})` })
        .where(and(eq(idempotencyKeys.tenantId, id.tenantId), eq(idempotencyKeys.scope, id.scope), eq(idempotencyKeys.key, id.key)));
    },
    close: () => database.close(),
  };
});
