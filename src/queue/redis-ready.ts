import { Cluster, type Redis } from 'ioredis';
import { withTimeout } from '../http/timeout';
import { DOWN, type RedisClient } from './redis';

/**
 * Whether Redis can take commands (readiness, and the check at start). A
 * single Redis: it answers PING. A cluster: every master the client knows
 * answers and says `cluster_state:ok`. One PING is not enough there: it
 * reaches one node, and with a master lost the others still answer PING but
 * refuse every key command (CLUSTERDOWN) until a replica takes over. Rejects
 * naming each node that is not ready and why.
 */
export async function redisReady(client: RedisClient, timeoutMs = 1_500): Promise<void> {
  if (!(client instanceof Cluster)) {
    await client.ping();
    return;
  }
  if (DOWN.has(client.status)) throw new Error(`cluster connection is ${client.status}`);
  const masters = client.nodes('master');
  // Before the first slot map the client knows no node: not ready yet, rather than vacuously ready.
  if (!masters.length) throw new Error('no cluster master known yet');
  const problems = await Promise.all(masters.map((node) => nodeProblem(node, timeoutMs)));
  const failing = problems.filter((p): p is string => p !== null);
  if (failing.length) throw new Error(failing.join('; '));
}

async function nodeProblem(node: Redis, timeoutMs: number): Promise<string | null> {
  const where = `${node.options.host}:${node.options.port}`;
  // A command would only wait for the reconnect: say so at once.
  if (DOWN.has(node.status)) return `${where} is ${node.status}`;
  try {
    const info = await withTimeout(node.cluster('INFO'), timeoutMs);
    const state = /^cluster_state:(\w+)/m.exec(info)?.[1] ?? 'unknown';
    if (state === 'ok') return null;
    // The client drops a lost master from its pool, so the survivors' view is where it shows: name it.
    // ioredis types the reply `unknown`; CLUSTER NODES answers one bulk string.
    const failed = failedNodes(await withTimeout(node.cluster('NODES') as Promise<string>, timeoutMs).catch(() => ''));
    return `${where} cluster_state:${state}${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`;
  } catch (err) {
    return `${where} ${(err as Error).message}`;
  }
}

/** The `host:port` of each node CLUSTER NODES flags as failing (`fail`, or `fail?` before the others agree). */
export function failedNodes(clusterNodes: string): string[] {
  return clusterNodes
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([, address, flags]) => address && flags?.split(',').some((f) => f === 'fail' || f === 'fail?'))
    .map(([, address]) => address!.split('@')[0]!);
}
