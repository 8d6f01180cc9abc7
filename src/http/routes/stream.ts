import { TERMINAL_EVENTS } from '../../domain/events';
import { TERMINAL_STATUSES, type SessionStatus } from '../../ports/session-store';
import { z } from 'zod';
import { fieldProblem, notFound, problemSchema } from '../problem';
import { defineRoute, type RouteDef } from '../route';
import { SEQ_MAX, sessionIdParams, streamQuery } from '../schemas';
import type { ApiDeps } from '../deps';
import { sseFrame } from '../event-hub';

import { CLOSING_EVENT } from '../draining';

export { CLOSING_EVENT };

const lastEventIdSchema = z
  .string()
  .regex(/^\d+$/, 'must be an event seq (a non-negative integer)')
  .transform(Number)
  .pipe(z.number().max(SEQ_MAX, `must be an event seq (at most ${SEQ_MAX})`));

function lastEventId(header: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || raw === '') return undefined;
  const parsed = lastEventIdSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]?.message ?? 'must be an event seq';
  throw fieldProblem('headers.last-event-id', message);
}

/** A cursor past the session's last seq names an event that does not exist: a stream from it could never reach the end. */
const beyondEnd = (field: string, lastSeq: number) => fieldProblem(field, `is beyond the end of the session's log (its last event is ${lastSeq})`);

export function streamRoute(deps: ApiDeps): RouteDef<any, any, any> {
  const { store, hub, streams, config } = deps;
  return defineRoute({
    method: 'GET',
    path: '/v1/sessions/{id}/stream',
    operationId: 'streamSession',
    summary: 'Watch a session live (Server-Sent Events)',
    description: [
      'Each event: `id:` = seq, `event:` = type, `data:` = the JSON envelope `{ seq, type, session_id, ts, data }`.',
      'Resume with the `Last-Event-ID` header (or `?after=`): the server replays every event after it from Postgres, then follows live, with no gaps and no duplicates.',
      'Comment lines (`: heartbeat`) keep idle connections open. The stream ends after a terminal event (`session.completed`, `session.failed`, `session.cancelled`). Resuming an ended session after its last event is a 204; resuming after a seq the log does not have yet is a 400.',
      'A browser, whose EventSource cannot send `Authorization`, authenticates with `?stream_token=` from `POST /v1/sessions/{id}/stream-token` instead.',
      `When the server shuts down it sends \`event: ${CLOSING_EVENT}\` (no id) and closes; reconnect with Last-Event-ID.`,
    ].join('\n\n'),
    tags: ['sessions'],
    sse: true,
    security: [{ bearerAuth: [] }, { streamToken: [] }],
    params: sessionIdParams,
    query: streamQuery,
    headers: {
      'Last-Event-ID': { description: 'Resume after this seq', schema: { type: 'string', pattern: '^\\d+$' } },
    },
    responses: {
      200: { description: 'An event stream', contentType: 'text/event-stream' },
      204: { description: 'The session has ended and nothing follows `after`: there is nothing to stream (an EventSource stops reconnecting)' },
      400: { description: 'Invalid id, `after` or Last-Event-ID (not a seq, or beyond the end of the log)', schema: problemSchema },
      404: { description: 'No such session', schema: problemSchema },
    },
    handler: async ({ params, query, tenant, req, reply }) => {
      const row = await store.get(params.id, tenant);
      if (!row) throw notFound(`session ${params.id}`);
      const fromHeader = lastEventId(req.headers['last-event-id']);
      const after = fromHeader ?? query.after ?? 0;
      if (after > row.lastSeq) throw beyondEnd(fromHeader === undefined ? 'query.after' : 'headers.last-event-id', row.lastSeq);
      const sse = reply.sse;
      if (TERMINAL_STATUSES.has(row.status as SessionStatus)) {
        // Nothing left and nothing to come: 204 tells an EventSource to stop reconnecting (a 200 that closes makes it retry forever).
        if (after === row.lastSeq) return reply.code(204).send();
        // A finished session: replay what follows `after` (events its memory jobs appended after the end included) and close.
        for (let cursor = after; ; ) {
          const page = await store.events(row.id, cursor, 500);
          for (const e of page) await sse.send({ id: String(e.seq), event: e.type, data: e });
          if (page.length < 500) break;
          cursor = page.at(-1)!.seq;
        }
        sse.sendHeaders();
        return;
      }
      sse.keepAlive();
      let ended = false;
      let sub: { close(): void } | undefined;
      const end = () => {
        if (ended) return;
        ended = true;
        sub?.close();
        streams.delete(closer);
        sse.close();
      };
      const closer = (reason: string) => {
        if (ended) return;
        sse.send({ event: CLOSING_EVENT, data: { reason, reconnect: true } }).catch(() => {});
        end();
      };
      // Before the first await: a client gone while the retry hint is written closes the connection then, and a
      // handler registered afterwards would never run (its subscription and closer would outlive it).
      sse.onClose(end);
      await sse.send({ retry: config.SSE_RETRY_MS, data: undefined }).catch(() => {});
      if (ended || !sse.isConnected) return end();
      // Frames go straight to the socket, one write per delivery. While a slow client's socket drains, what comes
      // meanwhile waits in one string (its own queue), not in a promise and a drain listener per event.
      const raw = reply.raw;
      let held: string | null = null;
      let endAfter = false;
      const write = (chunk: string) => {
        if (held !== null) {
          held += chunk;
          return;
        }
        if (raw.write(chunk)) return void (endAfter && end());
        held = '';
        raw.once('drain', () => {
          const next = held!;
          held = null;
          if (ended) return;
          if (next) write(next);
          else if (endAfter) end();
        });
      };
      sub = hub.subscribe(row.id, after, (events) => {
        if (ended || endAfter) return;
        let chunk = '';
        for (const e of events) {
          chunk += sseFrame(e);
          if (TERMINAL_EVENTS.has(e.type)) {
            endAfter = true;
            break;
          }
        }
        write(chunk);
      });
      streams.add(closer);
    },
  });
}
