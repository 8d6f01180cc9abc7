import type { FastifyInstance } from 'fastify';
import { HttpProblem, sendProblem } from './problem';

/** Stream-level event (no `id:`, not in the log) telling a client to reconnect elsewhere. */
export const CLOSING_EVENT = 'stream.closing';

/**
 * Requests that reach a closing API process (on a kept-alive connection):
 * instead of Fastify's plain-JSON 503, a problem with Retry-After — and for
 * an event stream a 200 with the closing event and a `retry:` hint, because
 * an EventSource gives up for good on any other status, while it reconnects
 * after a closed 200 (with Last-Event-ID, to another process or this one
 * restarted). Needs Fastify's `return503OnClosing: false`.
 */
export function registerDraining(app: FastifyInstance, retryMs: number): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!closing) return;
    if (String(req.headers.accept ?? '').includes('text/event-stream')) {
      return reply
        .code(200)
        .header('content-type', 'text/event-stream')
        .header('cache-control', 'no-cache')
        .send(`retry: ${retryMs}\nevent: ${CLOSING_EVENT}\ndata: ${JSON.stringify({ reason: 'server_shutdown', reconnect: true })}\n\n`);
    }
    return sendProblem(reply, req, new HttpProblem('shutting-down', 'this API process is shutting down; retry'));
  });
}
