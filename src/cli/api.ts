import { randomUUID } from 'node:crypto';
import { Backoff, DEFAULT_BACKOFF, sleep, type BackoffPolicy } from './backoff';
import {
  OPERATIONS,
  createClient,
  type CancelSessionResult,
  type CheckpointResolution,
  type CheckpointResolved,
  type CreateSessionBody,
  type EventEnvelope,
  type ListSessionEventsResult,
  type OperationId,
  type OperationPath,
  type OperationTag,
  type Ops,
  type Problem as ProblemBody,
  type Result,
  type SessionCreated,
  type SessionSnapshot,
} from './generated/bo1-client';

/**
 * The console's request and response types are the generated client's
 * (src/cli/generated/bo1-client.ts, from openapi.yaml): a route that changes
 * shape fails the typecheck here instead of misbehaving at a prompt.
 */
export type Envelope = EventEnvelope;
export type Snapshot = SessionSnapshot;
export type Page = ListSessionEventsResult;
/** An RFC 9457 problem body; every field optional, as a proxy or an older server may send less. */
export type Problem = Partial<ProblemBody>;

/** The API answered with an error status; `message` is one readable line. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    message: string,
  ) {
    super(message);
  }
}

/** The API could not be reached, even after retrying. */
export class ConnectionError extends Error {}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** `404 Not Found: session … does not exist`, with field errors the detail does not already name. */
export function describeProblem(status: number, problem: Problem | null, body = ''): string {
  if (!problem) return oneLine(`${status} ${body || 'error'}`).slice(0, 300);
  const detail = problem.detail ?? '';
  const missing = (problem.errors ?? []).filter((e) => !detail.includes(e.field)).map((e) => `${e.field}: ${e.message}`);
  const parts = [detail, ...missing].filter(Boolean).join('; ');
  return oneLine(`${status} ${problem.title ?? 'Error'}${parts ? `: ${parts}` : ''}`);
}

export interface ClientOptions {
  url: string;
  key?: string | undefined;
  backoff?: BackoffPolicy;
  /** Told about each retry, so a waiting user knows why nothing happens. */
  onRetry?: (what: string, err: unknown, waitMs: number) => void;
}

const RETRY_STATUSES = new Set([502, 503, 504]);
/** Every call asks for JSON, a problem or Markdown, whatever the operation reads. */
const ACCEPT = 'application/json, application/problem+json, text/markdown';

/**
 * The bo1 HTTP API for the console: the generated client makes each request
 * (paths, query, bodies and their types); this adds what a person at a
 * terminal needs from it — retries with backoff for as long as
 * BO1_RETRY_FOR_MS, each one announced, and errors as one readable line.
 */
export class ApiClient {
  readonly baseUrl: string;
  private readonly api;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.url.replace(/\/+$/, '');
    this.api = createClient<Ops, OperationId, OperationPath, OperationTag>(OPERATIONS, {
      serverUrl: this.baseUrl,
      errorMode: 'result',
      // The retries below give up after a time, not a count, and say why they wait: the client's own stay off.
      retry: { retries: 0 },
      clientHeader: false,
      ...(opts.key ? { auth: { bearer: opts.key } } : {}),
    });
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.opts.key ? { authorization: `Bearer ${this.opts.key}` } : {}), ...extra };
  }

  /** Fetches once (no retry) and returns the raw response, whatever its status: the SSE stream, which follow.ts resumes itself. */
  raw(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, { ...init, headers: this.headers(init.headers ?? {}) });
  }

  /**
   * One logical call, sent again after a network error or a 502/503/504 until
   * the backoff gives up. Only calls that are safe to repeat come here: reads,
   * and POSTs that carry one Idempotency-Key on every attempt.
   */
  private async call<T>(what: string, attempt: (init: { headers: Record<string, string> }) => Promise<Result<T, unknown>>): Promise<T> {
    const backoff = new Backoff(this.opts.backoff ?? DEFAULT_BACKOFF);
    for (;;) {
      let failure: unknown;
      try {
        const r = await attempt({ headers: { accept: ACCEPT } });
        if (r.response.ok) return r.data as T;
        const err = toApiError(r.response.status, r.error);
        if (!RETRY_STATUSES.has(r.response.status)) throw err;
        failure = err;
      } catch (err) {
        if (err instanceof ApiError) throw err;
        failure = err;
      }
      const wait = backoff.next();
      if (wait === null) throw new ConnectionError(`cannot reach ${this.baseUrl}: ${reason(failure)}`);
      this.opts.onRetry?.(what, failure, wait);
      await sleep(wait);
    }
  }

  createSession(body: CreateSessionBody): Promise<SessionCreated> {
    // One Idempotency-Key for every attempt makes a retry after a dropped connection safe: the server replays the first answer.
    const idempotencyKey = randomUUID();
    return this.call('POST /v1/sessions', (init) => this.api.createSession({ body }, { ...init, idempotencyKey }));
  }

  session(id: string): Promise<Snapshot> {
    return this.call(`GET /v1/sessions/${id}`, (init) => this.api.getSession({ path: { id } }, init));
  }

  events(id: string, after: number, limit = 1000): Promise<Page> {
    return this.call(`GET /v1/sessions/${id}/events`, (init) => this.api.listSessionEvents({ path: { id }, query: { after, limit } }, init));
  }

  async transcript(id: string, format: 'markdown' | 'json', verbosity: 'concise' | 'standard' | 'detailed'): Promise<string> {
    const text = await this.call(`GET /v1/sessions/${id}/transcript`, (init) =>
      this.api.getTranscript({ path: { id }, query: { format, verbosity } }, { ...init, parseAs: 'text' }),
    );
    // JSON comes back compact: printed indented, for a person (and diff) to read.
    return format === 'json' ? `${JSON.stringify(JSON.parse(text) as unknown, null, 2)}\n` : text;
  }

  cancel(id: string): Promise<CancelSessionResult> {
    // A repeated cancel answers 409 "already ended", never a second cancellation.
    return this.call(`POST /v1/sessions/${id}/cancel`, (init) => this.api.cancelSession({ path: { id } }, init));
  }

  /** One answer to one checkpoint: the same key on every retry, so the server applies it once. */
  resolveCheckpoint(id: string, checkpointId: string, body: CheckpointResolution): Promise<CheckpointResolved> {
    const idempotencyKey = randomUUID();
    return this.call(`POST /v1/sessions/${id}/checkpoints/${checkpointId}/resolve`, (init) =>
      this.api.resolveCheckpoint({ path: { id, checkpoint_id: checkpointId }, body }, { ...init, idempotencyKey }),
    );
  }
}

/** A problem+json body (parsed by the generated client) or any other text, as an ApiError. */
function toApiError(status: number, body: unknown): ApiError {
  const problem = body && typeof body === 'object' ? (body as Problem) : null;
  return new ApiError(status, problem, describeProblem(status, problem, typeof body === 'string' ? body : ''));
}

export async function apiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let problem: Problem | null = null;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') problem = parsed as Problem;
  } catch {
    // Not JSON (a proxy's HTML page): described by its status and text.
  }
  return new ApiError(res.status, problem, describeProblem(res.status, problem, text));
}

/** The most specific reason a fetch failed (`connect ECONNREFUSED 127.0.0.1:3000` rather than `fetch failed`). */
export function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error && cause.message ? cause.message : err.message;
}
