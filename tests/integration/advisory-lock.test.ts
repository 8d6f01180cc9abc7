import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { withTryLock } from '../../src/db/advisory-lock';
import { openDatabase } from '../../src/db/client';
import { testDatabaseUrl } from '../support/env';

// Two pools: two processes' worth of connections.
const a = openDatabase(testDatabaseUrl(), 2);
const b = openDatabase(testDatabaseUrl(), 2);
afterAll(async () => Promise.all([a.close(), b.close()]));

/** Who holds the advisory lock `name` (the key `hashtext(name)`), and whether inside a transaction. */
async function holders(name: string): Promise<{ pid: number; in_transaction: boolean }[]> {
  const { rows } = await b.pool.query<{ pid: number; in_transaction: boolean }>(
    `select l.pid, a.xact_start is not null as in_transaction
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.objsubid = 1
        and ((l.classid::bigint << 32) | l.objid::bigint) = (hashtext($1)::bigint & x'ffffffffffffffff'::bigint)`,
    [name],
  );
  return rows;
}

describe('withTryLock (the sweep\'s single-flight lock)', () => {
  it('holds a transaction-scoped lock, so a pooler in transaction mode keeps it on one connection and drops it at commit', async () => {
    const name = `bo1:test:${randomUUID()}`;
    let during: Awaited<ReturnType<typeof holders>> = [];
    let otherRan = false;
    const ran = await withTryLock(a, name, async () => {
      during = await holders(name);
      // Another process meanwhile: does not get it, does not run.
      expect(await withTryLock(b, name, async () => void (otherRan = true))).toBe(false);
    });
    expect(ran).toBe(true);
    expect(otherRan).toBe(false);
    // Held by one backend that is inside a transaction (a session-level lock would be held outside one).
    expect(during).toHaveLength(1);
    expect(during[0]!.in_transaction).toBe(true);
    // Released with the commit, and the connection went back to the pool outside any transaction.
    expect(await holders(name)).toEqual([]);
    const { rows } = await a.pool.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where pid = any($1) and state like 'idle in transaction%'`,
      [during.map((h) => h.pid)],
    );
    expect(rows[0]!.n).toBe(0);
    expect(await withTryLock(b, name, async () => {})).toBe(true);
  });

  it('releases the lock when the work fails, and passes the error on', async () => {
    const name = `bo1:test:${randomUUID()}`;
    await expect(withTryLock(a, name, async () => Promise.reject(new Error('sweep broke')))).rejects.toThrow('sweep broke');
    expect(await holders(name)).toEqual([]);
    expect(await withTryLock(b, name, async () => {})).toBe(true);
  });
});
