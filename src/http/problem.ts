import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isDatabaseUnavailable } from '../db/unavailable';
import { AppError, fieldError, type AppErrorCode } from '../domain/errors';
import { redactUrl } from './redact';

/** Seconds a client is told to wait when Postgres is down: long enough for a restart or failover, short enough to notice recovery. */
export const DATABASE_RETRY_AFTER_S = 5;
/** Retry-After of the active-session cap's 429: when a slot frees is unknowable (a session runs for minutes, or waits on a person), so a poll interval, not a promise. */
export const SESSION_CAP_RETRY_AFTER_S = 30;

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

/**
 * Every kind of problem the API answers, by slug (`urn:bo1:problem:<slug>`):
 * its status, title and, where the wait is fixed, Retry-After. The one place
 * an error becomes HTTP: an AppError whose code is a slug here is that
 * problem; any other code (lease-lost, tenancy, invalid-cursor: handled by
 * the app, or a bug) is an opaque 500.
 */
export const PROBLEMS = {
  // Thrown by use-cases and stores as AppError.
  'not-found': { status: 404, title: 'Not Found' },
  'validation-error': { status: 400, title: 'Invalid request' },
  'too-many-sessions': { status: 429, title: 'Too many active sessions', retryAfterS: SESSION_CAP_RETRY_AFTER_S },
  'budget-too-small': { status: 422, title: 'Budget too small' },
  'unusable-models': { status: 422, title: 'Unusable models' },
  'already-ended': { status: 409, title: 'Session already ended' },
  'checkpoint-not-pending': { status: 409, title: 'Checkpoint not pending' },
  'checkpoint-expired': { status: 409, title: 'Checkpoint expired' },
  'checkpoint-action-invalid': { status: 422, title: 'Answer does not fit this checkpoint' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused' },
  'idempotency-in-progress': { status: 409, title: 'Request in progress', retryAfterS: 1 },
  'memory-unavailable': { status: 503, title: 'Memory unavailable' },
  // Raised by the HTTP layer itself: the framework, the process, auth and limits.
  'database-unavailable': { status: 503, title: 'Service Unavailable', retryAfterS: DATABASE_RETRY_AFTER_S },
  'shutting-down': { status: 503, title: 'Service Unavailable', retryAfterS: 1 },
  'stream-tokens-unavailable': { status: 503, title: 'Service Unavailable', retryAfterS: 1 },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'rate-limited': { status: 429, title: 'Too Many Requests' },
  'malformed-json': { status: 400, title: 'Malformed JSON' },
  'payload-too-large': { status: 413, title: 'Payload Too Large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type' },
  'bad-request': { status: 400, title: 'Bad Request' },
  'bad-url': { status: 400, title: 'Bad Request' },
  'uri-too-long': { status: 414, title: 'URI Too Long' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed' },
  'request-timeout': { status: 408, title: 'Request Timeout' },
  'headers-too-large': { status: 431, title: 'Request Header Fields Too Large' },
  internal: { status: 500, title: 'Internal Server Error' },
} as const satisfies Record<string, { status: number; title: string; retryAfterS?: number }>;

export type ProblemSlug = keyof typeof PROBLEMS;
/** AppError codes the app handles itself: reaching HTTP, they are a bug. */
type InternalCode = 'lease-lost' | 'tenancy' | 'invalid-cursor';
// Every other code must have its row: a new code without one fails to compile here.
const codesHaveRows: Exclude<AppErrorCode, InternalCode> extends ProblemSlug ? true : never = true;
void codesHaveRows;

const isSlug = (code: string): code is ProblemSlug => Object.hasOwn(PROBLEMS, code);

export class HttpProblem extends Error {
  readonly status: number;
  readonly title: string;
  readonly errors?: Problem['errors'];
  /** Response headers the problem needs (WWW-Authenticate, Retry-After, Allow). */
  readonly headers?: Record<string, string>;

  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    /** `status` overrides the table's for the one slug whose status varies (a framework 4xx as bad-request). */
    opts: { errors?: Problem['errors']; headers?: Record<string, string>; status?: number } = {},
  ) {
    super(detail);
    const kind: { status: number; title: string; retryAfterS?: number } = PROBLEMS[slug];
    this.status = opts.status ?? kind.status;
    this.title = kind.title;
    if (opts.errors) this.errors = opts.errors;
    const headers = { ...(kind.retryAfterS !== undefined && { 'Retry-After': String(kind.retryAfterS) }), ...opts.headers };
    if (Object.keys(headers).length) this.headers = headers;
  }
}

export const notFound = (what: string) => new HttpProblem('not-found', `${what} does not exist`);

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
  return new HttpProblem('validation-error', detail, { errors });
}

/** A 400 naming one invalid field (headers, cursors: what zod does not parse for the route). */
export const fieldProblem = (field: string, message: string) => toProblem(fieldError(field, message));

export function sendProblem(reply: FastifyReply, req: FastifyRequest, p: HttpProblem): FastifyReply {
  const body: Problem = {
    type: `urn:bo1:problem:${p.slug}`,
    title: p.title,
    status: p.status,
    detail: p.detail,
    // Without a stream token's value: a problem body is shown and logged by clients.
    instance: redactUrl(req.url),
    ...(p.errors && { errors: p.errors }),
  };
  if (p.headers) reply.headers(p.headers);
  return reply.code(p.status).type('application/problem+json').send(body);
}

/** Maps whatever a handler or Fastify threw to a problem; unknown errors become an opaque 500. */
export function toProblem(err: FastifyError | Error): HttpProblem {
  if (err instanceof HttpProblem) return err;
  if (err instanceof AppError) {
    return isSlug(err.code) ? new HttpProblem(err.code, err.message, err.errors ? { errors: err.errors } : {}) : internal();
  }
  const fe = err as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new HttpProblem('malformed-json', `the request body is not valid JSON: ${fe.message}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpProblem('malformed-json', 'the request body is empty but declared as JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpProblem('payload-too-large', fe.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpProblem('unsupported-media-type', 'send the body as application/json');
  }
  if (isDatabaseUnavailable(err)) {
    return new HttpProblem('database-unavailable', 'the database cannot be reached right now; retry after the Retry-After interval');
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new HttpProblem('bad-request', fe.message, { status: fe.statusCode });
  }
  return internal();
}

const internal = () => new HttpProblem('internal', 'the server failed to handle the request; it has been logged');
