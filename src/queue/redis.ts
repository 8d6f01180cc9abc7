import { Redis } from 'ioredis';
import type { Notifier } from '../ports/notifier';

/** BullMQ needs `maxRetriesPerRequest: null` on blocking connections; a lost Redis must not crash the process. */
export function openRedis(url: string, name: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
  redis.on('error', () => {});
  return redis;
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
