import type { Database } from './client';

/**
 * Runs `fn` while holding the Postgres advisory lock named `name`, or not at
 * all when another session holds it — in this process or any other: the
 * lock belongs to one connection, so two pools never share it. Returns
 * whether `fn` ran. The lock dies with its connection, so a process killed
 * mid-run frees it.
 */
export async function withTryLock(database: Database, name: string, fn: () => Promise<void>): Promise<boolean> {
  const client = await database.pool.connect();
  let locked: boolean;
  try {
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [name]);
    locked = rows[0]?.locked === true;
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
  if (!locked) {
    client.release();
    return false;
  }
  try {
    await fn();
    return true;
  } finally {
    // A connection that could not unlock must not go back to the pool still holding the lock: release(err) discards it.
    const failed = await client.query('select pg_advisory_unlock(hashtext($1))', [name]).then(
      () => undefined,
      (err: Error) => err,
    );
    client.release(failed);
  }
}
