import type { Embedder } from '../ports/embeddings';
import { createHttpEmbedder } from './http-embedder';
import { createLocalEmbedder } from './local-embedder';

/** The configuration an embedder is chosen from (a subset of Config). */
export interface EmbedderConfig {
  EMBEDDINGS_PROVIDER: 'local' | 'http';
  EMBEDDINGS_URL?: string | undefined;
  EMBEDDINGS_MODEL?: string | undefined;
  EMBEDDINGS_API_KEY?: string | undefined;
  /** Dimension of the local hashed embedder (the http one takes the model's). Default 256. */
  EMBEDDINGS_DIM?: number | undefined;
}

export const DEFAULT_EMBEDDINGS_MODEL = 'text-embedding-3-small';

/**
 * The local hashed embedder (offline, deterministic) or an OpenAI-compatible
 * HTTP one. Async because the HTTP embedder calibrates itself on creation,
 * which also fails fast on a wrong URL, key or model.
 */
export async function createEmbedder(config: EmbedderConfig, deps: { fetch?: typeof fetch } = {}): Promise<Embedder> {
  if (config.EMBEDDINGS_PROVIDER === 'local') return createLocalEmbedder(config.EMBEDDINGS_DIM ?? 256);
  if (!config.EMBEDDINGS_URL) throw new Error('EMBEDDINGS_URL is required when EMBEDDINGS_PROVIDER=http');
  return createHttpEmbedder({
    url: config.EMBEDDINGS_URL,
    model: config.EMBEDDINGS_MODEL ?? DEFAULT_EMBEDDINGS_MODEL,
    ...(config.EMBEDDINGS_API_KEY ? { apiKey: config.EMBEDDINGS_API_KEY } : {}),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
}
