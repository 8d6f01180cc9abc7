import { z } from 'zod';
import { envelopeSchema, eventDataSchemas } from '../domain/events';
import { problemSchema } from './problem';
import { isApiUrl } from './auth';
import { STREAM_TOKEN_PARAM } from './redact';
import type { RouteDef } from './route';

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 (what OpenAPI 3.1 uses), with zod's $defs hoisted into components. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: Json): Json {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  const text = JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/');
  const { $schema: _s, $defs, ...rest } = JSON.parse(text) as Json & { $defs?: Json };
  Object.assign(components, $defs ?? {});
  return rest;
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query', components: Json): Json[] {
  if (!schema) return [];
  const js = schemaOf(schema, 'input', components) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    ...(typeof s.description === 'string' && { description: s.description }),
    schema: s,
  }));
}

const problemRef = { $ref: '#/components/schemas/Problem' };
const retryAfter = { description: 'Seconds until a retry can succeed', schema: { type: 'integer' } };

/** What auth, the rate limiter and a database outage can answer on any /v1 operation. */
const API_RESPONSES: Json = {
  401: {
    description: 'Missing, unknown or revoked API key',
    headers: { 'WWW-Authenticate': { description: '`Bearer realm="bo1"`', schema: { type: 'string' } } },
    content: { 'application/problem+json': { schema: problemRef } },
  },
  429: {
    description: 'Rate limited (`RATE_LIMIT_PER_MINUTE` per key, or per client IP in open mode)',
    headers: {
      'Retry-After': retryAfter,
      'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
      'RateLimit-Remaining': { description: 'Requests left in this window', schema: { type: 'integer' } },
      'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
    },
    content: { 'application/problem+json': { schema: problemRef } },
  },
  503: {
    description: 'The database cannot be reached right now (`database-unavailable`); retry after `Retry-After`',
    headers: { 'Retry-After': retryAfter },
    content: { 'application/problem+json': { schema: problemRef } },
  },
};

const eventName = (type: string) => type.replace(/\W/g, '_');

/**
 * The event log's types: the generic envelope, each event type's `data`
 * (`Event_<type>`), and `StreamEvent` — one envelope per type, its `type`
 * fixed and its `data` typed — which the stream's response refers to.
 */
function addEventSchemas(components: Json): void {
  components.EventEnvelope = schemaOf(envelopeSchema, 'output', components);
  const envelopes: Json[] = [];
  for (const [type, schema] of Object.entries(eventDataSchemas)) {
    const name = `Event_${eventName(type)}`;
    components[name] = { ...schemaOf(schema as z.ZodType, 'output', components), description: `\`data\` of a \`${type}\` event` };
    envelopes.push({
      title: type,
      allOf: [
        { $ref: '#/components/schemas/EventEnvelope' },
        { type: 'object', properties: { type: { const: type }, data: { $ref: `#/components/schemas/${name}` } } },
      ],
    });
  }
  components.StreamEvent = {
    description:
      'What one Server-Sent Event carries in its `data:` line (its `event:` is the same `type`, its `id:` the `seq`). The stream-level `stream.closing` event (no `id:`, data `{"reason","reconnect"}`) is not part of the log.',
    oneOf: envelopes,
  };
}

// One event's `data:` (the schema's subject); the wire format around it is in the stream route's description.
const SSE_EXAMPLE = {
  seq: 1,
  type: 'session.created',
  session_id: '3b17c0de-5b7a-4c4e-9d0f-2a1e8f6c9b10',
  ts: '2026-11-22T10:00:00.000Z',
  data: { problem: 'Should I pivot to law firms?', context: '', provider: 'simulated', mode: 'auto' },
};

export interface DocInfo {
  title: string;
  version: string;
  description: string;
}

export function buildOpenApi(routes: RouteDef<any, any, any>[], info: DocInfo): Json {
  const components: Json = {};
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const responses: Json = {};
    for (const [status, spec] of Object.entries(r.responses)) {
      const type = spec.contentType ?? (Number(status) >= 400 ? 'application/problem+json' : 'application/json');
      const schema = spec.schema ? schemaOf(spec.schema, 'output', components) : undefined;
      // An SSE response's body is a sequence of events: documented as the union of what one event's `data:` holds.
      const sseSchema = r.sse && type === 'text/event-stream' && !schema ? { $ref: '#/components/schemas/StreamEvent' } : undefined;
      responses[status] = {
        description: spec.description,
        ...(spec.headers && { headers: spec.headers }),
        ...((schema || spec.contentType) && {
          content: {
            [type]: {
              ...((schema ?? sseSchema) && { schema: schema ?? sseSchema }),
              ...(sseSchema && { example: SSE_EXAMPLE }),
              ...(spec.example !== undefined && { example: spec.example }),
            },
          },
        }),
      };
    }
    const headerParams = Object.entries(r.headers ?? {}).map(([name, h]) => ({ name, in: 'header', required: false, ...h }));
    // Route-specific 401/429/503 descriptions win; the generic ones fill in. Non-API routes need no key.
    const api = isApiUrl(r.path);
    if (api) for (const [status, spec] of Object.entries(API_RESPONSES)) responses[status] ??= spec;
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.description && { description: r.description }),
      tags: r.tags,
      parameters: [...parametersOf(r.params, 'path', components), ...parametersOf(r.query, 'query', components), ...headerParams],
      ...(r.body && {
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: schemaOf(r.body, 'input', components), ...(r.bodyExample !== undefined && { example: r.bodyExample }) },
          },
        },
      }),
      responses,
      ...(!api && { security: [] }),
      ...(api && r.security && { security: r.security }),
    };
  }
  // Problem has its own id (zod meta): schemaOf hoists its definition into the components and returns a $ref
  // to it, so the result must not be stored under the same name (that made Problem a $ref to itself).
  schemaOf(problemSchema, 'output', components);
  addEventSchemas(components);
  return {
    openapi: '3.1.0',
    info,
    // Relative: the server that serves this document (so /docs works wherever the API runs).
    servers: [{ url: '/', description: 'The server that serves this document' }],
    paths,
    security: [{ bearerAuth: [] }],
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key from `npm run keys -- create --tenant <t> --name <n>`, sent as `Authorization: Bearer bo1_…`; it decides the tenant. In open mode (no active keys and AUTH_MODE=auto, or AUTH_MODE=open) a request without one is served as tenant `default`.',
        },
        streamToken: {
          type: 'apiKey',
          in: 'query',
          name: STREAM_TOKEN_PARAM,
          description:
            "For browsers, whose EventSource cannot send `Authorization`: a short-lived token from `POST /v1/sessions/{id}/stream-token`, accepted by that session's `GET /v1/sessions/{id}/stream` only. It proves the tenant of the key that minted it; it is never logged.",
        },
      },
    },
  };
}
