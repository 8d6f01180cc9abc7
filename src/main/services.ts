import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { CheckpointDeps } from '../app/checkpoints';
import { workerSweep } from '../app/sweep';
import type { RunnerDeps } from '../app/run-session';
import type { Config } from '../config/config';
import { openDatabase, runMigrations, type Database } from '../db/client';
import { SessionStore } from '../db/session-store';
import { ApiKeyStore } from '../auth/api-keys';
import { servesWithoutKey } from '../http/auth';
import { buildApp } from '../http/app';
import { EventHub } from '../http/event-hub';
import { CLOSING_EVENT } from '../http/routes/stream';
import type { LlmProvider } from '../ports/llm';
import { contributeMemories, extractLessons, type MemoryJobDeps } from '../app/memory-jobs';
import { createEmbedder } from '../embeddings/embedder';
import { caseMemoryPolicy } from '../memory/case-memory-policy';
import { MemoryStore } from '../memory/memory-store';
import { enableVectorIndex } from '../memory/pgvector';
import { MemoryQueue, startMemoryWorker } from '../queue/memory-queue';
import { createGateway } from '../llm/provider';
import { loadPrompts } from '../llm/prompts';
import { boundedRedisCall, CANCEL_CHANNEL, openRedis, REDIS_COMMAND_TIMEOUT_MS, RedisNotifier, sessionChannel } from '../queue/redis';
import { startSessionWorker } from '../queue/session-worker';
import { SessionsQueue } from '../queue/sessions-queue';

export function createLogger(config: Config, name: string): Logger {
  return pino({ name, level: config.LOG_LEVEL });
}

export interface Running {
  stop(): Promise<void>;
}

export interface RunningApi extends Running {
  app: FastifyInstance;
  url: string;
}

async function openDb(config: Config): Promise<Database> {
  const database = openDatabase(config.DATABASE_URL);
  if (config.MIGRATE_ON_START) await runMigrations(database);
  return database;
}

/** The API process: HTTP, SSE fan-out, enqueueing. Listens on HOST:PORT (PORT 0 picks a free one). */
export async function startApi(config: Config, log: Logger = createLogger(config, 'api')): Promise<RunningApi> {
  const database = await openDb(config);
  const redis = openRedis(config.REDIS_URL, 'bo1-api');
  const subscriber = openRedis(config.REDIS_URL, 'bo1-api-sub');
  const store = new SessionStore(database);
  const queue = new SessionsQueue(redis, { name: config.QUEUE_NAME, attempts: config.JOB_ATTEMPTS });
  const hub = new EventHub((id, after, limit) => store.events(id, after, limit), subscriber, config.SSE_POLL_MS, (err) =>
    log.warn({ err }, 'event hub read failed; will retry on the next wake-up'),
  );
  const streams = new Set<(reason: string) => void>();
  const keys = new ApiKeyStore(database.db, config.AUTH_CACHE_MS);
  const app = await buildApp({
    // Bounded: the record is already cancelled; a broadcast that misses the worker only lets the run stop at its next commit.
    cancel: async (sessionId: string) => {
      await Promise.all([
        boundedRedisCall(redis, () => redis.publish(CANCEL_CHANNEL, sessionId), REDIS_COMMAND_TIMEOUT_MS),
        boundedRedisCall(redis, () => redis.publish(sessionChannel(sessionId), 'cancelled'), REDIS_COMMAND_TIMEOUT_MS),
      ]);
    },
    config,
    store,
    db: database.db,
    keys,
    redis,
    memory: new MemoryStore(database.db),
    queue,
    hub,
    streams,
    providerName: config.LLM_PROVIDER,
    log,
    checks: {
      postgres: async () => void (await database.pool.query('select 1')),
      redis: async () => void (await redis.ping()),
      worker: async () => {
        if ((await queue.workersCount()) < 1) throw new Error(`no worker is connected to queue ${config.QUEUE_NAME}`);
      },
    },
  });
  const address = await app.listen({ host: config.HOST, port: config.PORT });
  log.info({ provider: config.LLM_PROVIDER, address }, config.LLM_PROVIDER === 'simulated' ? 'bo1 api up — SIMULATED board (no model is called)' : 'bo1 api up');
  if (await servesWithoutKey(config.AUTH_MODE, () => keys.activeCount())) {
    log.warn(
      { authMode: config.AUTH_MODE },
      config.AUTH_MODE === 'open'
        ? 'OPEN MODE (AUTH_MODE=open): every /v1 request without a key is served as tenant "default" without authentication — for development only'
        : 'OPEN MODE: no API keys exist, every /v1 request is served as tenant "default" without authentication — create a key with `npm run keys -- create --tenant <t> --name <n>`',
    );
  }
  return {
    app,
    url: address,
    stop: async () => {
      // Stop accepting first, then end open streams with a closing event so clients reconnect elsewhere.
      const closing = app.close();
      for (const close of [...streams]) close('server_shutdown');
      log.info({ event: CLOSING_EVENT }, 'open streams told to reconnect');
      await closing;
      hub.close();
      await queue.close();
      subscriber.disconnect();
      redis.disconnect();
      await database.close();
    },
  };
}

/** The worker process: runs session jobs, and reconciles sessions whose jobs Redis lost. */
export async function startWorker(
  config: Config,
  log: Logger = createLogger(config, 'worker'),
  provider?: LlmProvider,
): Promise<Running> {
  const database = await openDb(config);
  const redis = openRedis(config.REDIS_URL, 'bo1-worker');
  const store = new SessionStore(database);
  const queue = new SessionsQueue(redis, { name: config.QUEUE_NAME, attempts: config.JOB_ATTEMPTS });
  const embedder = await createEmbedder(config);
  // pgvector's HNSW index where the extension exists; the portable path otherwise.
  const vectorIndex = await enableVectorIndex(database.db, embedder.dimension);
  const memory = new MemoryStore(database.db, { vectorIndex });
  const memoryQueue = new MemoryQueue(redis, config.QUEUE_NAME);
  const notifier = new RedisNotifier(redis);
  const gateway = createGateway(config, provider);
  const prompts = loadPrompts();
  const deps: RunnerDeps = {
    store,
    gateway,
    notifier,
    prompts,
    embedder,
    memory,
    memoryDefaults: { recallLimit: config.MEMORY_RECALL_LIMIT, halfLifeDays: config.MEMORY_RECALL_HALF_LIFE_DAYS, tokenCap: config.MEMORY_TOKEN_CAP },
    caseMemory: caseMemoryPolicy(config.CASE_MEMORY_TOKEN_CAP),
    afterSession: (id, outcome) => memoryQueue.afterSession(id, outcome),
    settings: config.ENGINE_SETTINGS,
  };
  const memoryJobs: MemoryJobDeps = { store, memory, gateway, embedder, prompts, notifier };
  const memoryConnection = openRedis(config.REDIS_URL, 'bo1-worker-memory');
  const memoryWorker = startMemoryWorker(
    memoryConnection,
    config.QUEUE_NAME,
    async (job) => {
      if (job.kind === 'contribute') return contributeMemories(memoryJobs, job.sessionId);
      if (job.kind === 'lessons') return extractLessons(memoryJobs, job.sessionId);
      return memory.purgeUtterances(new Date(Date.now() - config.NOVELTY_RETENTION_DAYS * 24 * 3600_000));
    },
    (msg, extra) => log.warn(extra ?? {}, msg),
  );
  await memoryQueue.scheduleCleanup();
  const jobsConnection = openRedis(config.REDIS_URL, 'bo1-worker-jobs');
  const worker = startSessionWorker(
    deps,
    jobsConnection,
    {
      queueName: config.QUEUE_NAME,
      concurrency: config.WORKER_CONCURRENCY,
      lockDurationMs: config.JOB_LOCK_MS,
      stalledIntervalMs: config.STALLED_INTERVAL_MS,
    },
    (msg, extra) => log.info(extra ?? {}, msg),
  );
  // Cancellation reaches the worker running the session, which aborts its in-flight model call.
  const cancels = openRedis(config.REDIS_URL, 'bo1-worker-cancel');
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
    log,
  });
  const timer = setInterval(sweep, config.RECONCILE_INTERVAL_MS);
  timer.unref();
  void sweep();
  log.info({ provider: gateway.provider.name, queue: config.QUEUE_NAME, embedder: embedder.name, vectorIndex }, 'bo1 worker up');
  return {
    stop: async () => {
      clearInterval(timer);
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
