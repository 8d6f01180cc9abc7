import { Cluster, Redis } from 'ioredis';
import { withTimeout } from '../http/timeout';
import type { Notifier } from '../ports/notifier';
import { TickBatch } from '../db/tick-batch';
import { describeSeed, type ClusterSeed } from './cluster-nodes';

export type ErrorSink = (err: Error, source: string) => void;

/** A single Redis or a Redis Cluster: BullMQ, pub/sub and the rate limiter take either as it is. */
export type RedisClient = Redis | Cluster;

/** Where Redis is, as the configuration says: REDIS_CLUSTER_NODES when set, REDIS_URL otherwise. */
export interface RedisSettings {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: ClusterSeed | undefined;
}

/**
 * BullMQ needs `maxRetriesPerRequest: null` on blocking connections; a lost
 * Redis must not crash the process, so errors go to `onError` (the log)
 * while ioredis reconnects.
 */
export function openRedis(url: string, name: string, onError: ErrorSink = () => {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
  redis.on('error', (err: Error) => onError(err, name));
  return redis;
}

/**
 * A Cluster client: it follows the cluster's MOVED and ASK redirections and
 * learns of failovers. The per-node options are openRedis's, for the same
 * reasons. BullMQ's multi-key scripts work on it because every queue key
 * shares QUEUE_PREFIX's hash tag (prefix.ts).
 */
export function openCluster(seed: ClusterSeed, name: string, onError: ErrorSink = () => {}): Cluster {
  const cluster = new Cluster(seed.nodes, {
    ...tlsLookup(seed),
    ...NO_READY_CHECK,
    redisOptions: { maxRetriesPerRequest: null, connectionName: name, ...nodeAuth(seed) },
  });
  cluster.on('error', (err: Error) => onError(err, name));
  return cluster;
}

/**
 * ioredis's Cluster ready check (CLUSTER INFO after the slot map) is off: when
 * it fails (cluster_state:fail, a master lost) the client reconnects, and the
 * promise of the connect() that ran it never settles (ioredis 5.11). BullMQ
 * awaits exactly that when it reconnects a worker's blocking connection, so a
 * worker that reconnected while the cluster was down waited for ever, taking
 * no job once the cluster was back (tests/integration/redis-cluster.test.ts).
 * Without it the client is ready once it has the slot map, and commands sent
 * while the cluster is down fail with CLUSTERDOWN after ioredis's retries,
 * which BullMQ and the callers already handle. Readiness checks the cluster's
 * state itself (redis-ready.ts).
 */
export const NO_READY_CHECK = { enableReadyCheck: false } as const;

/** What every node of a cluster expects of a client: its credentials, TLS. */
export const nodeAuth = (seed: ClusterSeed) => ({
  ...(seed.username && { username: seed.username }),
  ...(seed.password && { password: seed.password }),
  ...(seed.tls && { tls: {} }),
});

/**
 * TLS clusters such as ElastiCache are reached by a host name their certificates name; ioredis resolves node
 * names to IPs unless told not to, and TLS then fails to verify (its README prescribes this lookup for them).
 */
export const tlsLookup = (seed: ClusterSeed) =>
  seed.tls ? { dnsLookup: (address: string, done: (err: null, address: string) => void) => done(null, address) } : {};

/** The connection a process opens for each of its uses (commands, a subscriber, BullMQ's workers). */
export const connectRedis = (settings: RedisSettings, name: string, onError: ErrorSink = () => {}): RedisClient =>
  settings.REDIS_CLUSTER_NODES ? openCluster(settings.REDIS_CLUSTER_NODES, name, onError) : openRedis(settings.REDIS_URL, name, onError);

/** Which Redis, for the start-up log line: `host:port`, or `cluster <seed nodes>`; never credentials. */
export const describeRedis = (settings: RedisSettings): string =>
  settings.REDIS_CLUSTER_NODES ? `cluster ${describeSeed(settings.REDIS_CLUSTER_NODES)}` : new URL(settings.REDIS_URL).host;

/**
 * While Redis is down every connection reports every reconnect attempt: the
 * log gets the first error with a given message, then at most one line per
 * `intervalMs` saying how many more there were.
 */
export function throttledErrors(log: (extra: object, msg: string) => void, intervalMs = 30_000, now = Date.now): ErrorSink {
  const seen = new Map<string, { at: number; suppressed: number }>();
  return (err, source) => {
    const key = err.message;
    const last = seen.get(key);
    const t = now();
    if (last && t - last.at < intervalMs) {
      last.suppressed++;
      return;
    }
    seen.set(key, { at: t, suppressed: 0 });
    log({ err: { message: err.message, code: (err as NodeJS.ErrnoException).code }, source, ...(last && { suppressed: last.suppressed }) }, 'redis error');
  };
}

/** Connection states in which a command waits in ioredis's offline queue until Redis is back. */
export const DOWN = new Set(['close', 'reconnecting', 'end']);

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** Fails at once when the connection is down; the rate limiter uses it so that it never holds a request. */
export function assertRedisUp(redis: RedisClient): void {
  if (DOWN.has(redis.status)) throw new RedisUnavailableError(`redis is ${redis.status}`);
}

/**
 * Waits at most `timeoutMs` for a command that need not finish before a
 * request is answered (enqueue a job whose session Postgres already holds, a
 * wake-up, a cancel broadcast). With `maxRetriesPerRequest: null` a command
 * waits out a whole outage; issued anyway, it still runs once Redis is back,
 * and the caller moves on: Postgres is the record and the reconciler catches
 * what never runs.
 */
export async function boundedRedisCall<T>(redis: RedisClient, command: () => Promise<T>, timeoutMs: number): Promise<T> {
  const pending = command();
  if (DOWN.has(redis.status)) {
    pending.catch(() => {});
    throw new RedisUnavailableError(`redis is ${redis.status}`);
  }
  return withTimeout(pending, timeoutMs);
}

export const sessionChannel = (sessionId: string) => `bo1:session:${sessionId}`;

/**
 * How long a request path waits for a Redis command it can do without (see
 * boundedRedisCall). A healthy local Redis answers in a few ms; a create pays
 * this twice in an outage (rate limiter, enqueue), well inside its 1 s goal
 * even on a loaded machine (250 ms each missed it once under the full suite).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 150;

/**
 * Publishes wake-ups on a per-session channel; the payload is only a hint (the last seq), and a lost one only delays a
 * stream. A worker wakes readers after every batch of commits of every session it runs: the wake-ups asked for in one
 * turn of the event loop go as one pipeline (one socket write) on a single Redis. A Cluster routes each PUBLISH on its
 * own, so there each goes alone.
 */
export class RedisNotifier implements Notifier {
  private readonly batch = new TickBatch<[channel: string, payload: string], void>(async (items) => {
    if (items.length === 1 || this.redis instanceof Cluster) {
      await Promise.all(items.map(([channel, payload]) => boundedRedisCall(this.redis, () => this.redis.publish(channel, payload), this.timeoutMs)));
    } else {
      await boundedRedisCall(this.redis, () => this.redis.pipeline(items.map(([channel, payload]) => ['publish', channel, payload])).exec(), this.timeoutMs);
    }
    return items.map(() => undefined);
  });

  constructor(
    private readonly redis: RedisClient,
    private readonly timeoutMs = REDIS_COMMAND_TIMEOUT_MS,
  ) {}

  async publish(sessionId: string, lastSeq: number): Promise<void> {
    await this.batch.add([sessionChannel(sessionId), String(lastSeq)]);
  }
}

/** Cancellations are broadcast: whichever worker runs the session aborts it. */
export const CANCEL_CHANNEL = 'bo1:cancel';
