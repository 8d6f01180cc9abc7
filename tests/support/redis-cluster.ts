import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { exited, freePort } from './child';

const run = promisify(execFile);

export interface LocalCluster {
  /** `127.0.0.1:N,…`, as REDIS_CLUSTER_NODES takes it. */
  nodes: string;
  ports: number[];
  /** Kills one node (SIGKILL), as a lost master. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again on its port and cluster file: it rejoins with its slots (not its keys: nothing is saved). */
  restart(port: number): Promise<void>;
  /** Kills every node and removes the directory of their cluster files. */
  stop(): Promise<void>;
}

/** Fails, never skips: CI has redis-server, and a cluster test that silently does not run proves nothing. */
function requireRedisServer(): void {
  for (const bin of ['redis-server', 'redis-cli']) {
    if (spawnSync(bin, ['--version']).status !== 0) {
      throw new Error(`${bin} is not installed or not on PATH: the Redis Cluster test starts its own cluster with it (apt-get install redis-server)`);
    }
  }
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`local Redis Cluster: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** CLUSTER INFO of one node, through a short-lived connection that gives up at once. */
async function clusterInfo(port: number): Promise<string> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await redis.cluster('INFO');
  } finally {
    redis.disconnect();
  }
}

/**
 * A throwaway Redis Cluster of `masters` nodes (no replicas) on free loopback
 * ports, in a temp dir, with the installed redis-server and redis-cli. Nodes
 * are child processes that `stop()` (the test's afterAll) kills; a test
 * process killed outright leaves them behind. A node timeout of 3 s (15 s by
 * default) lets the cluster notice a killed master within the test, and is
 * still long enough that a busy machine does not make a live node look dead.
 */
export async function startRedisCluster(masters = 3): Promise<LocalCluster> {
  requireRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'bo1-redis-cluster-'));
  const children = new Map<number, ChildProcess>();
  const argsOf = new Map<number, string[]>();
  const launch = (port: number) => children.set(port, spawn('redis-server', argsOf.get(port)!, { stdio: 'ignore' }));
  const stop = async () => {
    await Promise.all([...children.values()].map(async (child) => {
      child.kill('SIGKILL');
      await exited(child);
    }));
    children.clear();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    const taken = new Set<number>();
    const nextPort = async (): Promise<number> => {
      for (;;) {
        const port = await freePort();
        if (!taken.has(port)) return taken.add(port), port;
      }
    };
    for (let i = 0; i < masters; i++) {
      // The cluster bus gets its own free port: the default (port + 10000) may be taken or past 65535.
      const [port, bus] = [await nextPort(), await nextPort()];
      const args = ['--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'];
      args.push('--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '3000', '--dir', dir, '--save', '', '--appendonly', 'no');
      argsOf.set(port, args);
      launch(port);
      ports.push(port);
    }
    for (const port of ports) await waitUntil(`the node on port ${port} to answer`, async () => /cluster_state/.test(await clusterInfo(port)));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
    for (const port of ports) await waitUntil(`cluster_state:ok on port ${port}`, async () => /cluster_state:ok/.test(await clusterInfo(port)));
    return {
      nodes: ports.map((p) => `127.0.0.1:${p}`).join(','),
      ports,
      kill: async (port) => {
        const child = children.get(port);
        if (!child) throw new Error(`no cluster node on port ${port}`);
        child.kill('SIGKILL');
        await exited(child);
        children.delete(port);
      },
      restart: async (port) => {
        if (children.has(port)) throw new Error(`the node on port ${port} is running`);
        launch(port);
        await waitUntil(`the node on port ${port} to answer again`, async () => /cluster_state/.test(await clusterInfo(port)));
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
