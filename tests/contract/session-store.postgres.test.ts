import { openDatabase } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { testDatabaseUrl } from '../support/env';
import { sessionStoreConformance } from './session-store.conformance';

sessionStoreConformance('Postgres', async () => {
  const database = openDatabase(testDatabaseUrl(), 8);
  // Another process's store: its own pool and its own belief of each session's log head.
  const other = openDatabase(testDatabaseUrl(), 4);
  return { store: new SessionStore(database), peer: new SessionStore(other), close: async () => (await database.close(), await other.close()) };
});
