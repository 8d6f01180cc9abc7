import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LedgerEntry } from '../../src/db/session-store';
import { ScriptedProvider } from '../../src/llm/fake/scripted-provider';
import { costOf, extractJson, LlmGateway } from '../../src/llm/gateway';
import { LlmError } from '../../src/ports/llm';

const schema = z.object({ answer: z.string().min(3), score: z.number().min(0).max(1) });
const prompt = { version: 't@1', system: ['stable protocol', 'stable persona'], user: 'dynamic question' };
const prices = { m: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };

function setup(provider: ScriptedProvider) {
  const gateway = new LlmGateway(provider, { models: { fast: 'm', smart: 'm' }, prices, maxTokensCeiling: 1000 });
  const ledger: LedgerEntry[] = [];
  const call = () =>
    gateway.call(
      { tier: 'smart', phase: 'debate', purpose: 'p', prompt, maxTokens: 300, schema },
      { key: 'seed:sp1/r1/x', record: (e) => ledger.push(e) },
    );
  return { call, ledger };
}

describe('LlmGateway', () => {
  it('validates structured output and prices the call from the table', async () => {
    const p = new ScriptedProvider().when(() => true, {
      text: '{"answer":"yes","score":0.5}',
      usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 2000, cacheWriteTokens: 0 },
    });
    const { call, ledger } = setup(p);
    await expect(call()).resolves.toEqual({ output: { answer: 'yes', score: 0.5 }, text: '{"answer":"yes","score":0.5}' });
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ attempt: 1, outcome: 'ok', promptVersion: 't@1', phase: 'debate', model: 'm' });
    expect(ledger[0]!.costUsd).toBeCloseTo((1000 * 3 + 100 * 15 + 2000 * 0.3) / 1e6, 10);
    // A prompt that names no breakpoints gets one after its last system block; the JSON schema goes along.
    expect(p.requests[0]).toMatchObject({ system: prompt.system, cacheAfter: [prompt.system.length - 1], json: { name: 'p' } });
  });

  it('prices cache reads and writes at their own rates and carries them on the ledger row', async () => {
    const usage = { inputTokens: 300, outputTokens: 50, cacheReadTokens: 4000, cacheWriteTokens: 1200 };
    const { call, ledger } = setup(new ScriptedProvider().when(() => true, { text: '{"answer":"yes","score":0.5}', usage }));
    await call();
    expect(ledger[0]).toMatchObject(usage);
    // 300 × $3 + 50 × $15 + 4,000 × $0.30 + 1,200 × $3.75 per million: reads at a tenth of input, writes at 1.25×.
    expect(ledger[0]!.costUsd).toBeCloseTo((300 * 3 + 50 * 15 + 4000 * 0.3 + 1200 * 3.75) / 1e6, 12);
  });

  it('repairs an invalid answer once, sending the validation error back', async () => {
    const p = new ScriptedProvider()
      .when(() => true, { text: '{"answer":"no"}' }, 1)
      .when(() => true, { text: 'Sure: ```json\n{"answer":"fixed","score":1}\n```' }, 1);
    const { call, ledger } = setup(p);
    await expect(call()).resolves.toMatchObject({ output: { answer: 'fixed', score: 1 } });
    expect(ledger.map((e) => e.attempt)).toEqual([1, 2]);
    const repair = p.requests[1]!.messages;
    expect(repair).toHaveLength(3);
    expect(repair[2]!.content).toMatch(/score/);
  });

  it('fails clearly when the repair is invalid too', async () => {
    const p = new ScriptedProvider().when(() => true, { text: 'not json at all' });
    const { call, ledger } = setup(p);
    const err = await call().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).kind).toBe('invalid_output');
    expect(ledger).toHaveLength(2);
  });

  it('retries a truncated answer once with more room, and never returns it as finished', async () => {
    const p = new ScriptedProvider()
      .when(() => true, { text: '{"answer":"cut', stopReason: 'max_tokens' }, 1)
      .when(() => true, { text: '{"answer":"whole","score":0.2}' }, 1);
    const { call, ledger } = setup(p);
    await expect(call()).resolves.toMatchObject({ output: { answer: 'whole' } });
    expect(p.requests.map((r) => r.maxTokens)).toEqual([300, 600]);
    expect(ledger.map((e) => e.outcome)).toEqual(['truncated', 'ok']);

    const always = new ScriptedProvider().when(() => true, { text: '{"a', stopReason: 'max_tokens' });
    const err = await setup(always).call().catch((e: unknown) => e);
    expect((err as LlmError).kind).toBe('truncated');
  });

  it('ledgers a failed call and rethrows the provider error', async () => {
    const p = new ScriptedProvider().when(() => true, new LlmError('bad_request', 'nope', false, 400));
    const { call, ledger } = setup(p);
    await expect(call()).rejects.toMatchObject({ kind: 'bad_request' });
    expect(ledger).toMatchObject([{ outcome: 'error:bad_request', costUsd: 0 }]);
  });

  it('treats a refusal as a clear error, not as output', async () => {
    const p = new ScriptedProvider().when(() => true, { text: 'I cannot help', stopReason: 'refusal' });
    await expect(setup(p).call()).rejects.toMatchObject({ kind: 'refused' });
  });
});

describe('pricing and parsing', () => {
  it('costs zero for a model without a price and sums all four token kinds', () => {
    const u = { inputTokens: 1e6, outputTokens: 1e6, cacheReadTokens: 1e6, cacheWriteTokens: 1e6 };
    expect(costOf(undefined, u)).toBe(0);
    expect(costOf(prices.m, u)).toBeCloseTo(3 + 15 + 0.3 + 3.75);
  });
  it('extracts JSON from fenced or chatty replies', () => {
    expect(extractJson('```json\n{"a":1}\n```')).toEqual({ a: 1 });
    expect(extractJson('Here you go: {"a":{"b":2}} thanks')).toEqual({ a: { b: 2 } });
    expect(() => extractJson('nothing')).toThrow(/no JSON/);
  });
});
