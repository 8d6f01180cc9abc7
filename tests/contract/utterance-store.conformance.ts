import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStorePort } from '../../src/ports/session-store';
import type { NewUtterance, UtteranceStorePort } from '../../src/ports/utterance-store';
import { newSession, newTenant, PAID } from './memory-fixtures';

/** An utterance store under test with the session store of the same adapter (ownership checks, shared commits). */
export interface OpenedUtteranceStore {
  utterances: UtteranceStorePort;
  sessions: SessionStorePort;
  close(): Promise<void>;
}

/** Long before anything else the test database holds, so purging up to it takes none of another test's rows. */
const ANCIENT = new Date('2001-01-01T00:00:00Z');

/** What every novelty-history store must share: tenancy, history order and scope, commits, purge by age. */
export function utteranceStoreConformance(adapter: string, open: () => Promise<OpenedUtteranceStore>): void {
  describe(`UtteranceStorePort conformance: ${adapter}`, () => {
    let opened: OpenedUtteranceStore;
    let store: UtteranceStorePort;
    beforeAll(async () => {
      opened = await open();
      store = opened.utterances;
    });
    afterAll(async () => opened?.close());

    const session = (tenantId: string) => newSession(opened.sessions, tenantId);
    const utter = (sessionId: string, round: number, over: Partial<NewUtterance> = {}): NewUtterance => ({
      sessionId,
      subProblemId: 'sp1',
      round,
      persona: 'maria',
      kind: 'contribution',
      text: `round ${round}: paid channels first`,
      embedding: PAID,
      embeddingProvider: 'test',
      ...over,
    });

    it("reads one sub-problem's history of one session, oldest first, embeddings included", async () => {
      const t = newTenant();
      const [s1, s2] = [await session(t), await session(t)];
      const question = utter(s1, 2, { persona: null, kind: 'question', text: 'what would change your mind?' });
      expect(await store.insertUtterances(t, [utter(s1, 1), question, utter(s1, 3, { subProblemId: 'sp2' }), utter(s2, 1)])).toBe(4);
      const history = await store.utteranceHistory(t, s1, 'sp1');
      expect(history).toMatchObject([
        { sessionId: s1, round: 1, kind: 'contribution', persona: 'maria', embedding: PAID, embeddingProvider: 'test' },
        { round: 2, kind: 'question', persona: null, text: 'what would change your mind?' },
      ]);
      expect(history[0]!.id).toBeLessThan(history[1]!.id);
      expect(Number.isNaN(Date.parse(history[0]!.createdAt))).toBe(false);
      expect(history[0]).not.toHaveProperty('tenantId');
      expect(await store.insertUtterances(t, [])).toBe(0);
    });

    it('never crosses tenants', async () => {
      const [a, b] = [newTenant(), newTenant()];
      const s = await session(a);
      await store.insertUtterances(a, [utter(s, 1)]);
      expect(await store.utteranceHistory(b, s, 'sp1')).toEqual([]);
      await expect(store.insertUtterances(b, [utter(s, 2)])).rejects.toMatchObject({ code: 'tenancy' });
      expect(await store.utteranceHistory(a, s, 'sp1')).toHaveLength(1);
    });

    it("writes given a commit's transaction with that commit, and not at all when it fails", async () => {
      const t = newTenant();
      const s = await session(t);
      const { lease } = (await opened.sessions.acquireLease(s))!;
      await opened.sessions.commit(s, lease, { step: { key: 'round-1', result: 1 }, events: [], write: async (tx) => void (await store.insertUtterances(t, [utter(s, 1)], tx)) });
      await expect(
        opened.sessions.commit(s, lease, {
          step: { key: 'round-2', result: 2 },
          events: [],
          write: async (tx) => {
            await store.insertUtterances(t, [utter(s, 2)], tx);
            throw new Error('the round failed after writing');
          },
        }),
      ).rejects.toThrow('the round failed after writing');
      expect((await store.utteranceHistory(t, s, 'sp1')).map((u) => u.round)).toEqual([1]);
    });

    it('purges rows older than the cutoff across tenants and keeps the rest', async () => {
      const [a, b] = [newTenant(), newTenant()];
      const [sa, sb] = [await session(a), await session(b)];
      const old = { createdAt: new Date(ANCIENT.getTime() - 86_400_000) };
      await store.insertUtterances(a, [utter(sa, 1, old), utter(sa, 2)]);
      await store.insertUtterances(b, [utter(sb, 1, old)]);
      // At most 2, not exactly: another test file's retention purge (now − 30 days) may take these rows first on a shared database.
      expect(await store.purgeUtterances(ANCIENT)).toBeLessThanOrEqual(2);
      expect((await store.utteranceHistory(a, sa, 'sp1')).map((u) => u.round)).toEqual([2]);
      expect(await store.utteranceHistory(b, sb, 'sp1')).toEqual([]);
      expect(await store.purgeUtterances(ANCIENT)).toBe(0);
    });
  });
}
