import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABANDONED_CLAIM_MS, IDEMPOTENCY_TTL_MS, type IdempotencyId, type IdempotencyStorePort } from '../../src/ports/idempotency-store';

/** An adapter under test, with a way to make one of its records older (each adapter keeps time its own way). */
export interface OpenedIdempotencyStore {
  store: IdempotencyStorePort;
  age(id: IdempotencyId, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** What every idempotency store must do; run against Postgres and the in-memory twin. */
export function idempotencyStoreConformance(adapter: string, open: () => Promise<OpenedIdempotencyStore>): void {
  describe(`IdempotencyStorePort conformance: ${adapter}`, () => {
    let opened: OpenedIdempotencyStore;
    let store: IdempotencyStorePort;
    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    });
    afterAll(async () => opened?.close());

    const fresh = (over: Partial<IdempotencyId> = {}): IdempotencyId => ({ tenantId: `t-${randomUUID()}`, scope: 'createSession', key: randomUUID(), ...over });

    it('lets one claimant own a key: the record is in progress until completed, then replayable', async () => {
      const id = fresh();
      expect(await store.claim(id, 'h1')).toBe(true);
      expect(await store.claim(id, 'h1')).toBe(false);
      expect(await store.read(id)).toMatchObject({ ...id, requestHash: 'h1', statusCode: null });
      await store.complete(id, { status: 202, body: { id: 'x', nested: [1] }, headers: { Location: '/x' } });
      const done = (await store.read(id))!;
      expect(done).toMatchObject({ statusCode: 202, response: { id: 'x', nested: [1] }, headers: { Location: '/x' } });
      expect(done.createdAt).toBeInstanceOf(Date);
      expect(await store.claim(id, 'h2')).toBe(false);
    });

    it('decides concurrent claims for one owner', async () => {
      const id = fresh();
      const claims = await Promise.all(Array.from({ length: 8 }, () => store.claim(id, 'h')));
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('scopes a key by tenant and by scope', async () => {
      const id = fresh();
      expect(await store.claim(id, 'h')).toBe(true);
      expect(await store.claim({ ...id, tenantId: `${id.tenantId}-other` }, 'h')).toBe(true);
      expect(await store.claim({ ...id, scope: 'resolve:s:c' }, 'h')).toBe(true);
      expect(await store.read({ ...id, key: randomUUID() })).toBeNull();
    });

    it('stores an empty body as null and no headers as none', async () => {
      const id = fresh();
      await store.claim(id, 'h');
      await store.complete(id, { status: 204, body: undefined });
      expect(await store.read(id)).toMatchObject({ statusCode: 204, response: null, headers: {} });
    });

    it('releases an in-progress claim so a retry can claim it, but never a completed record', async () => {
      const failed = fresh();
      await store.claim(failed, 'h');
      await store.release(failed);
      expect(await store.read(failed)).toBeNull();
      expect(await store.claim(failed, 'h')).toBe(true);
      const done = fresh();
      await store.claim(done, 'h');
      await store.complete(done, { status: 201, body: 'ok' });
      await store.release(done);
      expect((await store.read(done))?.statusCode).toBe(201);
    });

    it('lets a retry take over a claim abandoned mid-request, not a running one', async () => {
      const id = fresh();
      await store.claim(id, 'h1');
      await opened.age(id, ABANDONED_CLAIM_MS / 2);
      expect(await store.claim(id, 'h2')).toBe(false);
      await opened.age(id, ABANDONED_CLAIM_MS);
      expect(await store.claim(id, 'h2')).toBe(true);
      expect(await store.read(id)).toMatchObject({ requestHash: 'h2', statusCode: null });
    });

    it('ignores a completed record past its TTL: a new request claims it afresh', async () => {
      const id = fresh();
      await store.claim(id, 'h1');
      await store.complete(id, { status: 202, body: 'first' });
      await opened.age(id, ABANDONED_CLAIM_MS * 2);
      expect(await store.claim(id, 'h2')).toBe(false);
      await opened.age(id, IDEMPOTENCY_TTL_MS);
      expect(await store.claim(id, 'h2')).toBe(true);
      expect(await store.read(id)).toMatchObject({ requestHash: 'h2', statusCode: null, response: null });
    });

    it('purges records created before a time, and counts them', async () => {
      const old = fresh();
      const recent = fresh();
      await store.claim(old, 'h');
      await store.claim(recent, 'h');
      await opened.age(old, IDEMPOTENCY_TTL_MS + 60_000);
      expect(await store.purge(new Date(Date.now() - IDEMPOTENCY_TTL_MS))).toBeGreaterThanOrEqual(1);
      expect(await store.read(old)).toBeNull();
      expect(await store.read(recent)).not.toBeNull();
    });
  });
}
