/**
 * A local stand-in for an OpenAI-compatible `POST /v1/embeddings` server.
 * Vectors are the local hashed embedder's at `dimension` (64 by default),
 * scaled so they are NOT unit length (the client must normalise), and
 * optionally returned in reverse order (the client must sort by `index`).
 * Faults can be queued: an HTTP status, a malformed body, a delay.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { embedSync } from '../../src/embeddings/local-embedder';

export interface FakeEmbeddingsRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: { model?: unknown; input?: unknown; [k: string]: unknown };
}

/** One queued answer that replaces the next normal response. */
export type FakeEmbeddingsFault =
  | { status: number; body?: string | object; headers?: Record<string, string>; delayMs?: number }
  | { malformed: string; delayMs?: number }
  | { delayMs: number };

export interface FakeEmbeddingsOptions {
  dimension?: number;
  /** Every vector is multiplied by this (default 3), so it is not unit length. */
  scale?: number;
  /** Return `data` in reverse order (each item still carries its `index`). */
  reversed?: boolean;
  /** Every text gets the same vector: a model that cannot tell anything apart. */
  constant?: boolean;
}

export interface FakeEmbeddings {
  url: string;
  requests: FakeEmbeddingsRequest[];
  /** Queue faults; each replaces one following request's normal answer. */
  enqueue(...faults: FakeEmbeddingsFault[]): void;
  /** The raw (unnormalised) vector the server returns for a text. */
  vectorOf(text: string): number[];
  close(): Promise<void>;
}

export async function startFakeEmbeddings(opts: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddings> {
  const dimension = opts.dimension ?? 64;
  const scale = opts.scale ?? 3;
  const requests: FakeEmbeddingsRequest[] = [];
  const faults: FakeEmbeddingsFault[] = [];
  const vectorOf = (text: string) => embedSync(opts.constant ? 'constant' : text, dimension).map((x) => x * scale);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: FakeEmbeddingsRequest['body'] = {};
      try {
        body = JSON.parse(raw) as FakeEmbeddingsRequest['body'];
      } catch {
        body = { raw };
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const fault = faults.shift();
      const send = (status: number, payload: string, headers: Record<string, string> = {}) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(payload);
      };
      const answer = () => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          return send(404, JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } }));
        }
        if (fault && 'status' in fault) {
          const b = fault.body ?? { error: { message: `fake error ${fault.status}`, type: 'fake_error' } };
          return send(fault.status, typeof b === 'string' ? b : JSON.stringify(b), fault.headers);
        }
        if (fault && 'malformed' in fault) return send(200, fault.malformed);
        const input = body.input;
        if (!Array.isArray(input) || !input.every((t) => typeof t === 'string') || typeof body.model !== 'string') {
          return send(400, JSON.stringify({ error: { message: "'input' must be an array of strings and 'model' a string", type: 'invalid_request_error' } }));
        }
        if (input.some((t) => t === '')) {
          return send(400, JSON.stringify({ error: { message: "'input' cannot contain an empty string", type: 'invalid_request_error' } }));
        }
        const data = input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) }));
        if (opts.reversed) data.reverse();
        return send(200, JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
      };
      if (fault?.delayMs) setTimeout(answer, fault.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...f) => void faults.push(...f),
    vectorOf,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
