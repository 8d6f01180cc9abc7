import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { openRedis } from '../../src/queue/redis';
import { SessionsQueue } from '../../src/queue/sessions-queue';
import { nextCheckpoint, resolve, type Checkpoint } from '../support/checkpoints';
import { testDatabaseUrl } from '../support/env';
import { assertGapless, readStream } from '../support/sse-client';
import { createSession, snapshot, startStack, waitFor, type Stack } from '../support/stack';

const problem = {
  problem:
    'Should we pivot our B2B analytics startup to serve law firms, keep selling to mid-market retailers, or do both with separate teams?',
  context: 'Two law firms asked us for a pilot.',
};

let stack: Stack;
let database: Database;
let store: SessionStore;
let queue: SessionsQueue;
beforeAll(async () => {
  // A short sweep interval so expired checkpoints are handled within the test.
  stack = await startStack({ RECONCILE_INTERVAL_MS: '300' });
  database = openDatabase(testDatabaseUrl(), 2);
  store = new SessionStore(database);
  queue = new SessionsQueue(openRedis(stack.config.REDIS_URL, 'test-interactive'), { name: stack.config.QUEUE_NAME, attempts: 1 });
});
afterAll(async () => {
  await stack?.stop();
  await queue?.close();
  await database?.close();
});

const events = (id: string) => store.events(id, 0, 10_000);
const ofType = async (id: string, type: string) => (await events(id)).filter((e) => e.type === type);

describe('an interactive session driven over HTTP', () => {
  it('stops at every checkpoint kind with no job running, and each answer steers what follows', async () => {
    const id = await createSession(stack.url, { ...problem, mode: 'interactive', seed: 'interactive-1' });
    const streamed = readStream(`${stack.url}/v1/sessions/${id}/stream`, { timeoutMs: 120_000 });
    const seen: Checkpoint[] = [];
    const intervention = 'What about our cash runway of 14 months: can we afford a pilot at all?';
    let interveneRound: number | null = null;
    let last: string | null = null;

    for (let cp = await nextCheckpoint(stack.url, id); cp; cp = await nextCheckpoint(stack.url, id, last)) {
      seen.push(cp);
      last = cp.id;
      // Waiting is a Postgres state: no job holds the session.
      expect((await queue.liveSessionIds()).has(id)).toBe(false);
      expect(cp.actions).toContain('continue');
      expect(new Date(cp.expires_at).getTime()).toBeGreaterThan(Date.now());
      let body: Record<string, unknown> = { action: 'continue' };
      switch (cp.kind) {
        case 'clarification':
          body = { action: 'answer', answers: { [cp.proposal.questions[0].id]: 'About $40,000 a month of burn, and the founders can defer salary.' } };
          break;
        case 'statement':
          body = { action: 'edit', statement: 'Decide whether to run a paid law-firm pilot while keeping the retail business, within 14 months of runway.' };
          break;
        case 'sub_problems': {
          const [a, b] = cp.proposal.subProblems as { id: string; title: string; goal: string }[];
          body = {
            action: 'edit',
            sub_problems: [
              { id: a!.id, title: 'Law-firm pilot: go or no-go', goal: a!.goal },
              ...(b ? [{ id: b.id, title: b.title, goal: b.goal }] : [{ title: 'Retail retention', goal: 'Decide how to bring retail churn under 2% a month' }]),
              { title: 'Runway reserve', goal: 'Decide how many months of runway to hold back whatever we choose' },
            ],
          };
          break;
        }
        case 'board': {
          // Every panel keeps 2-5 experts: remove someone who sits on every full panel, to make room for the one asked for.
          const panels = Object.values(cp.proposal.panels as Record<string, string[]>);
          const first = (cp.proposal.members as { code: string }[]).find((m) => m.code !== 'legal_advisor' && panels.every((p) => p.length < 5 || p.includes(m.code)))!;
          body = { action: 'edit', board: { remove: [first.code], want: ['legal and compliance'] } };
          break;
        }
        case 'round_end':
          if (cp.sub_problem_id === 'sp1' && interveneRound === null) {
            interveneRound = cp.round;
            body = { action: 'intervene', message: intervention };
          } else if (cp.sub_problem_id === 'sp1') body = { action: 'skip_to_vote' };
          else body = { action: 'skip_to_final' };
          break;
      }
      const res = await resolve(stack.url, id, cp.id, body);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ session_id: id, checkpoint_id: cp.id, action: body.action, status: 'queued' });
    }

    const final = await snapshot(stack.url, id);
    expect(final.status).toBe('completed');
    expect(final.checkpoint).toBeNull();
    expect(new Set(seen.map((c) => c.kind))).toEqual(new Set(['clarification', 'statement', 'sub_problems', 'board', 'round_end', 'next_sub_problem']));
    expect(new Set(seen.map((c) => c.id)).size).toBe(seen.length);
    // Before the next sub-problem, the person sees what was just decided.
    const nextUp = seen.find((c) => c.kind === 'next_sub_problem')!;
    expect(nextUp.proposal.decided).toMatchObject({ id: 'sp1', outcome: expect.stringMatching(/^option [A-D], |deferred|tie/), recommendation: expect.any(String) });
    expect(nextUp.prompt).toContain(`Decided, "${nextUp.proposal.decided.title}"`);

    const log = await events(id);
    const requested = log.filter((e) => e.type === 'checkpoint.requested');
    const resolved = log.filter((e) => e.type === 'checkpoint.resolved');
    expect(requested.map((e) => e.data.checkpointId)).toEqual(seen.map((c) => c.id));
    expect(resolved.map((e) => e.data.checkpointId)).toEqual(seen.map((c) => c.id));
    expect(resolved.every((e) => e.data.by === 'client')).toBe(true);

    // Clarification answered: on the statement and in the case memory every prompt carries.
    const stated = await ofType(id, 'problem.stated');
    expect(stated[0]!.data.answers).toHaveLength(1);
    // Written again with the answer (a second intake call), so the statement the person confirms carries what they said.
    expect(stated[0]!.data.statement).toContain('About $40,000 a month of burn');
    expect(final.usage.byPhase.intake.calls).toBe(2);
    expect(stated.at(-1)!.data).toMatchObject({ editedBy: 'person', statement: expect.stringContaining('paid law-firm pilot') });
    expect(JSON.stringify(final.case_memory.intents)).toContain('$40,000 a month');

    // The edited sub-problems and board are what the board deliberated.
    const framing = (await ofType(id, 'decomposition.completed')).at(-1)!.data;
    expect(framing.rationale).toMatch(/Edited by the person/);
    expect((framing.subProblems as { title: string }[]).map((s) => s.title)).toContain('Runway reserve');
    const board = (await ofType(id, 'board.assembled')).at(-1)!.data;
    expect((board.members as { code: string }[]).map((m) => m.code)).toContain('legal_advisor');
    // The seat asked for in words keeps what was asked, for that expert's prompts; "legal and compliance" is a close match.
    const seat = Object.values(board.picks as Record<string, { code: string; wanted?: unknown }[]>).flat().find((s) => s.code === 'legal_advisor')!;
    expect(seat.wanted).toEqual({ want: 'legal and compliance', close: true });

    // The intervention is answered in the next round, by the facilitator and the experts, and kept as a user intent.
    const next = interveneRound! + 1;
    const inNext = log.filter((e) => e.data.subProblemId === 'sp1' && e.data.round === next);
    expect(inNext.some((e) => e.type === 'facilitator.message' && e.data.kind === 'intervention' && String(e.data.text).includes('cash runway'))).toBe(true);
    const replies = inNext.filter((e) => e.type === 'contribution.completed');
    expect(replies.length).toBeGreaterThan(0);
    for (const r of replies) expect(r.data.text).toMatch(/^Responding to your point, "What about our cash runway/);
    expect(inNext.some((e) => e.type === 'facilitator.message' && e.data.kind === 'summary' && String(e.data.text).includes('took up your point'))).toBe(true);
    expect(final.case_memory.intents.map((i: { text: string }) => i.text)).toContain(intervention);

    // Skip to vote ends sp1's debate by the person's choice; skip to final leaves sp3 undeliberated but named.
    const completed = await ofType(id, 'subproblem.completed');
    expect(completed.find((e) => e.data.subProblemId === 'sp1')!.data.stopReason).toBe('person');
    expect((await ofType(id, 'subproblem.skipped')).map((e) => e.data.subProblemId)).toEqual(['sp3']);
    expect(final.results.skipped).toEqual(['sp3']);
    expect(final.results.recommendation.summary.length).toBeGreaterThan(20);

    const got = await streamed;
    assertGapless(got);
    expect(got.envelopes.at(-1)!.type).toBe('session.completed');

    // The transcript shows the person's side of the conversation.
    const md = await (await fetch(`${stack.url}/v1/sessions/${id}/transcript`)).text();
    expect(md).toContain(`**[YOU]** ${intervention}`);
    expect(md).toContain('**[YOU]** Move to the vote.');
  }, 180_000);

  it('accepts exactly one of two concurrent answers, refuses an action the checkpoint does not allow, and names the field', async () => {
    const id = await createSession(stack.url, { ...problem, mode: 'interactive', seed: 'interactive-2', checkpoints: { clarification: false } });
    const cp = (await nextCheckpoint(stack.url, id))!;
    expect(cp.kind).toBe('statement');

    const wrong = await resolve(stack.url, id, cp.id, { action: 'skip_to_vote' });
    expect(wrong.status).toBe(422);
    expect(wrong.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(wrong.body.errors[0].field).toBe('body.action');
    const missing = await resolve(stack.url, id, cp.id, { action: 'edit' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].field).toBe('body.statement');
    const invalid = await resolve(stack.url, id, cp.id, { action: 'edit', statement: 'short' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].field).toBe('body.statement');
    const unknown = await resolve(stack.url, id, 'board', { action: 'continue' });
    expect(unknown.status).toBe(409);

    const both = await Promise.all([
      resolve(stack.url, id, cp.id, { action: 'continue' }),
      resolve(stack.url, id, cp.id, { action: 'edit', statement: 'Decide whether to pilot with law firms this quarter.' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([202, 409]);
    expect(both.find((r) => r.status === 409)!.body.type).toBe('urn:bo1:problem:checkpoint-not-pending');
    const resolvedEvents = (await ofType(id, 'checkpoint.resolved')).filter((e) => e.data.checkpointId === cp.id);
    expect(resolvedEvents).toHaveLength(1);
    expect(resolvedEvents[0]!.data.action).toBe(both.find((r) => r.status === 202)!.body.action);

    // The same answer again, later: the checkpoint is gone.
    const again = await resolve(stack.url, id, cp.id, { action: 'continue' });
    expect(again.status).toBe(409);
    await cancel(id);
  }, 60_000);

  it('replays an idempotent answer instead of applying it twice', async () => {
    const id = await createSession(stack.url, { ...problem, mode: 'interactive', seed: 'interactive-3', checkpoints: { clarification: false } });
    const cp = (await nextCheckpoint(stack.url, id))!;
    const key = { 'idempotency-key': `answer-${id}` };
    const first = await resolve(stack.url, id, cp.id, { action: 'continue' }, key);
    const second = await resolve(stack.url, id, cp.id, { action: 'continue' }, key);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const changed = await resolve(stack.url, id, cp.id, { action: 'edit', statement: 'A different statement of the decision.' }, key);
    expect(changed.status).toBe(422);
    expect((await ofType(id, 'checkpoint.resolved')).filter((e) => e.data.checkpointId === cp.id)).toHaveLength(1);
    await cancel(id);
  }, 60_000);

  it('an unanswered checkpoint expires by its policy: continue is recorded and the session moves on; cancel ends it', async () => {
    const onlyStatement = { clarification: false, sub_problems: false, board: false, round_end: false, next_sub_problem: false };
    const going = await createSession(stack.url, { ...problem, mode: 'interactive', seed: 'expire-1', checkpoints: { ...onlyStatement, expires_in_seconds: 5 } });
    const ending = await createSession(stack.url, {
      ...problem,
      mode: 'interactive',
      seed: 'expire-2',
      checkpoints: { ...onlyStatement, expires_in_seconds: 5, on_expiry: 'cancel' },
    });
    const cp = (await nextCheckpoint(stack.url, going))!;
    expect(cp).toMatchObject({ kind: 'statement', on_expiry: 'continue' });

    const done = await waitFor(async () => {
      const s = await snapshot(stack.url, going);
      return s.status === 'completed' ? s : null;
    }, 90_000, 'the expired session to continue to the end');
    expect(done.checkpoint).toBeNull();
    const resolved = await ofType(going, 'checkpoint.resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.data).toMatchObject({ checkpointId: 'statement', action: 'continue', by: 'expiry' });
    // Answering after the expiry is a conflict, not a second resolution.
    const late = await resolve(stack.url, going, cp.id, { action: 'continue' });
    expect(late.status).toBe(409);

    const cancelled = await waitFor(async () => {
      const s = await snapshot(stack.url, ending);
      return s.status === 'cancelled' ? s : null;
    }, 30_000, 'the cancel-on-expiry session to end');
    expect(cancelled.checkpoint).toBeNull();
    const tail = (await events(ending)).slice(-2);
    expect(tail.map((e) => e.type)).toEqual(['checkpoint.resolved', 'session.cancelled']);
    expect(tail[0]!.data).toMatchObject({ action: 'cancel', by: 'expiry' });
  }, 120_000);

  it('cancels a session that waits for input, and its checkpoint can no longer be answered', async () => {
    const id = await createSession(stack.url, { ...problem, mode: 'interactive', seed: 'interactive-4' });
    const cp = (await nextCheckpoint(stack.url, id))!;
    await cancel(id);
    const s = await snapshot(stack.url, id);
    expect(s).toMatchObject({ status: 'cancelled', checkpoint: null });
    expect((await resolve(stack.url, id, cp.id, { action: 'continue' })).status).toBe(409);
  }, 60_000);

  it('refuses checkpoint settings on an automatic session, naming the field', async () => {
    const res = await fetch(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...problem, checkpoints: { board: false } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('body.checkpoints');
  });
});

async function cancel(id: string) {
  const res = await fetch(`${stack.url}/v1/sessions/${id}/cancel`, { method: 'POST' });
  expect(res.status).toBe(200);
}
