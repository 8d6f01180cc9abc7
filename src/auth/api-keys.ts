import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, asc, eq, getTableColumns, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiKeys } from '../db/schema';
import type { Caller } from '../http/caller';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_CHARS = 40; // ≈ 238 bits
export const KEY_PATTERN = /^bo1_[0-9A-Za-z]{32,}$/;
/** What identifies a key in listings and logs: `bo1_` and the first 8 secret characters. */
export const PREFIX_LENGTH = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOUCH_EVERY_MS = 60_000;
/** Bounds the verify cache: every well-formed key, valid or not, takes an entry. */
const MAX_CACHED = 10_000;

/** `bo1_` + 40 base62 characters, drawn without modulo bias. */
export function generateKey(): string {
  let out = 'bo1_';
  while (out.length < 4 + SECRET_CHARS) {
    for (const b of randomBytes(64)) {
      if (b < 248 && out.length < 4 + SECRET_CHARS) out += BASE62[b % 62];
    }
  }
  return out;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export interface CreatedKey {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  /** The plaintext: returned once, never stored. */
  key: string;
}

export type KeyInfo = Omit<typeof apiKeys.$inferSelect, 'hash'>;

interface Cached<T> {
  value: T;
  expires: number;
}

/**
 * API keys: only a SHA-256 of each key is stored. Lookups (misses too, so a
 * flood of bad keys does not reach Postgres) are cached for `cacheMs` in this
 * process: a revocation takes effect within that time.
 */
export class ApiKeyStore {
  private readonly verified = new Map<string, Cached<Caller | null>>();
  private active: Cached<number> | null = null;
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly cacheMs = 0,
  ) {}

  async create(tenantId: string, name: string): Promise<CreatedKey> {
    const id = randomUUID();
    const key = generateKey();
    const prefix = key.slice(0, PREFIX_LENGTH);
    await this.db.insert(apiKeys).values({ id, tenantId, name, prefix, hash: hashKey(key) });
    this.active = null;
    return { id, tenantId, name, prefix, key };
  }

  /** Revokes an active key by id or prefix; false when none matches. */
  async revoke(idOrPrefix: string): Promise<boolean> {
    const match = UUID.test(idOrPrefix) ? eq(apiKeys.id, idOrPrefix) : eq(apiKeys.prefix, idOrPrefix);
    const found = await this.db.select({ id: apiKeys.id }).from(apiKeys).where(and(match, isNull(apiKeys.revokedAt)));
    if (found.length > 1) throw new Error(`${idOrPrefix} matches ${found.length} active keys: revoke by id`);
    if (!found[0]) return false;
    const done = await this.db
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(apiKeys.id, found[0].id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    this.verified.clear();
    this.active = null;
    return done.length === 1;
  }

  async list(tenantId?: string): Promise<KeyInfo[]> {
    const { hash: _hash, ...columns } = getTableColumns(apiKeys);
    return this.db
      .select(columns)
      .from(apiKeys)
      .where(tenantId === undefined ? undefined : eq(apiKeys.tenantId, tenantId))
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  }

  /** The caller a key proves, or null for an unknown or revoked key. */
  async verify(key: string): Promise<Caller | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const hash = hashKey(key);
    const now = Date.now();
    let hit = this.verified.get(hash);
    if (!hit || hit.expires <= now) {
      const [row] = await this.db
        .select({ id: apiKeys.id, tenantId: apiKeys.tenantId })
        .from(apiKeys)
        .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)));
      hit = { value: row ? { tenantId: row.tenantId, keyId: row.id } : null, expires: now + this.cacheMs };
      if (this.cacheMs > 0) this.remember(hash, hit);
    }
    if (hit.value?.keyId) this.touch(hit.value.keyId, now);
    return hit.value;
  }

  /** Keys not revoked; decides open mode under AUTH_MODE=auto. */
  async activeCount(): Promise<number> {
    const now = Date.now();
    if (this.active && this.active.expires > now) return this.active.value;
    const [row] = await this.db.select({ n: sql<number>`count(*)::int` }).from(apiKeys).where(isNull(apiKeys.revokedAt));
    const value = row?.n ?? 0;
    if (this.cacheMs > 0) this.active = { value, expires: now + this.cacheMs };
    return value;
  }

  private remember(hash: string, entry: Cached<Caller | null>): void {
    if (this.verified.size >= MAX_CACHED) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(hash, entry);
  }

  /** Records use at most once a minute per key, off the request path: a missed timestamp is harmless. */
  private touch(keyId: string, now: number): void {
    if (now - (this.touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    this.db
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`))))
      .catch(() => {});
  }
}
