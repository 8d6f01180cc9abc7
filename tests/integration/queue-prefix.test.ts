import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config';
import { memoryQueueName } from '../../src/queue/memory-queue';
import { testRedisUrl } from '../support/env';
import { createSession, startStack, waitForStatus } from '../support/stack';

async function keysOf(redis: Redis, queue: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `*${queue}*`, count: 1000 })) keys.push(...(batch as string[]));
  return keys;
}

describe('QUEUE_PREFIX', () => {
  it('defaults to a hash tag, and refuses what is not a prefix', () => {
    expect(loadConfig({}, {}).QUEUE_PREFIX).toBe('{bo1}');
    expect(loadConfig({}, { QUEUE_PREFIX: 'bull' }).QUEUE_PREFIX).toBe('bull');
    for (const bad of ['{}', '{a}{b}', 'a:b', 'a b', 'x*']) expect(() => loadConfig({}, { QUEUE_PREFIX: bad }), bad).toThrow(/QUEUE_PREFIX/);
  });

  it('starts every key of the sessions and memory queues, so all of them hash to one Redis Cluster slot', async () => {
    const tag = `{t-${randomUUID().slice(0, 8)}}`;
    const stack = await startStack({ QUEUE_PREFIX: tag });
    const redis = new Redis(testRedisUrl());
    try {
      const id = await createSession(stack.url, { problem: 'Should we move our support desk to a four-day week?', seed: 'prefix-1' });
      expect((await waitForStatus(stack.url, id, ['completed', 'failed'], 120_000)).status).toBe('completed');
      const sessions = await keysOf(redis, stack.config.QUEUE_NAME);
      const memory = sessions.filter((k) => k.includes(memoryQueueName(stack.config.QUEUE_NAME)));
      // The job's own hash, the worker's bookkeeping and the memory queue's scheduler are all there, all tagged.
      expect(sessions).toContain(`${tag}:${stack.config.QUEUE_NAME}:${id}.start`);
      expect(memory.length).toBeGreaterThan(0);
      for (const key of sessions) expect(key.startsWith(`${tag}:`), key).toBe(true);
    } finally {
      await stack.stop();
      // Stopping removes them with the same prefix: nothing is left behind under it or under BullMQ's default.
      expect(await keysOf(redis, stack.config.QUEUE_NAME)).toEqual([]);
      redis.disconnect();
    }
  }, 180_000);
});
