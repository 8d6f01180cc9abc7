import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiProvider, type OpenAiProviderOptions } from '../../src/llm/openai/openai-provider';
import type { LlmProvider, LlmRequest } from '../../src/ports/llm';
import { portRequest, rejection } from '../support/llm-request';
import { insufficientQuotaBody, openAiErrorBody, startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';

// `retry-after-ms` keeps the SDK's wait short; it honours it before `retry-after`.
const FAST_RETRY = { 'retry-after': '0', 'retry-after-ms': '1' };
const MODEL = 'gpt-test-model';
const SCHEMA = { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] };

const request = (overrides: Partial<LlmRequest> = {}): LlmRequest => portRequest(MODEL, overrides);

const asJson = (overrides: Partial<LlmRequest> = {}) => request({ json: { name: 'record_verdict', description: 'Record the verdict', schema: SCHEMA }, ...overrides });

describe('openai provider (real SDK against a fake OpenAI-compatible server)', () => {
  let fake: FakeOpenAi;
  let provider: LlmProvider;
  const make = (o: Partial<OpenAiProviderOptions> = {}) =>
    createOpenAiProvider({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 2, timeoutMs: 10_000, structured: 'tools', maxTokensField: 'max_completion_tokens', ...o });

  beforeEach(async () => {
    fake = await startFakeOpenAi();
    provider = make();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('maps a text reply and its usage, cached tokens apart, and sends one system message, stable blocks first', async () => {
    fake.enqueue({ text: 'Take it.', usage: { prompt_tokens: 120, completion_tokens: 7, cached_tokens: 100 } });
    const res = await provider.generate(request());

    expect(provider.name).toBe('openai');
    expect(res).toEqual({
      text: 'Take it.',
      model: MODEL,
      stopReason: 'end_turn',
      usage: { inputTokens: 20, outputTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 0 },
      attempts: 1,
    });
    const sent = fake.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body.model).toBe(MODEL);
    expect(sent.body.max_completion_tokens).toBe(512);
    expect(sent.body.max_tokens).toBeUndefined();
    expect(sent.body.stream).toBeFalsy();
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'stable rules\n\nstable persona\n\nvolatile context' },
      { role: 'user', content: 'Should I take the job?' },
    ]);
    expect(sent.body.tools).toBeUndefined();
    expect(sent.body.response_format).toBeUndefined();
  });

  it('sends max_tokens instead where the server wants the older field', async () => {
    await make({ maxTokensField: 'max_tokens' }).generate(request());
    expect(fake.requests[0]!.body.max_tokens).toBe(512);
    expect(fake.requests[0]!.body.max_completion_tokens).toBeUndefined();
  });

  it('streams text deltas in order and reads usage from the final chunk', async () => {
    fake.enqueue({ text: 'Weigh the equity against the commute.', usage: { prompt_tokens: 50, completion_tokens: 9, cached_tokens: 40 } });
    const deltas: string[] = [];
    const res = await provider.generate(request({ onDelta: (d) => deltas.push(d) }));

    expect(fake.requests[0]!.body.stream).toBe(true);
    expect(fake.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(deltas).toEqual(['Weigh ', 'the ', 'equity ', 'against ', 'the ', 'commute.']);
    expect(res.text).toBe(deltas.join(''));
    expect(res.stopReason).toBe('end_turn');
    expect(res.usage).toEqual({ inputTokens: 10, outputTokens: 9, cacheReadTokens: 40, cacheWriteTokens: 0 });
  });

  it('tools: forces a function call and returns its arguments as the JSON text', async () => {
    fake.enqueue({ toolArgs: { verdict: 'accept', confidence: 0.8 } });
    const res = await provider.generate(asJson());

    const body = fake.requests[0]!.body;
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'record_verdict', description: 'Record the verdict', parameters: SCHEMA } }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'record_verdict' } });
    expect(body.response_format).toBeUndefined();
    expect(JSON.parse(res.text)).toEqual({ verdict: 'accept', confidence: 0.8 });
    expect(res.stopReason).toBe('end_turn');
  });

  it('tools: streams the arguments as partial JSON deltas', async () => {
    fake.enqueue({ toolArgs: { verdict: 'decline', reasons: ['commute', 'pay'] } });
    const deltas: string[] = [];
    const res = await provider.generate(asJson({ onDelta: (d) => deltas.push(d) }));
    expect(deltas.length).toBeGreaterThan(1);
    expect(JSON.parse(deltas.join(''))).toEqual({ verdict: 'decline', reasons: ['commute', 'pay'] });
    expect(JSON.parse(res.text)).toEqual({ verdict: 'decline', reasons: ['commute', 'pay'] });
  });

  it('json_schema: asks with response_format, strict only for a strict-shaped schema', async () => {
    const p = make({ structured: 'json_schema' });
    fake.enqueue({ text: '{"verdict":"accept"}' }, { text: '{"verdict":"accept"}' });
    const res = await p.generate(asJson());
    expect(res.text).toBe('{"verdict":"accept"}');
    expect(fake.requests[0]!.body.tools).toBeUndefined();
    expect(fake.requests[0]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'record_verdict', description: 'Record the verdict', schema: SCHEMA, strict: false },
    });
    const closed = { ...SCHEMA, additionalProperties: false };
    await p.generate(request({ json: { name: 'v', description: 'd', schema: closed } }));
    expect(fake.requests[1]!.body.response_format!.json_schema!.strict).toBe(true);
  });

  it('json_object: JSON mode with the schema stated in the system message', async () => {
    fake.enqueue({ text: '{"verdict":"accept"}' });
    const res = await make({ structured: 'json_object' }).generate(asJson());
    const body = fake.requests[0]!.body;
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages![0]!.content).toContain(JSON.stringify(SCHEMA));
    expect(body.messages![0]!.content).toContain('JSON');
    expect(res.text).toBe('{"verdict":"accept"}');
  });

  it('reports a length stop as max_tokens and a refusal as refusal', async () => {
    fake.enqueue({ text: 'It depends on', finishReason: 'length' }, { text: '', refusal: 'I cannot help with that.' }, { text: 'x', finishReason: 'content_filter' });
    expect((await provider.generate(request())).stopReason).toBe('max_tokens');
    expect((await provider.generate(request())).stopReason).toBe('refusal');
    expect((await provider.generate(request({ onDelta: () => {} }))).stopReason).toBe('refusal');
  });

  it('retries a 429 honouring retry-after, then succeeds (attempts 2)', async () => {
    fake.enqueue({ status: 429, headers: FAST_RETRY }, { text: 'after the wait' });
    const res = await provider.generate(request());
    expect(res.text).toBe('after the wait');
    expect(res.attempts).toBe(2);
  });

  it("counts each call's own attempts when calls share the client and run at once", async () => {
    fake.enqueue({ status: 429, headers: FAST_RETRY }, { text: 'one' }, { text: 'two' });
    const both = await Promise.all([provider.generate(request()), provider.generate(request())]);
    expect(both.map((r) => r.attempts).sort()).toEqual([1, 2]);
    expect((await provider.generate(request())).attempts).toBe(1);
  });

  it('retries a streaming request that first gets a 503', async () => {
    fake.enqueue({ status: 503, headers: FAST_RETRY }, { text: 'streamed anyway' });
    const deltas: string[] = [];
    const res = await provider.generate(request({ onDelta: (d) => deltas.push(d) }));
    expect(deltas.join('')).toBe('streamed anyway');
    expect(res.attempts).toBe(2);
  });

  it('gives up on a persistent 500 after maxRetries + 1 attempts as server (retryable)', async () => {
    for (let i = 0; i < 3; i++) fake.enqueue({ status: 500, headers: FAST_RETRY, body: openAiErrorBody(500, 'The server had an error') });
    const err = await rejection(provider.generate(request()));
    expect(err.kind).toBe('server');
    expect(err.retryable).toBe(true);
    expect(err.status).toBe(500);
    expect(err.message).toContain('The server had an error');
    expect(fake.requests).toHaveLength(3);
  });

  it('does not retry insufficient_quota and maps it to spend_limit', async () => {
    fake.enqueue({ status: 429, headers: FAST_RETRY, body: insufficientQuotaBody() });
    const err = await rejection(provider.generate(request()));
    expect(err.kind).toBe('spend_limit');
    expect(err.retryable).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it('does not retry a 400 (bad_request) or a 401 (auth)', async () => {
    fake.enqueue({ status: 400, body: openAiErrorBody(400, "Invalid 'max_completion_tokens'") }, { status: 401 });
    const bad = await rejection(provider.generate(request()));
    expect([bad.kind, bad.retryable, bad.status]).toEqual(['bad_request', false, 400]);
    expect(bad.message).toContain("Invalid 'max_completion_tokens'");
    const auth = await rejection(provider.generate(request()));
    expect([auth.kind, auth.retryable, auth.status]).toEqual(['auth', false, 401]);
    expect(fake.requests).toHaveLength(2);
  });

  it('classifies an error object in the middle of a stream', async () => {
    fake.enqueue({ streamError: { message: 'overloaded', type: 'server_error' } }, { streamError: { message: 'quota', type: 'insufficient_quota' } });
    const server = await rejection(provider.generate(request({ onDelta: () => {} })));
    expect([server.kind, server.retryable]).toEqual(['server', true]);
    const quota = await rejection(provider.generate(request({ onDelta: () => {} })));
    expect([quota.kind, quota.retryable]).toEqual(['spend_limit', false]);
  });

  it('maps a timeout to network (retryable)', async () => {
    fake.enqueue({ text: 'too late', delayMs: 2_000 });
    const err = await rejection(make({ maxRetries: 0, timeoutMs: 100 }).generate(request()));
    expect(err.kind).toBe('network');
    expect(err.retryable).toBe(true);
  });

  it('rejects promptly with aborted when the signal fires, streaming or not', async () => {
    for (const onDelta of [undefined, () => {}]) {
      fake.enqueue({ text: 'too late', delayMs: 5_000 });
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      const started = Date.now();
      const err = await rejection(provider.generate(request({ signal: ac.signal, ...(onDelta && { onDelta }) })));
      expect([err.kind, err.retryable]).toEqual(['aborted', false]);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
  });

  it('maps an unreachable server to network (retryable)', async () => {
    await fake.close();
    const err = await rejection(make({ maxRetries: 0, timeoutMs: 2_000 }).generate(request()));
    expect([err.kind, err.retryable]).toEqual(['network', true]);
    fake = await startFakeOpenAi(); // so afterEach has something to close
  });
});
