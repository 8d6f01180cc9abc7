import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { withTimeout } from '../http/timeout';
import { describeSeed, type ClusterSeed } from '../queue/cluster-nodes';
import { NO_READY_CHECK, nodeAuth, tlsLookup, type RedisSettings } from '../queue/redis';
import { redisReady } from '../queue/redis-ready';
import { reason, redact, StartupError } from './preflight';

/**
 * One connection attempt, no retries: at start, an unreachable Redis is a
 * configuration problem to report at once, not an outage to wait out
 * (ioredis would otherwise retry forever and BullMQ never finish setting up).
 * A cluster must also be whole: every master up, `cluster_state:ok`.
 */
export async function checkRedis(settings: RedisSettings, timeoutMs = 5_000): Promise<void> {
  if (settings.REDIS_CLUSTER_NODES) return checkCluster(settings.REDIS_CLUSTER_NODES, timeoutMs);
  try {
    await pingOnce(settings.REDIS_URL, timeoutMs);
  } catch (err) {
    throw new StartupError(`cannot reach Redis at REDIS_URL=${redact(settings.REDIS_URL)}: ${reason(err)}`);
  }
}

/** Connects and PINGs once; rejects with the socket's own error (ECONNREFUSED, ENOTFOUND, …) when there is one, which says more than "Connection is closed". */
async function pingOnce(where: string | RedisOptions, timeoutMs: number): Promise<void> {
  const options: RedisOptions = { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null };
  const redis = typeof where === 'string' ? new Redis(where, options) : new Redis({ ...where, ...options });
  let socketError: unknown;
  redis.on('error', (err) => (socketError ??= err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw socketError ?? err;
  } finally {
    redis.disconnect();
  }
}

async function checkCluster(seed: ClusterSeed, timeoutMs: number): Promise<void> {
  const cluster = new Cluster(seed.nodes, {
    ...tlsLookup(seed),
    // As the processes' clients (redis.ts); redisReady below reports a cluster that is down, naming its nodes.
    ...NO_READY_CHECK,
    lazyConnect: true,
    clusterRetryStrategy: () => null,
    slotsRefreshTimeout: timeoutMs,
    // A cluster client's node connections never retry on their own; they keep their offline queue, as it opens them lazily.
    redisOptions: { connectTimeout: timeoutMs, maxRetriesPerRequest: 0, ...nodeAuth(seed) },
  });
  // connect() says only "Failed to refresh slots cache"; a node's own error ("cluster support disabled") says why.
  let nodeError: unknown;
  cluster.on('node error', (err: Error, node: string) => (nodeError ??= new Error(`${node}: ${reason(err)}`)));
  cluster.on('error', () => {}); // reported through connect()'s rejection; unheard, an 'error' event would throw
  try {
    await withTimeout(cluster.connect(), timeoutMs);
    await redisReady(cluster, timeoutMs);
  } catch (err) {
    // The cluster client hides why a node could not be reached at all: a plain connection to each seed tells.
    const unreachable = await firstUnreachable(seed, timeoutMs);
    throw new StartupError(`cannot use the Redis Cluster at REDIS_CLUSTER_NODES=${describeSeed(seed)}: ${unreachable ?? reason(nodeError ?? err)}`);
  } finally {
    cluster.disconnect();
  }
}

async function firstUnreachable(seed: ClusterSeed, timeoutMs: number): Promise<string | null> {
  for (const node of seed.nodes) {
    const problem = await pingOnce({ ...node, ...nodeAuth(seed) }, timeoutMs).then(
      () => null,
      (err: unknown) => `${describeSeed({ ...seed, nodes: [node] })}: ${reason(err)}`,
    );
    if (problem) return problem;
  }
  return null;
}
