import { InMemoryIdempotencyStore } from '../../src/db/in-memory-idempotency-store';
import { idempotencyStoreConformance } from './idempotency-store.conformance';

idempotencyStoreConformance('in memory', async () => {
  const store = new InMemoryIdempotencyStore();
  return { store, age: async (id, ms) => store.backdate(id, ms), close: async () => {} };
});
