import { DelayedError, Worker, type Job } from 'bullmq';
import { ReleasedError } from '../app/session-run';
import { runSession, type RunnerDeps } from '../app/run-session';
import { DEFAULT_QUEUE_PREFIX } from './prefix';
import { advanceJobSchema, type AdvanceJob } from './sessions-queue';
import type { RedisClient } from './redis';

export interface WorkerSettings {
  queueName: string;
  /** BullMQ's key prefix (QUEUE_PREFIX): the queue's, or this worker watches keys nobody writes. */
  prefix?: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Connection errors (a Redis outage reports one per reconnect attempt); the log line per error otherwise. */
  onError?: (err: Error) => void;
}

export interface SessionWorker {
  worker: Worker<AdvanceJob>;
  /** Aborts the run of this session on this worker, if any (the in-flight model call included). */
  cancel(sessionId: string): boolean;
  /** Stops taking jobs, lets in-flight steps commit, hands unfinished sessions back to the queue. */
  close(): Promise<void>;
}

/**
 * The thin processor: validates the job, runs the session, and turns the
 * run's control-flow outcomes into queue semantics (retry, or back to the
 * queue untouched on shutdown).
 */
export function startSessionWorker(deps: RunnerDeps, connection: RedisClient, s: WorkerSettings, log: (msg: string, extra?: object) => void): SessionWorker {
  let stopping = false;
  const running = new Map<string, AbortController>();
  const worker = new Worker<AdvanceJob>(
    s.queueName,
    async (job: Job<AdvanceJob>, token?: string) => {
      const { sessionId } = advanceJobSchema.parse(job.data);
      const attempts = job.opts.attempts ?? 1;
      const abort = new AbortController();
      running.set(sessionId, abort);
      try {
        const outcome = await runSession(deps, sessionId, {
          finalAttempt: job.attemptsMade + 1 >= attempts,
          shouldRelease: () => stopping,
          signal: abort.signal,
        });
        log('session run ended', { sessionId, outcome, attempt: job.attemptsMade + 1 });
        return outcome;
      } catch (err) {
        if (err instanceof ReleasedError) {
          // Back to the queue without spending an attempt; another worker resumes after the last committed step.
          await job.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        }
        throw err;
      } finally {
        if (running.get(sessionId) === abort) running.delete(sessionId);
      }
    },
    {
      connection,
      prefix: s.prefix ?? DEFAULT_QUEUE_PREFIX,
      concurrency: s.concurrency,
      lockDuration: s.lockDurationMs,
      stalledInterval: s.stalledIntervalMs,
      maxStalledCount: 5,
      autorun: true,
    },
  );
  worker.on('error', s.onError ?? ((err) => log('worker error', { err: err.message })));
  return {
    worker,
    cancel: (sessionId) => {
      const abort = running.get(sessionId);
      abort?.abort(new Error('cancelled'));
      return !!abort;
    },
    close: async () => {
      stopping = true;
      await worker.close();
    },
  };
}
