import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, KEY_PATTERN } from '../../src/auth/api-keys';
import { loadConfig } from '../../src/config/config';
import { isApiUrl, servesWithoutKey } from '../../src/http/auth';
import { canonicalJson } from '../../src/app/idempotent';

describe('open mode decision', () => {
  it('auto serves requests without a key only while no active key exists', async () => {
    expect(await servesWithoutKey('auto', async () => 0)).toBe(true);
    expect(await servesWithoutKey('auto', async () => 1)).toBe(false);
  });

  it('required never and open always serve them, without counting keys', async () => {
    const uncounted = async (): Promise<number> => {
      throw new Error('keys counted');
    };
    expect(await servesWithoutKey('required', uncounted)).toBe(false);
    expect(await servesWithoutKey('open', uncounted)).toBe(true);
  });

  it('guards /v1 only', () => {
    for (const url of ['/v1', '/v1/sessions', '/v1?x=1', '/v1/sessions/abc/stream']) expect(isApiUrl(url), url).toBe(true);
    for (const url of ['/healthz', '/readyz', '/docs', '/docs/static/index.html', '/openapi.json', '/v10/x', '/v1x']) expect(isApiUrl(url), url).toBe(false);
  });
});

describe('API key format', () => {
  it('is bo1_ and 40 base62 characters, different every time, hashed as SHA-256 hex', () => {
    const a = generateKey();
    const b = generateKey();
    expect(a).toMatch(/^bo1_[0-9A-Za-z]{40}$/);
    expect(a).toMatch(KEY_PATTERN);
    expect(a).not.toBe(b);
    expect(hashKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(a)).toBe(hashKey(a));
  });
});

describe('access control config', () => {
  it('defaults: auto auth, 5 s key cache, 300 requests a minute, 10 active sessions per tenant', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ AUTH_MODE: 'auto', AUTH_CACHE_MS: 5000, RATE_LIMIT_PER_MINUTE: 300, RATE_LIMIT_WINDOW_MS: 60_000, MAX_ACTIVE_SESSIONS_PER_TENANT: 10 });
  });

  it('rejects bad values, naming them', () => {
    expect(() => loadConfig({ AUTH_MODE: 'none' })).toThrow(/AUTH_MODE/);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ RATE_LIMIT_WINDOW_MS: '10' })).toThrow(/RATE_LIMIT_WINDOW_MS/);
    expect(() => loadConfig({ MAX_ACTIVE_SESSIONS_PER_TENANT: 'many' })).toThrow(/MAX_ACTIVE_SESSIONS_PER_TENANT/);
  });
});

describe('canonical JSON', () => {
  it('ignores key order at every depth and undefined fields, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});
