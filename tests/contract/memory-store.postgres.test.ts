import { openDatabase } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { MemoryStore } from '../../src/memory/memory-store';
import { testDatabaseUrl } from '../support/env';
import { memoryStoreConformance } from './memory-store.conformance';

memoryStoreConformance('Postgres', async () => {
  const database = openDatabase(testDatabaseUrl(), 4);
  return { memory: new MemoryStore(database.db), sessions: new SessionStore(database), close: () => database.close() };
});
