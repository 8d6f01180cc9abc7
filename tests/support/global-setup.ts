import pg from 'pg';
import { openDatabase, runMigrations } from '../../src/db/client';
import { testDatabaseUrl } from './env';

/** Creates the test database if it is missing, then migrates it once per run; tests isolate by ids and queue names. */
export default async function setup(): Promise<void> {
  const url = new URL(testDatabaseUrl());
  const name = url.pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await admin.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
  const database = openDatabase(url.toString());
  try {
    await runMigrations(database);
  } finally {
    await database.close();
  }
}
