import pg from 'pg';

/** A dependency a process cannot start without; the message names the variable to fix. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** The URL with its password masked, safe to print. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** What an error says, for a one-line start-up message. */
export const reason = (err: unknown): string => {
  // `AggregateError` (e.g. ECONNREFUSED on both ::1 and 127.0.0.1) has an empty message: its code says it.
  const e = err as { code?: string; message?: string; errors?: { message?: string }[] };
  return e.message || e.errors?.[0]?.message || e.code || String(err);
};

// SQLSTATE 3D000: the database named in the URL does not exist.
const NO_SUCH_DATABASE = '3D000';

/**
 * Checks that Postgres answers, creating the database named in the URL when
 * the server says it does not exist (through the server's `postgres`
 * database; it needs a role with CREATEDB). Returns whether it created it.
 */
export async function checkPostgres(url: string, timeoutMs = 5_000, variable = 'DATABASE_URL'): Promise<{ created: boolean; autovacuum: boolean }> {
  const where = `Postgres at ${variable}=${redact(url)}`;
  try {
    return { created: false, autovacuum: await autovacuumOn(url, timeoutMs) };
  } catch (err) {
    if ((err as { code?: string }).code !== NO_SUCH_DATABASE) throw new StartupError(`cannot reach ${where}: ${reason(err)}`);
  }
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const maintenance = Object.assign(new URL(url), { pathname: '/postgres' }).toString();
  try {
    await query(maintenance, timeoutMs, `create database "${name.replaceAll('"', '""')}"`);
  } catch (err) {
    // 42P04: another process created it meanwhile.
    if ((err as { code?: string }).code !== '42P04') {
      throw new StartupError(`${where}: database "${name}" does not exist and could not be created: ${reason(err)}`);
    }
  }
  return { created: true, autovacuum: await autovacuumOn(url, timeoutMs) };
}

/**
 * Whether the server vacuums and analyses tables as they grow. Without it the planner keeps the statistics of an
 * empty table and index-only scans read every heap row: with 65,000 expert memories recall's text shortlist scanned
 * a persona's every row (1.7 ms, 0.13 ms after ANALYZE) and 200 sessions on one worker took 15% longer.
 */
const autovacuumOn = async (url: string, timeoutMs: number) => (await query<{ autovacuum: string }>(url, timeoutMs, 'show autovacuum'))[0]?.autovacuum !== 'off';

/** What pre-flight says of a server whose autovacuum is off (a warning: the service runs, and slows as it grows). */
export const AUTOVACUUM_OFF =
  "Postgres has autovacuum off: nothing vacuums or analyses bo1's tables as they grow, so memory recall and session reads slow down (plans made for empty tables); turn it on, or run VACUUM ANALYZE regularly";

async function query<R>(url: string, timeoutMs: number, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {}); // a failed connect() rejects; this only catches a late socket error
  try {
    await client.connect();
    return (await client.query(sql)).rows as R[];
  } finally {
    await client.end().catch(() => {});
  }
}
