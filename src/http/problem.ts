import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isDatabaseUnavailable } from '../db/unavailable';

/** RFC 9457 problem details: the body of every 4xx and 5xx. */
export const problemSchema = z
  .object({
    type: z.string().describe('A URI identifying the kind of problem'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .describe('For validation problems: every invalid field, by its path'),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof problemSchema>;

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    readonly detail: string,
    readonly errors?: Problem['errors'],
    /** Response headers the problem needs (WWW-Authenticate, Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }
}

export const notFound = (what: string) => new HttpProblem(404, 'not-found', 'Not Found', `${what} does not exist`);

/** Turns a zod error into a 400 that names each field (`body.problem`, `query.limit`, …). */
export function validationProblem(where: string, err: z.ZodError): HttpProblem {
  return fieldsProblem(where, err.issues);
}

/** A 400 listing each invalid field, given issues with a path below `where` (`body`, `query`, …). */
export function fieldsProblem(where: string, issues: { path: readonly PropertyKey[]; message: string }[]): HttpProblem {
  const errors = issues.map((i) => ({
    field: [where, ...i.path.map(String)].join('.'),
    message: i.message,
  }));
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new HttpProblem(400, 'validation-error', 'Invalid request', detail, errors);
}

/** A 400 naming one invalid field (headers, cursors: what zod does not parse for the route). */
export const fieldProblem = (field: string, message: string) =>
  new HttpProblem(400, 'validation-error', 'Invalid request', `${field}: ${message}`, [{ field, message }]);

export function sendProblem(reply: FastifyReply, req: FastifyRequest, p: HttpProblem): FastifyReply {
  const body: Problem = {
    type: `urn:bo1:problem:${p.slug}`,
    title: p.title,
    status: p.status,
    detail: p.detail,
    instance: req.url,
    ...(p.errors && { errors: p.errors }),
  };
  if (p.headers) reply.headers(p.headers);
  return reply.code(p.status).type('application/problem+json').send(body);
}

/** Seconds a client is told to wait when Postgres is down: long enough for a restart or failover, short enough to notice recovery. */
export const DATABASE_RETRY_AFTER_S = 5;

/** Maps whatever a handler or Fastify threw to a problem; unknown errors become an opaque 500. */
export function toProblem(err: FastifyError | Error): HttpProblem {
  if (err instanceof HttpProblem) return err;
  const fe = err as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new HttpProblem(400, 'malformed-json', 'Malformed JSON', `the request body is not valid JSON: ${fe.message}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpProblem(400, 'malformed-json', 'Malformed JSON', 'the request body is empty but declared as JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpProblem(413, 'payload-too-large', 'Payload Too Large', fe.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpProblem(415, 'unsupported-media-type', 'Unsupported Media Type', 'send the body as application/json');
  }
  if (isDatabaseUnavailable(err)) {
    return new HttpProblem(503, 'database-unavailable', 'Service Unavailable', 'the database cannot be reached right now; retry after the Retry-After interval', undefined, {
      'Retry-After': String(DATABASE_RETRY_AFTER_S),
    });
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new HttpProblem(fe.statusCode, 'bad-request', 'Bad Request', fe.message);
  }
  return new HttpProblem(500, 'internal', 'Internal Server Error', 'the server failed to handle the request; it has been logged');
}
