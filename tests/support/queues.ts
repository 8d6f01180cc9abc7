import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { memoryQueueName } from '../../src/queue/memory-queue';
import { DEFAULT_QUEUE_PREFIX } from '../../src/queue/prefix';
import { connectRedis, type RedisSettings } from '../../src/queue/redis';
import { testRedisUrl } from './env';

// Queue names this test file created and has not cleaned up yet.
const created = new Set<string>();

/** A fresh queue name for one stack, remembered so its Redis keys are removed when the file ends. */
export function testQueueName(): string {
  const name = `test-${randomUUID().slice(0, 8)}`;
  created.add(name);
  return name;
}

/**
 * Removes every key of the sessions queue `base` and its memory queue: each run
 * would otherwise leave a few hundred BullMQ keys behind in the test Redis.
 * `force` also removes active jobs, which a stopped worker may have left.
 * `redis`: a URL, or a stack's settings (a Redis Cluster when they name one).
 */
export async function obliterateQueues(bases: Iterable<string> = created, redis: string | RedisSettings = testRedisUrl(), prefix = DEFAULT_QUEUE_PREFIX): Promise<void> {
  const names = [...bases];
  if (!names.length) return;
  const connection = typeof redis === 'string' ? new Redis(redis, { maxRetriesPerRequest: null }) : connectRedis(redis, 'bo1-test-cleanup');
  try {
    for (const base of names) {
      for (const name of [base, memoryQueueName(base)]) {
        const queue = new Queue(name, { connection, prefix });
        await queue.obliterate({ force: true });
        await queue.close();
      }
      created.delete(base);
    }
  } finally {
    connection.disconnect();
  }
}
