import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import * as schema from './schema';

export type Db = NodePgDatabase<typeof schema>;

export interface Database {
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

// Return numeric and bigint columns as JS numbers: costs and counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function openDatabase(url: string, max = 10): Database {
  // A hung or unreachable server fails a checkout after a while (a 503 to the client) instead of holding the request for ever.
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
  // An idle client's error (e.g. the server restarting) must not crash the process.
  pool.on('error', () => {});
  // Nor a checked-out one's: the pool only listens while a client is idle, so a connection dying under a transaction or a
  // held advisory lock emitted an unhandled 'error' and killed the process. Its queries still fail (a 503, a retried step),
  // and the pool discards it when it is released, unqueryable.
  pool.on('connect', (client) => client.on('error', () => {}));
  return { pool, db: drizzle(pool, { schema }), close: () => pool.end() };
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * Applies pending migrations; an advisory lock keeps concurrent starters from
 * racing. The lock is session-level (drizzle's migrator runs several
 * statements and its own transaction on this client), so behind a
 * transaction-mode pooler this must run over a direct connection:
 * DATABASE_DIRECT_URL (see migrateAt).
 */
export async function runMigrations(database: Database): Promise<void> {
  const client = await database.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(715001)');
    await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await client.query('SELECT pg_advisory_unlock(715001)').catch(() => {});
    client.release();
  }
}

/** Migrations over one connection of their own to `url` (DATABASE_DIRECT_URL when the pool goes through PgBouncer). */
export async function migrateAt(url: string): Promise<void> {
  const database = openDatabase(url, 1);
  try {
    await runMigrations(database);
  } finally {
    await database.close();
  }
}

/** Creates the database named in `url` if it does not exist (connecting to the server's `postgres` database). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await admin.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}
