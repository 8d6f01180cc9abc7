import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config';
import { loadPrompts, parseTemplate, render } from '../../src/llm/prompts';

describe('prompt templates', () => {
  it('every template in prompts/ parses and puts stable system sections before the user part', () => {
    const all = loadPrompts();
    for (const name of ['problem_statement', 'decompose', 'expert_turn', 'options', 'vote', 'synthesis', 'final_recommendation']) {
      const t = all.get(name);
      expect(t, name).toBeDefined();
      expect(t!.system.length, name).toBeGreaterThan(0);
      expect(t!.system[0]!.body, name).toMatch(/Board of One/);
    }
  });
  it('interpolates nested values and lists, and refuses a missing value', () => {
    const t = parseTemplate('---\nname: x\nversion: 3\n---\n## system: a\nHi {{p.name}}\n## user\n{{items}}');
    expect(render(t, { p: { name: 'Ann' }, items: ['one', 'two'] })).toEqual({ version: 'x@3', system: ['Hi Ann'], cacheAfter: [0], user: '- one\n- two' });
    expect(() => render(t, { items: [] })).toThrow(/no value for \{\{p.name\}\}/);
  });
  it('rejects a template without front matter or user section', () => {
    expect(() => parseTemplate('## user\nhi')).toThrow(/front matter/);
    expect(() => parseTemplate('---\nname: x\nversion: 1\n---\n## system: a\nhi')).toThrow(/no "## user"/);
  });
});

describe('config', () => {
  it('defaults to the simulated provider without a key and to anthropic with one', () => {
    expect(loadConfig({}).LLM_PROVIDER).toBe('simulated');
    expect(loadConfig({ ANTHROPIC_API_KEY: 'sk-test' }).LLM_PROVIDER).toBe('anthropic');
  });
  it('names the bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ LLM_PROVIDER: 'anthropic' })).toThrow(/ANTHROPIC_API_KEY: is required/);
    expect(() => loadConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ MODEL_SMART: 'unpriced-model' })).toThrow(/PRICE_TABLE: has no price for MODEL_SMART/);
    expect(() => loadConfig({ PRICE_TABLE: '{oops' })).toThrow(/PRICE_TABLE/);
  });
  it('merges a price table override with the defaults', () => {
    const c = loadConfig({ MODEL_SMART: 'my-model', PRICE_TABLE: '{"my-model":{"input":1,"output":2,"cacheRead":0.1,"cacheWrite":1.25}}' });
    expect(c.PRICE_TABLE['my-model']!.output).toBe(2);
    expect(c.PRICE_TABLE['claude-haiku-5-5']).toBeDefined();
  });
});
