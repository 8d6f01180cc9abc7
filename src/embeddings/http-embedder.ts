import { CALIBRATION_TEXTS, calibrationFrom } from './calibrate';
import type { Embedder } from '../ports/embeddings';

/**
 * An embedder behind any OpenAI-compatible `POST /v1/embeddings` endpoint:
 * OpenAI itself, or a local model server (Ollama, llama.cpp, vLLM, text-
 * embeddings-inference, LM Studio) on the same wire shape:
 *
 *   request  { model, input: string[] }
 *   response { data: [{ embedding: number[], index: number }, ...] }
 *
 * Vectors are L2-normalised here (not every server does), empty texts get a
 * zero vector without a request (the port's contract; several servers reject
 * empty input), and the dimension is whatever the model returns. At creation
 * the calibration set is embedded once, so this model's raw cosines map onto
 * the calibrated scale every similarity threshold is written in.
 */

export interface HttpEmbedderOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:11434` or `https://api.openai.com` (a trailing `/v1` is accepted too). */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer …` when given. */
  apiKey?: string;
  /** Per HTTP attempt. Default 30 s. */
  timeoutMs?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** First retry delay; doubles per retry (with ±25% jitter). Default 250 ms. */
  retryDelayMs?: number;
}

/** A failed embeddings call; `status` is the HTTP status when there was one. */
export class EmbeddingsError extends Error {
  override name = 'EmbeddingsError';
  /** How long the server asked us to wait (Retry-After), when it did. */
  retryAfterMs: number | undefined;
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
    this.retryAfterMs = undefined;
  }
}

/** Retries after the first attempt, for 429, 5xx, timeouts and network errors. */
const MAX_RETRIES = 2;
/** A server's Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function embeddingsEndpoint(url: string): string {
  const base = url.trim().replace(/\/+$/, '');
  if (/\/embeddings$/.test(base)) return base;
  return /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
}

function normalise(v: number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  return norm > 0 ? v.map((x) => x / norm) : v.map(() => 0);
}

const clip = (t: string, n = 300) => (t.length > n ? `${t.slice(0, n)}…` : t);

/** The server's own error message, from an OpenAI-style envelope or the raw body. */
function serverMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object') {
      const err = (parsed as { error?: unknown; message?: unknown; detail?: unknown }).error;
      if (typeof err === 'string') return clip(err);
      if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') return clip((err as { message: string }).message);
      const msg = (parsed as { message?: unknown }).message ?? (parsed as { detail?: unknown }).detail;
      if (typeof msg === 'string') return clip(msg);
    }
  } catch {
    // not JSON: fall through to the text
  }
  return clip(body.trim().replace(/\s+/g, ' ')) || '(empty body)';
}

function retryAfterMs(res: Response): number | undefined {
  const raw = res.headers.get('retry-after');
  if (!raw) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, secs * 1000));
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - Date.now())) : undefined;
}

/** Validates a 200 body and returns the vectors in input order (by `index`). */
function parseVectors(body: string, count: number, where: string): number[][] {
  const malformed = (why: string) => new EmbeddingsError(`${where}: malformed response body (${why}): ${clip(body, 200)}`, 200, false);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw malformed('not JSON');
  }
  const data = parsed && typeof parsed === 'object' ? (parsed as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw malformed('no "data" array');
  if (data.length !== count) throw malformed(`${data.length} embeddings for ${count} inputs`);
  const out: (number[] | undefined)[] = new Array<number[] | undefined>(count).fill(undefined);
  const indexed = data.some((d) => d && typeof d === 'object' && 'index' in d);
  data.forEach((d: unknown, pos) => {
    const item = d && typeof d === 'object' ? (d as { embedding?: unknown; index?: unknown }) : {};
    const index = indexed ? item.index : pos;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) throw malformed(`bad index ${String(index)}`);
    if (out[index]) throw malformed(`duplicate index ${index}`);
    const e = item.embedding;
    if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw malformed(`embedding ${index} is not a non-empty array of finite numbers`);
    }
    out[index] = e as number[];
  });
  return out as number[][];
}

export async function createHttpEmbedder(opts: HttpEmbedderOptions): Promise<Embedder> {
  const endpoint = embeddingsEndpoint(opts.url);
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const batchSize = opts.batchSize ?? 64;
  const retryDelayMs = opts.retryDelayMs ?? 250;
  if (!opts.model.trim()) throw new RangeError('model must not be empty');
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
  const where = `embeddings ${opts.model} at ${endpoint}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let dimension: number | undefined;

  /** One HTTP attempt: vectors, or an EmbeddingsError saying whether a retry may help. */
  async function attempt(input: string[]): Promise<number[][]> {
    let res: Response;
    let body: string;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: opts.model, input }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      body = await res.text();
    } catch (e) {
      const err = e as Error;
      const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
      const cause = (err as { cause?: { code?: unknown } }).cause?.code;
      throw new EmbeddingsError(
        timedOut ? `${where}: timed out after ${timeoutMs} ms` : `${where}: request failed: ${err.message}${typeof cause === 'string' ? ` (${cause})` : ''}`,
        undefined,
        true,
      );
    }
    if (!res.ok) {
      const retryable = res.status === 429 || res.status >= 500;
      const hint = res.status === 401 || res.status === 403 ? ' (check EMBEDDINGS_API_KEY)' : res.status === 404 ? ' (check EMBEDDINGS_URL and EMBEDDINGS_MODEL)' : '';
      const err = new EmbeddingsError(`${where}: HTTP ${res.status}${hint}: ${serverMessage(body)}`, res.status, retryable);
      if (retryable) err.retryAfterMs = retryAfterMs(res);
      throw err;
    }
    return parseVectors(body, input.length, where);
  }

  async function request(input: string[]): Promise<number[][]> {
    for (let retry = 0; ; retry++) {
      try {
        return await attempt(input);
      } catch (e) {
        if (!(e instanceof EmbeddingsError) || !e.retryable || retry >= MAX_RETRIES) {
          if (e instanceof EmbeddingsError && e.retryable) e.message += ` (gave up after ${retry + 1} attempts)`;
          throw e;
        }
        const backoff = retryDelayMs * 2 ** retry * (0.75 + Math.random() * 0.5);
        await sleep(e.retryAfterMs ?? backoff);
      }
    }
  }

  async function embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = new Array<number[]>(texts.length);
    const pending: number[] = [];
    texts.forEach((t, i) => (t.trim() ? pending.push(i) : undefined));
    for (let start = 0; start < pending.length; start += batchSize) {
      const ids = pending.slice(start, start + batchSize);
      const vectors = await request(ids.map((i) => texts[i]!));
      vectors.forEach((v, k) => {
        if (dimension === undefined) dimension = v.length;
        else if (v.length !== dimension) {
          throw new EmbeddingsError(`${where}: malformed response body (dimension ${v.length}, expected ${dimension})`, 200, false);
        }
        out[ids[k]!] = normalise(v);
      });
    }
    if (pending.length < texts.length) {
      if (dimension === undefined) throw new EmbeddingsError(`${where}: cannot embed empty text before the dimension is known`, undefined, false);
      const zero = new Array<number>(dimension).fill(0);
      texts.forEach((t, i) => (t.trim() ? undefined : (out[i] = [...zero])));
    }
    return out;
  }

  // Calibration doubles as the start-up check: a wrong URL, key or model fails here, not mid-session.
  const { same, different } = calibrationFrom(await embed(CALIBRATION_TEXTS));
  if (!(same > different)) {
    throw new EmbeddingsError(
      `${where}: the model does not separate paraphrases from unrelated texts (mean cosine same=${same.toFixed(3)}, different=${different.toFixed(3)}); choose another embedding model`,
      undefined,
      false,
    );
  }
  return {
    name: `http:${opts.model}`,
    dimension: dimension!,
    calibration: { same, different },
    embed,
  };
}
