import type { Envelope } from './events';

/** RFC 9457 problem details, as every API error is. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
  ) {
    super(problem ? `${problem.title}: ${problem.detail}` : `HTTP ${status}`);
  }
}

const KEY_STORAGE = 'bo1.apiKey';

export interface StreamToken {
  token: string;
  expires_at: string;
  expires_in: number;
  stream: string;
}

export interface SessionSummary {
  id: string;
  status: string;
  problem: string;
  created_at: string;
}

/**
 * The API, same origin. The key (when the API needs one) is kept in this
 * tab's sessionStorage only: it is gone when the tab closes, and it is never
 * put in a URL — the stream gets a short-lived stream token instead.
 */
export class Api {
  private key: string | null = readKey();

  /** `base`: the API's origin; the page leaves it empty (same origin), a test outside a browser names it. */
  constructor(readonly base = '') {}

  /** An API path (or a link the API returned) as a URL fetch can use. */
  url(path: string): string {
    return this.base + path;
  }

  hasKey(): boolean {
    return this.key !== null;
  }

  setKey(key: string | null): void {
    this.key = key?.trim() || null;
    try {
      if (this.key) sessionStorage.setItem(KEY_STORAGE, this.key);
      else sessionStorage.removeItem(KEY_STORAGE);
    } catch {
      // Storage can be off (privacy modes): the key then lasts as long as the page.
    }
  }

  async request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await this.fetch(method, path, body, headers);
    const type = res.headers.get('content-type') ?? '';
    return (type.includes('json') ? await res.json() : await res.text()) as T;
  }

  /** A response that is OK, or an ApiError carrying the problem. */
  async fetch(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(this.url(path), {
      method,
      headers: {
        ...(this.key && { authorization: `Bearer ${this.key}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new ApiError(res.status, await problemOf(res));
    return res;
  }

  createSession(body: Record<string, unknown>) {
    return this.request<{ id: string }>('POST', '/v1/sessions', body, { 'idempotency-key': crypto.randomUUID() });
  }

  listSessions(limit = 10) {
    return this.request<{ items: SessionSummary[] }>('GET', `/v1/sessions?limit=${limit}`);
  }

  events(id: string, after: number) {
    return this.request<{ items: Envelope[]; has_more: boolean }>('GET', `/v1/sessions/${id}/events?after=${after}&limit=1000`);
  }

  resolve(id: string, checkpointId: string, body: Record<string, unknown>) {
    return this.request('POST', `/v1/sessions/${id}/checkpoints/${encodeURIComponent(checkpointId)}/resolve`, body, {
      'idempotency-key': crypto.randomUUID(),
    });
  }

  cancel(id: string) {
    return this.request('POST', `/v1/sessions/${id}/cancel`);
  }

  transcript(id: string) {
    return this.request<string>('GET', `/v1/sessions/${id}/transcript`);
  }

  streamToken(id: string) {
    return this.request<StreamToken>('POST', `/v1/sessions/${id}/stream-token`);
  }
}

function readKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export async function problemOf(res: Response): Promise<Problem | null> {
  try {
    const body = (await res.json()) as Problem;
    return typeof body?.detail === 'string' ? body : null;
  } catch {
    return null;
  }
}

/** One line a person can act on: the problem's detail, each invalid field named. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError && err.problem) {
    const fields = err.problem.errors?.map((e) => `${e.field}: ${e.message}`) ?? [];
    return fields.length ? fields.join('; ') : err.problem.detail;
  }
  return err instanceof Error ? err.message : String(err);
}
