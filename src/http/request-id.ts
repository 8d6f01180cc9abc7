import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

// What a caller's id may be: it goes into every log line of the request, so nothing that could forge one.
const ACCEPTABLE = /^[\w.:@/+=-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token; a fresh UUID otherwise. For Fastify's `genReqId`. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTABLE.test(given) ? given : randomUUID();
}

/** Echoes the id on every response — set before the handler, so SSE streams (headers sent early) carry it too. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    reply.header(REQUEST_ID_HEADER, req.id);
  });
}
