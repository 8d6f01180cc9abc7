import { InMemorySessionStore } from '../../src/db/in-memory-session-store';
import { InMemoryMemoryStore } from '../../src/memory/in-memory-memory-store';
import { memoryStoreConformance } from './memory-store.conformance';

memoryStoreConformance('in memory', async () => {
  const sessions = new InMemorySessionStore();
  return { memory: new InMemoryMemoryStore(sessions), sessions, close: async () => {} };
});
