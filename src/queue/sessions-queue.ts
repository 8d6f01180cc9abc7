import { Queue } from 'bullmq';
import { z } from 'zod';
import { DEFAULT_QUEUE_PREFIX } from './prefix';
import { boundedRedisCall, REDIS_COMMAND_TIMEOUT_MS, type RedisClient } from './redis';

export const advanceJobSchema = z.object({ sessionId: z.uuid() });
export type AdvanceJob = z.infer<typeof advanceJobSchema>;
export const ADVANCE_JOB = 'advance';

export interface QueueSettings {
  name: string;
  /** BullMQ's key prefix (QUEUE_PREFIX); see prefix.ts. */
  prefix?: string;
  attempts: number;
  /** Connection errors BullMQ reports; without a listener it prints them raw to stderr. */
  onError?: (err: Error) => void;
  /** How long `enqueue` waits for Redis before giving up (the job is still added if Redis comes back). */
  commandTimeoutMs?: number;
}

/**
 * The queue that advances sessions. A job id is derived from the session and
 * the reason it was enqueued, so enqueueing the same continuation twice is a no-op.
 */
export class SessionsQueue {
  readonly queue: Queue<AdvanceJob>;
  private readonly commandTimeoutMs: number;

  constructor(
    private readonly connection: RedisClient,
    settings: QueueSettings,
  ) {
    this.commandTimeoutMs = settings.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
    this.queue = new Queue<AdvanceJob>(settings.name, {
      connection,
      prefix: settings.prefix ?? DEFAULT_QUEUE_PREFIX,
      defaultJobOptions: {
        attempts: settings.attempts,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: 3600, count: 1000 },
        removeOnFail: { age: 24 * 3600 },
      },
    });
    // Without a listener BullMQ prints every reconnect error of an outage raw to stderr; the log gets them throttled.
    this.queue.on('error', settings.onError ?? (() => {}));
  }

  /** Bounded: a Redis outage must not hold the request that recorded the session (see boundedRedisCall). */
  async enqueue(sessionId: string, reason: string): Promise<void> {
    await boundedRedisCall(this.connection, () => this.queue.add(ADVANCE_JOB, { sessionId }, { jobId: `${sessionId}.${reason}` }), this.commandTimeoutMs);
  }

  /** Sessions with a job waiting, delayed or running. */
  async liveSessionIds(): Promise<Set<string>> {
    const jobs = await this.queue.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);
    return new Set(jobs.flatMap((j) => (j ? [j.data.sessionId] : [])));
  }

  /**
   * Workers of this queue on this Redis database. CLIENT LIST spans every logical database of the server, so a
   * worker of the same queue name on another database index (staging beside production on one Redis) was counted,
   * and an API whose own workers were all down still reported some. A cluster has only database 0.
   */
  async workersCount(): Promise<number> {
    const db = String((this.connection.options as { db?: number }).db ?? 0);
    return (await this.queue.getWorkers()).filter((w) => (w.db ?? '0') === db).length;
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
