import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/redact';
import { StreamTokens, type GrantStore } from '../../src/http/stream-tokens';

/** A grant store that expires entries on the test's clock. */
function memoryStore(now: () => number): GrantStore & { keys(): string[] } {
  const entries = new Map<string, { value: string; until: number }>();
  return {
    put: async (key, value, ttlMs) => void entries.set(key, { value, until: now() + ttlMs }),
    get: async (key) => {
      const e = entries.get(key);
      return e && e.until > now() ? e.value : null;
    },
    keys: () => [...entries.keys()],
  };
}

describe('StreamTokens', () => {
  const session = '3b17f0a2-5c1e-4f4e-9a51-2f0c8f1d9e10';
  const setup = () => {
    let t = 1_000_000;
    const clock = { now: () => t, advance: (ms: number) => (t += ms) };
    const store = memoryStore(clock.now);
    return { clock, store, tokens: new StreamTokens(store, 60, 'ns', clock.now) };
  };

  it("proves the minting caller for its session until it expires; never another session's", async () => {
    const { clock, tokens } = setup();
    const { token, expiresAt } = await tokens.mint({ sessionId: session, tenantId: 't1', keyId: 'k1' });
    expect(expiresAt.getTime()).toBe(clock.now() + 60_000);
    expect(await tokens.verify(token, session)).toEqual({ tenantId: 't1', keyId: 'k1' });
    expect(await tokens.verify(token, '00000000-0000-4000-8000-000000000000')).toBeNull();
    clock.advance(59_999);
    expect(await tokens.verify(token, session)).not.toBeNull();
    clock.advance(1);
    expect(await tokens.verify(token, session)).toBeNull();
  });

  it('stores only a hash of the token, under the namespace; two mints are two tokens', async () => {
    const { store, tokens } = setup();
    const a = await tokens.mint({ sessionId: session, tenantId: 'default', keyId: null });
    const b = await tokens.mint({ sessionId: session, tenantId: 'default', keyId: null });
    expect(a.token).not.toBe(b.token);
    for (const key of store.keys()) {
      expect(key).toMatch(/^bo1:st:ns:[0-9a-f]{64}$/);
      expect(key).not.toContain(a.token.slice(6));
    }
    expect(await tokens.verify(a.token, session)).toEqual({ tenantId: 'default', keyId: null });
  });

  it('refuses malformed tokens without asking the store', async () => {
    const tokens = new StreamTokens({ put: async () => {}, get: async () => { throw new Error('asked'); } }, 60, 'ns');
    for (const bad of ['', 'bo1st_', 'bo1_abc', `bo1st_${'a'.repeat(42)}`, `bo1st_${'a'.repeat(43)}!`]) expect(await tokens.verify(bad, session)).toBeNull();
  });

  it('answers 503 (retry), not 401 or 500, when the store cannot be reached', async () => {
    const tokens = new StreamTokens({ put: async () => { throw new Error('down'); }, get: async () => { throw new Error('down'); } }, 60, 'ns');
    await expect(tokens.mint({ sessionId: session, tenantId: 't', keyId: null })).rejects.toMatchObject({ status: 503, slug: 'stream-tokens-unavailable' });
    await expect(tokens.verify(`bo1st_${'a'.repeat(43)}`, session)).rejects.toMatchObject({ status: 503 });
  });
});

describe('redactUrl', () => {
  it('replaces every stream token value in a URL, and only that', () => {
    expect(redactUrl('/v1/sessions/x/stream?stream_token=bo1st_abc')).toBe('/v1/sessions/x/stream?stream_token=[redacted]');
    expect(redactUrl('/v1/sessions/x/stream?after=3&stream_token=abc&x=1')).toBe('/v1/sessions/x/stream?after=3&stream_token=[redacted]&x=1');
    expect(redactUrl('/x?stream_token=a&stream_token=b')).toBe('/x?stream_token=[redacted]&stream_token=[redacted]');
    expect(redactUrl('/v1/sessions?limit=5')).toBe('/v1/sessions?limit=5');
    expect(redactUrl('/v1/sessions?my_stream_token=a')).toBe('/v1/sessions?my_stream_token=a');
  });
});
