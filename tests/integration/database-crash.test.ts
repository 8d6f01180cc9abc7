import { afterEach, describe, expect, it } from 'vitest';
import { withTryLock } from '../../src/db/advisory-lock';
import { openDatabase, type Database } from '../../src/db/client';
import { isDatabaseUnavailable } from '../../src/db/unavailable';
import { testDatabaseUrl } from '../support/env';
import { TcpProxy } from '../support/tcp-proxy';

let proxy: TcpProxy | undefined;
let database: Database | undefined;
afterEach(async () => {
  await proxy?.close();
  await database?.close().catch(() => {});
});

describe('Postgres dying under a checked-out connection', () => {
  // The chaos run's Postgres kill found it: both workers exited on an unhandled 'error' ("Connection terminated
  // unexpectedly") from a client held by the sweep's advisory lock or a transaction, and their sessions hung.
  it('fails what runs on it without crashing the process, and the pool serves again once Postgres is back', async () => {
    const front = await TcpProxy.in(testDatabaseUrl());
    proxy = front.proxy;
    database = openDatabase(front.url, 2);
    const db = database;
    let failure: unknown;
    const swept = withTryLock(db, `database-crash-${Date.now()}`, async () => {
      // The lock's client is checked out and idle between queries when the server goes.
      await proxy!.cut();
      await new Promise((resolve) => setTimeout(resolve, 200));
      failure = await db.pool.query('select 1').catch((err: unknown) => err);
    });
    await expect(swept).resolves.toBe(true);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    await proxy.restore();
    expect((await db.pool.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
  });
});
