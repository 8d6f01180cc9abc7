import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * CORS for browser clients on CORS_ORIGINS (none: no CORS headers at all).
 * Registered before auth so a preflight, which carries no credentials, is
 * answered rather than refused with a 401.
 */
export async function registerCors(app: FastifyInstance, origins: string[] | '*'): Promise<void> {
  if (origins !== '*' && origins.length === 0) return;
  await app.register(fastifyCors, {
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'X-Request-Id'],
    // What a browser script may read from a response: links, limits, replays and the request id.
    exposedHeaders: ['Location', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Idempotent-Replayed', 'X-Request-Id'],
    maxAge: 600,
  });
}
