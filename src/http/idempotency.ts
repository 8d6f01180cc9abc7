import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/client';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  readIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyId,
  type StoredResponse,
} from '../db/idempotency-store';
import { fieldProblem, HttpProblem } from './problem';

export type { StoredResponse };

const FIELD = 'headers.idempotency-key';
const POLL_MS = 50;

/** For a RouteDef's `headers`: the OpenAPI description of the header. */
export const IDEMPOTENCY_KEY_HEADER = {
  'Idempotency-Key': {
    description:
      'Makes a retry safe: a repeat with the same key and body within 24 h replays the first response (with `Idempotent-Replayed: true`) instead of running again; the same key with a different body is a 422.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
};

/** The request's Idempotency-Key: 1-255 printable ASCII characters, or a 400 naming the header. */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw === 'string' && /^[\x20-\x7e]{1,255}$/.test(raw)) return raw;
  const message = 'must be 1-255 printable ASCII characters';
  throw fieldProblem(FIELD, message);
}

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
  db: Db;
  tenant: string;
  /** The operation, with its path parameters: 'createSession', `resolve:<sessionId>:<checkpointId>`. */
  scope: string;
  key: string | undefined;
  /** The validated body: part of the request fingerprint. */
  body: unknown;
  /** How long a duplicate waits for the first request to finish before a 409. */
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
    if (await claimIdempotencyKey(r.db, id, hash)) return runAsOwner(r.db, id, run);
    const record = await readIdempotencyKey(r.db, id);
    if (record && record.requestHash !== hash) {
      const message = 'was already used with a different request';
      throw new HttpProblem(422, 'idempotency-key-reused', 'Idempotency key reused', `${FIELD}: ${message}; use a new key for a new request`, [
        { field: FIELD, message },
      ]);
    }
    if (record?.statusCode != null) {
      return { status: record.statusCode, body: record.response, headers: (record.headers ?? {}) as Record<string, string>, replayed: true };
    }
    // Still running (or just released by a failed first request: the next claim takes it).
    if (Date.now() >= deadline) {
      throw new HttpProblem(
        409,
        'idempotency-in-progress',
        'Request in progress',
        'a request with this Idempotency-Key is still being processed; retry shortly',
        undefined,
        { 'Retry-After': '1' },
      );
    }
    await sleep(POLL_MS);
  }
}

async function runAsOwner(db: Db, id: IdempotencyId, run: () => Promise<StoredResponse>): Promise<Outcome> {
  // A release that fails leaves the claim to be taken over once abandoned.
  const release = () => releaseIdempotencyKey(db, id).catch(() => {});
  let res: StoredResponse;
  try {
    res = await run();
  } catch (err) {
    await release();
    throw err;
  }
  if (res.status >= 500) await release();
  else await completeIdempotencyKey(db, id, res);
  return { ...res, replayed: false };
}

/** Sends an outcome: its status and headers, and `Idempotent-Replayed: true` on a replay. */
export function replyWith(reply: FastifyReply, o: Outcome): unknown {
  reply.code(o.status);
  if (o.headers) reply.headers(o.headers);
  if (o.replayed) reply.header('Idempotent-Replayed', 'true');
  return o.body;
}
