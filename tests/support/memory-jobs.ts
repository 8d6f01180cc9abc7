import type { Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { waitFor } from './stack';

/** Waits for the memory jobs that follow a completed session, so its snapshot and ledger stop changing. */
export const memoryJobsDone = (database: Database, id: string, timeoutMs = 30_000): Promise<true> =>
  waitFor(
    async () => {
      const types = (await new SessionStore(database).events(id, 0, 10_000)).map((e) => e.type);
      return types.includes('lessons.extracted') && types.includes('memory.contributed');
    },
    timeoutMs,
    'the memory jobs',
  );
