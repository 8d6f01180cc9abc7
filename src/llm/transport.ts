/**
 * What the SDK-backed adapters share below their SDKs: counting transport
 * attempts, vetoing retries of out-of-money 429s, and turning an HTTP status
 * into the port's error kind. Each SDK keeps its own retry loop (honouring
 * `retry-after`); these only inform it and classify what it gives up on.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { LlmErrorKind } from '../ports/llm';

export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

interface ErrorEnvelope {
  error?: { type?: unknown; code?: unknown; message?: unknown; details?: { error_code?: unknown } };
}

/**
 * True when an error body says the account is out of money or quota: waiting
 * won't help, so never retry. Reads both envelopes: Anthropic's
 * (`billing_error`, a spend-limit `error_code` or message) and OpenAI's
 * (`insufficient_quota` as type or code), which OpenAI-compatible gateways copy.
 */
export function isSpendLimitBody(body: unknown): boolean {
  const err = (body as ErrorEnvelope | null)?.error;
  if (!err) return false;
  for (const tag of [err.type, err.code, err.details?.error_code]) {
    if (typeof tag === 'string' && /billing|spend_limit|insufficient_quota/i.test(tag)) return true;
  }
  return typeof err.message === 'string' && /spend|credit|billing|usage limit|exceeded your current quota/i.test(err.message);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const agents = new Map<number, Agent>();

/**
 * A fetch whose only deadline is the SDK's own timeout. Node's built-in fetch
 * gives up on response headers after 300 s whatever the SDK was told, so a
 * long non-streamed answer (or a person answering through the model relay)
 * failed at five minutes with `ANTHROPIC_TIMEOUT_MS` set to an hour. One
 * connection pool per timeout, shared by every client.
 */
export function patientFetch(timeoutMs: number): FetchFn {
  let agent = agents.get(timeoutMs);
  if (!agent) agents.set(timeoutMs, (agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs })));
  const dispatcher = agent;
  return (input, init) => undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;
}

/** Where a call's attempt counter rides in the fetch init (both SDKs spread a request's `fetchOptions` into it). */
const ON_ATTEMPT = Symbol('bo1.onAttempt');

/**
 * A request's `fetchOptions` that count its attempts: the SDKs call fetch once
 * per attempt with them, so one client serves every call and each still knows
 * its own count (a client per call, to give each its own fetch wrapper, cost
 * 4% of a worker's CPU in building the SDK's API resources).
 */
export const countingAttempts = <Init extends object>(onAttempt: () => void): Init => ({ [ON_ATTEMPT]: onAttempt }) as unknown as Init;

/**
 * Wraps fetch to count transport attempts (see countingAttempts) and to mark
 * spend-limit 429s with `x-should-retry: false`, which both SDKs' shouldRetry
 * obey before their status-based rules.
 */
export function guardedFetch(base: FetchFn): FetchFn {
  return async (input, init) => {
    (init as Record<symbol, (() => void) | undefined> | undefined)?.[ON_ATTEMPT]?.();
    const res = await base(input, init);
    if (res.status !== 429) return res;
    const text = await res.text();
    const headers = new Headers(res.headers);
    // The body is already decoded; stale framing headers would lie about it.
    headers.delete('content-encoding');
    headers.delete('content-length');
    if (isSpendLimitBody(parseJson(text))) headers.set('x-should-retry', 'false');
    return new Response(text, { status: res.status, statusText: res.statusText, headers });
  };
}

/** The port's error kind for an HTTP status the SDK gave up on (its retries are spent or it never retries it). */
export function kindOfStatus(status: number, body: unknown): { kind: LlmErrorKind; retryable: boolean } {
  if (status === 429) return isSpendLimitBody(body) ? { kind: 'spend_limit', retryable: false } : { kind: 'rate_limited', retryable: true };
  if (status === 402) return { kind: 'spend_limit', retryable: false };
  if (status === 529) return { kind: 'overloaded', retryable: true };
  if (status >= 500 || status === 408 || status === 409) return { kind: 'server', retryable: true };
  if (status === 401 || status === 403) return { kind: 'auth', retryable: false };
  return { kind: 'bad_request', retryable: false };
}
