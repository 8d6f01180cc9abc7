import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/llm/anthropic/anthropic-provider';
import type { LlmProvider, LlmRequest } from '../../src/ports/llm';
import { portRequest, rejection } from '../support/llm-request';
import { errorBody, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { estimateTokens } from '../../src/memory/tokens';

// `retry-after: 0` alone makes the SDK fall back to its ~0.5s default backoff; `retry-after-ms` keeps tests fast.
const FAST_RETRY = { 'retry-after': '0', 'retry-after-ms': '1' };

const MODEL = 'claude-test-model';

const request = (overrides: Partial<LlmRequest> = {}): LlmRequest => portRequest(MODEL, overrides);

describe('anthropic provider (real SDK against a fake Anthropic server)', () => {
  let fake: FakeAnthropic;
  let provider: LlmProvider;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    provider = createAnthropicProvider({ apiKey: 'sk-test', baseURL: fake.url, maxRetries: 2, timeoutMs: 10_000 });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('maps a non-streaming text reply, usage and the request shape', async () => {
    fake.enqueue({
      text: 'Take it.',
      usage: { input_tokens: 120, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
    });
    const res = await provider.generate(request());

    expect(provider.name).toBe('anthropic');
    expect(res).toEqual({
      text: 'Take it.',
      model: MODEL,
      stopReason: 'end_turn',
      usage: { inputTokens: 120, outputTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 20 },
      attempts: 1,
    });
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers.authorization).toBe('Bearer sk-test'); // SDK 1.x sends the key as a bearer token
    expect(sent.body.model).toBe(MODEL);
    expect(sent.body.max_tokens).toBe(512);
    expect(sent.body.stream).toBeFalsy();
    expect(sent.body.system).toEqual([
      { type: 'text', text: 'stable rules' },
      { type: 'text', text: 'stable persona', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'volatile context' },
    ]);
    expect(sent.body.messages).toEqual([{ role: 'user', content: 'Should I take the job?' }]);
    expect(sent.body.tools).toBeUndefined();
  });

  it('puts no cache breakpoint when nothing is cacheable', async () => {
    await provider.generate(request({ cacheAfter: [] }));
    expect(fake.requests[0]!.body.system!.some((b) => b.cache_control)).toBe(false);
  });

  it('streams text deltas in order when onDelta is given', async () => {
    fake.enqueue({ text: 'Weigh the equity against the commute.' });
    const deltas: string[] = [];
    const res = await provider.generate(request({ onDelta: (d) => deltas.push(d) }));

    expect(fake.requests[0]!.body.stream).toBe(true);
    expect(deltas).toEqual(['Weigh ', 'the ', 'equity ', 'against ', 'the ', 'commute.']);
    expect(res.text).toBe(deltas.join(''));
    expect(res.stopReason).toBe('end_turn');
    expect(res.attempts).toBe(1);
  });

  it('forces a tool for structured output and returns its input as JSON text', async () => {
    const schema = { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] };
    fake.enqueue({ toolInput: { verdict: 'accept', confidence: 0.8 } });
    const res = await provider.generate(
      request({ json: { name: 'record_verdict', description: 'Record the verdict', schema } }),
    );

    const body = fake.requests[0]!.body;
    expect(body.tools).toEqual([{ name: 'record_verdict', description: 'Record the verdict', input_schema: schema }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'record_verdict' });
    expect(JSON.parse(res.text)).toEqual({ verdict: 'accept', confidence: 0.8 });
    expect(res.stopReason).toBe('tool_use');
  });

  it('takes the object from a tool block the server misnamed, leaving the schema to judge it', async () => {
    const schema = { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] };
    fake.enqueue({ toolInput: { verdict: 'accept' }, toolName: 'some_other_tool' });
    const res = await provider.generate(request({ json: { name: 'record_verdict', description: 'Record the verdict', schema } }));
    expect(JSON.parse(res.text)).toEqual({ verdict: 'accept' });
  });

  it('reports the prompt cache as the API does, streamed or not: the first call writes the stable prefix, the next reads it', async () => {
    const schema = { type: 'object', properties: { verdict: { type: 'string' } } };
    const rules = 'Weigh every option against the stated goal. '.repeat(120);
    const ask = (question: string, onDelta?: (d: string) => void) =>
      provider.generate(
        request({
          system: [rules, 'stable persona', 'volatile context'],
          messages: [{ role: 'user', content: question }],
          json: { name: 'record_verdict', description: 'd', schema },
          ...(onDelta && { onDelta }),
        }),
      );
    fake.enqueue({ toolInput: { verdict: 'a' } }, { toolInput: { verdict: 'b' } });
    const first = await ask('Should I take the job?');
    const second = await ask('And the other offer?', () => {});
    expect(fake.requests[1]!.body.stream).toBe(true);
    // Tools, then system up to the breakpoint after 'stable persona', are the prefix; the forced tool's schema counts.
    const body = fake.requests[0]!.body;
    const prefix = estimateTokens(JSON.stringify(body.tools![0])) + estimateTokens(rules) + estimateTokens('stable persona');
    expect(first.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: prefix });
    expect(first.usage.inputTokens).toBe(estimateTokens('volatile context') + estimateTokens('Should I take the job?'));
    expect(second.usage).toMatchObject({ cacheReadTokens: prefix, cacheWriteTokens: 0 });
    expect(second.usage.inputTokens).toBe(estimateTokens('volatile context') + estimateTokens('And the other offer?'));
  });

  it('streams structured output as partial JSON deltas', async () => {
    const schema = { type: 'object', properties: { verdict: { type: 'string' } } };
    fake.enqueue({ toolInput: { verdict: 'decline', reasons: ['commute', 'pay'] } });
    const deltas: string[] = [];
    const res = await provider.generate(
      request({ json: { name: 'record_verdict', description: 'd', schema }, onDelta: (d) => deltas.push(d) }),
    );

    expect(deltas.length).toBeGreaterThan(1);
    expect(JSON.parse(deltas.join(''))).toEqual({ verdict: 'decline', reasons: ['commute', 'pay'] });
    expect(JSON.parse(res.text)).toEqual({ verdict: 'decline', reasons: ['commute', 'pay'] });
  });

  it('retries a 429 honouring retry-after, then succeeds (attempts 2)', async () => {
    fake.enqueue({ status: 429, headers: FAST_RETRY }, { text: 'after the wait' });
    const res = await provider.generate(request());
    expect(res.text).toBe('after the wait');
    expect(res.attempts).toBe(2);
    expect(fake.requests).toHaveLength(2);
  });

  it("counts each call's own attempts when calls share the client and run at once", async () => {
    // The first request to arrive is refused once; whichever call it was reports 2 attempts, the other 1.
    fake.enqueue({ status: 429, headers: FAST_RETRY }, { text: 'one' }, { text: 'two' });
    const both = await Promise.all([provider.generate(request()), provider.generate(request())]);
    expect(both.map((r) => r.attempts).sort()).toEqual([1, 2]);
    expect(fake.requests).toHaveLength(3);
    // And the next call starts from one again.
    expect((await provider.generate(request())).attempts).toBe(1);
  });

  it('retries a 529 overloaded, then succeeds (attempts 2)', async () => {
    fake.enqueue({ status: 529, headers: FAST_RETRY }, { text: 'recovered' });
    const res = await provider.generate(request());
    expect(res.text).toBe('recovered');
    expect(res.attempts).toBe(2);
  });

  it('retries a streaming request that first gets a 529', async () => {
    fake.enqueue({ status: 529, headers: FAST_RETRY }, { text: 'streamed anyway' });
    const deltas: string[] = [];
    const res = await provider.generate(request({ onDelta: (d) => deltas.push(d) }));
    expect(res.text).toBe('streamed anyway');
    expect(deltas.join('')).toBe('streamed anyway');
    expect(res.attempts).toBe(2);
  });

  it('does not retry a 400 and maps it to bad_request', async () => {
    fake.enqueue({ status: 400, body: errorBody(400, 'max_tokens: must be positive') });
    const err = await rejection(provider.generate(request()));
    expect(err.kind).toBe('bad_request');
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(400);
    expect(err.message).toContain('max_tokens: must be positive');
    expect(fake.requests).toHaveLength(1);
  });

  it('does not retry a 401 and maps it to auth', async () => {
    fake.enqueue({ status: 401, body: errorBody(401, 'invalid x-api-key') });
    const err = await rejection(provider.generate(request()));
    expect(err.kind).toBe('auth');
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(401);
    expect(fake.requests).toHaveLength(1);
  });

  it('does not retry a spend-limit 429 and maps it to spend_limit', async () => {
    fake.enqueue({
      status: 429,
      headers: FAST_RETRY,
      body: errorBody(
        429,
        'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.',
        'rate_limit_error',
      ),
    });
    const err = await rejection(provider.generate(request()));
    expect(err.kind).toBe('spend_limit');
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(429);
    expect(fake.requests).toHaveLength(1);
  });

  it('gives up on a persistent 529 after maxRetries + 1 attempts', async () => {
    for (let i = 0; i < 3; i++) {
      fake.enqueue({ status: 529, headers: FAST_RETRY, body: errorBody(529, 'Overloaded') });
    }
    const err = await rejection(provider.generate(request()));
    expect(err.kind).toBe('overloaded');
    expect(err.retryable).toBe(true);
    expect(err.status).toBe(529);
    expect(err.message).toContain('Overloaded');
    expect(fake.requests).toHaveLength(3);
  });

  it('maps a plain exhausted 429 to rate_limited (retryable later)', async () => {
    const p = createAnthropicProvider({ apiKey: 'sk-test', baseURL: fake.url, maxRetries: 0, timeoutMs: 10_000 });
    fake.enqueue({ status: 429, headers: FAST_RETRY });
    const err = await rejection(p.generate(request()));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryable).toBe(true);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports a max_tokens stop', async () => {
    fake.enqueue({ text: 'It depends on', stopReason: 'max_tokens' });
    const res = await provider.generate(request());
    expect(res.stopReason).toBe('max_tokens');
    expect(res.text).toBe('It depends on');
  });

  it('returns a refusal normally and maps unknown stop reasons to other', async () => {
    fake.enqueue({ text: '', stopReason: 'refusal' }, { text: 'x', stopReason: 'pause_turn' });
    expect((await provider.generate(request())).stopReason).toBe('refusal');
    expect((await provider.generate(request())).stopReason).toBe('other');
  });

  it('rejects promptly with aborted when the signal fires (non-streaming)', async () => {
    fake.enqueue({ text: 'too late', delayMs: 5_000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const started = Date.now();
    const err = await rejection(provider.generate(request({ signal: ac.signal })));
    expect(err.kind).toBe('aborted');
    expect(err.retryable).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('rejects promptly with aborted when the signal fires (streaming)', async () => {
    fake.enqueue({ text: 'too late', delayMs: 5_000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const started = Date.now();
    const err = await rejection(provider.generate(request({ signal: ac.signal, onDelta: () => {} })));
    expect(err.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('maps an unreachable server to network (retryable)', async () => {
    await fake.close();
    const p = createAnthropicProvider({ apiKey: 'sk-test', baseURL: fake.url, maxRetries: 0, timeoutMs: 2_000 });
    const err = await rejection(p.generate(request()));
    expect(err.kind).toBe('network');
    expect(err.retryable).toBe(true);
    fake = await startFakeAnthropic(); // so afterEach has something to close
  });
});
