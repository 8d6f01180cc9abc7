import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LedgerEntry } from '../../src/db/session-store';
import { modelsSchema } from '../../src/domain/models';
import { ScriptedProvider } from '../../src/llm/fake/scripted-provider';
import { LlmGateway } from '../../src/llm/gateway';
import type { FallbackNotice } from '../../src/llm/router';
import { createSimulatedProvider } from '../../src/llm/simulated/simulated-provider';
import { LlmError, type LlmErrorKind } from '../../src/ports/llm';

const schema = z.object({ answer: z.string() });
const prompt = { version: 't@1', system: ['stable'], user: 'q' };
const price = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 };
const down = (kind: LlmErrorKind) => new LlmError(kind, `primary ${kind}`, kind !== 'bad_request');

function setup(models: object, breaker = { consecutiveFailures: 2, halfOpenAfterMs: 60_000 }) {
  const primary = new ScriptedProvider();
  const simulated = createSimulatedProvider({ latencyMs: 0, jitter: 0 });
  const gateway = new LlmGateway(primary, { models: { fast: 'tier-model', smart: 'tier-model' }, prices: { primary: price, 'tier-model': price }, providers: { simulated }, routing: modelsSchema.parse(models), breaker });
  const ledger: LedgerEntry[] = [];
  const notices: FallbackNotice[] = [];
  const call = (seat = 'risk_manager') =>
    gateway.call({ tier: 'fast', role: 'experts', seat, phase: 'debate', purpose: 'vote', prompt, maxTokens: 100, schema }, { key: 'k', record: (e) => ledger.push(e), onFallback: (n) => notices.push(n) });
  return { primary, call, ledger, notices };
}

describe('fallback chains', () => {
  it('asks the next model when the first is overloaded, says so, and ledgers both', async () => {
    const { primary, call, ledger, notices } = setup({ experts: ['primary', 'simulated:backup'] });
    primary.when(() => true, down('overloaded'), 1);
    const { output } = await call();
    expect(typeof output.answer).toBe('string');
    expect(notices).toEqual([{ purpose: 'vote', role: 'experts', seat: 'risk_manager', from: 'primary', to: 'simulated:backup', reason: 'overloaded', detail: 'primary overloaded' }]);
    expect(ledger.map((e) => [e.provider, e.model, e.outcome])).toEqual([
      ['fake', 'primary', 'error:overloaded'],
      ['simulated', 'backup', 'ok'],
    ]);
  });

  it('does not fall back on what another model would not fix (a bad request), nor on an abort', async () => {
    for (const kind of ['bad_request', 'aborted', 'spend_limit'] as const) {
      const { primary, call, notices } = setup({ experts: ['primary', 'simulated:backup'] });
      primary.when(() => true, down(kind), 1);
      await expect(call()).rejects.toMatchObject({ kind });
      expect(notices).toEqual([]);
    }
  });

  it('opens the circuit after repeated outages and skips the model without calling it', async () => {
    const { primary, call, notices } = setup({ experts: ['primary', 'simulated:backup'] });
    primary.when(() => true, down('server'));
    await call();
    await call();
    const asked = primary.requests.length;
    await call();
    expect(primary.requests.length).toBe(asked);
    expect(notices.map((n) => n.reason)).toEqual(['server', 'server', 'circuit_open']);
  });

  it('throws the last outage when every model of the chain is down', async () => {
    const { primary, call } = setup({ experts: ['primary', 'primary'] });
    primary.when(() => true, down('network'));
    await expect(call()).rejects.toMatchObject({ kind: 'network', retryable: true });
  });

  it('keeps a lone model bare: no breaker, every call reaches it', async () => {
    const { primary, call, notices } = setup({});
    primary.when(() => true, down('server'));
    for (let i = 0; i < 4; i++) await expect(call()).rejects.toMatchObject({ kind: 'server' });
    expect(primary.requests.map((r) => r.model)).toEqual(['tier-model', 'tier-model', 'tier-model', 'tier-model']);
    expect(notices).toEqual([]);
  });

  it('routes a seat to its own chain', async () => {
    const { primary, call } = setup({ experts: 'primary', personas: { financial_analyst: 'simulated:seat' } });
    primary.when(() => true, { text: '{"answer":"from primary"}' });
    await call('risk_manager');
    await call('financial_analyst');
    expect(primary.requests.map((r) => r.model)).toEqual(['primary']);
  });
});
