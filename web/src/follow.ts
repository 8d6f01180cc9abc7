import { createParser } from 'eventsource-parser';
import { ApiError, problemOf, type Api, type StreamToken } from './api';
import { CLOSING_EVENT, TERMINAL_EVENTS, type Envelope } from './events';

/** The key was refused when minting a stream token: the person must give one. */
class KeyRefused extends ApiError {
  constructor(err: ApiError) {
    super(err.status, err.problem);
  }
}

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface FollowOptions {
  api: Api;
  sessionId: string;
  /** The last seq already shown: every (re)connection resumes after it. */
  lastSeq(): number;
  onEvent(e: Envelope): void;
  onConnection(state: Connection, detail?: string, status?: number): void;
  /** Waits between reconnects, for tests; the server's `retry:` wins once it has sent one. */
  retryMs?: number;
}

/** A token is renewed this long before it expires, so a reconnect never presents one at the edge. */
const RENEW_MARGIN_MS = 15_000;
const MAX_BACKOFF_MS = 15_000;

/**
 * Follows a session's stream until it ends. Reads it with fetch rather than
 * EventSource: an EventSource delivers only the event types it subscribed to
 * by name, and this viewer must also show types it does not know yet; with
 * fetch it also sends `Last-Event-ID` itself on every reconnect. Auth is the
 * browser-safe stream token (minted with the key, reused until it nears its
 * expiry), so the key never rides on the long-lived connection.
 * Duplicates are the caller's to drop (by seq): a reconnect resumes after
 * `lastSeq()`, but an event can still arrive twice across a cut.
 */
export function follow(opts: FollowOptions): { stop(): void } {
  const abort = new AbortController();
  let token: StreamToken | null = null;
  let tokenUntil = 0;
  let retryMs = opts.retryMs ?? 2000;
  let failures = 0;
  let refusedTokens = 0;

  const freshToken = async (): Promise<StreamToken> => {
    if (!token || Date.now() > tokenUntil) {
      try {
        token = await opts.api.streamToken(opts.sessionId);
      } catch (err) {
        // The key itself was refused (or is missing): no retry will change that.
        if (err instanceof ApiError && err.status === 401) throw new KeyRefused(err);
        throw err;
      }
      tokenUntil = Date.now() + token.expires_in * 1000 - RENEW_MARGIN_MS;
    }
    return token;
  };

  /** One connection: resolves true when the session has ended (nothing more will come). */
  const connectOnce = async (): Promise<boolean> => {
    const { stream } = await freshToken();
    const after = opts.lastSeq();
    const res = await fetch(opts.api.url(stream), {
      headers: { accept: 'text/event-stream', ...(after > 0 && { 'last-event-id': String(after) }) },
      signal: abort.signal,
      cache: 'no-store',
    });
    // 204: the session has ended and nothing follows what is shown.
    if (res.status === 204) return true;
    if (res.status === 401) {
      // Expired between mint and use: mint again on the next try (refused twice in a row, it is given up).
      token = null;
      refusedTokens++;
      throw new ApiError(401, await problemOf(res));
    }
    if (!res.ok || !res.body) throw new ApiError(res.status, await problemOf(res));
    opts.onConnection('live');
    failures = 0;
    refusedTokens = 0;
    let ended = false;
    const parser = createParser({
      onEvent(msg) {
        if (msg.event === CLOSING_EVENT) return; // the server is draining: the stream ends next, and we reconnect
        if (!msg.data) return;
        const e = JSON.parse(msg.data) as Envelope;
        opts.onEvent(e);
        if (TERMINAL_EVENTS.has(e.type)) ended = true;
      },
      onRetry(ms) {
        retryMs = ms;
      },
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
    return ended;
  };

  void (async () => {
    opts.onConnection('connecting');
    while (!abort.signal.aborted) {
      try {
        if (await connectOnce()) return opts.onConnection('ended');
      } catch (err) {
        if (abort.signal.aborted) return;
        // A request the server refuses for good (bad id, no such session, a key it does not take) is not retried.
        if (err instanceof KeyRefused || (err instanceof ApiError && [400, 403, 404].includes(err.status))) {
          return opts.onConnection('failed', (err as ApiError).message, (err as ApiError).status);
        }
        if (err instanceof ApiError && err.status === 401 && refusedTokens > 1) return opts.onConnection('failed', err.message, 401);
        failures++;
      }
      if (abort.signal.aborted) return;
      opts.onConnection('reconnecting');
      const wait = Math.min(MAX_BACKOFF_MS, retryMs * 2 ** Math.max(0, failures - 1));
      await new Promise((r) => setTimeout(r, wait));
    }
  })();

  return { stop: () => abort.abort() };
}
