import type { FastifyBaseLogger } from 'fastify';
import type { ApiKeyStore } from '../auth/api-keys';
import type { Config } from '../config/config';
import type { SessionStorePort } from '../ports/session-store';
import type { IdempotencyStorePort } from '../ports/idempotency-store';
import type { SessionsQueue } from '../queue/sessions-queue';
import type { EventHub } from './event-hub';
import type { MemoryStore } from '../memory/memory-store';
import type { Metrics } from './metrics';
import type { RedisClient } from '../queue/redis';

/** Everything the HTTP layer needs, injected by the process edge (src/main/api.ts) or a test. */
export interface ApiDeps {
  config: Config;
  store: SessionStorePort;
  /** Idempotency-Key records of the POSTs. */
  idempotency: IdempotencyStorePort;
  keys: ApiKeyStore;
  /** Rate-limit counters. */
  redis: RedisClient;
  queue: SessionsQueue;
  hub: EventHub;
  providerName: string;
  /** Tells the workers to abort a session's run (the record is already cancelled). */
  cancel(sessionId: string): Promise<void>;
  /** Expert memory and lessons; routes answer 503 without it. */
  memory: MemoryStore | null;
  /** Open SSE streams: each closer ends its stream with a stream-level closing event. */
  streams: Set<(reason: string) => void>;
  /** What /readyz requires (Postgres, Redis). */
  checks: Record<string, () => Promise<void>>;
  /** Prometheus registry behind /metrics; counts every request. */
  metrics: Metrics;
  log: FastifyBaseLogger;
}
