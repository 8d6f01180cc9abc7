import { TERMINAL_EVENTS } from '../../domain/events';
import { TERMINAL_STATUSES, type SessionStatus } from '../../db/session-store';
import { HttpProblem, notFound, problemSchema } from '../problem';
import { defineRoute, type RouteDef } from '../route';
import { sessionIdParams, streamQuery } from '../schemas';
import type { ApiDeps } from '../deps';

/** Stream-level event (no `id:`, not in the log) telling a client to reconnect elsewhere. */
export const CLOSING_EVENT = 'stream.closing';

function lastEventId(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) {
    throw new HttpProblem(400, 'validation-error', 'Invalid request', 'headers.last-event-id: must be an event seq (a non-negative integer)', [
      { field: 'headers.last-event-id', message: 'must be an event seq (a non-negative integer)' },
    ]);
  }
  return Number(raw);
}

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
      'Comment lines (`: heartbeat`) keep idle connections open. The stream ends after a terminal event (`session.completed`, `session.failed`, `session.cancelled`).',
      `When the server shuts down it sends \`event: ${CLOSING_EVENT}\` (no id) and closes; reconnect with Last-Event-ID.`,
    ].join('\n\n'),
    tags: ['sessions'],
    sse: true,
    params: sessionIdParams,
    query: streamQuery,
    headers: {
      'Last-Event-ID': { description: 'Resume after this seq', schema: { type: 'string', pattern: '^\\d+$' } },
    },
    responses: {
      200: { description: 'An event stream', contentType: 'text/event-stream' },
      400: { description: 'Invalid id, `after` or Last-Event-ID', schema: problemSchema },
      404: { description: 'No such session', schema: problemSchema },
    },
    handler: async ({ params, query, tenant, req, reply }) => {
      const row = await store.get(params.id, tenant);
      if (!row) throw notFound(`session ${params.id}`);
      const after = lastEventId(req.headers['last-event-id']) ?? query.after ?? 0;
      const sse = reply.sse;
      // A finished session: replay what follows `after` (events its memory jobs appended after the end included) and close.
      if (TERMINAL_STATUSES.has(row.status as SessionStatus)) {
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
      await sse.send({ retry: config.SSE_RETRY_MS, data: undefined }).catch(() => {});
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        sub.close();
        streams.delete(closer);
        sse.close();
      };
      const closer = (reason: string) => {
        if (ended) return;
        sse.send({ event: CLOSING_EVENT, data: { reason, reconnect: true } }).catch(() => {});
        end();
      };
      // One write in flight at a time: a slow client holds its own queue, not a pile of drain listeners.
      let writing = Promise.resolve();
      const sub = hub.subscribe(row.id, after, (events) => {
        writing = writing.then(async () => {
          for (const e of events) {
            if (ended) return;
            await sse.send({ id: String(e.seq), event: e.type, data: e });
            if (TERMINAL_EVENTS.has(e.type)) end();
          }
        }).catch(end);
      });
      streams.add(closer);
      sse.onClose(end);
    },
  });
}
