import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cancelSession, type CancelSessionDeps } from '../../src/app/cancel-session';
import { InMemorySessionStore } from '../../src/db/in-memory-session-store';
import { event } from '../../src/domain/events';

/** The cancel use-case against the in-memory session store. */
async function setup(over: Partial<CancelSessionDeps> = {}) {
  const sessions = new InMemorySessionStore();
  const id = randomUUID();
  await sessions.create(
    { id, tenantId: 'acme', problem: 'p', context: '', options: {}, provider: 'simulated', seed: 's' },
    event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' }),
  );
  const broadcasts: string[] = [];
  const warnings: string[] = [];
  const deps: CancelSessionDeps = { sessions, broadcastCancel: async (s) => void broadcasts.push(s), warn: (msg) => void warnings.push(msg), ...over };
  return { deps, sessions, id, broadcasts, warnings };
}

describe('cancelSession', () => {
  it('ends the session as cancelled with its event, then tells the workers', async () => {
    const { deps, sessions, id, broadcasts } = await setup();
    expect(await cancelSession(deps, 'acme', id)).toEqual({ id, status: 'cancelled' });
    expect(await sessions.get(id)).toMatchObject({ status: 'cancelled', phase: 'cancelled', checkpoint: null, endedAt: expect.any(Date) });
    expect((await sessions.events(id, 0, 10)).map((e) => e.type)).toEqual(['session.created', 'session.cancelled']);
    expect(broadcasts).toEqual([id]);
  });

  it("is not found for another tenant's session, and changes nothing", async () => {
    const { deps, sessions, id, broadcasts } = await setup();
    await expect(cancelSession(deps, 'someone-else', id)).rejects.toMatchObject({ code: 'not-found', message: `session ${id} does not exist` });
    expect((await sessions.get(id))!.status).toBe('queued');
    expect(broadcasts).toEqual([]);
  });

  it('refuses a session that has already ended', async () => {
    const { deps, id, broadcasts } = await setup();
    await cancelSession(deps, 'acme', id);
    await expect(cancelSession(deps, 'acme', id)).rejects.toMatchObject({ code: 'already-ended', message: `session ${id} is already cancelled` });
    expect(broadcasts).toHaveLength(1);
  });

  it('refuses a session that ended between the read and the commit', async () => {
    const { deps, sessions, id } = await setup();
    // The read sees it queued; by the commit it has completed.
    const racing: CancelSessionDeps = {
      ...deps,
      sessions: Object.assign(Object.create(sessions) as InMemorySessionStore, {
        get: async (sid: string, tenant?: string) => {
          const row = await sessions.get(sid, tenant);
          await sessions.commit(sid, null, { events: [], patch: { status: 'completed', ended: true } });
          return row;
        },
      }),
    };
    await expect(cancelSession(racing, 'acme', id)).rejects.toMatchObject({ code: 'already-ended', message: `session ${id} is already queued` });
    expect((await sessions.get(id))!.status).toBe('completed');
  });

  it('keeps the cancellation when the broadcast fails: the run stops at its next commit', async () => {
    const { deps, sessions, id, warnings } = await setup({ broadcastCancel: () => Promise.reject(new Error('redis is down')) });
    expect(await cancelSession(deps, 'acme', id)).toEqual({ id, status: 'cancelled' });
    expect((await sessions.get(id))!.status).toBe('cancelled');
    expect(warnings).toEqual([expect.stringContaining('cancel broadcast failed')]);
  });
});
