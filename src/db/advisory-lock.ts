import type { Database } from './client';

/**
 * Runs `fn` while holding the Postgres advisory lock named `name`, or not at
 * all when another transaction holds it — in this process or any other.
 * Returns whether `fn` ran.
 *
 * The lock is transaction-scoped (`pg_try_advisory_xact_lock`) and a
 * transaction stays open on one pooled connection while `fn` runs, so it
 * works behind PgBouncer in transaction mode: a session-level lock would
 * stay on whichever server connection took it, be taken again by any client
 * PgBouncer gave that connection to (advisory locks are re-entrant per
 * session), and its unlock could run on another connection and leave it held
 * for ever. Commit or rollback releases it; so does a killed process, whose
 * connection closes. The open transaction holds no row locks and writes
 * nothing (`fn`'s queries use other connections).
 */
export async function withTryLock(database: Database, name: string, fn: () => Promise<void>): Promise<boolean> {
  const client = await database.pool.connect();
  let locked = false;
  try {
    await client.query('begin');
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_xact_lock(hashtext($1)) as locked', [name]);
    locked = rows[0]?.locked === true;
    if (locked) await fn();
  } catch (err) {
    // Rollback releases the lock; a connection that cannot even roll back is discarded, never pooled mid-transaction.
    const failed = await client.query('rollback').then(
      () => undefined,
      (e: Error) => e,
    );
    client.release(failed);
    throw err;
  }
  const failed = await client.query('commit').then(
    () => undefined,
    (e: Error) => e,
  );
  client.release(failed);
  return locked;
}
