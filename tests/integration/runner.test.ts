import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryableRunError, runSession, type RunnerDeps } from '../../src/app/run-session';
import { openDatabase, type Database } from '../../src/db/client';
import { event } from '../../src/domain/events';
import { SessionStore } from '../../src/db/session-store';
import { ScriptedProvider } from '../../src/llm/fake/scripted-provider';
import { LlmGateway } from '../../src/llm/gateway';
import { loadPrompts } from '../../src/llm/prompts';
import { createSimulatedProvider } from '../../src/llm/simulated/simulated-provider';
import { LlmError } from '../../src/ports/llm';
import { DEFAULT_PRICES } from '../../src/config/config';
import { testDatabaseUrl } from '../support/env';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder';
import type { RequestScreen } from '../../src/app/request-screen';

let database: Database;
let store: SessionStore;
const published: number[] = [];
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 6);
  store = new SessionStore(database);
});
afterAll(async () => database?.close());

function deps(provider: ScriptedProvider): RunnerDeps {
  return {
    store,
    gateway: new LlmGateway(provider, { models: { fast: 'claude-haiku-5-5', smart: 'claude-sonnet-5-5' }, prices: DEFAULT_PRICES }),
    notifier: { publish: async (_id, seq) => void published.push(seq) },
    prompts: loadPrompts(),
    embedder: createLocalEmbedder(),
  };
}

async function newSession(seed: string): Promise<string> {
  const id = randomUUID();
  await store.create(
    { id, tenantId: 'default', problem: 'Should I raise prices for my SaaS from $29 to $49?', context: '300 customers', options: {}, provider: 'fake', seed },
    event('session.created', { problem: 'p', context: '', provider: 'fake', mode: 'auto' }),
  );
  return id;
}

const sim = () => createSimulatedProvider({ latencyMs: 0, jitter: 0 });

async function waitForRow(id: string, match: (r: { purpose: string; outcome: string }) => boolean) {
  for (let i = 0; i < 1200; i++) {
    const row = (await store.ledger(id)).find(match);
    if (row) return { ...row, costUsd: Number(row.costUsd) };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no such ledger row');
}

describe('runSession', () => {
  it('ledgers a call before it is made: one in flight when its run dies stays in the ledger as abandoned, with its estimated cost', async () => {
    const id = await newSession('crash-in-flight');
    // The first run's options call never returns: its worker "dies" with the call in flight.
    const hung = new ScriptedProvider(sim()).when((r) => r.purpose === 'options', () => new Promise(() => {}), 1);
    void runSession(deps(hung), id, { finalAttempt: false });
    const pending = await waitForRow(id, (r) => r.purpose === 'options' && r.outcome === 'pending');
    expect(pending.costUsd).toBeGreaterThan(0);
    expect(pending.inputTokens).toBeGreaterThan(100);

    // Another worker takes the session over and finishes it.
    expect(await runSession(deps(new ScriptedProvider(sim())), id, { finalAttempt: false })).toBe('completed');
    const ledger = await store.ledger(id);
    const abandoned = ledger.filter((r) => r.outcome === 'abandoned');
    expect(abandoned.map((r) => [r.id, r.purpose])).toEqual([[pending.id, 'options']]);
    expect(Number(abandoned[0]!.costUsd)).toBeCloseTo(pending.costUsd, 6);
    expect(ledger.some((r) => r.outcome === 'pending')).toBe(false);
    // The usage counts the abandoned call: spend the provider would bill for is not under-reported.
    const usage = await store.usage(id);
    expect(usage.calls).toBe(ledger.length);
    expect(usage.costUsd).toBeCloseTo(ledger.reduce((a, r) => a + Number(r.costUsd), 0), 5);
  });

  it('a re-run job resumes after the last committed step without paying for finished steps again', async () => {
    const id = await newSession('rerun');
    const provider = new ScriptedProvider(sim()).when(
      (r) => r.purpose === 'options',
      new LlmError('overloaded', 'overloaded', true, 529),
      1,
    );
    await expect(runSession(deps(provider), id, { finalAttempt: false })).rejects.toBeInstanceOf(RetryableRunError);
    const callsBefore = provider.requests.length;
    const keysBefore = new Set(provider.requests.map((r) => r.key.replace(/#\d+$/, '')));
    const lastSeqBefore = (await store.get(id))!.lastSeq;

    expect(await runSession(deps(provider), id, { finalAttempt: false })).toBe('completed');
    const rerunKeys = provider.requests.slice(callsBefore).map((r) => r.key.replace(/#\d+$/, ''));
    // Only the failed step (options) and what follows it ran again.
    for (const k of rerunKeys) if (keysBefore.has(k)) expect(k).toMatch(/options$/);
    const events = await store.events(id, 0, 10_000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.length).toBeGreaterThan(lastSeqBefore);
    // The failed call is in the ledger too, as an error, at zero cost.
    const ledger = await store.ledger(id);
    expect(ledger.filter((r) => r.outcome === 'error:overloaded')).toHaveLength(1);

    expect(await runSession(deps(provider), id, { finalAttempt: false })).toBe('skipped');
  });

  it('a non-retryable model failure fails the session with a session.failed event that says why', async () => {
    const id = await newSession('fail');
    const provider = new ScriptedProvider(sim()).when((r) => r.purpose === 'decompose', new LlmError('bad_request', 'prompt is too long', false, 400));
    expect(await runSession(deps(provider), id, { finalAttempt: false })).toBe('failed');
    const row = (await store.get(id))!;
    expect(row.status).toBe('failed');
    const last = (await store.events(id, row.lastSeq - 1, 1))[0]!;
    expect(last.type).toBe('session.failed');
    expect(last.data).toMatchObject({ kind: 'bad_request', step: 'decompose', retryable: false });
    expect(String(last.data.detail)).toMatch(/prompt is too long/);
    expect(String(last.data.reason)).toMatch(/provider rejected the request/);
  });

  it('a retryable failure on the final attempt fails the session instead of hanging it', async () => {
    const id = await newSession('final');
    const provider = new ScriptedProvider(sim()).when((r) => r.purpose === 'problem_statement', new LlmError('overloaded', 'still overloaded', true, 529));
    expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('failed');
    expect((await store.get(id))!.status).toBe('failed');
  });

  it('output that stays invalid after one repair fails the session clearly', async () => {
    const id = await newSession('invalid');
    const provider = new ScriptedProvider(sim()).when((r) => r.purpose === 'decompose', { text: '{"subProblems": []}' });
    expect(await runSession(deps(provider), id, { finalAttempt: false })).toBe('failed');
    const row = (await store.get(id))!;
    expect(row.error).toMatchObject({ kind: 'invalid_output', step: 'decompose' });
    expect(provider.requests.filter((r) => r.purpose === 'decompose')).toHaveLength(2);
  });
});

describe('engine paths forced through the scripted provider', () => {
  it('a tied vote is presented as a tie: no winner, the tie named, nothing committed to', async () => {
    const id = await newSession('tie');
    let n = 0;
    // Alternate the board's votes between the first two options, whatever the simulated board would say.
    const provider = new ScriptedProvider(sim()).when(
      (r) => r.purpose === 'vote',
      () => ({
        text: JSON.stringify({ optionId: n++ % 2 === 0 ? 'A' : 'B', rationale: 'Both options have real merit here; my vote reflects a close judgement on the evidence we heard.', confidence: 0.7, strongObjection: null }),
      }),
    );
    // An even board so the alternation ties; two-way so the mechanism is a count.
    provider.when(
      (r) => r.purpose === 'options',
      {
        text: JSON.stringify({
          options: ['A', 'B'].map((id) => ({ id, title: `Option ${id} path`, description: `Take path ${id} for this decision.`, pros: ['fast'], cons: ['risky'], bestIf: 'conditions hold', reversibility: 'two_way' })),
          decisionReversibility: 'two_way',
          reversibilityWhy: 'Either path can be undone within a quarter.',
        }),
      },
    );
    const settings = { panelSize: { simple: 4, moderate: 4, complex: 4 } };
    await database.pool.query(`update sessions set options = $2 where id = $1`, [id, { settings }]);
    expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('completed');
    const tallies = (await store.events(id, 0, 10_000)).filter((e) => e.type === 'vote.completed').map((e) => e.data.tally as Record<string, any>);
    expect(tallies.length).toBeGreaterThan(0);
    for (const t of tallies) {
      expect(t.winner).toBeNull();
      expect(t.tie).toEqual(['A', 'B']);
    }
    const syntheses = (await store.events(id, 0, 10_000)).filter((e) => e.type === 'synthesis.completed');
    for (const s of syntheses) {
      const c = s.data.commitment as { triggered: boolean; statement: string };
      expect(c.triggered).toBe(false);
      expect(c.statement).toMatch(/split between options A, B: no option has a majority, so the board commits to none/);
    }
  });

  it('intake runs the harm screen it is given, before any model call, and records its verdict', async () => {
    const id = await newSession('semantic-refusal');
    const provider = new ScriptedProvider(sim());
    const screened: string[] = [];
    const screen: RequestScreen = {
      screen: async (text) => {
        screened.push(text);
        return { allowed: false, category: 'deception', reason: 'The request asks for help with misleading people.', by: 'semantic', probability: 0.99 };
      },
    };
    expect(await runSession({ ...deps(provider), screen }, id, { finalAttempt: true })).toBe('failed');
    expect(screened).toEqual(['Should I raise prices for my SaaS from $29 to $49?\n300 customers']);
    const events = await store.events(id, 0, 100);
    expect(events.map((e) => e.type)).toEqual(['session.created', 'session.started', 'guardrail.refused', 'session.failed']);
    expect(events[2]!.data).toMatchObject({ category: 'deception', by: 'screen' });
    expect(provider.requests).toEqual([]);
  });

  it('the model-side screen refuses what the deterministic screen let through, before any debate', async () => {
    const id = await newSession('model-refusal');
    await database.pool.query(`update sessions set problem = $2 where id = $1`, [id, 'Should we sabotage our competitor\'s launch event to win their customers?']);
    const provider = new ScriptedProvider(sim());
    expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('failed');
    const events = await store.events(id, 0, 100);
    expect(events.map((e) => e.type)).toEqual(['session.created', 'session.started', 'guardrail.refused', 'session.failed']);
    // The category the model named, and its reason (the simulated board's), ending in one full stop in the message.
    expect(events[2]!.data).toMatchObject({ by: 'model', category: 'illegal', reason: expect.stringMatching(/^Sabotaging another person/) });
    expect(events[3]!.data.reason).toMatch(/will not help plan it\. bo1 deliberates/);
    expect(provider.requests.map((r) => r.purpose)).toEqual(['problem_statement']);
  });

  describe('with HARM_SCREEN_FLAG=confirm', () => {
    const flagging: RequestScreen = {
      onFlag: 'confirm',
      screen: async () => ({ allowed: false, category: 'deception', reason: 'The request asks for help with misleading people.', by: 'rules' }),
    };

    it("puts the screen's refusal to the model, which confirms it: refused by the model, in the screen's category", async () => {
      const id = await newSession('confirm-refused');
      const provider = new ScriptedProvider(sim());
      expect(await runSession({ ...deps(provider), screen: flagging }, id, { finalAttempt: true })).toBe('failed');
      const events = await store.events(id, 0, 100);
      expect(events.map((e) => e.type)).toEqual(['session.created', 'session.started', 'guardrail.refused', 'session.failed']);
      expect(events[2]!.data).toMatchObject({ by: 'model', category: 'deception' });
      expect(provider.requests.map((r) => r.purpose)).toEqual(['problem_statement']);
      // The model was told what the screen found, and that it matches wording.
      expect(provider.requests[0]!.messages[0]!.content).toMatch(/pre-screen, which matches wording rather than meaning, flagged this request as possibly `deception`/);
    });

    it('lets the model clear a lawful request the screen flagged, and records that it did', async () => {
      const id = await newSession('confirm-cleared');
      const provider = new ScriptedProvider(sim()).when(
        (r) => r.purpose === 'problem_statement',
        async (r) => {
          const out = await sim().generate(r);
          return { ...out, text: JSON.stringify({ ...JSON.parse(out.text), safety: { allowed: true, reason: 'A lawful price change.' } }) };
        },
      );
      expect(await runSession({ ...deps(provider), screen: flagging }, id, { finalAttempt: true })).toBe('completed');
      const events = await store.events(id, 0, 10_000);
      const types = events.map((e) => e.type);
      expect(types.indexOf('guardrail.cleared')).toBeGreaterThan(0);
      expect(types.indexOf('guardrail.cleared')).toBeLessThan(types.indexOf('problem.stated'));
      expect(types).not.toContain('guardrail.refused');
      expect(events.find((e) => e.type === 'guardrail.cleared')!.data).toEqual({
        category: 'deception',
        reason: 'The request asks for help with misleading people.',
        modelReason: 'A lawful price change.',
      });
    });
  });

  it('a person at risk of harming themselves gets the support lines, whatever the model wrote in its reason', async () => {
    const id = await newSession('model-self-harm');
    const answer = {
      statement: 'Whether to keep going after the business failed.',
      clarifications: [],
      assumptions: [],
      domains: ['people'],
      category: 'other',
      vague: false,
      safety: { allowed: false, category: 'self_harm', reason: 'The person may be at risk.' },
    };
    const provider = new ScriptedProvider(sim()).when((r) => r.purpose === 'problem_statement', { text: JSON.stringify(answer) });
    expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('failed');
    const events = await store.events(id, 0, 100);
    expect(events[2]!.data).toMatchObject({ by: 'model', category: 'self_harm', reason: expect.stringMatching(/crisis line \(for example 988 in the US/) });
    expect(events[3]!.data.reason).not.toMatch(/at risk\./);
  });
});
