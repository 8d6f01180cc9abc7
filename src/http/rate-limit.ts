import type { FastifyInstance } from 'fastify';
import { isApiUrl } from './auth';
import { HttpProblem, sendProblem } from './problem';
import { withTimeout } from './timeout';
import { assertRedisUp, REDIS_COMMAND_TIMEOUT_MS, type RedisClient } from '../queue/redis';

export interface RateLimitOptions {
  /** Requests per window; 0 disables the limiter. */
  limit: number;
  windowMs: number;
  /** Separates deployments (and test stacks) sharing one Redis: the queue name. */
  namespace: string;
}

/** Counts one hit in a window's counter and returns the new count. */
export type WindowCounter = (key: string, ttlMs: number) => Promise<number>;

/** INCR and PEXPIRE in one MULTI. Fails fast when Redis is down: the limiter must never hold a request. */
export const redisCounter =
  (redis: RedisClient, timeoutMs = REDIS_COMMAND_TIMEOUT_MS): WindowCounter =>
  async (key, ttlMs) => {
    assertRedisUp(redis);
    const results = await withTimeout(redis.multi().incr(key).pexpire(key, ttlMs).exec(), timeoutMs);
    const [err, count] = results?.[0] ?? [new Error('rate limit transaction aborted'), null];
    if (err) throw err;
    return Number(count);
  };

/**
 * Fixed-window limit per API key (per client IP in open mode, and for a
 * request whose key was refused) on /v1, after auth. Every limited response
 * carries the IETF draft RateLimit-* headers; a counter outage lets requests
 * through rather than taking the API down.
 */
export function registerRateLimit(app: FastifyInstance, count: WindowCounter, opts: RateLimitOptions): void {
  if (opts.limit === 0) return;
  let warnedAt = -Infinity;
  app.addHook('onRequest', async (req, reply) => {
    if (!isApiUrl(req.url)) return;
    const now = Date.now();
    const window = Math.floor(now / opts.windowMs);
    // A refused request (no caller) counts against its IP, as in open mode: bad keys cannot be guessed without limit.
    const who = req.caller?.keyId ? `key:${req.caller.keyId}` : `ip:${req.ip}`;
    let used: number;
    try {
      used = await count(`bo1:rl:${opts.namespace}:${who}:${window}`, opts.windowMs);
    } catch (err) {
      // One warning per window is enough to notice an outage without flooding the log.
      if (now - warnedAt >= opts.windowMs) {
        warnedAt = now;
        req.log.warn({ err }, 'rate limiter unavailable: letting requests through');
      }
      return;
    }
    const reset = String(Math.ceil(((window + 1) * opts.windowMs - now) / 1000));
    reply.headers({
      'RateLimit-Limit': String(opts.limit),
      'RateLimit-Remaining': String(Math.max(0, opts.limit - used)),
      'RateLimit-Reset': reset,
    });
    if (used > opts.limit) {
      return sendProblem(
        reply,
        req,
        new HttpProblem('rate-limited', `at most ${opts.limit} requests per ${opts.windowMs / 1000} s; retry in ${reset} s`, { headers: { 'Retry-After': reset } }),
      );
    }
  });
}
