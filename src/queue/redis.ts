import { Redis } from 'ioredis';
import { withTimeout } from '../http/timeout';
import type { Notifier } from '../ports/notifier';

export type ErrorSink = (err: Error, source: string) => void;

/**
 * BullMQ needs `maxRetriesPerRequest: null` on blocking connections; a lost
 * Redis must not crash the process, so errors go to `onError` (the log)
 * while ioredis reconnects.
 */
export function openRedis(url: string, name: string, onError: ErrorSink = () => {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
  redis.on('error', (err: Error) => onError(err, name));
  return redis;
}

/**
 * While Redis is down every connection reports every reconnect attempt: the
 * log gets the first error with a given message, then at most one line per
 * `intervalMs` saying how many more there were.
 */
export function throttledErrors(log: (extra: object, msg: string) => void, intervalMs = 30_000, now = Date.now): ErrorSink {
  const seen = new Map<string, { at: number; suppressed: number }>();
  return (err, source) => {
    const key = err.message;
    const last = seen.get(key);
    const t = now();
    if (last && t - last.at < intervalMs) {
      last.suppressed++;
      return;
    }
    seen.set(key, { at: t, suppressed: 0 });
    log({ err: { message: err.message, code: (err as NodeJS.ErrnoException).code }, source, ...(last && { suppressed: last.suppressed }) }, 'redis error');
  };
}

/** Connection states in which a command waits in ioredis's offline queue until Redis is back. */
const DOWN = new Set(['close', 'reconnecting', 'end']);

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** Fails at once when the connection is down; the rate limiter uses it so that it never holds a request. */
export function assertRedisUp(redis: Redis): void {
  if (DOWN.has(redis.status)) throw new RedisUnavailableError(`redis is ${redis.status}`);
}

/**
 * Waits at most `timeoutMs` for a command that need not finish before a
 * request is answered (enqueue a job whose session Postgres already holds, a
 * wake-up, a cancel broadcast). With `maxRetriesPerRequest: null` a command
 * waits out a whole outage; issued anyway, it still runs once Redis is back,
 * and the caller moves on: Postgres is the record and the reconciler catches
 * what never runs.
 */
export async function boundedRedisCall<T>(redis: Redis, command: () => Promise<T>, timeoutMs: number): Promise<T> {
  const pending = command();
  if (DOWN.has(redis.status)) {
    pending.catch(() => {});
    throw new RedisUnavailableError(`redis is ${redis.status}`);
  }
  return withTimeout(pending, timeoutMs);
}

export const sessionChannel = (sessionId: string) => `bo1:session:${sessionId}`;

/**
 * How long a request path waits for a Redis command it can do without (see
 * boundedRedisCall). A healthy local Redis answers in a few ms; a create pays
 * this twice in an outage (rate limiter, enqueue), well inside its 1 s goal
 * even on a loaded machine (250 ms each missed it once under the full suite).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 150;

/** Publishes wake-ups on a per-session channel; the payload is only a hint (the last seq), and a lost one only delays a stream. */
export class RedisNotifier implements Notifier {
  constructor(
    private readonly redis: Redis,
    private readonly timeoutMs = REDIS_COMMAND_TIMEOUT_MS,
  ) {}

  async publish(sessionId: string, lastSeq: number): Promise<void> {
    await boundedRedisCall(this.redis, () => this.redis.publish(sessionChannel(sessionId), String(lastSeq)), this.timeoutMs);
  }
}

/** Cancellations are broadcast: whichever worker runs the session aborts it. */
export const CANCEL_CHANNEL = 'bo1:cancel';
