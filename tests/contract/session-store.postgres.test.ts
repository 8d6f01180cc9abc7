import { openDatabase } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { testDatabaseUrl } from '../support/env';
import { sessionStoreConformance } from './session-store.conformance';

sessionStoreConformance('Postgres', async () => {
  const database = openDatabase(testDatabaseUrl(), 8);
  return { store: new SessionStore(database), close: () => database.close() };
});
