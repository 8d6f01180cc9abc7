import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, openDatabase, runMigrations, type Database } from '../../src/db/client';
import { compactEndedSessions } from '../../src/db/retention-store';
import { SessionStore } from '../../src/db/session-store';
import { siblingDatabaseUrl } from '../support/env';
import { assertGapless, readStream } from '../support/sse-client';
import { createSession, getJson, snapshot, startStack, waitFor, waitForStatus, type Stack } from '../support/stack';

// Its own database (`<test database>_retention`): compaction reaches every old session, and must not reach other test files'.
const url = siblingDatabaseUrl('retention');
const DAY = 24 * 3600_000;

let database: Database;
let store: SessionStore;
let stack: Stack | null = null;
beforeAll(async () => {
  await ensureDatabase(url);
  database = openDatabase(url, 2);
  await runMigrations(database);
  await database.pool.query('truncate sessions cascade');
  store = new SessionStore(database);
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

const endedDaysAgo = (id: string, days: number) =>
  database.pool.query(`update sessions set ended_at = now() - make_interval(days => $2) where id = $1`, [id, days]);
const stepCount = async (id: string) => (await database.pool.query<{ n: number }>('select count(*)::int as n from steps where session_id = $1', [id])).rows[0]!.n;

async function finished(s: Stack, seed: string): Promise<string> {
  const id = await createSession(s.url, { problem: 'Should we raise our prices by 15% for new customers only?', seed });
  expect((await waitForStatus(s.url, id, ['completed', 'failed'], 120_000)).status).toBe('completed');
  // The memory jobs report after the end: those events follow the terminal one and are kept with it.
  await waitFor(
    async () => {
      const types = new Set((await store.events(id, 0, 10_000)).map((e) => e.type));
      return types.has('memory.contributed') && types.has('lessons.extracted');
    },
    60_000,
    `memory jobs of ${id}`,
  );
  return id;
}

describe('SESSION_RETENTION_DAYS', () => {
  it('compacts an old session to its row, its ending and its ledger; leaves recent ones alone; and does it once', async () => {
    stack = await startStack({ DATABASE_URL: url });
    const [old, recent] = [await finished(stack, 'retention-old'), await finished(stack, 'retention-recent')];
    const before = { old: await snapshot(stack.url, old), recentEvents: (await store.events(recent, 0, 10_000)).length, ledger: (await store.ledger(old)).length };
    await endedDaysAgo(old, 10);
    await endedDaysAgo(recent, 2);

    const compacted = await compactEndedSessions(database, new Date(Date.now() - 7 * DAY));
    expect(compacted.sessions).toEqual([old]);
    expect(compacted.steps).toBeGreaterThan(0);

    const events = await store.events(old, 0, 10_000);
    expect(events[0]!.type).toBe('session.completed');
    expect(events.map((e) => e.type)).toContain('lessons.extracted');
    expect(events.at(-1)!.seq).toBe(before.old.last_seq);
    expect(compacted.events).toBe(events[0]!.seq - 1);
    expect(await stepCount(old)).toBe(0);
    // What a person comes back for stays: the snapshot (status, results, usage) and the cost ledger.
    const after = await snapshot(stack.url, old);
    expect(after.status).toBe('completed');
    expect(after.results).toEqual(before.old.results);
    expect(after.usage).toEqual(before.old.usage);
    expect((await store.ledger(old)).length).toBe(before.ledger);
    // A replay starts at the ending, so a client still learns how the session ended, and stops there.
    const page = await getJson(`${stack.url}/v1/sessions/${old}/events?after=0`);
    expect(page.items[0].type).toBe('session.completed');
    const replay = await readStream(`${stack.url}/v1/sessions/${old}/stream`, { timeoutMs: 10_000 });
    assertGapless(replay, events[0]!.seq);
    expect(replay.envelopes.map((e) => e.type)).toEqual(['session.completed']);

    expect((await store.events(recent, 0, 10_000)).length).toBe(before.recentEvents);
    expect(await stepCount(recent)).toBeGreaterThan(0);
    expect((await compactEndedSessions(database, new Date(Date.now() - 7 * DAY))).sessions).toEqual([]);
  }, 300_000);

  it("is the worker's sweep, when set", async () => {
    await stack?.stop();
    stack = await startStack({ DATABASE_URL: url, SESSION_RETENTION_DAYS: '1', RECONCILE_INTERVAL_MS: '200' });
    const id = await finished(stack, 'retention-sweep');
    await endedDaysAgo(id, 2);
    await waitFor(async () => (await stepCount(id)) === 0, 30_000, 'the sweep to compact the session');
    expect((await store.events(id, 0, 10_000))[0]!.type).toBe('session.completed');
  }, 300_000);
});
