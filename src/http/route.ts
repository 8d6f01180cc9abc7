import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { fieldsProblem, HttpProblem, validationProblem } from './problem';
import { OPEN_CALLER } from './caller';
import { unstorableText } from './storable-text';

type AnyObject = z.ZodType<Record<string, unknown>>;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json (problem+json for 4xx/5xx). */
  contentType?: string;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** A realistic body, shown in the OpenAPI document. */
  example?: unknown;
}

export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The caller's tenant: every read and write of the handler is scoped to it. */
  tenant: string;
  req: FastifyRequest;
  reply: FastifyReply;
}

/**
 * A route described once: its zod schemas validate requests at run time and
 * generate the OpenAPI document, so the two cannot drift apart.
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** OpenAPI-style path: `/v1/sessions/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** A realistic request body, shown in the OpenAPI document. */
  bodyExample?: unknown;
  /** Request headers worth documenting (validated by the handler itself). */
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  responses: Record<number, ResponseSpec>;
  /** Who may call it, when not only an API key (the document's default): OpenAPI security requirements, any one of which suffices. */
  security?: Record<string, string[]>[];
  /** Serves Server-Sent Events (`@fastify/sse`, no Accept negotiation: errors before the first event are problem+json). */
  sse?: boolean;
  handler(input: Input<P, Q, B>): Promise<unknown>;
}

export const defineRoute = <P, Q, B>(def: RouteDef<P, Q, B>): RouteDef<P, Q, B> => def;

const parse = <T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T => {
  if (!schema) return undefined as T;
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw validationProblem(where, r.error);
  const unstorable = unstorableText(r.data);
  if (unstorable.length) throw fieldsProblem(where, unstorable);
  return r.data;
};

/** `/v1/sessions/{id}` → `/v1/sessions/:id`. */
export const fastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

export function registerRoute(app: FastifyInstance, def: RouteDef<any, any, any>): void {
  app.route({
    method: def.method,
    url: fastifyPath(def.path),
    ...(def.sse && { sse: { kind: 'manual' as const } }),
    handler: async (req, reply) => {
      const params = parse(def.params, req.params, 'params');
      const query = parse(def.query, req.query, 'query');
      if (def.body && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(req.headers['content-type'] ?? '')) {
        throw new HttpProblem('unsupported-media-type', 'send the body as application/json');
      }
      const body = def.body ? parse(def.body, req.body, 'body') : undefined;
      return def.handler({ params, query, body, tenant: (req.caller ?? OPEN_CALLER).tenantId, req, reply });
    },
  });
}

export type { AnyObject };
