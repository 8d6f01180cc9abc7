import { InMemorySessionStore } from '../../src/db/in-memory-session-store';
import { InMemoryUtteranceStore } from '../../src/memory/in-memory-utterance-store';
import { utteranceStoreConformance } from './utterance-store.conformance';

utteranceStoreConformance('in memory', async () => {
  const sessions = new InMemorySessionStore();
  return { utterances: new InMemoryUtteranceStore(sessions), sessions, close: async () => {} };
});
