import { Queue, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import { DEFAULT_QUEUE_PREFIX } from './prefix';
import type { RedisClient } from './redis';

/** Memory work that must stay off the request path and out of the session's run: its own queue. */
export const memoryJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('contribute'), sessionId: z.uuid() }),
  z.object({ kind: z.literal('lessons'), sessionId: z.uuid() }),
  z.object({ kind: z.literal('cleanup') }),
]);
export type MemoryJob = z.infer<typeof memoryJobSchema>;

export const memoryQueueName = (base: string) => `${base}-memory`;

export class MemoryQueue {
  readonly queue: Queue<MemoryJob>;

  /** `onError`: connection errors BullMQ reports; without a listener it prints them raw to stderr. `prefix`: QUEUE_PREFIX. */
  constructor(connection: RedisClient, base: string, onError: (err: Error) => void = () => {}, prefix = DEFAULT_QUEUE_PREFIX) {
    this.queue = new Queue<MemoryJob>(memoryQueueName(base), {
      connection,
      prefix,
      defaultJobOptions: {
        attempts: 3,
        backoff: { type: 'exponential', delay: 2000 },
        removeOnComplete: { age: 3600, count: 1000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    });
    this.queue.on('error', onError);
  }

  /** After a session ends: contribute its memories (completed only) and extract lessons (completed or failed). */
  async afterSession(sessionId: string, outcome: 'completed' | 'failed'): Promise<void> {
    await this.enqueue(sessionId, { contribute: outcome === 'completed', lessons: true });
  }

  /**
   * Job ids are per session and kind, so enqueueing again while a job is
   * waiting, running, or kept after failing is a no-op: the reconciler may
   * call this as often as it likes.
   */
  async enqueue(sessionId: string, kinds: { contribute: boolean; lessons: boolean }): Promise<void> {
    if (kinds.contribute) await this.queue.add('contribute', { kind: 'contribute', sessionId }, { jobId: `${sessionId}.contribute` });
    if (kinds.lessons) await this.queue.add('lessons', { kind: 'lessons', sessionId }, { jobId: `${sessionId}.lessons` });
  }

  /** The retention sweep of novelty history, daily. */
  async scheduleCleanup(everyMs = 24 * 3600_000): Promise<void> {
    await this.queue.upsertJobScheduler('novelty-retention', { every: everyMs }, { name: 'cleanup', data: { kind: 'cleanup' } });
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

export function startMemoryWorker(
  connection: RedisClient,
  base: string,
  handle: (job: MemoryJob) => Promise<unknown>,
  log: (msg: string, extra?: object) => void,
  onError: (err: Error) => void = (err) => log('memory worker error', { err: err.message }),
  prefix = DEFAULT_QUEUE_PREFIX,
): Worker<MemoryJob> {
  const worker = new Worker<MemoryJob>(memoryQueueName(base), async (job: Job<MemoryJob>) => handle(memoryJobSchema.parse(job.data)), {
    connection,
    prefix,
    concurrency: 2,
  });
  worker.on('failed', (job, err) => log('memory job failed', { job: job?.id, err: err.message }));
  worker.on('error', onError);
  return worker;
}
