import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { nextCheckpoint, resolve } from '../support/checkpoints';
import { edgeBoard } from '../support/edge-answers';
import { testDatabaseUrl } from '../support/env';
import { createSession, startStack, waitForStatus, type Stack } from '../support/stack';

/**
 * Whole sessions on answers at the edges of every call's schema: most and
 * fewest items, longest and shortest strings, nullables null, optional
 * fields absent, non-Latin text. Each must end completed, or failed with a
 * classified reason — never an internal error on an answer its call allowed.
 */

const problem = {
  problem: 'Should I hire a senior engineer now or wait until we close our seed round in about four months?',
  context: 'Solo technical founder, $9K MRR growing 8% a month, 11 months of runway, two enterprise pilots asking for SSO.',
};
// Short debates, so a dozen sessions stay quick.
const settings = { roundCaps: { simple: 3, moderate: 3, complex: 3, hard: 3 }, panelSize: { simple: 3, moderate: 3, complex: 3 } };
// Test files share the default tenant: edge-shaped memories and lessons would be recalled by other files' sessions.
const memory = { read: false, contribute: false };

let stack: Stack;
let database: Database;
let store: SessionStore;
beforeAll(async () => {
  stack = await startStack({ WORKER_CONCURRENCY: '6' }, { provider: edgeBoard() });
  database = openDatabase(testDatabaseUrl(), 2);
  store = new SessionStore(database);
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

async function expectClassifiedEnd(id: string, seed: string) {
  const s = await waitForStatus(stack.url, id, ['completed', 'failed', 'cancelled'], 120_000);
  const log = await store.events(id, 0, 10_000);
  const failed = log.find((e) => e.type === 'session.failed');
  expect(failed?.data.kind, `${seed}: ${JSON.stringify(failed?.data)}`).not.toBe('internal');
  if (s.status === 'completed') {
    expect(log.some((e) => e.type === 'recommendation.completed'), seed).toBe(true);
    expect(s.results.recommendation.steps.length, seed).toBeGreaterThan(0);
  }
  return { s, log };
}

describe('sessions on answers at the edges of every schema', () => {
  const autoSeeds = ['edge-max-1', 'edge-max-2', 'edge-min-1', 'edge-min-2', 'edge-mixed-1', 'edge-mixed-2', 'edge-mixed-3', 'edge-mixed-4'];

  it('automatic sessions end completed or with a classified failure, for max, min and mixed answers', async () => {
    const ids = await Promise.all(autoSeeds.map((seed) => createSession(stack.url, { ...problem, seed, settings, memory })));
    const ends = await Promise.all(ids.map((id, i) => expectClassifiedEnd(id, autoSeeds[i]!)));
    // Edge answers are valid answers: the board finishes on them.
    expect(ends.filter((e) => e.s.status === 'completed').length).toBe(autoSeeds.length);
    // Intake's assumptions (its questions' and its own, up to 3 + 5) are all kept.
    const stated = ends[0]!.log.find((e) => e.type === 'problem.stated')!;
    expect((stated.data.assumptions as string[]).length).toBe(8);
  }, 240_000);

  it('interactive sessions through every checkpoint kind, answered at the edges too', async () => {
    for (const seed of ['edge-max-5', 'edge-min-5', 'edge-mixed-5']) {
      const id = await createSession(stack.url, { ...problem, seed, settings, memory, mode: 'interactive' });
      const kinds = new Set<string>();
      let last: string | null = null;
      let intervened = false;
      for (let cp = await nextCheckpoint(stack.url, id); cp; cp = await nextCheckpoint(stack.url, id, last)) {
        last = cp.id;
        kinds.add(cp.kind);
        const long = 'Our constraint is cash: we burn $31K a month and cannot go below six months of runway. '.repeat(20).slice(0, 1800);
        let body: Record<string, unknown> = { action: 'continue' };
        switch (cp.kind) {
          case 'clarification':
            body = { action: 'answer', answers: Object.fromEntries((cp.proposal.questions as { id: string }[]).map((q) => [q.id, long])) };
            break;
          case 'statement':
            body = { action: 'edit', statement: `Décider 採用 now or later — ${long}`.slice(0, 1500) };
            break;
          case 'sub_problems':
            body = {
              action: 'edit',
              sub_problems: Array.from({ length: 5 }, (_, i) => ({ title: `Part ${i + 1}: ${'timing '.repeat(10)}`.trim(), goal: `Decide part ${i + 1} of the hiring question with the runway in mind` })),
            };
            break;
          case 'board': {
            // Every panel keeps 2-5 experts: remove someone who sits on every full panel, to make room for the one asked for.
            const panels = Object.values(cp.proposal.panels as Record<string, string[]>);
            const first = (cp.proposal.members as { code: string }[]).find((m) => panels.every((p) => p.length < 5 || p.includes(m.code)))!;
            body = { action: 'edit', board: { remove: [first.code], want: ['people and hiring'] } };
            break;
          }
          case 'round_end':
            body = intervened ? { action: 'continue' } : { action: 'intervene', message: long };
            intervened = true;
            break;
        }
        const res = await resolve(stack.url, id, cp.id, body);
        expect(res.status, `${seed} ${cp.kind}: ${JSON.stringify(res.body)}`).toBe(202);
      }
      const { s } = await expectClassifiedEnd(id, seed);
      expect(s.status, seed).toBe('completed');
      for (const k of ['statement', 'sub_problems', 'board', 'next_sub_problem']) expect(kinds.has(k), `${seed}: ${k}`).toBe(true);
    }
  }, 240_000);
});
