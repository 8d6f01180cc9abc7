import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore, hashKey } from '../../src/auth/api-keys';
import { openDatabase, type Database } from '../../src/db/client';
import { apiKeys } from '../../src/db/schema';
import { envFor, exited, spawnEntry } from '../support/child';
import { testDatabaseUrl } from '../support/env';
import { startStack, type Stack } from '../support/stack';

let database: Database;
const tag = randomUUID().slice(0, 8);
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 2);
});
afterAll(async () => database?.close());

describe('ApiKeyStore', () => {
  it('stores only a SHA-256 of the key and a 12-character prefix; verify names the tenant and key', async () => {
    const keys = new ApiKeyStore(database.db);
    const created = await keys.create(`store-${tag}`, 'laptop');
    expect(created.prefix).toBe(created.key.slice(0, 12));
    const [row] = await database.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row).toMatchObject({ tenantId: `store-${tag}`, name: 'laptop', prefix: created.prefix, hash: hashKey(created.key), revokedAt: null });
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(await keys.verify(created.key)).toEqual({ tenantId: `store-${tag}`, keyId: created.id });
    expect(await keys.verify(`${created.key}x`)).toBeNull();
    const listed = await keys.list(`store-${tag}`);
    expect(listed.map((k) => k.id)).toEqual([created.id]);
    expect(listed[0]).not.toHaveProperty('hash');
  });

  it('revokes by id or prefix, once', async () => {
    const keys = new ApiKeyStore(database.db);
    const a = await keys.create(`revoke-${tag}`, 'a');
    const b = await keys.create(`revoke-${tag}`, 'b');
    expect(await keys.revoke(a.id)).toBe(true);
    expect(await keys.revoke(b.prefix)).toBe(true);
    expect(await keys.revoke(b.prefix)).toBe(false);
    expect(await keys.revoke('bo1_nothing0')).toBe(false);
    expect(await keys.verify(a.key)).toBeNull();
    expect(await keys.verify(b.key)).toBeNull();
    expect((await keys.list(`revoke-${tag}`)).every((k) => k.revokedAt !== null)).toBe(true);
  });

  it('caches lookups for its TTL: another process revoking a key takes effect when the entry expires', async () => {
    const cached = new ApiKeyStore(database.db, 300);
    const other = new ApiKeyStore(database.db);
    const k = await other.create(`cache-${tag}`, 'cached');
    expect(await cached.verify(k.key)).not.toBeNull();
    await other.revoke(k.id);
    expect(await cached.verify(k.key)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 350));
    expect(await cached.verify(k.key)).toBeNull();
  });

  it('caches the active key count for its TTL too (it decides open mode under AUTH_MODE=auto)', async () => {
    const cached = new ApiKeyStore(database.db, 60_000);
    const n = await cached.activeCount();
    await new ApiKeyStore(database.db).create(`count-${tag}`, 'counted');
    expect(await cached.activeCount()).toBe(n);
  });
});

describe('npm run keys', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ AUTH_MODE: 'required', AUTH_CACHE_MS: '0' }, { worker: false });
  });
  afterAll(async () => stack?.stop());

  async function keysCommand(...args: string[]) {
    const child = spawnEntry('keys', envFor(stack.config), args);
    const code = await exited(child);
    return { code, output: child.output() };
  }
  const sessionsWith = (key: string) => fetch(`${stack.url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } });

  it('creates a key shown once that authenticates, lists it without its secret, and revokes it', async () => {
    const tenant = `cli-${tag}`;
    const created = await keysCommand('create', '--tenant', tenant, '--name', 'laptop');
    expect(created.code).toBe(0);
    expect(created.output).toMatch(/cannot be shown again/);
    const key = /bo1_[0-9A-Za-z]{32,}/.exec(created.output)?.[0];
    expect(key).toBeDefined();
    expect((await sessionsWith(key!)).status).toBe(200);

    const listed = await keysCommand('list', '--tenant', tenant);
    expect(listed.code).toBe(0);
    expect(listed.output).toContain(key!.slice(0, 12));
    expect(listed.output).toContain('laptop');
    expect(listed.output).not.toContain(key!);

    const revoked = await keysCommand('revoke', key!.slice(0, 12));
    expect(revoked.code).toBe(0);
    expect((await sessionsWith(key!)).status).toBe(401);
    expect((await keysCommand('revoke', key!.slice(0, 12))).code).toBe(1);
  });

  it('exits 2 with the usage on bad arguments', async () => {
    for (const args of [[], ['create', '--tenant', 'acme'], ['create', '--name', 'x'], ['frobnicate'], ['revoke'], ['list', '--bogus']]) {
      const run = await keysCommand(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.output).toMatch(/usage:/);
    }
  });
});
