import { openDatabase } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { MemoryStore } from '../../src/memory/memory-store';
import { testDatabaseUrl } from '../support/env';
import { lessonStoreConformance } from './lesson-store.conformance';

lessonStoreConformance('Postgres', async () => {
  const database = openDatabase(testDatabaseUrl(), 4);
  return { lessons: new MemoryStore(database.db), sessions: new SessionStore(database), close: () => database.close() };
});
