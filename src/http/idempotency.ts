import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_FIELD, type Outcome } from '../app/idempotent';
import { fieldError } from '../domain/errors';

/** The header's HTTP side: its OpenAPI description, its parsing, and sending an outcome (src/app/idempotent.ts runs it). */

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
  throw fieldError(IDEMPOTENCY_KEY_FIELD, message);
}

/** Sends an outcome: its status and headers, and `Idempotent-Replayed: true` on a replay. */
export function replyWith(reply: FastifyReply, o: Outcome): unknown {
  reply.code(o.status);
  if (o.headers) reply.headers(o.headers);
  if (o.replayed) reply.header('Idempotent-Replayed', 'true');
  return o.body;
}
