import { randomUUID } from 'node:crypto';
import type { Envelope } from '../domain/events';
import { Backoff, DEFAULT_BACKOFF, sleep, type BackoffPolicy } from './backoff';

/** An RFC 9457 problem body, as the API sends with every 4xx/5xx. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  errors?: { field: string; message: string }[];
}

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

interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Safe to send again after a network error (GETs, and POSTs that carry an Idempotency-Key). */
  retry?: boolean;
  signal?: AbortSignal;
}

export interface Page {
  items: Envelope[];
  next_after: number;
  has_more: boolean;
}

export type Snapshot = Record<string, unknown> & { id: string; status: string; last_seq: number; usage?: { costUsd?: number; calls?: number } };

const RETRY_STATUSES = new Set([502, 503, 504]);

/** The bo1 HTTP API over Node's fetch: auth header, problem+json errors, retries with backoff. */
export class ApiClient {
  readonly baseUrl: string;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.url.replace(/\/+$/, '');
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.opts.key ? { authorization: `Bearer ${this.opts.key}` } : {}), ...extra };
  }

  /** Fetches once (no retry) and returns the raw response, whatever its status. */
  raw(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, { ...init, headers: this.headers(init.headers ?? {}) });
  }

  async request(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const backoff = new Backoff(this.opts.backoff ?? DEFAULT_BACKOFF);
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json, text/markdown', ...o.headers };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    for (;;) {
      let failure: unknown;
      try {
        const res = await this.raw(path, {
          method,
          headers,
          ...(o.body !== undefined && { body: JSON.stringify(o.body) }),
          ...(o.signal && { signal: o.signal }),
        });
        if (res.ok) return res;
        if (!(o.retry && RETRY_STATUSES.has(res.status))) throw await apiError(res);
        failure = await apiError(res);
      } catch (err) {
        if (err instanceof ApiError || o.signal?.aborted) throw err;
        failure = err;
      }
      const wait = o.retry ? backoff.next() : null;
      if (wait === null) throw new ConnectionError(`cannot reach ${this.baseUrl}: ${reason(failure)}`);
      this.opts.onRetry?.(`${method} ${path}`, failure, wait);
      await sleep(wait);
    }
  }

  async json<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    return (await (await this.request(method, path, o)).json()) as T;
  }

  createSession(body: Record<string, unknown>): Promise<{ id: string; status: string }> {
    // The Idempotency-Key makes a retry after a dropped connection safe: the server replays the first answer.
    return this.json('POST', '/v1/sessions', { body, headers: { 'idempotency-key': randomUUID() }, retry: true });
  }

  session(id: string): Promise<Snapshot> {
    return this.json('GET', `/v1/sessions/${id}`, { retry: true });
  }

  events(id: string, after: number, limit = 1000): Promise<Page> {
    return this.json('GET', `/v1/sessions/${id}/events?after=${after}&limit=${limit}`, { retry: true });
  }

  async transcript(id: string, format: string, verbosity: string): Promise<string> {
    const res = await this.request('GET', `/v1/sessions/${id}/transcript?format=${format}&verbosity=${verbosity}`, { retry: true });
    return format === 'json' ? `${JSON.stringify(await res.json(), null, 2)}\n` : res.text();
  }

  cancel(id: string): Promise<{ id: string; status: string }> {
    // A repeated cancel answers 409 "already ended", never a second cancellation.
    return this.json('POST', `/v1/sessions/${id}/cancel`, { retry: true });
  }

  /** One answer to one checkpoint: the same key on every retry, so the server applies it once. */
  resolveCheckpoint(id: string, checkpointId: string, body: Record<string, unknown>): Promise<{ action?: string; status?: string }> {
    return this.json('POST', `/v1/sessions/${id}/checkpoints/${encodeURIComponent(checkpointId)}/resolve`, {
      body,
      headers: { 'idempotency-key': randomUUID() },
      retry: true,
    });
  }
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
