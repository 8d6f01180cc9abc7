import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, runMigrations, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { event } from '../../src/domain/events';
import { testDatabaseUrl } from '../support/env';
import { sessionStoreConformance } from './session-store.conformance';

sessionStoreConformance('Postgres', async () => {
  const database = openDatabase(testDatabaseUrl(), 8);
  // Another process's store: its own pool and its own belief of each session's log head.
  const other = openDatabase(testDatabaseUrl(), 4);
  return { store: new SessionStore(database), peer: new SessionStore(other), close: async () => (await database.close(), await other.close()) };
});

describe('SessionStore.list on Postgres: sessions created in the same millisecond', () => {
  let database: Database;
  beforeAll(async () => {
    database = openDatabase(testDatabaseUrl(), 2);
    await runMigrations(database);
  });
  afterAll(async () => database?.close());

  // Postgres keeps created_at to the microsecond; a cursor cut at the millisecond (a JS Date) skipped the rest of it.
  it('pages through every one of them, one page at a time', async () => {
    const store = new SessionStore(database);
    const tenantId = `t-${randomUUID()}`;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = randomUUID();
      await store.create({ id, tenantId, problem: 'p', context: '', options: {}, provider: 'simulated', seed: 's' }, event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' }), 0);
      ids.push(id);
    }
    // Four sessions inside one millisecond, newest last as created.
    await database.pool.query(
      `update sessions set created_at = '2026-11-27T04:00:00.123000Z'::timestamptz + (interval '100 microseconds' * array_position($1::uuid[], id)) where id = any($1::uuid[])`,
      [ids],
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list(tenantId, 1, cursor);
      seen.push(...page.items.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });
});
