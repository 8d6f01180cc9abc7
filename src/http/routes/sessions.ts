import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { envelopeSchema } from '../../domain/events';
import { isAppError } from '../../domain/errors';
import { cancelSession, type CancelSessionDeps } from '../../app/cancel-session';
import { createSession, type CreatedSession, type CreateSessionDeps } from '../../app/create-session';
import { transcriptEntries, transcriptMarkdown } from '../../domain/transcript';
import { routingProblems, tierPrices } from '../../config/config';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf, replyWith } from '../idempotency';
import { fieldProblem, notFound, problemSchema } from '../problem';
import { cancelledExample, createdExample, createSessionExample, eventsPageExample, listExample, snapshotExample } from '../examples';
import { defineRoute, type RouteDef } from '../route';
import {
  createdSchema,
  createSessionBody,
  linksSchema,
  eventsQuery,
  listQuery,
  listSchema,
  sessionIdParams,
  snapshotSchema,
} from '../schemas';
import { linksFor, snapshotView, summaryView } from '../session-view';
import type { ApiDeps } from '../deps';

const problems = {
  400: { description: 'Invalid request; `errors` names each invalid field', schema: problemSchema },
  404: { description: 'No such session', schema: problemSchema },
};

export function sessionRoutes(deps: ApiDeps): RouteDef<any, any, any>[] {
  const { store, queue, config, log } = deps;
  const warn = (msg: string, extra: object) => log.warn(extra, msg);
  const creating: CreateSessionDeps = {
    sessions: store,
    idempotency: deps.idempotency,
    enqueue: (id, reason) => queue.enqueue(id, reason),
    newId: randomUUID,
    providerName: deps.providerName,
    activeCap: config.MAX_ACTIVE_SESSIONS_PER_TENANT,
    prices: tierPrices(config),
    // A session may pick its models, but only among those this deployment can reach and price.
    modelProblems: (models) => routingProblems(config, models as never),
    warn,
  };
  const cancelling: CancelSessionDeps = { sessions: store, broadcastCancel: deps.cancel, warn };
  const created = ({ id, status }: CreatedSession) => ({ status: 202, body: { id, status, links: linksFor(id) }, headers: { Location: linksFor(id).self } });

  const create = defineRoute({
    method: 'POST',
    path: '/v1/sessions',
    operationId: 'createSession',
    summary: 'Start a deliberation',
    description:
      'Records the session and its `session.created` event, then queues it. Watch it with the `stream` link or poll the `self` link.',
    tags: ['sessions'],
    body: createSessionBody(config.MAX_PROBLEM_CHARS),
    bodyExample: createSessionExample,
    headers: IDEMPOTENCY_KEY_HEADER,
    responses: {
      202: {
        description: 'Accepted and queued',
        schema: createdSchema,
        example: createdExample,
        headers: {
          Location: { description: 'The session snapshot URL', schema: { type: 'string' } },
          'Idempotent-Replayed': { description: '`true` when this is the stored response to an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
        },
      },
      400: { description: 'Invalid request; `errors` names each invalid field (`body.*`, `headers.idempotency-key`)', schema: problemSchema },
      409: { description: 'A request with the same Idempotency-Key is still in progress; retry after `Retry-After`', schema: problemSchema },
      413: { description: 'Body larger than the configured limit', schema: problemSchema },
      422: { description: '`budget_usd` cannot cover even the cheapest session, `settings.models` names a model this deployment cannot reach or price, or the Idempotency-Key was used with a different body', schema: problemSchema },
      415: { description: 'Body is not JSON', schema: problemSchema },
      429: {
        description: 'Rate limited, or the tenant already has its cap of active sessions (`MAX_ACTIVE_SESSIONS_PER_TENANT`)',
        schema: problemSchema,
        headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
      },
    },
    handler: async ({ body, req, reply, tenant }) => replyWith(reply, await createSession(creating, tenant, body, idempotencyKeyOf(req), created)),
  });

  const list = defineRoute({
    method: 'GET',
    path: '/v1/sessions',
    operationId: 'listSessions',
    summary: 'List sessions, newest first',
    tags: ['sessions'],
    query: listQuery,
    responses: { 200: { description: 'One page', schema: listSchema, example: listExample }, 400: problems[400] },
    handler: async ({ query, tenant }) => {
      try {
        const page = await store.list(tenant, query.limit, query.cursor, query.status);
        return { items: page.items.map(summaryView), next_cursor: page.nextCursor };
      } catch (err) {
        if (isAppError(err, 'invalid-cursor')) throw fieldProblem('query.cursor', err.message);
        throw err;
      }
    },
  });

  const get = defineRoute({
    method: 'GET',
    path: '/v1/sessions/{id}',
    operationId: 'getSession',
    summary: 'Session snapshot: status, phase, progress, usage and cost, results',
    tags: ['sessions'],
    params: sessionIdParams,
    responses: { 200: { description: 'The snapshot', schema: snapshotSchema, example: snapshotExample }, ...problems },
    handler: async ({ params, tenant }) => {
      const row = await store.get(params.id, tenant);
      if (!row) throw notFound(`session ${params.id}`);
      return snapshotView(row, await store.usage(row.id), { routing: config.MODELS, tiers: { fast: config.MODEL_FAST, smart: config.MODEL_SMART } });
    },
  });

  const events = defineRoute({
    method: 'GET',
    path: '/v1/sessions/{id}/events',
    operationId: 'listSessionEvents',
    summary: 'The session event log as JSON pages',
    description: 'The same envelopes the stream sends. Page with `after` = the previous page\'s `next_after`.',
    tags: ['sessions'],
    params: sessionIdParams,
    query: eventsQuery,
    responses: {
      200: {
        description: 'Events with seq > after, in order',
        schema: z.object({ items: z.array(envelopeSchema), next_after: z.number().int(), has_more: z.boolean() }),
        example: eventsPageExample,
      },
      ...problems,
    },
    handler: async ({ params, query, tenant }) => {
      const row = await store.get(params.id, tenant);
      if (!row) throw notFound(`session ${params.id}`);
      const items = await store.events(row.id, query.after, query.limit);
      const nextAfter = items.at(-1)?.seq ?? query.after;
      return { items, next_after: nextAfter, has_more: nextAfter < row.lastSeq };
    },
  });

  const transcript = defineRoute({
    method: 'GET',
    path: '/v1/sessions/{id}/transcript',
    operationId: 'getTranscript',
    summary: 'The session as people read it, Markdown or JSON',
    description: 'Built from the event log, so it is available at any time, for a running session too. `concise` keeps decisions; `standard` the debate; `detailed` adds metrics, calibration and facilitator notes.',
    tags: ['sessions'],
    params: sessionIdParams,
    query: z.object({
      format: z.enum(['markdown', 'json']).default('markdown'),
      verbosity: z.enum(['concise', 'standard', 'detailed']).default('standard'),
    }),
    responses: {
      200: {
        description: 'The transcript (text/markdown, or JSON entries with format=json)',
        contentType: 'text/markdown',
      },
      ...problems,
    },
    handler: async ({ params, query, reply, tenant }) => {
      const row = await store.get(params.id, tenant);
      if (!row) throw notFound(`session ${params.id}`);
      const entries = transcriptEntries(await store.events(row.id, 0, 100_000), query.verbosity);
      if (query.format === 'json') return { id: row.id, status: row.status, verbosity: query.verbosity, entries };
      reply.type('text/markdown; charset=utf-8');
      return transcriptMarkdown(entries);
    },
  });

  const cancel = defineRoute({
    method: 'POST',
    path: '/v1/sessions/{id}/cancel',
    operationId: 'cancelSession',
    summary: 'Kill switch: stop the session now',
    description:
      'Ends the session as `cancelled` with a `session.cancelled` event, and aborts the model call in flight on whichever worker runs it. Everything it produced so far stays readable (events, transcript).',
    tags: ['sessions'],
    params: sessionIdParams,
    responses: {
      200: { description: 'Cancelled', schema: z.object({ id: z.uuid(), status: z.literal('cancelled'), links: linksSchema }), example: cancelledExample },
      404: problems[404],
      409: { description: 'The session has already ended', schema: problemSchema },
    },
    handler: async ({ params, tenant }) => {
      const { id, status } = await cancelSession(cancelling, tenant, params.id);
      return { id, status, links: linksFor(id) };
    },
  });

  return [create, list, get, events, transcript, cancel];
}
