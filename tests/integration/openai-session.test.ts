import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { testDatabaseUrl } from '../support/env';
import { simulatedOpenAiResponder } from '../support/fake-answers';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { assertGapless, readStream } from '../support/sse-client';
import { memoryJobsDone } from '../support/memory-jobs';
import { createSession, snapshot, startStack, type Stack } from '../support/stack';

/**
 * A whole session through the real `openai` SDK against a local fake
 * OpenAI-compatible server, which answers each forced function call with the
 * simulated board's output for that function (the purpose), recovered from
 * the wire alone.
 */
const PRICES = { 'gpt-fast-test': { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0 }, 'gpt-smart-test': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 } };

let fake: FakeOpenAi;
let stack: Stack;
let database: Database;
beforeAll(async () => {
  fake = await startFakeOpenAi(simulatedOpenAiResponder);
  stack = await startStack({
    LLM_PROVIDER: 'openai',
    OPENAI_API_KEY: 'sk-openai-test',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MAX_RETRIES: '2',
    MODEL_FAST: 'gpt-fast-test',
    MODEL_SMART: 'gpt-smart-test',
    PRICE_TABLE: JSON.stringify(PRICES),
  });
  database = openDatabase(testDatabaseUrl(), 2);
});
afterAll(async () => {
  await stack?.stop();
  await fake?.close();
  await database?.close();
});

describe('a session on the openai provider (real SDK, fake server)', () => {
  it('completes, retries transient errors inside the SDK, and ledgers every call with cached tokens', async () => {
    // The first model call meets an outage and a rate limit before it succeeds.
    fake.enqueue({ status: 503, headers: { 'retry-after-ms': '1' } }, { status: 429, headers: { 'retry-after-ms': '1' } });
    const id = await createSession(stack.url, { problem: 'Should I invest $50K in SEO or paid ads?', context: 'SaaS at $40 MRR per customer' });
    const got = await readStream(`${stack.url}/v1/sessions/${id}/stream`);
    assertGapless(got);
    expect(got.envelopes.at(-1)!.type).toBe('session.completed');

    await memoryJobsDone(database, id);
    const s = await snapshot(stack.url, id);
    expect(s.provider).toBe('openai');
    expect(s.simulated).toBe(false);
    expect(s.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(s.usage.costUsd).toBeGreaterThan(0);

    const ledger = await new SessionStore(database).ledger(id);
    expect(ledger.length).toBe(s.usage.calls);
    expect(new Set(ledger.map((r) => r.model))).toEqual(new Set(['gpt-smart-test', 'gpt-fast-test']));
    expect(ledger.every((r) => r.provider === 'openai' && r.outcome === 'ok')).toBe(true);

    const calls = fake.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(calls.length).toBe(ledger.length + 2);
    const last = calls.at(-1)!.body;
    expect(last.messages![0]!.role).toBe('system');
    expect(last.tool_choice).toEqual({ type: 'function', function: { name: last.tools![0]!.function.name } });
  });
});
