import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LessonStorePort, NewLesson } from '../../src/ports/lesson-store';
import type { SessionStorePort } from '../../src/ports/session-store';
import { HIRING, newSession, newTenant, PAID } from './memory-fixtures';

/** A lesson store under test with the session store of the same adapter (ownership checks, shared commits). */
export interface OpenedLessonStore {
  lessons: LessonStorePort;
  sessions: SessionStorePort;
  close(): Promise<void>;
}

/** What every lesson store must share: tenancy, idempotent inserts, reinforcement by source, the confidence filter, nearest, list, export, commits. */
export function lessonStoreConformance(adapter: string, open: () => Promise<OpenedLessonStore>): void {
  describe(`LessonStorePort conformance: ${adapter}`, () => {
    let opened: OpenedLessonStore;
    let store: LessonStorePort;
    beforeAll(async () => {
      opened = await open();
      store = opened.lessons;
    });
    afterAll(async () => opened?.close());

    const tenant = newTenant;
    const session = (tenantId: string) => newSession(opened.sessions, tenantId);
    const lesson = (over: Partial<NewLesson> = {}): NewLesson => ({
      id: randomUUID(),
      type: 'pattern',
      lesson: 'Paid advertising pays back when the payback period stays under eighteen months',
      triggerConditions: 'choosing between paid and organic acquisition',
      suggestedFix: 'model payback before committing budget',
      confidence: 0.8,
      tags: ['marketing'],
      model: 'm',
      promptVersion: 'v1',
      embedding: PAID,
      embeddingProvider: 'test',
      ...over,
    });
    const hiring = { lesson: 'Hiring sales staff before product fit burns runway', triggerConditions: 'early hiring', suggestedFix: 'wait for fit', embedding: HIRING };

    it('inserts idempotently on id, with the first session as its source', async () => {
      const t = tenant();
      const s = await session(t);
      const l = lesson();
      expect(await store.insertLesson(t, l, s)).toBe(true);
      expect(await store.insertLesson(t, l, s)).toBe(false);
      const [exported] = await store.exportLessons(t);
      expect(exported).toMatchObject({ id: l.id, tenantId: t, reinforcements: 1, embeddingDim: 8, sourceSessionIds: [s], tags: ['marketing'] });
      expect(exported).not.toHaveProperty('embedding');
    });

    it('never crosses tenants', async () => {
      const [a, b] = [tenant(), tenant()];
      const [sa, sb] = [await session(a), await session(b)];
      const mine = lesson();
      await store.insertLesson(a, mine, sa);
      await expect(store.insertLesson(b, lesson(), sa)).rejects.toMatchObject({ code: 'tenancy' });
      await expect(store.reinforceLesson(a, mine.id, sb)).rejects.toMatchObject({ code: 'tenancy' });
      expect(await store.reinforceLesson(b, mine.id, sb)).toBeNull();
      // B reusing A's id writes nothing and hangs no source of B's on A's lesson.
      expect(await store.insertLesson(b, { ...mine }, sb)).toBe(false);
      expect(await store.exportLessons(b)).toEqual([]);
      expect((await store.exportLessons(a))[0]).toMatchObject({ reinforcements: 1, sourceSessionIds: [sa] });
      expect(await store.nearestLessons(b, PAID, 5)).toEqual([]);
      expect(await store.searchLessons(b, { text: 'paid advertising', vector: PAID, limit: 5 })).toEqual([]);
      expect((await store.listLessons(b, { limit: 5 })).items).toEqual([]);
    });

    it('counts one reinforcement per new source session and keeps the sources in order', async () => {
      const t = tenant();
      const [s1, s2, s3] = [await session(t), await session(t), await session(t)];
      const l = lesson();
      await store.insertLesson(t, l, s1);
      expect(await store.reinforceLesson(t, l.id, s2)).toEqual({ reinforced: true, reinforcements: 2 });
      expect(await store.reinforceLesson(t, l.id, s2)).toEqual({ reinforced: false, reinforcements: 2 });
      expect(await store.reinforceLesson(t, l.id, s1)).toEqual({ reinforced: false, reinforcements: 2 });
      expect(await store.reinforceLesson(t, l.id, s3)).toEqual({ reinforced: true, reinforcements: 3 });
      expect(await store.reinforceLesson(t, randomUUID(), s3)).toBeNull();
      expect((await store.exportLessons(t))[0]).toMatchObject({ reinforcements: 3, sourceSessionIds: [s1, s2, s3] });
    });

    it('searches best match first above the confidence floor; nearest ignores confidence', async () => {
      const t = tenant();
      const s = await session(t);
      const [best, other, unsure] = [lesson(), lesson(hiring), lesson({ confidence: 0.3 })];
      for (const l of [best, other, unsure]) await store.insertLesson(t, l, s);
      const hits = await store.searchLessons(t, { text: 'paid advertising payback', vector: PAID, limit: 10 });
      expect(hits[0]).toMatchObject({ id: best.id, score: expect.any(Number) });
      expect(hits.map((h) => h.id)).not.toContain(unsure.id);
      expect((await store.searchLessons(t, { text: 'paid advertising payback', vector: PAID, limit: 10, minConfidence: 0.2 })).map((h) => h.id)).toContain(unsure.id);
      expect(await store.searchLessons(t, { text: 'paid', vector: PAID, limit: 0 })).toEqual([]);

      const near = await store.nearestLessons(t, HIRING, 1);
      expect(near).toHaveLength(1);
      expect(near[0]!.lesson).toMatchObject({ id: other.id, embedding: HIRING });
      expect(near[0]!.similarity).toBeCloseTo(1, 5);
      const all = await store.nearestLessons(t, PAID, 10);
      expect(all.map((n) => n.lesson.id)).toContain(unsure.id);
      expect(all.at(-1)!.lesson.id).toBe(other.id);
    });

    it('lists newest first in cursor pages, filtered by text; exports oldest first', async () => {
      const t = tenant();
      const s = await session(t);
      const made = [lesson(), lesson(hiring), lesson()];
      for (const l of made) await store.insertLesson(t, l, s);
      const first = await store.listLessons(t, { limit: 2 });
      expect(first.items.map((l) => l.id)).toEqual([made[2]!.id, made[1]!.id]);
      expect(first.nextCursor).not.toBeNull();
      const second = await store.listLessons(t, { limit: 2, cursor: first.nextCursor! });
      expect(second).toEqual({ items: [expect.objectContaining({ id: made[0]!.id })], nextCursor: null });
      expect((await store.listLessons(t, { limit: 10, q: 'runway' })).items.map((l) => l.id)).toEqual([made[1]!.id]);
      expect((await store.exportLessons(t)).map((l) => l.id)).toEqual(made.map((l) => l.id));
    });

    it("writes given a commit's transaction with that commit, and not at all when it fails", async () => {
      const t = tenant();
      const [s, other] = [await session(t), await session(t)];
      const { lease } = (await opened.sessions.acquireLease(s))!;
      const [kept, lost] = [lesson(), lesson()];
      await opened.sessions.commit(s, lease, { step: { key: 'lessons-1', result: 1 }, events: [], write: async (tx) => void (await store.insertLesson(t, kept, s, tx)) });
      await expect(
        opened.sessions.commit(s, lease, {
          step: { key: 'lessons-2', result: 2 },
          events: [],
          write: async (tx) => {
            await store.insertLesson(t, lost, s, tx);
            await store.reinforceLesson(t, kept.id, other, tx);
            throw new Error('the step failed after writing');
          },
        }),
      ).rejects.toThrow('the step failed after writing');
      expect(await store.exportLessons(t)).toEqual([expect.objectContaining({ id: kept.id, reinforcements: 1, sourceSessionIds: [s] })]);
    });
  });
}
