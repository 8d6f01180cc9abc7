import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, getJson, snapshot, startStack, waitForStatus, type Stack } from '../support/stack';
import { assertGapless, readStream } from '../support/sse-client';
import { openDatabase } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { testDatabaseUrl } from '../support/env';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ SSE_RETRY_MS: '100' });
});
afterAll(async () => stack?.stop());

const problem = {
  problem: 'Should I pivot my project management tool to serve only law firms, or stay horizontal?',
  context: '$12K MRR, 100 customers; law firms pay $200/mo vs $80 average; horizontal churn is 30%.',
};

describe('a session end to end (simulated board, real Postgres and Redis)', () => {
  it('streams every phase over SSE, gapless, until session.completed', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'e2e-1' });
    const got = await readStream(`${stack.url}/v1/sessions/${id}/stream`);
    assertGapless(got);
    const types = got.envelopes.map((e) => e.type);
    expect(types[0]).toBe('session.created');
    expect(types.at(-1)).toBe('session.completed');
    const phases = [
      'session.started',
      'problem.stated',
      'decomposition.completed',
      'board.assembled',
      'subproblem.started',
      'round.started',
      'contribution.completed',
      'round.completed',
      'options.proposed',
      'vote.cast',
      'vote.completed',
      'synthesis.completed',
      'subproblem.completed',
      'recommendation.completed',
      'usage.updated',
    ];
    for (const t of phases) expect(types, t).toContain(t);
    // Phases come in the spec's order.
    const firstAt = (t: string) => types.indexOf(t);
    expect(firstAt('problem.stated')).toBeLessThan(firstAt('decomposition.completed'));
    expect(firstAt('board.assembled')).toBeLessThan(firstAt('subproblem.started'));
    expect(firstAt('vote.completed')).toBeLessThan(firstAt('synthesis.completed'));
    expect(types.lastIndexOf('subproblem.completed')).toBeLessThan(firstAt('recommendation.completed'));
    for (const e of got.envelopes) expect(e.session_id).toBe(id);

    // Each sub-problem has its own panel of 3-5; everyone on it opens, 100-150 words.
    const board = got.envelopes.find((e) => e.type === 'board.assembled')!.data as { panels: Record<string, string[]> };
    for (const [sp, panel] of Object.entries(board.panels)) {
      expect(panel.length, sp).toBeGreaterThanOrEqual(2);
      expect(panel.length, sp).toBeLessThanOrEqual(6);
      const openings = got.envelopes.filter((e) => e.type === 'contribution.completed' && e.data.subProblemId === sp && e.data.round === 1);
      expect(openings.map((o) => o.data.persona).sort()).toEqual([...panel].sort());
      for (const o of openings) {
        expect(o.data.words as number).toBeGreaterThanOrEqual(100);
        expect(o.data.words as number).toBeLessThanOrEqual(150);
      }
    }
    const subProblems = got.envelopes.find((e) => e.type === 'decomposition.completed')!.data.subProblems as unknown[];
    expect(got.envelopes.filter((e) => e.type === 'subproblem.completed')).toHaveLength(subProblems.length);
  });

  it('exposes status, provider, progress, cost and results in the snapshot, summed from the ledger', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'e2e-2' });
    const s = await waitForStatus(stack.url, id, ['completed', 'failed']);
    expect(s.status).toBe('completed');
    expect(s.provider).toBe('simulated');
    expect(s.simulated).toBe(true);
    expect(s.progress.percent).toBe(100);
    expect(s.results.recommendation.steps.length).toBeGreaterThan(0);
    expect(Object.keys(s.results.subProblemResults).length).toBe(s.results.subProblems.length);
    expect(s.usage.calls).toBeGreaterThan(5);
    expect(s.usage.costUsd).toBeGreaterThan(0);
    expect(Object.keys(s.usage.byPhase)).toEqual(expect.arrayContaining(['intake', 'decomposition', 'debate', 'voting', 'synthesis']));
    const byPhaseSum = Object.values(s.usage.byPhase as Record<string, { costUsd: number }>).reduce((a, p) => a + p.costUsd, 0);
    expect(byPhaseSum).toBeCloseTo(s.usage.costUsd, 5);
    const log = await getJson(`${stack.url}/v1/sessions/${id}/events?limit=1000`);
    const completed = log.items.find((e: { type: string }) => e.type === 'session.completed');
    // The completion event carries the session's own spend; the memory jobs after it ledger theirs under after/….
    const database = openDatabase(testDatabaseUrl(), 1);
    const ledger = await new SessionStore(database).ledger(id);
    await database.close();
    const sessionSpend = ledger.filter((r) => !r.stepKey.startsWith('after/')).reduce((a, r) => a + r.costUsd, 0);
    expect(completed.data.usage.costUsd).toBeCloseTo(sessionSpend, 5);
  });

  it('is deterministic from the seed', async () => {
    // Same seed and the same memory (none: recall off), so the same deliberation.
    const off = { memory: { read: false, contribute: false } };
    const a = await createSession(stack.url, { ...problem, seed: 'same-seed', ...off });
    const b = await createSession(stack.url, { ...problem, seed: 'same-seed', ...off });
    const [ra, rb] = await Promise.all([a, b].map((id) => waitForStatus(stack.url, id, ['completed'])));
    // Every decision is a function of the seed. Timings are not, nor exactly the cost: prompts carry the case
    // memory, whose order follows the commits of concurrent sub-problems, so token counts differ slightly.
    const untimed = (r: unknown) => JSON.parse(JSON.stringify(r), (k, v) => (k === 'elapsedMs' || k === 'costUsd' ? undefined : v));
    expect(untimed(ra!.results)).toEqual(untimed(rb!.results));
  });

  it('replays a finished session from any Last-Event-ID, each event exactly once', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'e2e-3' });
    const full = await readStream(`${stack.url}/v1/sessions/${id}/stream`);
    const n = full.envelopes.length;
    for (const from of [0, 1, Math.floor(n / 2), n - 1]) {
      const replay = await readStream(`${stack.url}/v1/sessions/${id}/stream`, { headers: { 'Last-Event-ID': String(from) } });
      assertGapless(replay, from + 1);
      expect(replay.envelopes).toHaveLength(n - from);
      expect(replay.envelopes).toEqual(full.envelopes.slice(from));
    }
    const viaQuery = await readStream(`${stack.url}/v1/sessions/${id}/stream?after=${n - 2}`);
    expect(viaQuery.envelopes.map((e) => e.seq)).toEqual([n - 1, n]);
  });

  it('a client that drops mid-stream and reconnects with Last-Event-ID receives every event exactly once', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'e2e-4' });
    const first = await new Promise<{ seqs: number[] }>((resolve) => {
      const seqs: number[] = [];
      void readStream(`${stack.url}/v1/sessions/${id}/stream`, {
        onEvent: (e, es) => {
          // close() stops the connection, not the events already parsed from its last chunk: a round's commits now
          // arrive as one chunk, so events after the seventh were still dispatched here and counted twice.
          if (seqs.length === 7) return;
          seqs.push(e.seq);
          if (seqs.length === 7) {
            es.close();
            resolve({ seqs });
          }
        },
      }).catch(() => {});
    });
    const rest = await readStream(`${stack.url}/v1/sessions/${id}/stream`, { headers: { 'Last-Event-ID': '7' } });
    const all = [...first.seqs, ...rest.envelopes.map((e) => e.seq)];
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    const s = await snapshot(stack.url, id);
    expect(all.length).toBe(s.last_seq);
  });
});

describe('transcript', () => {
  it('reads a finished session as Markdown with section breaks, speaker labels, votes and the recommendation, and as JSON', async () => {
    const id = await createSession(stack.url, { ...problem, seed: 'transcript' });
    await waitForStatus(stack.url, id, ['completed']);
    const res = await fetch(`${stack.url}/v1/sessions/${id}/transcript`);
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
    const md = await res.text();
    expect(md).toMatch(/## === PROBLEM ===/);
    expect(md).toMatch(/## === SUB-PROBLEM 1 OF \d+: /);
    expect(md).toMatch(/### Round 1\/\d+ \(opening\)/);
    expect(md).toMatch(/\*\*\[FACILITATOR\]\*\*/);
    expect(md).toMatch(/votes [A-D] \(confidence/);
    expect(md).toMatch(/## === RECOMMENDATION ===/);
    const board = (await getJson(`${stack.url}/v1/sessions/${id}`)).results.board as { name: string }[];
    expect(md).toContain(`**[${board[0]!.name}]**`);

    const concise = await (await fetch(`${stack.url}/v1/sessions/${id}/transcript?verbosity=concise`)).text();
    const detailed = await (await fetch(`${stack.url}/v1/sessions/${id}/transcript?verbosity=detailed`)).text();
    expect(concise.length).toBeLessThan(md.length);
    expect(detailed.length).toBeGreaterThan(md.length);
    expect(concise).not.toMatch(/### Round/);
    expect(detailed).toMatch(/novelty [\d.]+, convergence/);

    const json = await getJson(`${stack.url}/v1/sessions/${id}/transcript?format=json`);
    expect(json.entries.at(-1).kind).toBe('recommendation');
    expect((await fetch(`${stack.url}/v1/sessions/${id}/transcript?verbosity=loud`)).status).toBe(400);
  });
});
