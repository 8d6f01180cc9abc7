import type { Logger } from 'pino';
import type { Config } from '../config/config';
import { SessionStore } from '../db/session-store';
import { IdempotencyStore } from '../db/idempotency-store';
import { ApiKeyStore } from '../auth/api-keys';
import { ledgerTotals, sessionsByStatus } from '../db/metrics-store';
import { servesWithoutKey } from '../http/auth';
import { buildApp } from '../http/app';
import { createMetrics } from '../http/metrics';
import { EventHub } from '../http/event-hub';
import { CLOSING_EVENT } from '../http/routes/stream';
import { MemoryStore } from '../memory/memory-store';
import { boundedRedisCall, CANCEL_CHANNEL, connectRedis, describeRedis, REDIS_COMMAND_TIMEOUT_MS, sessionChannel } from '../queue/redis';
import { redisReady } from '../queue/redis-ready';
import { SessionsQueue } from '../queue/sessions-queue';
import { createLogger, openDb, preflight, type RunningApi } from './process';

/** How long a stopping API waits for open connections to end before closing them. */
const CONNECTION_GRACE_MS = 5_000;

export { createLogger, type Running, type RunningApi } from './process';
export { startWorker } from './worker-service';

/** The API process: HTTP, SSE fan-out, enqueueing. Listens on HOST:PORT (PORT 0 picks a free one). */
export async function startApi(config: Config, log: Logger = createLogger(config, 'api')): Promise<RunningApi> {
  const redisErrors = await preflight(config, log);
  const database = await openDb(config);
  const redis = connectRedis(config, 'bo1-api', redisErrors);
  const subscriber = connectRedis(config, 'bo1-api-sub', redisErrors);
  const store = new SessionStore(database);
  const queue = new SessionsQueue(redis, { name: config.QUEUE_NAME, prefix: config.QUEUE_PREFIX, attempts: config.JOB_ATTEMPTS, onError: (err) => redisErrors(err, 'sessions-queue') });
  const hub = new EventHub((id, after, limit) => store.events(id, after, limit), subscriber, config.SSE_POLL_MS, (err) =>
    log.warn({ err }, 'event hub read failed; will retry on the next wake-up'),
  );
  const streams = new Set<(reason: string) => void>();
  const keys = new ApiKeyStore(database.db, config.AUTH_CACHE_MS);
  const metrics = createMetrics({
    queues: async () => ({ [config.QUEUE_NAME]: await queue.queue.getJobCounts() }),
    sessions: () => sessionsByStatus(database.db),
    ledger: () => ledgerTotals(database.db),
    subscribers: () => streams.size,
  });
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
    idempotency: new IdempotencyStore(database.db),
    keys,
    redis,
    memory: new MemoryStore(database.db),
    queue,
    hub,
    streams,
    providerName: config.LLM_PROVIDER,
    log,
    metrics,
    checks: {
      postgres: async () => void (await database.pool.query('select 1')),
      redis: () => redisReady(redis),
    },
  });
  const address = await app.listen({ host: config.HOST, port: config.PORT });
  log.info({ provider: config.LLM_PROVIDER, address, redis: describeRedis(config) }, config.LLM_PROVIDER === 'simulated' ? 'bo1 api up — SIMULATED board (no model is called)' : 'bo1 api up');
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
      // A connection that does not end on its own once told (a client that vanished mid-request) must not hold the
      // shutdown until the process's own deadline: past a short grace, whatever is still open is closed.
      const force = setTimeout(() => app.server.closeAllConnections(), CONNECTION_GRACE_MS);
      await closing.finally(() => clearTimeout(force));
      hub.close();
      await queue.close();
      subscriber.disconnect();
      redis.disconnect();
      await database.close();
    },
  };
}
