/**
 * The plumbing the fake model APIs share: a local HTTP server that records
 * each request, answers from a queue of scripted replies (else a responder),
 * may delay an answer (and drops it when the client gives up), and closes
 * cleanly. Each fake supplies only its wire format.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest<B> {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: B;
}

export interface FakeServer<B, R> {
  url: string;
  requests: RecordedRequest<B>[];
  enqueue(...replies: R[]): void;
  close(): Promise<void>;
}

export interface FakeWire<B, R> {
  /** Whether this request is the API's (others get `notFound`). */
  route(method: string, path: string): boolean;
  notFound(res: ServerResponse, method: string, path: string): void;
  respond(res: ServerResponse, body: B, reply: R): void;
}

/** What every fake's replies may carry besides their wire content. */
export interface ReplyControl {
  /** Wait this long before answering (to exercise aborts and timeouts). */
  delayMs?: number;
  /** Close the connection instead of answering (a network failure). */
  hangUp?: boolean;
}

export async function startFakeServer<B, R extends ReplyControl>(wire: FakeWire<B, R>, responder: (body: B) => R): Promise<FakeServer<B, R>> {
  const queue: R[] = [];
  const requests: RecordedRequest<B>[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = (raw ? JSON.parse(raw) : {}) as B;
      const method = req.method ?? '';
      const path = req.url ?? '';
      requests.push({ method, path, headers: req.headers, body });
      if (!wire.route(method, path)) {
        wire.notFound(res, method, path);
        return;
      }
      const reply = queue.shift() ?? responder(body);
      const answer = (): void => {
        if (res.destroyed) return;
        if (reply.hangUp) res.socket?.destroy();
        else wire.respond(res, body, reply);
      };
      if (!reply.delayMs) {
        answer();
        return;
      }
      const t = setTimeout(() => {
        timers.delete(t);
        answer();
      }, reply.delayMs);
      timers.add(t);
      // Client gave up (abort): drop the pending answer.
      res.on('close', () => {
        clearTimeout(t);
        timers.delete(t);
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let seq = 0;
/** A process-wide counter for ids and request ids in fake replies. */
export const nextId = (): number => ++seq;

export function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string>, requestIdHeader = 'request-id'): void {
  res.writeHead(status, { 'content-type': 'application/json', [requestIdHeader]: `req_fake_${nextId()}`, ...headers });
  res.end(JSON.stringify(body));
}

/** Word-sized deltas ("Hello ", "world"), so tests can predict them. */
export function splitWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export function chunk(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}
