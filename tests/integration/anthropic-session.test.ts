import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { testDatabaseUrl } from '../support/env';
import { simulatedAnthropicResponder } from '../support/fake-answers';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { assertGapless, readStream } from '../support/sse-client';
import { memoryJobsDone } from '../support/memory-jobs';
import { createSession, snapshot, startStack, type Stack } from '../support/stack';

/**
 * A whole session through the real @anthropic-ai/sdk, against a local fake
 * Anthropic server that answers each forced tool call with the simulated
 * board's output for that tool (the purpose), recovered from the wire alone.
 */
let fake: FakeAnthropic;
let stack: Stack;
let database: Database;
beforeAll(async () => {
  // A 256-token cache minimum: today's stable prefixes are under the real 1,024, and this test is about the ledger carrying what the API reports.
  fake = await startFakeAnthropic(simulatedAnthropicResponder, { minTokens: () => 256 });
  stack = await startStack({
    LLM_PROVIDER: 'anthropic',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_MAX_RETRIES: '2',
  });
  database = openDatabase(testDatabaseUrl(), 2);
});
afterAll(async () => {
  await stack?.stop();
  await fake?.close();
  await database?.close();
});

describe('a session on the anthropic provider (real SDK, fake server)', () => {
  it('completes, retries transient errors inside the SDK, and ledgers every call with cache tokens', async () => {
    // The first model call meets an overloaded API and a rate limit before it succeeds.
    fake.enqueue(
      { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, headers: { 'retry-after-ms': '1' } },
      { status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } }, headers: { 'retry-after-ms': '1' } },
    );
    const id = await createSession(stack.url, { problem: 'Should I invest $50K in SEO or paid ads?', context: 'SaaS at $40 MRR per customer' });
    const got = await readStream(`${stack.url}/v1/sessions/${id}/stream`);
    assertGapless(got);
    expect(got.envelopes.at(-1)!.type).toBe('session.completed');

    // Let the memory jobs that follow the session finish, so the snapshot and the ledger agree.
    await memoryJobsDone(database, id);
    const s = await snapshot(stack.url, id);
    expect(s.provider).toBe('anthropic');
    expect(s.simulated).toBe(false);
    expect(s.usage.cacheReadTokens).toBeGreaterThan(0);

    const ledger = await new SessionStore(database).ledger(id);
    expect(ledger.length).toBe(s.usage.calls);
    // Each row carries the usage the server reported for its call: uncached input, cache reads and cache writes.
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(fake.usages).toHaveLength(ledger.length);
    expect(total(ledger.map((r) => r.inputTokens))).toBe(total(fake.usages.map((u) => u.input_tokens)));
    expect(total(ledger.map((r) => r.cacheReadTokens))).toBe(total(fake.usages.map((u) => u.cache_read_input_tokens)));
    expect(total(ledger.map((r) => r.cacheWriteTokens))).toBe(total(fake.usages.map((u) => u.cache_creation_input_tokens)));
    expect(s.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(new Set(ledger.map((r) => r.model))).toEqual(new Set(['claude-sonnet-5-5', 'claude-haiku-5-5']));
    expect(ledger.every((r) => r.provider === 'anthropic' && r.outcome === 'ok')).toBe(true);

    // What went over the wire: the stable prompt blocks first with a cache breakpoint, and a forced tool.
    const msgs = fake.requests.filter((r) => r.path.startsWith('/v1/messages'));
    expect(msgs.length).toBe(ledger.length + 2);
    expect(Object.keys(s.usage.byPhase)).toEqual(expect.arrayContaining(['expert_memory', 'lessons']));
    const first = msgs.at(-1)!.body;
    expect(first.system!.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(first.tool_choice).toEqual({ type: 'tool', name: first.tools![0]!.name });

    // Calls that read the board record share one prefix after their tool: the same rules and decision, then the
    // sub-problem's record, so a later call's system blocks start with an earlier one's (and, with the same tool, its cache).
    // Openings and later turns answer with one tool, so a later round reads the prefix the openings wrote.
    const board = msgs.map((r) => r.body).filter((b) => ['expert_turn', 'facilitator_round'].includes(b.tool_choice?.name ?? ''));
    expect(new Set(board.map((b) => b.tool_choice!.name))).toEqual(new Set(['expert_turn', 'facilitator_round']));
    expect(ledger.filter((r) => r.purpose === 'opening_statement').length).toBeGreaterThan(0);
    expect(ledger.filter((r) => r.purpose === 'contribution').length).toBeGreaterThan(0);
    for (const name of ['expert_turn', 'facilitator_round']) {
      const tools = board.filter((b) => b.tool_choice!.name === name).map((b) => JSON.stringify(b.tools));
      expect(new Set(tools).size, name).toBe(1);
      expect(JSON.parse(tools[0]!).map((t: { name: string }) => t.name)).toEqual([name]);
    }
    const texts = (b: (typeof board)[number]) => b.system!.map((x) => x.text);
    expect(new Set(board.map((b) => texts(b)[0])).size).toBe(1);
    const bySubProblem = new Map<string, typeof board>();
    for (const b of board) {
      const sp = /## Board record: sub-problem (sp\d+)/.exec(texts(b).join('\n'))![1]!;
      bySubProblem.set(sp, [...(bySubProblem.get(sp) ?? []), b]);
    }
    for (const calls of bySubProblem.values()) {
      const ordered = calls.map(texts).sort((a, b) => a.length - b.length);
      for (let i = 1; i < ordered.length; i++) expect(ordered[i]!.slice(0, ordered[i - 1]!.length)).toEqual(ordered[i - 1]);
    }
    // At most four breakpoints, the last on the newest chapter; the persona and the turn come after it, in the user message.
    for (const b of board) {
      expect(b.system!.filter((x) => x.cache_control).length).toBeLessThanOrEqual(4);
      expect(b.system!.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    }
  });
});
