import { openDatabase, runMigrations } from '../../src/db/client';
import { testDatabaseUrl } from './env';

/** Migrates the test database once per run; each test isolates itself by ids and queue names. */
export default async function setup(): Promise<void> {
  const database = openDatabase(testDatabaseUrl());
  try {
    await runMigrations(database);
  } finally {
    await database.close();
  }
}
