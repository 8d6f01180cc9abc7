import { spawn, spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { AUTOVACUUM_OFF } from '../../src/main/preflight';
import { exited, freePort, spawnEntry } from '../support/child';
import { siblingDatabaseUrl, testDatabaseUrl, testRedisUrl } from '../support/env';
import { testQueueName } from '../support/queues';
import { waitFor } from '../support/stack';

// Real processes pointed at ports nothing listens on: start-up must fail at once, in one line naming the variable.
const baseEnv = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  DATABASE_URL: testDatabaseUrl(),
  REDIS_URL: testRedisUrl(),
  QUEUE_NAME: testQueueName(),
  PORT: '0',
  MIGRATE_ON_START: 'false',
  ...extra,
});

const lines = (out: string) => out.split('\n').filter((l) => l.trim() !== '');

describe('start-up with a dependency down', () => {
  it.each(['api', 'worker', 'start'] as const)('%s: Redis unreachable → exits 1 with one line naming REDIS_URL', async (entry) => {
    const port = await freePort();
    const child = spawnEntry(entry, baseEnv({ REDIS_URL: `redis://127.0.0.1:${port}` }));
    const started = Date.now();
    expect(await exited(child)).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(lines(child.output())).toEqual([`bo1: cannot reach Redis at REDIS_URL=redis://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`]);
  });

  it.each(['api', 'worker'] as const)('%s: a Redis Cluster seed unreachable → exits 1 with one line naming REDIS_CLUSTER_NODES and the node', async (entry) => {
    const port = await freePort();
    const child = spawnEntry(entry, baseEnv({ REDIS_CLUSTER_NODES: `127.0.0.1:${port}` }));
    expect(await exited(child)).toBe(1);
    expect(lines(child.output())).toEqual([
      `bo1: cannot use the Redis Cluster at REDIS_CLUSTER_NODES=127.0.0.1:${port}: 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
  });

  it('REDIS_CLUSTER_NODES naming a Redis that is not a cluster → exits 1 saying so', async () => {
    const { hostname, port } = new URL(testRedisUrl());
    const child = spawnEntry('api', baseEnv({ REDIS_CLUSTER_NODES: `${hostname}:${port || 6379}` }));
    expect(await exited(child)).toBe(1);
    expect(lines(child.output())).toEqual([expect.stringMatching(/^bo1: cannot use the Redis Cluster at REDIS_CLUSTER_NODES=.*: ERR This instance has cluster support disabled$/)]);
  });

  it.each(['api', 'worker'] as const)('%s: Postgres unreachable → exits 1 with one line naming DATABASE_URL, password masked', async (entry) => {
    const port = await freePort();
    const child = spawnEntry(entry, baseEnv({ DATABASE_URL: `postgres://bo1:secret@127.0.0.1:${port}/bo1` }));
    expect(await exited(child)).toBe(1);
    expect(lines(child.output())).toEqual([
      `bo1: cannot reach Postgres at DATABASE_URL=postgres://bo1:***@127.0.0.1:${port}/bo1: connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
  });
});

describe('start-up with a database that does not exist yet', () => {
  const url = siblingDatabaseUrl(`startup_${process.pid}`);
  const name = new URL(url).pathname.slice(1);
  const admin = () => new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
  const drop = async () => {
    const client = admin();
    await client.connect();
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.end();
  };
  afterAll(drop);

  it('creates it, migrates it and serves, logging the creation as JSON (and a warning when the server never vacuums)', async () => {
    await drop();
    const child = spawnEntry('api', baseEnv({ DATABASE_URL: url, MIGRATE_ON_START: 'true', LOG_LEVEL: 'info' }));
    try {
      const address = await waitFor(async () => /"address":"(http:[^"]+)"/.exec(child.output())?.[1], 30_000, 'the api to listen');
      expect((await fetch(`${address}/healthz`)).status).toBe(200);
      const logged = lines(child.output()).map((l) => JSON.parse(l) as { msg: string; level: number; database?: string });
      expect(logged.find((l) => l.msg.startsWith('database did not exist'))?.database).toBe(name);
      // The server's own setting (autovacuum is server-wide: a test cannot turn it off for one database).
      const client = admin();
      await client.connect();
      const off = (await client.query<{ autovacuum: string }>('show autovacuum')).rows[0]!.autovacuum === 'off';
      await client.end();
      expect(logged.filter((l) => l.msg === AUTOVACUUM_OFF).map((l) => l.level)).toEqual(off ? [40] : []);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});

// Its own redis-server, so the test can take it away from a running worker without touching the shared one.
const redisServer = spawnSync('redis-server', ['--version']).status === 0;

describe.skipIf(!redisServer)('Redis lost after start', () => {
  it('worker: connection errors go to the JSON log, throttled, never raw to stderr', async () => {
    const port = await freePort();
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const child = spawnEntry('worker', baseEnv({ REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'info' }));
    try {
      await waitFor(async () => child.output().includes('bo1 worker up'), 30_000, 'the worker to start');
      redis.kill('SIGKILL');
      await waitFor(async () => child.output().includes('"redis error"'), 10_000, 'the outage to be logged');
      // ioredis reconnects every few hundred ms on each of the worker's connections: give it time to repeat itself.
      await new Promise((r) => setTimeout(r, 3_000));
      const out = lines(child.output());
      for (const line of out) expect(() => JSON.parse(line), line).not.toThrow();
      const errors = out.map((l) => JSON.parse(l) as { msg: string; level: number }).filter((l) => l.msg === 'redis error');
      expect(errors.every((e) => e.level === 40)).toBe(true);
      // One line per distinct message per 30 s, not one per attempt per connection.
      expect(errors.length).toBeLessThanOrEqual(3);
    } finally {
      redis.kill('SIGKILL');
      child.kill('SIGKILL');
      await exited(child);
    }
  });
});
