import { TERMINAL_EVENTS } from '../domain/events';
import { ApiError, ConnectionError, apiError, reason, type ApiClient, type Envelope } from './api';
import { Backoff, DEFAULT_BACKOFF, sleep, type BackoffPolicy } from './backoff';
import { SseParser } from './sse';

/** The stream-level event a shutting-down server sends (no id, not in the log): reconnect. */
const CLOSING = 'stream.closing';
const TERMINAL_STATUS: Record<string, string> = {
  'session.completed': 'completed',
  'session.failed': 'failed',
  'session.cancelled': 'cancelled',
};
const ENDED = new Set(Object.values(TERMINAL_STATUS));

export interface FollowOptions {
  client: ApiClient;
  sessionId: string;
  /** The last seq already had: the stream resumes after it. */
  after: number;
  /** Called once per event, in seq order, with no gaps and no repeats. */
  onEvent: (e: Envelope) => void;
  backoff?: BackoffPolicy;
  /** No bytes (not even a heartbeat) for this long means a dead connection: reconnect. */
  idleMs?: number;
  /** Told why the stream is being reopened and after how long. */
  onReconnect?: (why: string, waitMs: number) => void;
}

export interface FollowResult {
  /** completed | failed | cancelled */
  status: string;
  last: number;
  terminal: Envelope | null;
}

type Outcome = { kind: 'terminal' } | { kind: 'ended' } | { kind: 'closing' } | { kind: 'error'; err: unknown };

/**
 * Follows a session's stream to its terminal event across dropped connections
 * and server restarts: reconnects with backoff and Last-Event-ID, drops events
 * it already has (by seq), and fills any gap from the JSON log, so the
 * consumer sees seq last+1, last+2, … exactly once. Throws ConnectionError
 * once reconnecting has failed for the backoff's give-up time, and ApiError
 * for a refusal that retrying cannot fix (404, 401, 400).
 */
export async function follow(o: FollowOptions): Promise<FollowResult> {
  const { client, sessionId } = o;
  const backoff = new Backoff(o.backoff ?? DEFAULT_BACKOFF);
  let last = o.after;
  let terminal: Envelope | null = null;

  const accept = (e: Envelope) => {
    if (terminal || e.seq <= last) return;
    o.onEvent(e);
    last = e.seq;
    if (TERMINAL_EVENTS.has(e.type)) terminal = e;
  };
  /** Everything in the log after `last`, up to `upTo`, from the JSON pages. */
  const fill = async (upTo = Number.POSITIVE_INFINITY) => {
    while (!terminal && last < upTo) {
      const page = await client.events(sessionId, last, 1000);
      for (const e of page.items) if (e.seq <= upTo) accept(e);
      if (!page.has_more || page.items.length === 0) return;
    }
  };
  const deliver = async (e: Envelope) => {
    if (e.seq > last + 1) await fill(e.seq - 1);
    accept(e);
  };

  const connect = async (): Promise<Outcome> => {
    const abort = new AbortController();
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(new Error('no data or heartbeat for too long')), o.idleMs ?? 45_000);
    };
    try {
      touch();
      let res: Response;
      try {
        res = await client.raw(`/v1/sessions/${sessionId}/stream`, {
          headers: { accept: 'text/event-stream', 'last-event-id': String(last) },
          signal: abort.signal,
        });
      } catch (err) {
        return { kind: 'error', err };
      }
      if (!res.ok || !res.body) {
        const err = await apiError(res);
        // A client error will not get better by asking again (408 and 429 might).
        if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) throw err;
        return { kind: 'error', err };
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          return { kind: 'error', err: abort.signal.aborted ? abort.signal.reason : err };
        }
        if (chunk.done) return { kind: 'ended' };
        touch();
        backoff.reset();
        for (const message of parser.push(decoder.decode(chunk.value, { stream: true }))) {
          if (message.event === CLOSING) {
            abort.abort();
            return { kind: 'closing' };
          }
          if (!message.data) continue;
          let envelope: Envelope;
          try {
            envelope = JSON.parse(message.data) as Envelope;
          } catch {
            continue; // A garbled event leaves a gap, which the next one fills from the log.
          }
          if (typeof envelope.seq !== 'number') continue;
          await deliver(envelope);
          if (terminal) {
            // Events after the terminal one (memory jobs append them) are not part of the session's story.
            abort.abort();
            return { kind: 'terminal' };
          }
        }
      }
    } finally {
      clearTimeout(idle);
    }
  };

  for (;;) {
    const outcome = await connect();
    if (outcome.kind === 'terminal') break;
    let why: string;
    if (outcome.kind === 'ended') {
      // A clean end without a terminal event: either the session had already ended (we have all of it, or
      // asked to start beyond its end), or the server went away without saying so.
      const snapshot = await client.session(sessionId);
      if (ENDED.has(snapshot.status)) {
        await fill();
        return { status: snapshot.status, last, terminal };
      }
      why = 'the stream ended';
    } else if (outcome.kind === 'closing') {
      why = 'the server is restarting';
    } else {
      if (outcome.err instanceof ApiError && outcome.err.status < 500 && outcome.err.status !== 408 && outcome.err.status !== 429) throw outcome.err;
      why = reason(outcome.err);
    }
    const wait = backoff.next();
    if (wait === null) throw new ConnectionError(`lost the stream of session ${sessionId} and could not reconnect: ${why}`);
    o.onReconnect?.(why, wait);
    await sleep(wait);
  }
  const end = terminal as Envelope | null;
  return { status: end ? (TERMINAL_STATUS[end.type] ?? 'ended') : 'ended', last, terminal: end };
}
