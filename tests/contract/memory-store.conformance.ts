import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExpertMemoryPort, NewMemory, RecallQuery } from '../../src/ports/memory-store';
import type { SessionStorePort } from '../../src/ports/session-store';
import { HIRING, newSession, newTenant, PAID } from './memory-fixtures';

/** A memory store under test with the session store of the same adapter (ownership checks, shared commits). */
export interface OpenedMemoryStore {
  memory: ExpertMemoryPort;
  sessions: SessionStorePort;
  close(): Promise<void>;
}

const NOW = new Date('2025-06-01T00:00:00Z');

/** The core every expert-memory store must share: tenancy, idempotent inserts, recall's filters, supersession, commits. */
export function memoryStoreConformance(adapter: string, open: () => Promise<OpenedMemoryStore>): void {
  describe(`ExpertMemoryPort conformance: ${adapter}`, () => {
    let opened: OpenedMemoryStore;
    let memory: ExpertMemoryPort;
    beforeAll(async () => {
      opened = await open();
      memory = opened.memory;
    });
    afterAll(async () => opened?.close());

    const tenant = newTenant;
    const session = (tenantId: string) => newSession(opened.sessions, tenantId);
    const row = (sessionId: string, over: Partial<NewMemory> = {}): NewMemory => ({
      id: randomUUID(),
      scope: 'session',
      sessionId,
      subProblemId: 'sp1',
      persona: 'maria',
      category: 'marketing',
      summary: 'Paid advertising beats organic search while payback stays under eighteen months',
      position: 'Spend on paid channels first',
      confidence: 0.8,
      anonymised: true,
      model: 'm',
      promptVersion: 'v1',
      embedding: PAID,
      embeddingProvider: 'test',
      createdAt: new Date(NOW.getTime() - 86_400_000),
      ...over,
    });
    const recallQ = (over: Partial<RecallQuery> = {}): RecallQuery => ({
      persona: 'maria',
      text: 'paid advertising payback',
      vector: PAID,
      limit: 10,
      halfLifeDays: 90,
      now: NOW,
      ...over,
    });

    it('inserts idempotently on id and reads a memory back without its embedding', async () => {
      const t = tenant();
      const s = await session(t);
      const rows = [row(s), row(s, { summary: 'Hiring a head of sales before product fit wastes runway', embedding: HIRING })];
      expect(await memory.insertMemories(t, rows)).toBe(2);
      expect(await memory.insertMemories(t, rows)).toBe(0);
      const got = await memory.get(t, rows[0]!.id);
      expect(got).toMatchObject({ id: rows[0]!.id, tenantId: t, sessionId: s, persona: 'maria', supersededBy: null, embeddingDim: 8 });
      expect(got).not.toHaveProperty('embedding');
      expect(await memory.get(t, randomUUID())).toBeNull();
    });

    it('never crosses tenants', async () => {
      const [a, b] = [tenant(), tenant()];
      const s = await session(a);
      const mine = row(s);
      await memory.insertMemories(a, [mine]);
      expect((await memory.recall(a, recallQ())).map((m) => m.id)).toEqual([mine.id]);
      expect(await memory.recall(b, recallQ())).toEqual([]);
      expect(await memory.get(b, mine.id)).toBeNull();
      // Writing under B against A's session would hang B's rows off A's session.
      await expect(memory.insertMemories(b, [row(s)])).rejects.toMatchObject({ code: 'tenancy' });
      const theirs = row(await session(b));
      await memory.insertMemories(b, [theirs]);
      expect(await memory.supersede(b, mine.id, theirs.id, NOW)).toBe(false);
      expect(await memory.supersede(a, mine.id, theirs.id, NOW)).toBe(false);
    });

    it("recalls one expert's session memories, best match first, within the filters and the limit", async () => {
      const t = tenant();
      const [s1, s2] = [await session(t), await session(t)];
      const best = row(s1);
      const weaker = row(s1, { summary: 'Hiring a head of sales before product fit wastes runway', position: 'Wait to hire', embedding: HIRING });
      const otherExpert = row(s1, { persona: 'raj' });
      const subProblem = row(s1, { scope: 'sub_problem' });
      const otherSession = row(s2);
      const otherModel = row(s1, { embeddingProvider: 'other' });
      await memory.insertMemories(t, [best, weaker, otherExpert, subProblem, otherSession, otherModel]);
      const recalled = await memory.recall(t, recallQ({ excludeSessionId: s2, embeddingProvider: 'test' }));
      expect(recalled[0]).toMatchObject({ id: best.id, persona: 'maria', score: expect.any(Number) });
      const ids = recalled.map((m) => m.id);
      for (const id of [otherExpert.id, subProblem.id, otherSession.id, otherModel.id]) expect(ids).not.toContain(id);
      expect(await memory.recall(t, recallQ({ limit: 1 }))).toHaveLength(1);
      expect(await memory.recall(t, recallQ({ limit: 0 }))).toEqual([]);
    });

    it('recalls for several experts at once exactly what each would recall alone, with an entry for each', async () => {
      const t = tenant();
      const [s1, s2] = [await session(t), await session(t)];
      await memory.insertMemories(t, [
        row(s1),
        row(s1, { summary: 'Hiring a head of sales before product fit wastes runway', position: 'Wait to hire', embedding: HIRING }),
        row(s1, { persona: 'raj' }),
        row(s2, { persona: 'raj', summary: 'Hiring a head of sales before product fit wastes runway', embedding: HIRING }),
        row(s2, { persona: 'maria', scope: 'sub_problem' }),
      ]);
      const q = recallQ({ excludeSessionId: s2, limit: 2 });
      const { persona: _one, ...each } = q;
      const all = await memory.recallEach(t, { ...each, personas: ['maria', 'raj', 'nobody'] });
      expect(Object.keys(all)).toEqual(['maria', 'raj', 'nobody']);
      for (const persona of ['maria', 'raj', 'nobody']) expect(all[persona]).toEqual(await memory.recall(t, { ...q, persona }));
      expect(all.maria!.length).toBeGreaterThan(0);
      expect(all.nobody).toEqual([]);
      expect(await memory.recallEach(t, { ...each, personas: [] })).toEqual({});
    });

    it('recalls for several queries at once (their own persona, text and vector) exactly what each would recall alone', async () => {
      const t = tenant();
      const [s1, s2] = [await session(t), await session(t)];
      await memory.insertMemories(t, [
        row(s1),
        row(s1, { summary: 'Hiring a head of sales before product fit wastes runway', position: 'Wait to hire', embedding: HIRING }),
        row(s1, { persona: 'raj', summary: 'Hiring a head of sales before product fit wastes runway', embedding: HIRING }),
        row(s2, { persona: 'raj' }),
      ]);
      const queries = [
        recallQ({ text: 'hiring sales runway', vector: HIRING }),
        recallQ({ persona: 'raj', excludeSessionId: s2 }),
        recallQ({ persona: 'raj', text: 'hiring sales runway', vector: HIRING, limit: 1 }),
        recallQ({ limit: 0 }),
        recallQ({ persona: 'nobody' }),
      ];
      const all = await memory.recallMany(t, queries);
      expect(all).toHaveLength(queries.length);
      for (const [i, q] of queries.entries()) expect(all[i]).toEqual(await memory.recall(t, q));
      expect(all[0]!.length).toBeGreaterThan(0);
      expect(await memory.recallMany(t, [])).toEqual([]);
    });

    it('supersedes a memory by a newer one: both kept, only the newer recalled', async () => {
      const t = tenant();
      const s = await session(t);
      const [old, newer, third] = [row(s), row(s, { createdAt: NOW }), row(s, { createdAt: NOW })];
      await memory.insertMemories(t, [old, newer, third]);
      expect(await memory.supersede(t, old.id, old.id, NOW)).toBe(false);
      expect(await memory.supersede(t, old.id, newer.id, NOW)).toBe(true);
      expect(await memory.supersede(t, old.id, newer.id, NOW)).toBe(true);
      expect(await memory.supersede(t, old.id, third.id, NOW)).toBe(false);
      expect(await memory.get(t, old.id)).toMatchObject({ supersededBy: newer.id, supersededAt: NOW.toISOString() });
      expect((await memory.recall(t, recallQ())).map((m) => m.id)).not.toContain(old.id);
      expect(await memory.supersede(t, old.id, randomUUID(), NOW)).toBe(false);
    });

    it("writes rows given a commit's transaction with that commit, and not at all when it fails", async () => {
      const t = tenant();
      const s = await session(t);
      const { lease } = (await opened.sessions.acquireLease(s))!;
      const kept = row(s, { scope: 'sub_problem' });
      const lost = row(s, { scope: 'sub_problem' });
      await opened.sessions.commit(s, lease, { step: { key: 'summary-1', result: 1 }, events: [], write: (tx) => memory.insertMemories(t, [kept], tx) });
      await expect(
        opened.sessions.commit(s, lease, {
          step: { key: 'summary-2', result: 2 },
          events: [],
          write: async (tx) => {
            await memory.insertMemories(t, [lost], tx);
            throw new Error('the step failed after writing');
          },
        }),
      ).rejects.toThrow('the step failed after writing');
      expect(await memory.get(t, kept.id)).not.toBeNull();
      expect(await memory.get(t, lost.id)).toBeNull();
    });

    it("refuses rows a commit is given for another tenant's session, and writes nothing of that commit", async () => {
      const [a, b] = [tenant(), tenant()];
      const [mine, theirs] = [await session(a), await session(b)];
      const { lease } = (await opened.sessions.acquireLease(mine))!;
      const foreign = row(theirs, { scope: 'sub_problem' });
      await expect(
        opened.sessions.commit(mine, lease, { step: { key: 'summary-x', result: 1 }, events: [], write: (tx) => memory.insertMemories(a, [foreign], tx) }),
      ).rejects.toMatchObject({ code: 'tenancy' });
      expect(await memory.get(a, foreign.id)).toBeNull();
      expect(await memory.get(b, foreign.id)).toBeNull();
      expect((await opened.sessions.completedSteps(mine)).has('summary-x')).toBe(false);
    });
  });
}
