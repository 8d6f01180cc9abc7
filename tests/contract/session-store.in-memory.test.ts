import { InMemorySessionStore } from '../../src/db/in-memory-session-store';
import { sessionStoreConformance } from './session-store.conformance';

sessionStoreConformance('in memory', async () => ({ store: new InMemorySessionStore(), close: async () => {} }));
