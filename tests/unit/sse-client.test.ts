import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { assertGapless, readStream } from '../support/sse-client';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const frame = (seq: number, type: string) =>
  `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ seq, type, session_id: 's', ts: new Date(0).toISOString(), data: {} })}\n\n`;

describe('readStream', () => {
  it('resumes a dropped stream from the last event it got, not from the Last-Event-ID it was started with', async () => {
    const sent: (string | undefined)[] = [];
    server = createServer((req, res) => {
      const from = req.headers['last-event-id'] as string | undefined;
      sent.push(from);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 10\n\n');
      // The first connection sends two events and drops; the next one finishes from wherever the client says it is.
      if (sent.length === 1) res.end(frame(4, 'session.started') + frame(5, 'problem.stated'));
      else {
        let rest = '';
        for (let seq = Number(from) + 1; seq <= 7; seq++) rest += frame(seq, seq === 7 ? 'session.completed' : 'problem.stated');
        res.end(rest);
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };

    const got = await readStream(`http://127.0.0.1:${port}/stream`, { headers: { 'Last-Event-ID': '3' }, timeoutMs: 10_000 });

    expect(sent).toEqual(['3', '5']);
    expect(got.connections).toBe(2);
    expect(got.envelopes.map((e) => e.seq)).toEqual([4, 5, 6, 7]);
    assertGapless(got, 4);
  });

  it('fails at once when EventSource gives up (a non-200 answer), with the status, rather than at its timeout', async () => {
    server = createServer((_req, res) => res.writeHead(503, { 'retry-after': '1' }).end());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const t = Date.now();
    await expect(readStream(`http://127.0.0.1:${port}/stream`, { timeoutMs: 30_000 })).rejects.toMatchObject({ status: 503, received: { envelopes: [] } });
    expect(Date.now() - t).toBeLessThan(5000);
  });
});
