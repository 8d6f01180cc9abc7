import { InMemorySessionStore } from '../../src/db/in-memory-session-store';
import { InMemoryLessonStore } from '../../src/memory/in-memory-lesson-store';
import { lessonStoreConformance } from './lesson-store.conformance';

lessonStoreConformance('in memory', async () => {
  const sessions = new InMemorySessionStore();
  return { lessons: new InMemoryLessonStore(sessions), sessions, close: async () => {} };
});
