import { describe, expect, it } from 'vitest';
import { loadConfig, routingProblems, tierPrices } from '../../src/config/config';
import { chainFor, modelPlan, modelsSchema, parseModelRef } from '../../src/domain/models';

describe('model references', () => {
  it('reads a provider prefix only when it names a provider, so ids with colons stay whole', () => {
    expect(parseModelRef('claude-haiku-5-5')).toEqual({ model: 'claude-haiku-5-5' });
    expect(parseModelRef('openai:gpt-4.1-mini')).toEqual({ provider: 'openai', model: 'gpt-4.1-mini' });
    expect(parseModelRef('openai:llama3.1:8b')).toEqual({ provider: 'openai', model: 'llama3.1:8b' });
    expect(parseModelRef('llama3.1:8b')).toEqual({ model: 'llama3.1:8b' });
    expect(parseModelRef('openai:')).toEqual({ model: 'openai:' });
  });
});

describe('models per role and seat', () => {
  const deployment = modelsSchema.parse({
    experts: ['claude-haiku-5-5', 'openai:gpt-4.1-mini'],
    synthesis: { smart: 'claude-opus-5-5' },
    personas: { financial_analyst: 'openai:gpt-4.1' },
  });

  it('normalises every value to a chain per tier', () => {
    expect(deployment.experts).toEqual({ fast: ['claude-haiku-5-5', 'openai:gpt-4.1-mini'], smart: ['claude-haiku-5-5', 'openai:gpt-4.1-mini'] });
    expect(deployment.synthesis).toEqual({ smart: ['claude-opus-5-5'] });
  });

  it('rejects unknown roles and personas', () => {
    expect(modelsSchema.safeParse({ judges: 'x' }).success).toBe(false);
    expect(modelsSchema.safeParse({ personas: { nobody: 'x' } }).success).toBe(false);
  });

  it('picks a seat over its role, a role over default, the session over the deployment; null leaves the tier model', () => {
    const session = modelsSchema.parse({ experts: 'anthropic:claude-sonnet-5-5' });
    expect(chainFor([undefined, deployment], { role: 'experts', tier: 'fast', seat: 'financial_analyst' })).toEqual(['openai:gpt-4.1']);
    expect(chainFor([undefined, deployment], { role: 'experts', tier: 'fast', seat: 'risk_manager' })).toEqual(['claude-haiku-5-5', 'openai:gpt-4.1-mini']);
    expect(chainFor([session, deployment], { role: 'experts', tier: 'fast', seat: 'financial_analyst' })).toEqual(['anthropic:claude-sonnet-5-5']);
    expect(chainFor([undefined, deployment], { role: 'synthesis', tier: 'fast' })).toBeNull();
    expect(chainFor([undefined, modelsSchema.parse({ default: 'm' })], { role: 'intake', tier: 'smart' })).toEqual(['m']);
  });

  it('plans every role and the seated experts, falling back to the tier models', () => {
    const plan = modelPlan([undefined, deployment], { fast: 'f', smart: 's' }, ['financial_analyst', 'risk_manager']);
    expect(plan.roles.intake).toEqual({ fast: ['f'], smart: ['s'] });
    expect(plan.roles.synthesis).toEqual({ fast: ['f'], smart: ['claude-opus-5-5'] });
    expect(plan.seats.financial_analyst!.fast).toEqual(['openai:gpt-4.1']);
    expect(plan.seats.risk_manager!.fast).toEqual(['claude-haiku-5-5', 'openai:gpt-4.1-mini']);
  });
});

describe('model configuration', () => {
  const price = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 };

  it('keeps the defaults when nothing is configured', () => {
    const c = loadConfig({});
    expect(c.MODELS).toBeUndefined();
    expect([c.MODEL_FAST, c.MODEL_SMART]).toEqual(['claude-haiku-5-5', 'claude-sonnet-5-5']);
  });

  it('accepts MODELS naming configured, priced models', () => {
    const c = loadConfig({
      ANTHROPIC_API_KEY: 'k',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      PRICE_TABLE: JSON.stringify({ 'openai:llama3.1:8b': { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }),
      MODELS: JSON.stringify({ experts: ['openai:llama3.1:8b', 'claude-haiku-5-5'], personas: { risk_manager: 'simulated:any' } }),
    });
    expect(c.MODELS!.experts!.fast).toEqual(['openai:llama3.1:8b', 'claude-haiku-5-5']);
  });

  it('refuses models of unconfigured providers, unpriced models, and MODELS that is not JSON', () => {
    expect(() => loadConfig({ ANTHROPIC_API_KEY: 'k', MODELS: '{"experts":"openai:gpt-4.1"}' })).toThrow(/the openai provider is not configured/);
    expect(() => loadConfig({ OPENAI_API_KEY: 'k', MODELS: '{"experts":"openai:gpt-x"}' })).toThrow(/has no price for openai:gpt-x/);
    expect(() => loadConfig({ MODELS: 'experts=gpt' })).toThrow(/MODELS: must be a JSON object/);
    expect(() => loadConfig({ LLM_PROVIDER: 'openai' })).toThrow(/OPENAI_API_KEY: is required/);
  });

  it('prices a tier model named with its provider', () => {
    const c = loadConfig({ OPENAI_API_KEY: 'k', LLM_PROVIDER: 'openai', MODEL_FAST: 'openai:gpt-a', MODEL_SMART: 'gpt-b', PRICE_TABLE: JSON.stringify({ 'gpt-a': price, 'openai:gpt-b': { ...price, input: 3 } }) });
    expect(tierPrices(c)).toEqual({ fast: { input: 1, output: 2 }, smart: { input: 3, output: 2 } });
    expect(routingProblems(c, modelsSchema.parse({ facilitator: 'gpt-a' }))).toEqual([]);
  });
});
