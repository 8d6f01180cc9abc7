import type { Logger } from 'pino';
import type { CheckpointDeps } from '../app/checkpoints';
import { workerSweep } from '../app/sweep';
import type { RunnerDeps } from '../app/run-session';
import { contributeMemories, extractLessons, type MemoryJobDeps } from '../app/memory-jobs';
import type { Config } from '../config/config';
import { SessionStore } from '../db/session-store';
import { createEmbedder } from '../embeddings/embedder';
import { sentenceEncoder } from '../embeddings/sentence-encoder';
import { rulesOnlyScreen, semanticRequestScreen, withFlag } from '../app/request-screen';
import { createMetrics } from '../http/metrics';
import { createGateway } from '../llm/provider';
import { loadPrompts } from '../llm/prompts';
import { caseMemoryPolicy } from '../memory/case-memory-policy';
import { MemoryStore } from '../memory/memory-store';
import { enableVectorIndex } from '../memory/pgvector';
import type { LlmProvider } from '../ports/llm';
import { MemoryQueue, startMemoryWorker } from '../queue/memory-queue';
import { CANCEL_CHANNEL, connectRedis, describeRedis, RedisNotifier } from '../queue/redis';
import { redisReady } from '../queue/redis-ready';
import { startSessionWorker } from '../queue/session-worker';
import { SessionsQueue } from '../queue/sessions-queue';
import { startHealthServer } from './health-server';
import { createLogger, openDb, preflight, type Running } from './process';

/** The worker process: runs session jobs, and reconciles sessions whose jobs Redis lost. */
export async function startWorker(
  config: Config,
  log: Logger = createLogger(config, 'worker'),
  provider?: LlmProvider,
): Promise<Running> {
  const redisErrors = await preflight(config, log);
  const database = await openDb(config);
  const redis = connectRedis(config, 'bo1-worker', redisErrors);
  const store = new SessionStore(database);
  const queue = new SessionsQueue(redis, { name: config.QUEUE_NAME, prefix: config.QUEUE_PREFIX, attempts: config.JOB_ATTEMPTS, onError: (err) => redisErrors(err, 'sessions-queue') });
  const embedder = await createEmbedder(config);
  // pgvector's HNSW index where the extension exists; the portable path otherwise.
  const vectorIndex = await enableVectorIndex(database.db, embedder.dimension);
  const memory = new MemoryStore(database.db, { vectorIndex });
  const memoryQueue = new MemoryQueue(redis, config.QUEUE_NAME, (err) => redisErrors(err, 'memory-queue'), config.QUEUE_PREFIX);
  const notifier = new RedisNotifier(redis);
  const gateway = createGateway(config, provider);
  const semantic = config.HARM_SCREEN === 'semantic' ? semanticRequestScreen({ encoder: sentenceEncoder, warn: (msg, extra) => log.warn(extra, msg) }) : null;
  // Loads the sentence encoder in the background now, so the first session does not wait for it; a failure is logged and the rules screen alone.
  const harmScreen = semantic ? semantic.ready().then((on) => (on ? 'semantic' : 'rules-only')) : Promise.resolve('rules');
  const prompts = loadPrompts();
  const deps: RunnerDeps = {
    store,
    gateway,
    notifier,
    prompts,
    embedder,
    screen: withFlag(semantic ?? rulesOnlyScreen, config.HARM_SCREEN_FLAG),
    memory,
    memoryDefaults: { recallLimit: config.MEMORY_RECALL_LIMIT, halfLifeDays: config.MEMORY_RECALL_HALF_LIFE_DAYS, tokenCap: config.MEMORY_TOKEN_CAP },
    caseMemory: caseMemoryPolicy(config.CASE_MEMORY_TOKEN_CAP),
    afterSession: (id, outcome) => memoryQueue.afterSession(id, outcome),
    settings: config.ENGINE_SETTINGS,
  };
  const memoryJobs: MemoryJobDeps = { store, memory, gateway, embedder, prompts, notifier };
  const memoryConnection = connectRedis(config, 'bo1-worker-memory', redisErrors);
  const memoryWorker = startMemoryWorker(
    memoryConnection,
    config.QUEUE_NAME,
    async (job) => {
      if (job.kind === 'contribute') return contributeMemories(memoryJobs, job.sessionId);
      if (job.kind === 'lessons') return extractLessons(memoryJobs, job.sessionId);
      return memory.purgeUtterances(new Date(Date.now() - config.NOVELTY_RETENTION_DAYS * 24 * 3600_000));
    },
    (msg, extra) => log.warn(extra ?? {}, msg),
    (err) => redisErrors(err, 'memory-worker'),
    config.QUEUE_PREFIX,
  );
  await memoryQueue.scheduleCleanup();
  const jobsConnection = connectRedis(config, 'bo1-worker-jobs', redisErrors);
  const worker = startSessionWorker(
    deps,
    jobsConnection,
    {
      queueName: config.QUEUE_NAME,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.WORKER_CONCURRENCY,
      lockDurationMs: config.JOB_LOCK_MS,
      stalledIntervalMs: config.STALLED_INTERVAL_MS,
      onError: (err) => redisErrors(err, 'session-worker'),
    },
    (msg, extra) => log.info(extra ?? {}, msg),
  );
  // Cancellation reaches the worker running the session, which aborts its in-flight model call.
  const cancels = connectRedis(config, 'bo1-worker-cancel', redisErrors);
  cancels.on('message', (_channel: string, sessionId: string) => {
    if (worker.cancel(sessionId)) log.info({ sessionId }, 'session cancelled: run aborted');
  });
  await cancels.subscribe(CANCEL_CHANNEL);
  const checkpointOps: CheckpointDeps = {
    store,
    enqueue: (id, reason) => queue.enqueue(id, reason),
    notifier,
    ...(deps.caseMemory && { caseMemory: deps.caseMemory }),
    warn: (msg, extra) => log.warn(extra, msg),
  };
  const sweep = workerSweep({
    database,
    store,
    queue,
    memoryQueue,
    checkpoints: checkpointOps,
    queueName: config.QUEUE_NAME,
    staleMs: config.RECONCILE_STALE_MS,
    memoryJobs: config.RECONCILE_MEMORY_JOBS,
    retentionDays: config.SESSION_RETENTION_DAYS,
    log,
  });
  // 0: this process never sweeps (a deployment with a dedicated sweeper; test files sharing one database, where a sweep
  // would continue another file's expired checkpoint on its own queue and model).
  const timer = config.RECONCILE_INTERVAL_MS > 0 ? setInterval(sweep, config.RECONCILE_INTERVAL_MS) : null;
  timer?.unref();
  if (timer) void sweep();
  const health =
    config.WORKER_HEALTH_PORT === undefined
      ? null
      : await startHealthServer({
          host: config.HOST,
          port: config.WORKER_HEALTH_PORT,
          log,
          checks: {
            postgres: async () => void (await database.pool.query('select 1')),
            redis: () => redisReady(redis),
            jobs: async () => {
              if (!worker.worker.isRunning()) throw new Error('the job loop is not running');
            },
          },
          metrics: createMetrics({
            queues: async () => ({
              [config.QUEUE_NAME]: await queue.queue.getJobCounts(),
              [memoryQueue.queue.name]: await memoryQueue.queue.getJobCounts(),
            }),
          }).render,
        });
  log.info({ provider: gateway.provider.name, queue: config.QUEUE_NAME, redis: describeRedis(config), embedder: embedder.name, vectorIndex }, 'bo1 worker up');
  void harmScreen.then((screen) => log.info({ harmScreen: screen }, 'harm screen ready'));
  return {
    ...(health && { healthUrl: health.url }),
    stop: async () => {
      await health?.close();
      if (timer) clearInterval(timer);
      await worker.close();
      await memoryWorker.close();
      await queue.close();
      await memoryQueue.close();
      jobsConnection.disconnect();
      memoryConnection.disconnect();
      cancels.disconnect();
      redis.disconnect();
      await database.close();
    },
  };
}
