import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, ApiError, ConnectionError } from '../../src/cli/api';
import { follow } from '../../src/cli/follow';
import type { Envelope } from '../../src/domain/events';
import { SESSION } from './fixtures';

const FAST = { initialMs: 10, maxMs: 40, giveUpMs: 2_000 };

const env = (seq: number, type = 'contribution.completed'): Envelope => ({ seq, type, session_id: SESSION, ts: '', data: { n: seq } });
const frame = (e: Envelope) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
const log = [1, 2, 3, 4, 5, 6, 7].map((n) => env(n, n === 1 ? 'session.created' : n === 7 ? 'session.completed' : 'contribution.completed'));

type Handler = (req: IncomingMessage, res: ServerResponse, connection: number) => void;

/** A scripted bo1 API: `stream` answers the n-th stream connection; the JSON log serves `log`. */
async function fakeApi(stream: Handler, status = 'running'): Promise<{ url: string; lastEventIds: (string | undefined)[]; server: Server }> {
  const lastEventIds: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname.endsWith('/stream')) {
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      stream(req, res, lastEventIds.length);
    } else if (url.pathname.endsWith('/events')) {
      const after = Number(url.searchParams.get('after'));
      const limit = Number(url.searchParams.get('limit'));
      const items = log.filter((e) => e.seq > after).slice(0, limit);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items, next_after: items.at(-1)?.seq ?? after, has_more: (items.at(-1)?.seq ?? after) < log.length }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: SESSION, status, last_seq: log.length }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lastEventIds, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function run(url: string, after = 0) {
  const seen: number[] = [];
  const reconnects: string[] = [];
  const result = await follow({
    client: new ApiClient({ url, backoff: FAST }),
    sessionId: SESSION,
    after,
    backoff: FAST,
    onEvent: (e) => seen.push(e.seq),
    onReconnect: (why) => reconnects.push(why),
  });
  return { seen, reconnects, result };
}

describe('following a stream across reconnects', () => {
  it('reconnects after stream.closing with Last-Event-ID and drops what it already had', async () => {
    const api = await fakeApi((_req, res, n) => {
      if (n === 1) {
        res.write(`retry: 100\n\n${frame(log[0]!)}${frame(log[1]!)}: heartbeat\n\n${frame(log[2]!)}`);
        res.end('event: stream.closing\ndata: {"reason":"server_shutdown","reconnect":true}\n\n');
      } else {
        // A server that replays a little too much: 2 and 3 again.
        res.write(log.slice(1, 6).map(frame).join(''));
        // Events after the terminal one (memory jobs) are not part of the session's story.
        res.end(frame(log[6]!) + frame(env(8, 'memory.contributed')));
      }
    });
    const { seen, reconnects, result } = await run(api.url);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(api.lastEventIds).toEqual(['0', '3']);
    expect(reconnects).toEqual(['the server is restarting']);
    expect(result).toMatchObject({ status: 'completed', last: 7 });
  });

  it('survives a connection dropped mid-event', async () => {
    const api = await fakeApi((_req, res, n) => {
      if (n === 1) {
        const text = frame(log[0]!) + frame(log[1]!) + frame(log[2]!);
        res.write(text.slice(0, -20));
        setTimeout(() => res.socket?.destroy(), 20);
      } else res.end(log.slice(2).map(frame).join(''));
    });
    const { seen, result } = await run(api.url);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(api.lastEventIds).toEqual(['0', '2']);
    expect(result.status).toBe('completed');
  });

  it('fills a gap from the JSON log, so nothing is lost', async () => {
    const api = await fakeApi((_req, res) => res.end([log[0]!, log[1]!, log[4]!, log[5]!, log[6]!].map(frame).join('')));
    const { seen } = await run(api.url);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(api.lastEventIds).toEqual(['0']);
  });

  it('a stream that ends quietly on an ended session is finished from the log', async () => {
    // attach --after beyond what the stream still had to say.
    const api = await fakeApi((_req, res) => res.end(), 'completed');
    const { seen, result } = await run(api.url, 5);
    expect(seen).toEqual([6, 7]);
    expect(result).toMatchObject({ status: 'completed', last: 7 });
  });

  it('gives up with ConnectionError once reconnecting has failed for the give-up time', async () => {
    const api = await fakeApi(() => {});
    const url = api.url;
    await new Promise((r) => api.server.close(r));
    const started = Date.now();
    await expect(
      follow({ client: new ApiClient({ url }), sessionId: SESSION, after: 0, backoff: { initialMs: 10, maxMs: 50, giveUpMs: 300 }, onEvent: () => {} }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('does not retry what retrying cannot fix', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'urn:bo1:problem:not-found', title: 'Not Found', status: 404, detail: `session ${SESSION} does not exist` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const err = await follow({ client: new ApiClient({ url }), sessionId: SESSION, after: 0, backoff: FAST, onEvent: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe(`404 Not Found: session ${SESSION} does not exist`);
  });

  it('reconnects when a connection goes silent (no data, no heartbeat)', async () => {
    const api = await fakeApi((_req, res, n) => {
      if (n === 1) res.write(frame(log[0]!)); // then nothing, forever
      else res.end(log.slice(1).map(frame).join(''));
    });
    const seen: number[] = [];
    await follow({ client: new ApiClient({ url: api.url }), sessionId: SESSION, after: 0, backoff: FAST, idleMs: 200, onEvent: (e) => seen.push(e.seq) });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(api.lastEventIds).toEqual(['0', '1']);
  });
});
