import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { memoryQueueName } from '../../src/queue/memory-queue';
import { DEFAULT_QUEUE_PREFIX } from '../../src/queue/prefix';
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
 */
export async function obliterateQueues(bases: Iterable<string> = created, redisUrl = testRedisUrl(), prefix = DEFAULT_QUEUE_PREFIX): Promise<void> {
  const names = [...bases];
  if (!names.length) return;
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
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
