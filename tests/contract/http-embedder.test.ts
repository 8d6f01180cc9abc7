import { afterEach, describe, expect, it } from 'vitest';
import { CALIBRATION_TEXTS } from '../../src/embeddings/calibrate';
import { createEmbedder } from '../../src/embeddings/embedder';
import { createHttpEmbedder, EmbeddingsError, embeddingsEndpoint, type HttpEmbedderOptions } from '../../src/embeddings/http-embedder';
import { createLocalEmbedder, embedSync } from '../../src/embeddings/local-embedder';
import { calibratedSimilarity, cosine } from '../../src/domain/metrics';
import { startFakeEmbeddings, type FakeEmbeddings, type FakeEmbeddingsOptions } from '../support/fake-embeddings';

let fake: FakeEmbeddings | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(serverOpts: FakeEmbeddingsOptions = {}, clientOpts: Partial<HttpEmbedderOptions> = {}) {
  fake = await startFakeEmbeddings(serverOpts);
  const embedder = await createHttpEmbedder({ url: fake.url, model: 'fake-model', batchSize: 16, retryDelayMs: 5, ...clientOpts });
  const calibrationRequests = fake.requests.length;
  fake.requests.length = 0;
  return { fake, embedder, calibrationRequests };
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const TEXTS = Array.from({ length: 10 }, (_, i) => `Argument number ${i}: pilot ${i} law firms before committing, churn ${i * 3}%`);

describe('http embedder: wire and shape', () => {
  it('resolves the endpoint from a base URL, a /v1 URL or the full path', () => {
    expect(embeddingsEndpoint('http://h:1')).toBe('http://h:1/v1/embeddings');
    expect(embeddingsEndpoint('http://h:1/')).toBe('http://h:1/v1/embeddings');
    expect(embeddingsEndpoint('https://api.openai.com/v1')).toBe('https://api.openai.com/v1/embeddings');
    expect(embeddingsEndpoint('http://h:1/v1/embeddings')).toBe('http://h:1/v1/embeddings');
  });

  it('calibrates at creation, discovers the dimension and names itself after the model', async () => {
    const { embedder, calibrationRequests } = await setup();
    expect(calibrationRequests).toBe(Math.ceil(CALIBRATION_TEXTS.length / 16));
    expect(embedder.name).toBe('http:fake-model');
    expect(embedder.dimension).toBe(64);
    expect(embedder.calibration.same).toBeGreaterThan(embedder.calibration.different);
    // Normalised vectors have the local embedder's cosines, hence its calibration at the same dimension.
    const local = createLocalEmbedder(64).calibration;
    expect(embedder.calibration.same).toBeCloseTo(local.same, 10);
    expect(embedder.calibration.different).toBeCloseTo(local.different, 10);
    // On the calibrated scale a paraphrase pair sits high and an unrelated pair low.
    const [a, b, c] = await embedder.embed([
      'Run a small pilot with ten law firms before committing the whole company.',
      'Before betting the company, pilot the idea with around ten law firms.',
      'PostgreSQL is hitting its limits on the reporting queries.',
    ]);
    const sim = calibratedSimilarity(embedder.calibration);
    expect(sim(a!, b!)).toBeGreaterThan(sim(a!, c!));
  });

  it('batches, sends { model, input }, and sends the key as a bearer token', async () => {
    const { fake, embedder } = await setup({}, { batchSize: 4, apiKey: 'sk-embed' });
    const vectors = await embedder.embed(TEXTS);
    expect(vectors).toHaveLength(10);
    expect(fake.requests.map((r) => (r.body.input as string[]).length)).toEqual([4, 4, 2]);
    expect(fake.requests.every((r) => r.method === 'POST' && r.path === '/v1/embeddings' && r.body.model === 'fake-model')).toBe(true);
    expect(fake.requests.flatMap((r) => r.body.input as string[])).toEqual(TEXTS);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-embed');
  });

  it('orders results by index and L2-normalises them', async () => {
    const { embedder } = await setup({ reversed: true, scale: 7 });
    const vectors = await embedder.embed(TEXTS);
    vectors.forEach((v, i) => {
      expect(norm(v)).toBeCloseTo(1, 10);
      expect(cosine(v, embedSync(TEXTS[i]!, 64))).toBeCloseTo(1, 10);
      v.forEach((x, k) => expect(x).toBeCloseTo(embedSync(TEXTS[i]!, 64)[k]!, 10));
    });
  });

  it('answers [] without a request and empty text with a zero vector, never sent', async () => {
    const { fake, embedder } = await setup();
    expect(await embedder.embed([])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
    const [x, empty, y] = await embedder.embed(['first text', '  ', 'second text']);
    expect(norm(x!)).toBeCloseTo(1, 10);
    expect(norm(y!)).toBeCloseTo(1, 10);
    expect(empty).toEqual(new Array(64).fill(0));
    expect(fake.requests.map((r) => r.body.input)).toEqual([['first text', 'second text']]);
  });
});

describe('http embedder: failures', () => {
  it('retries a 429 and then succeeds', async () => {
    const { fake, embedder } = await setup();
    fake.enqueue({ status: 429, headers: { 'retry-after': '0' } });
    const vectors = await embedder.embed(['rate limited once']);
    expect(norm(vectors[0]!)).toBeCloseTo(1, 10);
    expect(fake.requests).toHaveLength(2);
  });

  it('retries 500s twice, then gives up with the status in the message', async () => {
    const { fake, embedder } = await setup();
    fake.enqueue({ status: 500 }, { status: 503 });
    expect(await embedder.embed(['two server errors'])).toHaveLength(1);
    expect(fake.requests).toHaveLength(3);
    fake.requests.length = 0;
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const err = await embedder.embed(['three server errors']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect((err as EmbeddingsError).status).toBe(500);
    expect((err as Error).message).toMatch(/HTTP 500: fake error 500 \(gave up after 3 attempts\)/);
    expect(fake.requests).toHaveLength(3);
  });

  it('does not retry a 400 and reports the server message', async () => {
    const { fake, embedder } = await setup();
    fake.enqueue({ status: 400, body: { error: { message: 'This model does not support embeddings', type: 'invalid_request_error' } } });
    const err = await embedder.embed(['bad request']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect((err as EmbeddingsError).status).toBe(400);
    expect((err as Error).message).toMatch(/embeddings fake-model at http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings: HTTP 400: This model does not support embeddings/);
    expect(fake.requests).toHaveLength(1);
  });

  it('points at the key on 401', async () => {
    const { fake, embedder } = await setup();
    fake.enqueue({ status: 401, body: 'unauthorised' });
    await expect(embedder.embed(['x y z'])).rejects.toThrow(/HTTP 401 \(check EMBEDDINGS_API_KEY\): unauthorised/);
    expect(fake.requests).toHaveLength(1);
  });

  it('rejects malformed bodies clearly, without retrying', async () => {
    const { fake, embedder } = await setup();
    const cases: [string, RegExp][] = [
      ['<html>oops</html>', /malformed response body \(not JSON\)/],
      ['{"result":[]}', /malformed response body \(no "data" array\)/],
      ['{"data":[]}', /malformed response body \(0 embeddings for 1 inputs\)/],
      ['{"data":[{"index":0,"embedding":["a"]}]}', /malformed response body \(embedding 0 is not/],
      ['{"data":[{"index":3,"embedding":[1,2]}]}', /malformed response body \(bad index 3\)/],
      ['{"data":[{"index":0,"embedding":[1,2]}]}', /malformed response body \(dimension 2, expected 64\)/],
    ];
    for (const [body, message] of cases) {
      fake.requests.length = 0;
      fake.enqueue({ malformed: body });
      await expect(embedder.embed(['one text'])).rejects.toThrow(message);
      expect(fake.requests).toHaveLength(1);
    }
  });

  it('times out each attempt and retries it', async () => {
    const { fake, embedder } = await setup({}, { timeoutMs: 100 });
    fake.enqueue({ delayMs: 400 });
    expect(await embedder.embed(['slow once'])).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    fake.requests.length = 0;
    fake.enqueue({ delayMs: 400 }, { delayMs: 400 }, { delayMs: 400 });
    await expect(embedder.embed(['always slow'])).rejects.toThrow(/timed out after 100 ms \(gave up after 3 attempts\)/);
  });

  it('fails at creation when the server is unreachable or the model cannot tell texts apart', async () => {
    fake = await startFakeEmbeddings({ constant: true });
    await expect(createHttpEmbedder({ url: fake.url, model: 'flat', retryDelayMs: 1 })).rejects.toThrow(/does not separate paraphrases/);
    const url = fake.url;
    await fake.close();
    fake = undefined;
    await expect(createHttpEmbedder({ url, model: 'gone', retryDelayMs: 1 })).rejects.toThrow(/request failed.*gave up after 3 attempts/);
  });
});

describe('createEmbedder', () => {
  it('builds the local embedder with EMBEDDINGS_DIM (default 256)', async () => {
    const def = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });
    expect(def.name).toBe('local-hash');
    expect(def.dimension).toBe(256);
    expect((await createEmbedder({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_DIM: 128 })).dimension).toBe(128);
  });

  it('builds the http embedder against the configured server and model', async () => {
    fake = await startFakeEmbeddings({ dimension: 32 });
    const e = await createEmbedder({ EMBEDDINGS_PROVIDER: 'http', EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'nomic-embed-text', EMBEDDINGS_API_KEY: 'k' });
    expect(e.name).toBe('http:nomic-embed-text');
    expect(e.dimension).toBe(32);
    expect(fake.requests[0]!.body.model).toBe('nomic-embed-text');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer k');
    const d = await createEmbedder({ EMBEDDINGS_PROVIDER: 'http', EMBEDDINGS_URL: fake.url });
    expect(d.name).toBe('http:text-embedding-3-small');
    await expect(createEmbedder({ EMBEDDINGS_PROVIDER: 'http' })).rejects.toThrow(/EMBEDDINGS_URL is required/);
  });
});
