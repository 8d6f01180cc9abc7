import { createHash, randomBytes } from 'node:crypto';
import type { Caller } from './caller';
import { assertRedisUp, REDIS_COMMAND_TIMEOUT_MS, type RedisClient } from '../queue/redis';
import { withTimeout } from './timeout';
import { HttpProblem } from './problem';

/**
 * Browser-safe stream auth. An EventSource cannot send `Authorization`, so an
 * authenticated call mints a short-lived token for one session's stream, and
 * the stream route (only it) accepts the token as `?stream_token=`. The token
 * is random; only its SHA-256 is stored (in Redis, shared by every API
 * process, expiring with the token), and it is redacted from every log line
 * and problem body that would show the URL.
 */

export { STREAM_TOKEN_PARAM } from './redact';
const PREFIX = 'bo1st_';
export const STREAM_TOKEN_PATTERN = /^bo1st_[\w-]{43}$/;

export interface StreamGrant extends Caller {
  sessionId: string;
}

/** Where grants live until they expire: Redis in the service, a Map in unit tests. */
export interface GrantStore {
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | null>;
}

/** SET … PX and GET, failing fast when Redis is down: a stream must not hang on its auth. One key per grant, so a Redis Cluster takes it as it is. */
export const redisGrantStore = (redis: RedisClient, timeoutMs = REDIS_COMMAND_TIMEOUT_MS * 4): GrantStore => ({
  put: async (key, value, ttlMs) => {
    assertRedisUp(redis);
    await withTimeout(redis.set(key, value, 'PX', ttlMs), timeoutMs);
  },
  get: async (key) => {
    assertRedisUp(redis);
    return withTimeout(redis.get(key), timeoutMs);
  },
});

export class StreamTokens {
  constructor(
    private readonly store: GrantStore,
    readonly ttlSeconds: number,
    /** Separates deployments sharing one Redis: the queue name, as the rate limiter does. */
    private readonly namespace: string,
    private readonly now: () => number = Date.now,
  ) {}

  async mint(grant: StreamGrant): Promise<{ token: string; expiresAt: Date }> {
    const token = PREFIX + randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.now() + this.ttlSeconds * 1000);
    const value = JSON.stringify({ sessionId: grant.sessionId, tenantId: grant.tenantId, keyId: grant.keyId, exp: expiresAt.getTime() });
    await unavailableOnFailure(this.store.put(this.keyOf(token), value, this.ttlSeconds * 1000));
    return { token, expiresAt };
  }

  /** The caller a token proves for `sessionId`; null when it is malformed, unknown, expired or for another session. */
  async verify(token: string, sessionId: string): Promise<Caller | null> {
    if (!STREAM_TOKEN_PATTERN.test(token)) return null;
    const raw = await unavailableOnFailure(this.store.get(this.keyOf(token)));
    if (!raw) return null;
    const grant = JSON.parse(raw) as StreamGrant & { exp: number };
    // The store expires grants too; the stamp also holds where its clock and ours disagree.
    if (grant.exp <= this.now() || grant.sessionId !== sessionId) return null;
    return { tenantId: grant.tenantId, keyId: grant.keyId };
  }

  private keyOf(token: string): string {
    return `bo1:st:${this.namespace}:${createHash('sha256').update(token).digest('hex')}`;
  }
}

/** A grant store that cannot answer is a 503 the client retries, not a 500 (nor a 401 that would send it for a new token). */
async function unavailableOnFailure<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch {
    throw new HttpProblem('stream-tokens-unavailable', 'stream tokens cannot be checked right now (Redis is unreachable); retry shortly');
  }
}
