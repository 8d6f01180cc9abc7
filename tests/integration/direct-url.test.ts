import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, spawnEntry } from '../support/child';
import { siblingDatabaseUrl, testRedisUrl } from '../support/env';
import { testQueueName } from '../support/queues';
import { waitFor } from '../support/stack';

/**
 * Behind PgBouncer in transaction mode the pool cannot carry migrations (a
 * session-level lock, then DDL): DATABASE_DIRECT_URL does. Here the pool's
 * connections are read-only, so anything that tried DDL through DATABASE_URL
 * would fail; the process must still create, migrate and serve the database.
 */
describe('DATABASE_DIRECT_URL', () => {
  const direct = siblingDatabaseUrl(`direct_${process.pid}`);
  const name = new URL(direct).pathname.slice(1);
  const pooled = Object.assign(new URL(direct), { search: `?options=${encodeURIComponent('-c default_transaction_read_only=on')}` }).toString();
  const drop = async () => {
    const admin = new pg.Client({ connectionString: Object.assign(new URL(direct), { pathname: '/postgres' }).toString() });
    await admin.connect();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  };
  afterAll(drop);

  it('creates and migrates the database over the direct connection, then serves over DATABASE_URL', async () => {
    await drop();
    const env = {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: pooled,
      DATABASE_DIRECT_URL: direct,
      REDIS_URL: testRedisUrl(),
      QUEUE_NAME: testQueueName(),
      PORT: '0',
      MIGRATE_ON_START: 'true',
      LOG_LEVEL: 'info',
    };
    const child = spawnEntry('api', env);
    try {
      const address = await waitFor(async () => /"address":"(http:[^"]+)"/.exec(child.output())?.[1], 30_000, `the api to listen: ${child.output()}`);
      // Read-only pool, migrated schema: listing sessions reads the migrated tables.
      const res = await fetch(`${address}/v1/sessions`);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(child.output()).toContain('database did not exist: created it');
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});
