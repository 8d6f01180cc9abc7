import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config';

describe('config: embeddings and memory', () => {
  it('defaults to the local embedder and the documented memory settings', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDINGS_MODEL: 'text-embedding-3-small',
      EMBEDDINGS_DIM: 256,
      MEMORY_RECALL_HALF_LIFE_DAYS: 90,
      MEMORY_RECALL_LIMIT: 5,
      MEMORY_TOKEN_CAP: 300,
      CASE_MEMORY_TOKEN_CAP: 3000,
      NOVELTY_RETENTION_DAYS: 30,
    });
    expect(c.EMBEDDINGS_URL).toBeUndefined();
    expect(c.EMBEDDINGS_API_KEY).toBeUndefined();
  });

  it('requires EMBEDDINGS_URL for the http provider, and a valid one', () => {
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'http' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'http' })).toThrow(/EMBEDDINGS_URL: is required when EMBEDDINGS_PROVIDER=http/);
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'http', EMBEDDINGS_URL: 'not a url' })).toThrow(/EMBEDDINGS_URL/);
    const c = loadConfig({ EMBEDDINGS_PROVIDER: 'http', EMBEDDINGS_URL: 'http://127.0.0.1:11434', EMBEDDINGS_MODEL: 'nomic-embed-text', EMBEDDINGS_API_KEY: 'k' });
    expect(c).toMatchObject({ EMBEDDINGS_PROVIDER: 'http', EMBEDDINGS_URL: 'http://127.0.0.1:11434', EMBEDDINGS_MODEL: 'nomic-embed-text', EMBEDDINGS_API_KEY: 'k' });
    // An empty URL counts as unset.
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'http', EMBEDDINGS_URL: '' })).toThrow(/is required/);
  });

  it('rejects a bad provider, dimension or memory setting, naming the variable', () => {
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'openai' })).toThrow(/EMBEDDINGS_PROVIDER/);
    expect(() => loadConfig({ EMBEDDINGS_DIM: '0' })).toThrow(/EMBEDDINGS_DIM/);
    expect(() => loadConfig({ EMBEDDINGS_DIM: '12.5' })).toThrow(/EMBEDDINGS_DIM/);
    expect(() => loadConfig({ MEMORY_RECALL_HALF_LIFE_DAYS: '0' })).toThrow(/MEMORY_RECALL_HALF_LIFE_DAYS/);
    expect(() => loadConfig({ MEMORY_RECALL_LIMIT: '-1' })).toThrow(/MEMORY_RECALL_LIMIT/);
    expect(() => loadConfig({ MEMORY_TOKEN_CAP: 'lots' })).toThrow(/MEMORY_TOKEN_CAP/);
    expect(() => loadConfig({ NOVELTY_RETENTION_DAYS: '0' })).toThrow(/NOVELTY_RETENTION_DAYS/);
  });

  it('coerces numbers from the environment', () => {
    const c = loadConfig({ EMBEDDINGS_DIM: '512', MEMORY_RECALL_HALF_LIFE_DAYS: '7.5', MEMORY_RECALL_LIMIT: '0', CASE_MEMORY_TOKEN_CAP: '800' });
    expect(c).toMatchObject({ EMBEDDINGS_DIM: 512, MEMORY_RECALL_HALF_LIFE_DAYS: 7.5, MEMORY_RECALL_LIMIT: 0, CASE_MEMORY_TOKEN_CAP: 800 });
  });
});
