import { describe, expect, it } from 'vitest';
import { createSession, type CreatedSession, type CreateSessionDeps, type CreateSessionRequest } from '../../src/app/create-session';
import { InMemoryIdempotencyStore } from '../../src/db/in-memory-idempotency-store';
import { InMemorySessionStore } from '../../src/db/in-memory-session-store';

/** The create use-case against the in-memory twins: no Postgres, no Redis. */
function setup(over: Partial<CreateSessionDeps> = {}) {
  let n = 0;
  const enqueued: [string, string][] = [];
  const warnings: string[] = [];
  const deps: CreateSessionDeps = {
    sessions: new InMemorySessionStore(),
    idempotency: new InMemoryIdempotencyStore(),
    enqueue: async (id, reason) => void enqueued.push([id, reason]),
    newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    providerName: 'simulated',
    activeCap: 0,
    prices: { smart: { input: 3, output: 15 }, fast: { input: 1, output: 5 } },
    warn: (msg) => void warnings.push(msg),
    ...over,
  };
  return { deps, enqueued, warnings };
}

const request = (over: Partial<CreateSessionRequest> = {}): CreateSessionRequest => ({ problem: 'Should I open a second office?', context: 'ten staff', mode: 'auto', ...over });
const present = (s: CreatedSession) => ({ status: 202, body: s, headers: { Location: `/v1/sessions/${s.id}` } });

describe('createSession', () => {
  it('records a queued session with its first event, queues it, and answers what present builds', async () => {
    const { deps, enqueued } = setup();
    const outcome = await createSession(deps, 'acme', request({ seed: 'seed-1', budget_usd: 50, memory: { read: true, contribute: false } }), undefined, present);
    const id = (outcome.body as CreatedSession).id;
    expect(outcome).toEqual({ status: 202, body: { id, status: 'queued' }, headers: { Location: `/v1/sessions/${id}` }, replayed: false });
    expect(await deps.sessions.get(id, 'acme')).toMatchObject({
      provider: 'simulated',
      seed: 'seed-1',
      options: { mode: 'auto', budgetUsd: 50, memory: { read: true, contribute: false } },
    });
    expect((await deps.sessions.events(id, 0, 10)).map((e) => e.type)).toEqual(['session.created']);
    expect(enqueued).toEqual([[id, 'start']]);
  });

  it('fills in the checkpoint settings of an interactive session and a seed when none is given', async () => {
    const { deps } = setup();
    const { body } = await createSession(deps, 'acme', request({ mode: 'interactive' }), undefined, present);
    const row = (await deps.sessions.get((body as CreatedSession).id))!;
    expect((row.options as { checkpoints?: unknown }).checkpoints).toBeTypeOf('object');
    expect(row.seed).toMatch(/^00000000-/);
  });

  it('refuses a budget that cannot cover the cheapest session, naming the field, before recording anything', async () => {
    const { deps, enqueued } = setup();
    const err = await createSession(deps, 'acme', request({ budget_usd: 0.000001 }), 'key-1', present).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'budget-too-small', errors: [{ field: 'body.budget_usd' }] });
    expect((await deps.sessions.list('acme', 10)).items).toEqual([]);
    expect(await deps.idempotency.read({ tenantId: 'acme', scope: 'createSession', key: 'key-1' })).toBeNull();
    expect(enqueued).toEqual([]);
  });

  it("refuses past the tenant's cap, explaining the cap, and releases the key for a retry", async () => {
    const { deps, enqueued } = setup({ activeCap: 1 });
    await createSession(deps, 'acme', request(), undefined, present);
    const err = await createSession(deps, 'acme', request(), 'retry-me', present).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'too-many-sessions', details: { cap: 1 }, message: expect.stringContaining('MAX_ACTIVE_SESSIONS_PER_TENANT=1') });
    expect(await deps.idempotency.read({ tenantId: 'acme', scope: 'createSession', key: 'retry-me' })).toBeNull();
    expect(enqueued).toHaveLength(1);
  });

  it('runs once per Idempotency-Key: a repeat replays, a different body with the key is refused', async () => {
    const { deps, enqueued } = setup();
    const first = await createSession(deps, 'acme', request(), 'k', present);
    const again = await createSession(deps, 'acme', request(), 'k', present);
    expect(again).toEqual({ ...first, replayed: true });
    expect((await deps.sessions.list('acme', 10)).items).toHaveLength(1);
    expect(enqueued).toHaveLength(1);
    await expect(createSession(deps, 'acme', request({ problem: 'Something else?' }), 'k', present)).rejects.toMatchObject({
      code: 'idempotency-key-reused',
      errors: [{ field: 'headers.idempotency-key' }],
    });
  });

  it('still answers when the enqueue fails: the session is recorded and the reconciler will queue it', async () => {
    const { deps, warnings } = setup({ enqueue: () => Promise.reject(new Error('redis is down')) });
    const { status, body } = await createSession(deps, 'acme', request(), undefined, present);
    expect(status).toBe(202);
    expect(await deps.sessions.get((body as CreatedSession).id)).not.toBeNull();
    expect(warnings).toEqual([expect.stringContaining('enqueue did not complete')]);
  });
});
