import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { Config } from '../config/config';
import { migrateAt, openDatabase, type Database } from '../db/client';
import { throttledErrors, type ErrorSink } from '../queue/redis';
import { AUTOVACUUM_OFF, checkPostgres } from './preflight';
import { checkRedis } from './redis-preflight';

/** What every process shares at its start: the logger, the pre-flight checks, the database. */

export function createLogger(config: Config, name: string): Logger {
  return pino({ name, level: config.LOG_LEVEL });
}

export interface Running {
  stop(): Promise<void>;
  /** The worker's health server, when WORKER_HEALTH_PORT is set. */
  healthUrl?: string;
}

export interface RunningApi extends Running {
  app: FastifyInstance;
  url: string;
}

/**
 * Before anything else: Postgres and Redis answer (else one StartupError
 * naming DATABASE_URL, REDIS_URL or REDIS_CLUSTER_NODES), and a missing database is created.
 * Returns where Redis errors go from then on: the JSON log, throttled.
 */
export async function preflight(config: Config, log: Logger): Promise<ErrorSink> {
  // The direct connection first: a missing database is created through it, since a pooler cannot.
  const direct = config.DATABASE_DIRECT_URL;
  const { created, autovacuum } = direct ? await checkPostgres(direct, undefined, 'DATABASE_DIRECT_URL') : await checkPostgres(config.DATABASE_URL);
  if (direct) await checkPostgres(config.DATABASE_URL);
  if (created) log.info({ database: new URL(direct ?? config.DATABASE_URL).pathname.slice(1) }, 'database did not exist: created it');
  await checkRedis(config);
  // After every check: a process that cannot start says one line, its reason.
  if (!autovacuum) log.warn(AUTOVACUUM_OFF);
  return throttledErrors((extra, msg) => log.warn(extra, msg));
}

export async function openDb(config: Config): Promise<Database> {
  if (config.MIGRATE_ON_START) await migrateAt(migrationUrl(config));
  return openDatabase(config.DATABASE_URL, config.DATABASE_POOL_MAX);
}

/** Where migrations run: the direct connection when there is one (behind PgBouncer), else DATABASE_URL. */
export const migrationUrl = (config: Config): string => config.DATABASE_DIRECT_URL ?? config.DATABASE_URL;
