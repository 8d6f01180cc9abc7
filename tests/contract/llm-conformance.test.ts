import { createAnthropicProvider } from '../../src/llm/anthropic/anthropic-provider';
import { ScriptedProvider } from '../../src/llm/fake/scripted-provider';
import { createOpenAiProvider } from '../../src/llm/openai/openai-provider';
import { createSimulatedProvider } from '../../src/llm/simulated/simulated-provider';
import { LlmError, type LlmRequest } from '../../src/ports/llm';
import { errorBody, startFakeAnthropic, type FakeReply } from '../support/fake-anthropic';
import { insufficientQuotaBody, openAiErrorBody, startFakeOpenAi, type FakeOpenAiReply } from '../support/fake-openai';
import { describeConformance, ERROR_KINDS, type ScriptedKind } from './llm-conformance';

// Adapters run with no SDK retries: one scripted reply is one failure as the SDK finally reports it.
const SLOW = 5_000;

describeConformance('anthropic (real SDK, fake server)', async () => {
  const fake = await startFakeAnthropic();
  const errors: Record<ScriptedKind, FakeReply> = {
    rate_limited: { status: 429 },
    overloaded: { status: 529 },
    server: { status: 500 },
    network: { text: '', hangUp: true },
    spend_limit: { status: 429, body: errorBody(429, 'You have reached your specified API usage limits.') },
    bad_request: { status: 400 },
    auth: { status: 401 },
  };
  return {
    provider: createAnthropicProvider({ apiKey: 'sk-test', baseURL: fake.url, maxRetries: 0, timeoutMs: 10_000 }),
    streams: true,
    script: {
      json: (value) => fake.enqueue({ toolInput: value }),
      text: (text) => fake.enqueue({ text }),
      truncated: (text) => fake.enqueue({ text, stopReason: 'max_tokens' }),
      slow: () => fake.enqueue({ text: 'late', delayMs: SLOW }),
      error: (kind) => fake.enqueue(errors[kind]),
    },
    stop: () => fake.close(),
  };
});

describeConformance('openai (real SDK, fake server)', async () => {
  const fake = await startFakeOpenAi();
  const errors: Record<ScriptedKind, FakeOpenAiReply> = {
    rate_limited: { status: 429 },
    overloaded: { status: 503, body: openAiErrorBody(503, 'The engine is currently overloaded, please try again later') },
    server: { status: 500 },
    network: { text: '', hangUp: true },
    spend_limit: { status: 429, body: insufficientQuotaBody() },
    bad_request: { status: 400 },
    auth: { status: 401 },
  };
  return {
    provider: createOpenAiProvider({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 0, timeoutMs: 10_000, structured: 'tools', maxTokensField: 'max_completion_tokens' }),
    streams: true,
    script: {
      json: (value) => fake.enqueue({ toolArgs: value }),
      text: (text) => fake.enqueue({ text }),
      truncated: (text) => fake.enqueue({ text, finishReason: 'length' }),
      slow: () => fake.enqueue({ text: 'late', delayMs: SLOW }),
      error: (kind) => fake.enqueue(errors[kind]),
    },
    stop: () => fake.close(),
  };
});

describeConformance(
  'simulated',
  async () => ({
    provider: createSimulatedProvider({ latencyMs: 0, jitter: 0 }),
    streams: true,
    stop: async () => {},
  }),
  { scriptable: false },
);

/** Waits for the request's abort and rejects as the real adapters do. */
const untilAborted = (req: LlmRequest) =>
  new Promise<never>((_, reject) => {
    const fail = () => reject(new LlmError('aborted', 'scripted: aborted', false));
    if (req.signal?.aborted) fail();
    req.signal?.addEventListener('abort', fail, { once: true });
  });

describeConformance('scripted (test double)', async () => {
  const p = new ScriptedProvider();
  const next = (script: Parameters<ScriptedProvider['when']>[1]) => void p.when(() => true, script, 1);
  return {
    provider: p,
    streams: false,
    script: {
      json: (value) => next({ text: JSON.stringify(value) }),
      text: (text) => next({ text }),
      truncated: (text) => next({ text, stopReason: 'max_tokens' }),
      slow: () => next(untilAborted),
      error: (kind) => next(new LlmError(kind, `scripted ${kind}`, ERROR_KINDS[kind])),
    },
    stop: async () => {},
  };
});
