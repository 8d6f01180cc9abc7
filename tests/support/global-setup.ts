import { ensureDatabase, openDatabase, runMigrations } from '../../src/db/client';
import { testDatabaseUrl } from './env';

/** Creates the test database if it is missing, then migrates it once per run; tests isolate by ids and queue names. */
export default async function setup(): Promise<void> {
  await ensureDatabase(testDatabaseUrl());
  const database = openDatabase(testDatabaseUrl());
  try {
    await runMigrations(database);
  } finally {
    await database.close();
  }
}
