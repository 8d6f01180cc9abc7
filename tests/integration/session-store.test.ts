import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { event } from '../../src/domain/events';
import { LeaseLostError, SessionStore } from '../../src/db/session-store';
import { testDatabaseUrl } from '../support/env';

let database: Database;
let store: SessionStore;
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 8);
  store = new SessionStore(database);
});
afterAll(async () => database?.close());

async function newSession(): Promise<string> {
  const id = randomUUID();
  await store.create(
    { id, tenantId: 'default', problem: 'p', context: '', options: {}, provider: 'simulated', seed: 's' },
    event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' }),
  );
  return id;
}

const started = (attempt: number) => event('session.started', { attempt });

describe('SessionStore', () => {
  it('numbers events gaplessly under concurrent commits', async () => {
    const id = await newSession();
    const { lease } = (await store.acquireLease(id))!;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.commit(id, lease, { step: { key: `k${i}`, result: i }, events: [started(i), started(i)] })),
    );
    const events = await store.events(id, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
    expect((await store.get(id))!.lastSeq).toBe(61);
    expect((await store.completedSteps(id)).size).toBe(30);
  });

  it('fences a stale lease: its commit is refused and writes nothing', async () => {
    const id = await newSession();
    const old = (await store.acquireLease(id))!.lease;
    const current = (await store.acquireLease(id))!.lease;
    expect(current).toBe(old + 1);
    await expect(
      store.commit(id, old, { step: { key: 'x', result: 1 }, events: [started(1)], calls: [] }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(await store.events(id, 1, 10)).toEqual([]);
    expect((await store.completedSteps(id)).has('x')).toBe(false);
    await expect(store.commit(id, current, { step: { key: 'x', result: 1 }, events: [started(2)] })).resolves.toHaveLength(1);
  });

  it('refuses to commit the same step twice (a step is written once)', async () => {
    const id = await newSession();
    const { lease } = (await store.acquireLease(id))!;
    await store.commit(id, lease, { step: { key: 'once', result: 1 }, events: [started(1)] });
    await expect(store.commit(id, lease, { step: { key: 'once', result: 2 }, events: [started(1)] })).rejects.toThrow();
    expect(await store.events(id, 0, 10)).toHaveLength(2);
  });

  it('never takes a lease on, or appends to, a finished session', async () => {
    const id = await newSession();
    const { lease } = (await store.acquireLease(id))!;
    await store.commit(id, lease, { events: [event('session.cancelled', { reason: 'test' })], patch: { status: 'cancelled', ended: true } });
    expect(await store.acquireLease(id)).toBeNull();
    await expect(store.commit(id, lease, { events: [started(1)] })).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('rejects a malformed event before touching the log', async () => {
    const id = await newSession();
    const { lease } = (await store.acquireLease(id))!;
    const bad = { type: 'session.started', data: { attempt: 'one' } } as never;
    await expect(store.commit(id, lease, { events: [bad] })).rejects.toThrow(/session.started is malformed/);
    expect((await store.get(id))!.lastSeq).toBe(1);
  });

  it('pages sessions newest first with an opaque cursor', async () => {
    const tenant = `t-${randomUUID()}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      ids.push(id);
      await store.create(
        { id, tenantId: tenant, problem: `p${i}`, context: '', options: {}, provider: 'simulated', seed: 's' },
        event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' }),
      );
    }
    const first = await store.list(tenant, 2);
    const second = await store.list(tenant, 2, first.nextCursor!);
    const third = await store.list(tenant, 2, second.nextCursor!);
    const seen = [...first.items, ...second.items, ...third.items].map((s) => s.id);
    expect(seen).toEqual([...ids].reverse());
    expect(third.nextCursor).toBeNull();
    await expect(store.list(tenant, 2, 'garbage')).rejects.toThrow(/cursor/);
  });
});
