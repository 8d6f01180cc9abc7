import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/calls';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { PERSONAS } from '../../src/domain/personas';
import { testDatabaseUrl } from '../support/env';
import { simulatedAnthropicResponder, simulatedOpenAiResponder } from '../support/fake-answers';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { readStream } from '../support/sse-client';
import { snapshot, startStack, waitFor, type Stack } from '../support/stack';

/**
 * One board, two providers: the deployment runs on Anthropic, and a session
 * seats its experts on an OpenAI-compatible model, except every other persona,
 * which it pins back to Anthropic. Both fake servers answer through the real SDKs.
 */
const OPENAI_MODEL = 'gpt-experts-test';
const DOWN_MODEL = 'claude-down';
const PRICES = { [OPENAI_MODEL]: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 }, [DOWN_MODEL]: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
const pinned = PERSONAS.filter((_, i) => i % 2 === 0).map((p) => p.code);
const expertPurposes = new Set(Object.values(CATALOGUE).filter((c) => c.role === 'experts').map((c) => c.purpose));

let anthropic: FakeAnthropic;
let openai: FakeOpenAi;
let stack: Stack;
let database: Database;
beforeAll(async () => {
  // One Anthropic model is always overloaded: the fallback test's primary.
  anthropic = await startFakeAnthropic((body) => (body.model === DOWN_MODEL ? { status: 529, headers: { 'retry-after-ms': '1' } } : simulatedAnthropicResponder(body)));
  openai = await startFakeOpenAi(simulatedOpenAiResponder);
  stack = await startStack({
    LLM_PROVIDER: 'anthropic',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: anthropic.url,
    OPENAI_BASE_URL: openai.baseURL,
    PRICE_TABLE: JSON.stringify(PRICES),
  });
  database = openDatabase(testDatabaseUrl(), 2);
});
afterAll(async () => {
  await stack?.stop();
  await anthropic?.close();
  await openai?.close();
  await database?.close();
});

const post = (body: object) => fetch(`${stack.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('a mixed board (anthropic and openai in one session)', () => {
  it('seats experts on the models the session names, ledgers each call under its provider, and shows the seats in the snapshot', async () => {
    const models = { experts: `openai:${OPENAI_MODEL}`, personas: Object.fromEntries(pinned.map((code) => [code, 'anthropic:claude-haiku-5-5'])) };
    const res = await post({ problem: 'Should I invest $50K in SEO or paid ads?', context: 'SaaS at $40 MRR per customer', settings: { models } });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const got = await readStream(`${stack.url}/v1/sessions/${id}/stream`);
    expect(got.envelopes.at(-1)!.type).toBe('session.completed');
    await waitFor(async () => (await new SessionStore(database).events(id, 0, 10_000)).some((e) => e.type === 'lessons.extracted'), 30_000, 'the lessons job');

    const ledger = await new SessionStore(database).ledger(id);
    const openaiRows = ledger.filter((r) => r.provider === 'openai');
    const anthropicRows = ledger.filter((r) => r.provider === 'anthropic');
    expect(openaiRows.length).toBeGreaterThan(0);
    expect(anthropicRows.length).toBeGreaterThan(0);
    // Only expert calls went to the OpenAI-compatible model, each priced from its own row.
    expect(openaiRows.every((r) => r.model === OPENAI_MODEL && expertPurposes.has(r.purpose) && r.costUsd > 0)).toBe(true);
    // Intake, facilitation and synthesis stayed on the deployment's Anthropic tier models.
    expect(anthropicRows.some((r) => r.purpose === 'problem_statement' && r.model === 'claude-sonnet-5-5')).toBe(true);
    expect(openai.requests.length).toBe(openaiRows.length);

    const s = await snapshot(stack.url, id);
    const board = (s.results.board as { code: string }[]).map((m) => m.code);
    // A pinned persona on the board spoke through Anthropic's fast model.
    const pinnedSeated = board.some((c) => pinned.includes(c));
    expect(anthropicRows.some((r) => r.model === 'claude-haiku-5-5' && expertPurposes.has(r.purpose))).toBe(pinnedSeated);
    for (const code of board) {
      expect(s.models.seats[code].fast).toEqual([pinned.includes(code) ? 'anthropic:claude-haiku-5-5' : `openai:${OPENAI_MODEL}`]);
    }
    expect(s.models.roles.intake).toEqual({ fast: ['claude-haiku-5-5'], smart: ['claude-sonnet-5-5'] });
    expect(s.settings.models.experts).toEqual({ fast: [`openai:${OPENAI_MODEL}`], smart: [`openai:${OPENAI_MODEL}`] });
  });

  it('falls back along a chain when its first model is overloaded, and says so in the log', async () => {
    const models = { facilitator: [`anthropic:${DOWN_MODEL}`, `openai:${OPENAI_MODEL}`] };
    const res = await post({ problem: 'Should I hire a head of sales now or in six months?', settings: { models } });
    const { id } = (await res.json()) as { id: string };
    const got = await readStream(`${stack.url}/v1/sessions/${id}/stream`);
    expect(got.envelopes.at(-1)!.type).toBe('session.completed');

    const fallbacks = got.envelopes.filter((e) => e.type === 'model.fallback').map((e) => e.data);
    expect(fallbacks.length).toBeGreaterThan(0);
    expect(fallbacks.every((f) => f.role === 'facilitator' && f.from === `anthropic:${DOWN_MODEL}` && f.to === `openai:${OPENAI_MODEL}`)).toBe(true);
    // The first failures are the model's own; after MODEL_CIRCUIT_FAILURES in a row its circuit opens and it is skipped.
    const reasons = fallbacks.map((f) => f.reason);
    expect(reasons[0]).toBe('overloaded');
    expect(new Set(reasons)).toEqual(new Set(['overloaded', 'circuit_open']));

    const ledger = await new SessionStore(database).ledger(id);
    const tried = ledger.filter((r) => r.model === DOWN_MODEL);
    expect(tried.length).toBe(fallbacks.filter((f) => f.reason === 'overloaded').length);
    expect(tried.every((r) => r.outcome === 'error:overloaded' && r.provider === 'anthropic')).toBe(true);
    expect(ledger.filter((r) => r.provider === 'openai').every((r) => r.outcome === 'ok')).toBe(true);
  });

  it('refuses (422) a session whose models this deployment cannot price or reach', async () => {
    const unpriced = await post({ problem: 'Should I invest $50K in SEO or paid ads?', settings: { models: { experts: 'openai:gpt-unpriced' } } });
    expect(unpriced.status).toBe(422);
    expect(JSON.stringify(await unpriced.json())).toContain('has no price for openai:gpt-unpriced');
    const unknownSeat = await post({ problem: 'Should I invest $50K in SEO or paid ads?', settings: { models: { personas: { nobody: 'claude-haiku-5-5' } } } });
    expect(unknownSeat.status).toBe(400);
  });
});
