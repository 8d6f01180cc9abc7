import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../domain/errors';
import type { IdempotencyId, IdempotencyStorePort, StoredResponse } from '../ports/idempotency-store';

/** The field a reused or malformed key is reported on: the request header. */
export const IDEMPOTENCY_KEY_FIELD = 'headers.idempotency-key';
const POLL_MS = 50;

/** JSON with object keys sorted at every depth: equal requests hash equal whatever their key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const fields = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export interface IdempotentRequest {
  store: IdempotencyStorePort;
  tenant: string;
  /** The operation, with its path parameters: 'createSession', `resolve:<sessionId>:<checkpointId>`. */
  scope: string;
  key: string | undefined;
  /** The validated body: part of the request fingerprint. */
  body: unknown;
  /** How long a duplicate waits for the first request to finish before a conflict. */
  waitMs?: number;
}

export interface Outcome extends StoredResponse {
  replayed: boolean;
}

/**
 * Runs `run` at most once per (tenant, scope, key). The first request claims
 * the key and stores its response; a repeat replays it, waiting while the
 * first is still running. A thrown error or a 5xx releases the claim so a
 * retry runs again. Without a key, `run` simply runs.
 */
export async function idempotent(r: IdempotentRequest, run: () => Promise<StoredResponse>): Promise<Outcome> {
  if (r.key === undefined) return { ...(await run()), replayed: false };
  const id: IdempotencyId = { tenantId: r.tenant, scope: r.scope, key: r.key };
  const hash = createHash('sha256').update(canonicalJson({ scope: r.scope, body: r.body })).digest('hex');
  const deadline = Date.now() + (r.waitMs ?? 10_000);
  for (;;) {
    if (await r.store.claim(id, hash)) return runAsOwner(r.store, id, run);
    const record = await r.store.read(id);
    if (record && record.requestHash !== hash) {
      const message = 'was already used with a different request';
      throw new AppError('idempotency-key-reused', `${IDEMPOTENCY_KEY_FIELD}: ${message}; use a new key for a new request`, {
        errors: [{ field: IDEMPOTENCY_KEY_FIELD, message }],
      });
    }
    if (record?.statusCode != null) {
      return { status: record.statusCode, body: record.response, headers: (record.headers ?? {}) as Record<string, string>, replayed: true };
    }
    // Still running (or just released by a failed first request: the next claim takes it).
    if (Date.now() >= deadline) {
      throw new AppError('idempotency-in-progress', 'a request with this Idempotency-Key is still being processed; retry shortly');
    }
    await sleep(POLL_MS);
  }
}

async function runAsOwner(store: IdempotencyStorePort, id: IdempotencyId, run: () => Promise<StoredResponse>): Promise<Outcome> {
  // A release that fails leaves the claim to be taken over once abandoned.
  const release = () => store.release(id).catch(() => {});
  let res: StoredResponse;
  try {
    res = await run();
  } catch (err) {
    await release();
    throw err;
  }
  if (res.status >= 500) await release();
  else await store.complete(id, res);
  return { ...res, replayed: false };
}
