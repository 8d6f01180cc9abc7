import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, ApiError, describeProblem } from '../../src/cli/api';

const FAST = { initialMs: 10, maxMs: 40, giveUpMs: 2_000 };
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A server that answers each request with `respond(n)`; 'drop' destroys the connection (a network error). */
async function server(respond: (n: number) => { status: number; body: unknown; type?: string } | 'drop') {
  const seen: Seen[] = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const r = respond(seen.length);
      if (r === 'drop') return req.socket.destroy();
      res.writeHead(r.status, { 'content-type': r.type ?? 'application/json' });
      res.end(typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  servers.push(srv);
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, seen };
}

describe('the CLI\'s HTTP client', () => {
  it('sends the key as a bearer token, and no Authorization header without one', async () => {
    const api = await server(() => ({ status: 200, body: { id: 'x', status: 'running', last_seq: 0 } }));
    await new ApiClient({ url: api.url, key: 'bo1_secret' }).session('x');
    await new ApiClient({ url: api.url }).session('x');
    expect(api.seen[0]!.headers.authorization).toBe('Bearer bo1_secret');
    expect(api.seen[1]!.headers.authorization).toBeUndefined();
    // A trailing slash on the base URL does not double up.
    expect(api.seen[0]!.url).toBe('/v1/sessions/x');
  });

  it('retries a checkpoint answer after a network error with the same Idempotency-Key', async () => {
    const api = await server((n) => (n === 1 ? 'drop' : { status: 202, body: { action: 'intervene', status: 'queued' } }));
    const client = new ApiClient({ url: api.url, backoff: FAST });
    await client.resolveCheckpoint('s1', 'sp1.r2', { action: 'intervene', message: 'Cash?' });
    expect(api.seen).toHaveLength(2);
    const [first, second] = api.seen;
    expect(first!.url).toBe('/v1/sessions/s1/checkpoints/sp1.r2/resolve');
    expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(JSON.parse(second!.body)).toEqual({ action: 'intervene', message: 'Cash?' });
    // A new answer is a new key.
    await client.resolveCheckpoint('s1', 'sp1.r3', { action: 'continue' });
    expect(api.seen[2]!.headers['idempotency-key']).not.toBe(first!.headers['idempotency-key']);
  });

  it('turns a problem+json answer into one readable line, never retried', async () => {
    const api = await server(() => ({
      status: 400,
      type: 'application/problem+json',
      body: {
        type: 'urn:bo1:problem:validation-error',
        title: 'Invalid request',
        status: 400,
        detail: 'body.problem: must not be empty',
        errors: [
          { field: 'body.problem', message: 'must not be empty' },
          { field: 'body.mode', message: 'Invalid option' },
        ],
      },
    }));
    const err = await new ApiClient({ url: api.url, backoff: FAST }).createSession({ problem: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toBe('400 Invalid request: body.problem: must not be empty; body.mode: Invalid option');
    expect(api.seen).toHaveLength(1);
  });

  it('describes a non-JSON error by its status and text, on one line', () => {
    expect(describeProblem(502, null, '<html>\n Bad gateway\n</html>')).toBe('502 <html> Bad gateway </html>');
    expect(describeProblem(409, { title: 'Checkpoint not pending', detail: 'checkpoint sp1.r2 was already\nresolved' })).toBe(
      '409 Checkpoint not pending: checkpoint sp1.r2 was already resolved',
    );
  });
});
