import { Redis } from 'ioredis';
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

export const sessionChannel = (sessionId: string) => `bo1:session:${sessionId}`;

/** Publishes wake-ups on a per-session channel; the payload is only a hint (the last seq). */
export class RedisNotifier implements Notifier {
  constructor(private readonly redis: Redis) {}

  async publish(sessionId: string, lastSeq: number): Promise<void> {
    await this.redis.publish(sessionChannel(sessionId), String(lastSeq));
  }
}

/** Cancellations are broadcast: whichever worker runs the session aborts it. */
export const CANCEL_CHANNEL = 'bo1:cancel';
