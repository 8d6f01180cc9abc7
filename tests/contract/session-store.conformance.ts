import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event } from '../../src/domain/events';
import type { LedgerEntry, SessionStorePort } from '../../src/ports/session-store';

/**
 * What every session store must do, run against each adapter (Postgres and
 * the in-memory twin) by a test file that supplies it. Ids and tenants are
 * fresh per test: the Postgres adapter shares its database with other test
 * files, so assertions over cross-session queries check membership only.
 */
export interface OpenedSessionStore {
  store: SessionStorePort;
  /** A second handle on the same data, as another process would hold (the same store where there is no other). */
  peer?: SessionStorePort;
  close(): Promise<void>;
}

export function sessionStoreConformance(adapter: string, open: () => Promise<OpenedSessionStore>): void {
  describe(`SessionStorePort conformance: ${adapter}`, () => {
    let opened: OpenedSessionStore;
    let store: SessionStorePort;
    let peer: SessionStorePort;
    beforeAll(async () => {
      opened = await open();
      store = opened.store;
      peer = opened.peer ?? store;
    });
    afterAll(async () => opened?.close());

    const created = event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' });
    const started = (attempt: number) => event('session.started', { attempt });
    const tenant = () => `t-${randomUUID()}`;

    async function newSession(tenantId = tenant(), cap = 0, options: Record<string, unknown> = {}): Promise<string> {
      const id = randomUUID();
      await store.create({ id, tenantId, problem: 'p', context: '', options, provider: 'simulated', seed: 's' }, created, cap);
      return id;
    }

    const call = (over: Partial<LedgerEntry> = {}): LedgerEntry => ({
      stepKey: 'step',
      provider: 'simulated',
      model: 'm',
      phase: 'debate',
      purpose: 'contribution',
      promptVersion: 'v1',
      inputTokens: 100,
      outputTokens: 20,
      costUsd: 0.001234,
      latencyMs: 5,
      attempt: 1,
      outcome: 'ok',
      ...over,
    });

    describe('create', () => {
      it('records a queued session with its first event at seq 1', async () => {
        const id = await newSession();
        const row = (await store.get(id))!;
        expect(row).toMatchObject({ id, status: 'queued', phase: 'queued', lease: 0, lastSeq: 1, checkpoint: null, endedAt: null });
        expect(await store.events(id, 0, 10)).toMatchObject([{ seq: 1, type: 'session.created', session_id: id }]);
      });

      it("refuses past the tenant's active cap; other tenants and ended sessions do not count", async () => {
        const t = tenant();
        const first = await newSession(t, 2);
        await newSession(t, 2);
        await expect(newSession(t, 2)).rejects.toMatchObject({ code: 'too-many-sessions', details: { cap: 2 } });
        await expect(newSession(tenant(), 2)).resolves.toBeTypeOf('string');
        await store.commit(first, null, { events: [event('session.cancelled', { reason: 'test' })], patch: { status: 'cancelled', ended: true } });
        await expect(newSession(t, 2)).resolves.toBeTypeOf('string');
      });

      it('lets exactly one of concurrent creates take the last slot', async () => {
        const t = tenant();
        const results = await Promise.allSettled(Array.from({ length: 5 }, () => newSession(t, 1)));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results.filter((x) => x.status === 'rejected')) expect(r.reason).toMatchObject({ code: 'too-many-sessions' });
      });

      it('rejects a malformed first event and records nothing', async () => {
        const id = randomUUID();
        const bad = { type: 'session.created', data: { problem: 1 } } as never;
        await expect(store.create({ id, tenantId: tenant(), problem: 'p', context: '', options: {}, provider: 'simulated', seed: 's' }, bad)).rejects.toThrow(/malformed/);
        expect(await store.get(id)).toBeNull();
      });
    });

    describe('get and list', () => {
      it("scopes get to a tenant: another tenant's session is not there", async () => {
        const t = tenant();
        const id = await newSession(t);
        expect((await store.get(id, t))?.id).toBe(id);
        expect(await store.get(id, tenant())).toBeNull();
        expect(await store.get(randomUUID())).toBeNull();
      });

      it('pages a tenant\'s sessions newest first with an opaque cursor, filtered by status', async () => {
        const t = tenant();
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) ids.push(await newSession(t));
        await newSession(tenant());
        const pages = [await store.list(t, 2)];
        while (pages.at(-1)!.nextCursor) pages.push(await store.list(t, 2, pages.at(-1)!.nextCursor!));
        expect(pages).toHaveLength(3);
        expect(pages.flatMap((p) => p.items.map((s) => s.id))).toEqual([...ids].reverse());
        await store.commit(ids[1]!, null, { events: [event('session.cancelled', { reason: 'test' })], patch: { status: 'cancelled', ended: true } });
        expect((await store.list(t, 10, undefined, 'cancelled')).items.map((s) => s.id)).toEqual([ids[1]]);
        expect((await store.list(t, 10, undefined, 'queued')).items).toHaveLength(4);
      });

      it('refuses a cursor it did not issue', async () => {
        await expect(store.list(tenant(), 2, 'garbage')).rejects.toMatchObject({ code: 'invalid-cursor' });
      });
    });

    describe('commit', () => {
      it('numbers events gaplessly under concurrent commits', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await Promise.all(
          Array.from({ length: 30 }, (_, i) => store.commit(id, lease, { step: { key: `k${i}`, result: i }, events: [started(i), started(i)] })),
        );
        expect((await store.events(id, 0, 1000)).map((e) => e.seq)).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
        expect((await store.get(id))!.lastSeq).toBe(61);
        expect((await store.completedSteps(id)).size).toBe(30);
      });

      it("fences a stale lease: its commit is refused and writes nothing (events, step, ledger, patch)", async () => {
        const id = await newSession();
        const old = (await store.acquireLease(id))!.lease;
        const current = (await store.acquireLease(id))!.lease;
        expect(current).toBe(old + 1);
        await expect(
          store.commit(id, old, { step: { key: 'x', result: 1 }, events: [started(1)], calls: [call()], patch: { phase: 'stale' } }),
        ).rejects.toMatchObject({ code: 'lease-lost' });
        expect(await store.events(id, 1, 10)).toEqual([]);
        expect((await store.completedSteps(id)).has('x')).toBe(false);
        expect(await store.ledger(id)).toEqual([]);
        expect((await store.get(id))!.phase).not.toBe('stale');
        await expect(store.commit(id, current, { step: { key: 'x', result: 1 }, events: [started(2)] })).resolves.toHaveLength(1);
      });

      it('refuses commits to a terminal session, leased or not, and never leases it again', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await store.commit(id, lease, { events: [event('session.cancelled', { reason: 'test' })], patch: { status: 'cancelled', ended: true } });
        expect((await store.get(id))!.endedAt).toBeInstanceOf(Date);
        expect(await store.acquireLease(id)).toBeNull();
        await expect(store.commit(id, lease, { events: [started(1)] })).rejects.toMatchObject({ code: 'lease-lost' });
        await expect(store.commit(id, null, { events: [started(1)] })).rejects.toMatchObject({ code: 'lease-lost' });
        expect((await store.get(id))!.lastSeq).toBe(2);
      });

      it('refuses a commit to a session that does not exist', async () => {
        await expect(store.commit(randomUUID(), null, { events: [started(1)] })).rejects.toMatchObject({ code: 'not-found' });
      });

      it('replays completed steps, and writes a step once', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await store.commit(id, lease, { step: { key: 'a', result: { answer: [1, 2] } }, events: [started(1)] });
        await store.commit(id, lease, { step: { key: 'b', result: null }, events: [] });
        expect(await store.completedSteps(id)).toEqual(new Map<string, unknown>([['a', { answer: [1, 2] }], ['b', null]]));
        await expect(store.commit(id, lease, { step: { key: 'a', result: 2 }, events: [started(1)] })).rejects.toThrow();
        expect(await store.events(id, 0, 10)).toHaveLength(2);
      });

      it('rejects a malformed event before touching the log', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        const bad = { type: 'session.started', data: { attempt: 'one' } } as never;
        await expect(store.commit(id, lease, { events: [bad] })).rejects.toThrow(/session.started is malformed/);
        expect((await store.get(id))!.lastSeq).toBe(1);
      });

      it('applies the patch: progress merged per key, a sub-problem\'s entry set, case memory reduced', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await store.commit(id, lease, { events: [], patch: { phase: 'intake', progress: { phase: 'intake', percent: 1 } } });
        await store.commit(id, lease, {
          events: [started(1)],
          patch: { progress: { percent: 5 }, subProblemProgress: { id: 'sp1', value: { round: 1 } } },
          caseMemory: (current, envs) => ({ before: current, seqs: envs.map((e) => e.seq) }),
        });
        await store.commit(id, lease, { events: [], patch: { subProblemProgress: { id: 'sp2', value: { round: 2 } }, results: { ok: true }, error: { kind: 'x' } } });
        const row = (await store.get(id))!;
        expect(row.progress).toEqual({ phase: 'intake', percent: 5, subProblems: { sp1: { round: 1 }, sp2: { round: 2 } } });
        expect(row).toMatchObject({ phase: 'intake', status: 'running', results: { ok: true }, error: { kind: 'x' } });
        expect(await store.caseMemory(id)).toEqual({ before: {}, seqs: [2] });
      });

      it("runs the write hook inside the commit: it gets the transaction, and its failure writes nothing", async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        let handle: unknown;
        await store.commit(id, lease, { step: { key: 'w1', result: 1 }, events: [started(1)], write: async (tx) => void (handle = tx) });
        expect(handle).toBeDefined();
        await expect(
          store.commit(id, lease, {
            step: { key: 'w2', result: 2 },
            events: [started(2)],
            calls: [call()],
            write: async () => Promise.reject(new Error('memory write failed')),
          }),
        ).rejects.toThrow('memory write failed');
        expect((await store.get(id))!.lastSeq).toBe(2);
        expect((await store.completedSteps(id)).has('w2')).toBe(false);
        expect(await store.ledger(id)).toEqual([]);
      });
    });

    describe('commit under concurrency', () => {
      /** A fold that records every seq it saw: the stored memory must list the log's seqs in order, each once. */
      const seqs = (current: unknown, envs: { seq: number }[]) => ({ seqs: [...((current as { seqs?: number[] }).seqs ?? []), ...envs.map((e) => e.seq)] });

      it('folds the case memory over every event in seq order when the steps of a round commit at once', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        const done = await Promise.all(
          Array.from({ length: 24 }, (_, i) => store.commit(id, lease, { step: { key: `t${i}`, result: i }, events: [started(i), started(i)], caseMemory: seqs })),
        );
        const log = (await store.events(id, 0, 1000)).map((e) => e.seq);
        expect(log).toEqual(Array.from({ length: 49 }, (_, i) => i + 1));
        // Each commit got its own two consecutive seqs, and reported the envelopes the log holds.
        expect(done.flatMap((envs) => envs.map((e) => e.seq)).sort((a, b) => a - b)).toEqual(log.slice(1));
        expect(await store.caseMemory(id)).toEqual({ seqs: log.slice(1) });
      });

      it("lands many sessions' commits made at once, each on its own terms: a lost lease or a failing commit is that session's alone", async () => {
        const ids = await Promise.all(Array.from({ length: 12 }, () => newSession()));
        const leases = await Promise.all(ids.map(async (id) => (await store.acquireLease(id))!.lease));
        await store.commit(ids[1]!, leases[1]!, { step: { key: 'dup', result: 0 }, events: [started(0)] });
        await peer.acquireLease(ids[0]!);
        const results = await Promise.allSettled(
          ids.map((id, i) => store.commit(id, leases[i]!, { step: { key: i === 1 ? 'dup' : `s${i}`, result: i }, events: [started(i), started(i)], caseMemory: seqs })),
        );
        expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: 'lease-lost' } });
        expect(results[1]!.status).toBe('rejected');
        for (let i = 2; i < ids.length; i++) {
          expect(results[i]!.status).toBe('fulfilled');
          expect((await store.get(ids[i]!))!.lastSeq).toBe(3);
          expect(await store.caseMemory(ids[i]!)).toEqual({ seqs: [2, 3] });
          expect((await store.completedSteps(ids[i]!)).get(`s${i}`)).toBe(i);
        }
      });

      it('stores the memory the fold returns, whatever it keeps, adds, changes or drops of the one before', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        const steps: ((m: Record<string, unknown>) => unknown)[] = [
          () => ({ a: [1], b: { x: 1 }, c: 'c' }),
          (m) => ({ ...m, a: [...(m.a as number[]), 2] }),
          (m) => ({ ...m, b: { ...(m.b as object), y: 2 }, d: true }),
          (m) => ({ a: m.a, d: m.d }),
          () => ['not', 'a', 'record'],
          () => ({ e: 5 }),
        ];
        let expected: unknown = {};
        for (const [i, next] of steps.entries()) {
          expected = next(expected as Record<string, unknown>);
          await store.commit(id, lease, { events: [started(i)], caseMemory: (current) => next(current as Record<string, unknown>) });
          expect(await store.caseMemory(id)).toEqual(expected);
        }
        expect(expected).toEqual({ e: 5 });
        // And a fresh handle folds onto exactly what is stored.
        await peer.commit(id, lease, { events: [started(9)], caseMemory: (m) => ({ ...(m as object), f: 6 }) });
        expect(await store.caseMemory(id)).toEqual({ e: 5, f: 6 });
      });

      it('lands many parallel commits of one session, with write hooks and without, more of them than the pool has connections', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            store.commit(id, lease, {
              step: { key: `m${i}`, result: i },
              events: [started(i)],
              caseMemory: seqs,
              ...(i % 2 === 0 && { write: async () => new Promise<void>((r) => setTimeout(r, 2)) }),
            }),
          ),
        );
        // A commit waiting for a connection held by one waiting for its turn would fail at the pool's checkout timeout.
        expect((await store.caseMemory(id)) as { seqs: number[] }).toEqual({ seqs: Array.from({ length: 40 }, (_, i) => i + 2) });
      });

      it('lands the commits made before one that ends the session and refuses those made after it, at once or not', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        const settle = (p: Promise<unknown>) => p.then(() => 'ok', (err: { code?: string }) => err.code ?? 'error');
        const commits = [
          ...Array.from({ length: 4 }, (_, i) => settle(store.commit(id, lease, { step: { key: `b${i}`, result: i }, events: [started(i)], calls: [call({ stepKey: `b${i}` })], caseMemory: seqs }))),
          settle(store.commit(id, lease, { events: [event('session.completed', { usage: { calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, byPhase: {} } })], patch: { status: 'completed', ended: true }, caseMemory: seqs })),
          ...Array.from({ length: 3 }, (_, i) => settle(store.commit(id, lease, { step: { key: `a${i}`, result: i }, events: [started(i)], caseMemory: seqs }))),
        ];
        expect(await Promise.all(commits)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'lease-lost', 'lease-lost', 'lease-lost']);
        expect((await store.events(id, 0, 100)).map((e) => e.type)).toEqual(['session.created', ...Array(4).fill('session.started'), 'session.completed']);
        expect([...(await store.completedSteps(id)).keys()].sort()).toEqual(['b0', 'b1', 'b2', 'b3']);
        expect((await store.ledger(id)).map((r) => r.stepKey).sort()).toEqual(['b0', 'b1', 'b2', 'b3']);
        expect(await store.get(id)).toMatchObject({ status: 'completed', lastSeq: 6 });
      });

      it('applies the patches of commits made at once in their order', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await Promise.all([
          store.commit(id, lease, { events: [started(1)], patch: { phase: 'debate', progress: { phase: 'debate', percent: 20 } } }),
          store.commit(id, lease, { events: [], patch: { subProblemProgress: { id: 'sp1', value: { round: 1 } } } }),
          store.commit(id, lease, { events: [started(2)] }),
          store.commit(id, lease, { events: [], patch: { subProblemProgress: { id: 'sp2', value: { round: 1 } } } }),
          store.commit(id, lease, { events: [], patch: { phase: 'voting', progress: { percent: 60 }, subProblemProgress: { id: 'sp1', value: { round: 2 } } } }),
        ]);
        expect(await store.get(id)).toMatchObject({ phase: 'voting', lastSeq: 3, progress: { phase: 'debate', percent: 60, subProblems: { sp1: { round: 2 }, sp2: { round: 1 } } } });
      });

      it("writes nothing of commits made at once when a write hook among them fails; the lease's later commits fail too, an ending one goes, a new lease commits", async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        const results = await Promise.allSettled(
          Array.from({ length: 5 }, (_, i) =>
            store.commit(id, lease, {
              step: { key: `h${i}`, result: i },
              events: [started(i)],
              caseMemory: seqs,
              write: async () => (i === 2 ? Promise.reject(new Error('memory write failed')) : undefined),
            }),
          ),
        );
        // Whether a sibling landed depends on whether it shared the failed one's batch; what landed, landed whole, and
        // nothing after the failed one.
        expect(results[2]!.status).toBe('rejected');
        const landed = results.findIndex((r) => r.status === 'rejected');
        results.forEach((r, i) => expect(r.status).toBe(i < landed ? 'fulfilled' : 'rejected'));
        const steps = await store.completedSteps(id);
        results.forEach((r, i) => expect(steps.has(`h${i}`)).toBe(r.status === 'fulfilled'));
        expect((await store.get(id))!.lastSeq).toBe(1 + landed);
        // The run is over: a later step of that lease would land after a gap, so it is refused; its ending is not.
        await expect(store.commit(id, lease, { step: { key: 'later', result: 1 }, events: [started(9)] })).rejects.toThrow('memory write failed');
        const { lease: next } = (await store.acquireLease(id))!;
        await store.commit(id, next, { events: [started(10)], caseMemory: seqs });
        await store.commit(id, next, { events: [event('session.failed', { reason: 'r', kind: 'internal', step: 'h2', retryable: false })], patch: { status: 'failed', ended: true } });
        expect((await store.get(id))!).toMatchObject({ status: 'failed', lastSeq: 3 + landed });
      });

      it("fails a lease's commits after one of them failed, but still lands the one that ends the session", async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await expect(store.commit(id, lease, { step: { key: 'x', result: 1 }, events: [started(1)], write: () => Promise.reject(new Error('boom')) })).rejects.toThrow('boom');
        await expect(store.commit(id, lease, { step: { key: 'y', result: 1 }, events: [started(2)] })).rejects.toThrow('boom');
        await store.commit(id, lease, { events: [event('session.failed', { reason: 'r', kind: 'internal', step: 'x', retryable: false })], patch: { status: 'failed', ended: true } });
        expect(await store.get(id)).toMatchObject({ status: 'failed', lastSeq: 2 });
        expect((await store.completedSteps(id)).size).toBe(0);
      });

      it('keeps one fold when two handles (processes) commit to the session, and after a write from the API side', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await store.commit(id, lease, { events: [started(1)], caseMemory: seqs });
        await Promise.all(
          Array.from({ length: 12 }, (_, i) => (i % 2 ? store : peer).commit(id, lease, { events: [started(i)], caseMemory: seqs })),
        );
        // An append this handle folded nothing for (no fold: the API's own commits may carry none).
        await peer.commit(id, null, { events: [started(99)] });
        await store.commit(id, lease, { events: [started(100)], caseMemory: seqs });
        const memory = (await store.caseMemory(id)) as { seqs: number[] };
        expect(memory.seqs).toEqual([...Array.from({ length: 13 }, (_, i) => i + 2), 16]);
        expect((await store.get(id))!.lastSeq).toBe(16);
      });

      it('fences every commit of a lease once a newer one is taken, however they interleave; a refused commit leaves the fold alone', async () => {
        const id = await newSession();
        const old = (await store.acquireLease(id))!.lease;
        await store.commit(id, old, { events: [started(1)], caseMemory: seqs });
        const racing = Array.from({ length: 10 }, (_, i) =>
          store.commit(id, old, { step: { key: `old${i}`, result: i }, events: [started(i)], calls: [call({ stepKey: `old${i}` })], caseMemory: seqs }).then(
            () => true,
            (err: { code?: string }) => (expect(err.code).toBe('lease-lost'), false),
          ),
        );
        const taken = await peer.acquireLease(id);
        const landed = await Promise.all(racing);
        const after = await Promise.all(
          Array.from({ length: 5 }, (_, i) => store.commit(id, old, { step: { key: `late${i}`, result: i }, events: [started(i)] }).then(() => true, () => false)),
        );
        expect(after).toEqual([false, false, false, false, false]);
        // What landed did so whole (step, event and ledger row), what was refused left nothing.
        const steps = await store.completedSteps(id);
        const ledger = await store.ledger(id);
        landed.forEach((ok, i) => {
          expect(steps.has(`old${i}`)).toBe(ok);
          expect(ledger.some((r) => r.stepKey === `old${i}`)).toBe(ok);
        });
        const n = landed.filter(Boolean).length;
        expect((await store.get(id))!.lastSeq).toBe(2 + n);
        await store.commit(id, taken!.lease, { events: [started(7)], caseMemory: seqs });
        expect(await store.caseMemory(id)).toEqual({ seqs: Array.from({ length: n + 2 }, (_, i) => i + 2) });
      });
    });

    describe('events', () => {
      it('pages the log by seq', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await store.commit(id, lease, { events: [1, 2, 3, 4].map(started) });
        expect((await store.events(id, 0, 2)).map((e) => e.seq)).toEqual([1, 2]);
        expect((await store.events(id, 2, 2)).map((e) => e.seq)).toEqual([3, 4]);
        expect((await store.events(id, 4, 2)).map((e) => e.seq)).toEqual([5]);
        expect(await store.events(id, 5, 2)).toEqual([]);
        const [e] = await store.events(id, 1, 1);
        expect(e).toMatchObject({ seq: 2, type: 'session.started', session_id: id, data: { attempt: 1 } });
        expect(Date.parse(e!.ts)).not.toBeNaN();
        expect(await store.hasEvent(id, 'session.started')).toBe(true);
        expect(await store.hasEvent(id, 'session.completed')).toBe(false);
      });

      it('annexes events after the end, continuing the same log', async () => {
        const id = await newSession();
        await store.commit(id, null, { events: [event('session.cancelled', { reason: 'test' })], patch: { status: 'cancelled', ended: true } });
        const annexed = await store.annex(id, [event('lessons.extracted', { lessons: [] })]);
        expect(annexed.map((e) => e.seq)).toEqual([3]);
        expect(await store.annex(id, [])).toEqual([]);
        expect((await store.get(id))!.lastSeq).toBe(3);
        await expect(store.annex(randomUUID(), [event('lessons.extracted', { lessons: [] })])).rejects.toMatchObject({ code: 'not-found' });
      });
    });

    describe('ledger', () => {
      it('writes a pending row ahead of a call, which usage leaves out until a commit settles it', async () => {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        const callId = await store.openCall(id, call({ outcome: 'ok', costUsd: 0.5 }));
        expect(await store.ledger(id)).toMatchObject([{ id: callId, sessionId: id, outcome: 'pending', costUsd: 0.5, cacheReadTokens: 0, prefixHash: '' }]);
        expect((await store.usage(id)).calls).toBe(0);
        await store.commit(id, lease, { step: { key: 'step', result: 1 }, events: [], calls: [call({ id: callId, costUsd: 0.25 }), call({ phase: 'voting', costUsd: 0.1 })] });
        const ledger = await store.ledger(id);
        expect(ledger.map((r) => [r.outcome, r.costUsd])).toEqual([['ok', 0.25], ['ok', 0.1]]);
        expect(ledger[0]!.id).toBe(callId);
        expect(await store.usage(id)).toEqual({
          calls: 2,
          inputTokens: 200,
          outputTokens: 40,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: 0.35,
          byPhase: { debate: { calls: 1, costUsd: 0.25 }, voting: { calls: 1, costUsd: 0.1 } },
        });
      });

      it('gives each of many pending rows opened at once (several sessions) its own id, for its own row', async () => {
        const ids = [await newSession(), await newSession(), await newSession()];
        const opened = await Promise.all(
          Array.from({ length: 24 }, (_, i) => store.openCall(ids[i % 3]!, call({ stepKey: `s${i}`, inputTokens: i, costUsd: i / 1000 })).then((callId) => ({ i, callId }))),
        );
        expect(new Set(opened.map((o) => o.callId)).size).toBe(24);
        const rows = (await Promise.all(ids.map((id) => store.ledger(id)))).flat();
        for (const { i, callId } of opened) {
          expect(rows.find((r) => r.id === callId)).toMatchObject({ sessionId: ids[i % 3], stepKey: `s${i}`, inputTokens: i, outcome: 'pending' });
        }
      });

      it('fails only the pending row of a session that does not exist, not those opened with it', async () => {
        const id = await newSession();
        const [good, bad] = await Promise.allSettled([store.openCall(id, call({ stepKey: 'good' })), store.openCall(randomUUID(), call({ stepKey: 'bad' }))]);
        expect(good.status).toBe('fulfilled');
        expect(bad.status).toBe('rejected');
        expect((await store.ledger(id)).map((r) => r.stepKey)).toEqual(['good']);
      });

      it("marks a dead run's pending rows abandoned when a new lease is taken; abandoned rows count", async () => {
        const id = await newSession();
        await store.acquireLease(id);
        await store.openCall(id, call({ costUsd: 0.2 }));
        await store.acquireLease(id);
        expect((await store.ledger(id)).map((r) => r.outcome)).toEqual(['abandoned']);
        expect((await store.usage(id)).costUsd).toBe(0.2);
      });

      it('abandons only the pending rows of one job by step prefix, and records calls outside a commit', async () => {
        const id = await newSession();
        await store.openCall(id, call({ stepKey: 'memory:contribute' }));
        await store.openCall(id, call({ stepKey: 'lessons:extract' }));
        await store.abandonPending(id, 'memory:');
        expect((await store.ledger(id)).map((r) => [r.stepKey, r.outcome])).toEqual([
          ['memory:contribute', 'abandoned'],
          ['lessons:extract', 'pending'],
        ]);
        await store.recordCalls(id, [call({ stepKey: 'failed-step', costUsd: 0.0000004 })]);
        const recorded = (await store.ledger(id)).at(-1)!;
        // Stored as numeric(12, 6): cost is kept to the micro-dollar.
        expect(recorded).toMatchObject({ stepKey: 'failed-step', outcome: 'ok', costUsd: 0 });
        await store.recordCalls(id, []);
        expect(await store.ledger(id)).toHaveLength(3);
      });
    });

    describe('checkpoints', () => {
      const checkpoint = (expiresAt: Date) => ({ id: 'cp1', kind: 'statement', stepKey: 'cp:statement', expiresAt: expiresAt.toISOString(), onExpiry: 'continue' });

      async function awaiting(expiresAt: Date): Promise<string> {
        const id = await newSession();
        const { lease } = (await store.acquireLease(id))!;
        await store.commit(id, lease, { events: [], patch: { status: 'awaiting_input', phase: 'checkpoint', checkpoint: checkpoint(expiresAt) } });
        return id;
      }

      it('keeps the pending checkpoint on the row; a guard sees it and can refuse; resolving clears it', async () => {
        const id = await awaiting(new Date(Date.now() + 3600_000));
        expect((await store.get(id))!).toMatchObject({ status: 'awaiting_input', checkpoint: { id: 'cp1' } });
        expect(await store.acquireLease(id)).toBeNull();
        const seen: unknown[] = [];
        await expect(
          store.commit(id, null, {
            events: [started(1)],
            guard: (row) => {
              seen.push(row);
              throw new Error('not the pending checkpoint');
            },
          }),
        ).rejects.toThrow('not the pending checkpoint');
        expect(seen).toMatchObject([{ status: 'awaiting_input', checkpoint: { id: 'cp1' } }]);
        expect((await store.get(id))!.lastSeq).toBe(1);
        await store.commit(id, null, {
          step: { key: 'cp:statement', result: { action: 'continue' } },
          events: [event('checkpoint.resolved', { checkpointId: 'cp1', kind: 'statement', action: 'continue', by: 'client' })],
          patch: { status: 'queued', checkpoint: null },
        });
        expect((await store.get(id))!).toMatchObject({ status: 'queued', checkpoint: null, lastSeq: 2 });
        expect((await store.completedSteps(id)).get('cp:statement')).toEqual({ action: 'continue' });
      });

      it('finds the sessions whose checkpoint has expired by a given time', async () => {
        const now = new Date();
        const expired = await awaiting(new Date(now.getTime() - 1000));
        const due = await awaiting(now);
        const later = await awaiting(new Date(now.getTime() + 3600_000));
        const found = (await store.expiredCheckpoints(now)).map((r) => r.id);
        expect(found).toEqual(expect.arrayContaining([expired, due]));
        expect(found).not.toContain(later);
      });
    });

    describe('sweeps', () => {
      it('lists queued and running sessions not updated for a while, never ended ones', async () => {
        const queued = await newSession();
        const running = await newSession();
        await store.acquireLease(running);
        const ended = await newSession();
        await store.commit(ended, null, { events: [event('session.cancelled', { reason: 'test' })], patch: { status: 'cancelled', ended: true } });
        // A negative age reaches into the future: everything unfinished qualifies.
        const all = await store.unfinished(-60_000);
        expect(all).toEqual(expect.arrayContaining([queued, running]));
        expect(all).not.toContain(ended);
        const stale = await store.unfinished(60_000);
        expect(stale).not.toContain(queued);
        expect(stale).not.toContain(running);
      });

      it('lists recently ended sessions whose memory jobs have not reported', async () => {
        const end = async (status: 'completed' | 'failed', options: Record<string, unknown> = {}, phase = status as string) => {
          const id = await newSession(tenant(), 0, options);
          await store.commit(id, null, { events: [], patch: { status, phase, ended: true } });
          return id;
        };
        const completed = await end('completed');
        const failed = await end('failed');
        const refused = await end('failed', {}, 'refused');
        const optedOut = await end('completed', { memory: { contribute: false } });
        const reported = await end('completed');
        await store.annex(reported, [event('memory.contributed', { memories: 0, superseded: 0, dropped: 0 }), event('lessons.extracted', { lessons: [] })]);
        const open = await newSession();
        const now = Date.now();
        const missing = await store.memoryJobsMissing(new Date(now - 60_000), new Date(now + 60_000));
        const byId = new Map(missing.map((m) => [m.id, m]));
        expect(byId.get(completed)).toEqual({ id: completed, contribute: true, lessons: true });
        expect(byId.get(failed)).toEqual({ id: failed, contribute: false, lessons: true });
        for (const id of [refused, optedOut, reported, open]) expect(byId.has(id)).toBe(false);
        const earlier = await store.memoryJobsMissing(new Date(now - 120_000), new Date(now - 60_000));
        expect(earlier.map((m) => m.id)).not.toContain(completed);
      });
    });
  });
}
