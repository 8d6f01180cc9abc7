import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { envelopeSchema, event } from '../../domain/events';
import { InvalidCursorError, LeaseLostError, TERMINAL_STATUSES, TooManySessionsError, type SessionStatus } from '../../db/session-store';
import { transcriptEntries, transcriptMarkdown } from '../../domain/transcript';
import { estimateMinimumSessionCostUsd } from '../../domain/budget';
import { routingProblems, tierPrices } from '../../config/config';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf, idempotent, replyWith, type StoredResponse } from '../idempotency';
import { fieldProblem, HttpProblem, notFound, problemSchema } from '../problem';
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
import { checkpointSettingsSchema } from '../../domain/checkpoints';
import { linksFor, snapshotView, summaryView } from '../session-view';
import type { ApiDeps } from '../deps';

/** Retry-After of the active-session cap's 429. */
const SESSION_CAP_RETRY_AFTER_S = 30;

const problems = {
  400: { description: 'Invalid request; `errors` names each invalid field', schema: problemSchema },
  404: { description: 'No such session', schema: problemSchema },
};

export function sessionRoutes(deps: ApiDeps): RouteDef<any, any, any>[] {
  const { store, queue, config, log } = deps;

  /** Records the session within the tenant's cap and queues it: the work an Idempotency-Key makes run once. */
  const start = async (tenant: string, body: z.output<ReturnType<typeof createSessionBody>>): Promise<StoredResponse> => {
    const id = randomUUID();
    const cap = config.MAX_ACTIVE_SESSIONS_PER_TENANT;
    const session = {
      id,
      tenantId: tenant,
      problem: body.problem,
      context: body.context,
      options: {
        mode: body.mode,
        ...(body.mode === 'interactive' && { checkpoints: checkpointSettingsSchema.parse(body.checkpoints ?? {}) }),
        ...(body.budget_usd !== undefined && { budgetUsd: body.budget_usd }),
        ...(body.settings && { settings: body.settings }),
        ...(body.memory && { memory: body.memory }),
      },
      provider: deps.providerName,
      seed: body.seed ?? randomUUID(),
    };
    const created = event('session.created', { problem: body.problem, context: body.context, provider: deps.providerName, mode: body.mode });
    const row = await store.create(session, created, cap).catch((err: unknown) => {
      if (!(err instanceof TooManySessionsError)) throw err;
      throw new HttpProblem(
        429,
        'too-many-sessions',
        'Too many active sessions',
        `this tenant already has ${cap} active sessions (queued, running or awaiting input), the cap MAX_ACTIVE_SESSIONS_PER_TENANT=${cap}; wait for one to end or cancel one`,
        undefined,
        // When a slot frees is unknowable (a session runs for minutes, or waits on a person): a poll interval, not a promise.
        { 'Retry-After': String(SESSION_CAP_RETRY_AFTER_S) },
      );
    });
    // Postgres holds the session now: the enqueue waits at most a moment; if Redis is down the job is added
    // when it is back, or the worker's reconciler queues the session.
    await queue.enqueue(id, 'start').catch((err: Error) => log.warn({ err, sessionId: id }, 'enqueue did not complete; Redis or the reconciler will queue the session'));
    return { status: 202, body: { id, status: row.status, links: linksFor(id) }, headers: { Location: linksFor(id).self } };
  };

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
    handler: async ({ body, req, reply, tenant }) => {
      const key = idempotencyKeyOf(req);
      // A session may pick its models, but only among those this deployment can reach and price.
      const modelProblems = routingProblems(config, body.settings?.models);
      if (modelProblems.length) {
        throw new HttpProblem(422, 'unusable-models', 'Unusable models', `body.settings.models: ${modelProblems.join('; ')}`, modelProblems.map((message) => ({ field: 'body.settings.models', message })));
      }
      if (body.budget_usd !== undefined) {
        const minimum = estimateMinimumSessionCostUsd(body.problem.length + body.context.length, tierPrices(config));
        if (body.budget_usd < minimum) {
          throw new HttpProblem(
            422,
            'budget-too-small',
            'Budget too small',
            `body.budget_usd: $${body.budget_usd} cannot cover even the cheapest session (about $${minimum.toFixed(4)} with the configured models)`,
            [{ field: 'body.budget_usd', message: `must be at least ${minimum.toFixed(4)}` }],
          );
        }
      }
      const outcome = await idempotent({ db: deps.db, tenant, scope: 'createSession', key, body }, () => start(tenant, body));
      return replyWith(reply, outcome);
    },
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
        if (err instanceof InvalidCursorError) {
throw fieldProblem('query.cursor', err.message);
        }
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
      const row = await store.get(params.id, tenant);
      if (!row) throw notFound(`session ${params.id}`);
      const ended = () => new HttpProblem(409, 'already-ended', 'Session already ended', `session ${row.id} is already ${row.status}`);
      if (TERMINAL_STATUSES.has(row.status as SessionStatus)) throw ended();
      try {
        await store.commit(row.id, null, {
          events: [event('session.cancelled', { reason: 'cancelled by the client' })],
          patch: { status: 'cancelled', phase: 'cancelled', checkpoint: null, ended: true },
        });
      } catch (err) {
        // Finished between the read and the commit.
        if (err instanceof LeaseLostError) throw ended();
        throw err;
      }
      await deps.cancel(row.id).catch((err: Error) => log.warn({ err, sessionId: row.id }, 'cancel broadcast failed; the run stops at its next commit'));
      return { id: row.id, status: 'cancelled' as const, links: linksFor(row.id) };
    },
  });

  return [create, list, get, events, transcript, cancel];
}
