import { EventSource } from 'eventsource';
import { EVENT_TYPES, type Envelope } from '../../src/domain/events';

export interface Received {
  envelopes: Envelope[];
  /** `id:` of every event that had one, in arrival order. */
  ids: string[];
  closings: number;
  connections: number;
}

/** How `readStream` fails when EventSource gives up on a connection: the HTTP status, and what arrived before. */
export type StreamFailure = Error & { status?: number; received: Received };

/**
 * Reads a session's stream with the `eventsource` client library (which sends
 * Last-Event-ID itself when it reconnects) until a terminal event. A
 * Last-Event-ID in `opts.headers` applies to the first connection only.
 */
export function readStream(
  url: string,
  opts: { headers?: Record<string, string>; onEvent?: (e: Envelope, src: EventSource) => void; timeoutMs?: number } = {},
): Promise<Received> {
  const got: Received = { envelopes: [], ids: [], closings: 0, connections: 0 };
  return new Promise((resolve, reject) => {
    const es = new EventSource(url, {
      fetch: (input, init) => {
        got.connections += 1;
        // The caller's headers open the stream; the ones EventSource sets win over them, so a reconnect
        // resumes from the Last-Event-ID it has got to rather than the caller's starting one (which replays
        // everything since, repeated).
        const headers = new Headers(opts.headers);
        for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
        return fetch(input, { ...init, headers });
      },
    });
    const timer = setTimeout(() => {
      es.close();
      finished = true;
      reject(new Error(`stream did not end within ${opts.timeoutMs ?? 60_000} ms; got ${got.envelopes.length} events`));
    }, opts.timeoutMs ?? 60_000);
    let finished = false;
    const done = () => {
      finished = true;
      clearTimeout(timer);
      es.close();
      resolve(got);
    };
    for (const type of EVENT_TYPES) {
      es.addEventListener(type, (ev) => {
        // Events after the terminal one (memory jobs append them) may share its chunk: the stream is over for this reader.
        if (finished) return;
        const env = JSON.parse(ev.data) as Envelope;
        got.envelopes.push(env);
        got.ids.push(ev.lastEventId);
        opts.onEvent?.(env, es);
        if (type === 'session.completed' || type === 'session.failed' || type === 'session.cancelled') done();
      });
    }
    es.addEventListener('error', (ev) => {
      // A failed connection (a non-200 answer, a 204) is final: EventSource will not reconnect, so there is nothing to wait for.
      if (finished || es.readyState !== es.CLOSED) return;
      finished = true;
      clearTimeout(timer);
      const { message, code } = ev as Event & { message?: string; code?: number };
      reject(Object.assign(new Error(`stream failed after ${got.envelopes.length} events: ${message ?? 'closed'}`), { status: code, received: got }));
    });
    es.addEventListener('stream.closing', () => {
      got.closings += 1;
    });
  });
}

/** Asserts the log property clients rely on: seq 1..n, each exactly once, ids equal to seq. */
export function assertGapless(r: Received, from = 1): void {
  r.envelopes.forEach((e, i) => {
    if (e.seq !== from + i) throw new Error(`expected seq ${from + i} at position ${i}, got ${e.seq}`);
    if (r.ids[i] !== String(e.seq)) throw new Error(`event ${e.seq} carried id ${r.ids[i]}`);
  });
}
