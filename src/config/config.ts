import { z } from 'zod';
import { modelsSchema, parseModelRef, refsOf, type ModelRouting } from '../domain/models';
import { DEFAULT_ENGINE_SETTINGS, engineSettingsSchema, type EngineSettings } from '../domain/settings';
import { parseClusterNodes, type ClusterSeed } from '../queue/cluster-nodes';
import { DEFAULT_QUEUE_PREFIX, QUEUE_PREFIX_PATTERN } from '../queue/prefix';

/** Price of one million tokens, in USD, per model id. */
const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative(),
  cacheWrite: z.number().nonnegative(),
  /** The shortest prompt prefix the provider caches, in tokens (unset: see `minCacheableTokens`). */
  minCacheableTokens: z.number().int().positive().optional(),
});
export type Price = z.infer<typeof priceSchema>;

/**
 * USD per million tokens for the default models; override or extend with
 * PRICE_TABLE. Tier list prices (Sonnet $3/$15, Haiku $1/$5, Opus $5/$25;
 * cache reads 0.1×, cache writes 1.25× input): check them against the
 * provider's current price page before relying on cost figures. The minimum
 * cacheable prefix sits beside them because it decides what a cache read can
 * save: 1,024 tokens for Sonnet- and Opus-class models, 4,096 for Haiku-class.
 */
export const DEFAULT_PRICES: Record<string, Price> = {
  'claude-sonnet-5-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, minCacheableTokens: 1024 },
  'claude-haiku-5-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, minCacheableTokens: 4096 },
  'claude-opus-5-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, minCacheableTokens: 1024 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, minCacheableTokens: 1024 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, minCacheableTokens: 4096 },
};

/**
 * A model's minimum cacheable prefix: its price entry's, else by class from
 * the id (Haiku-class 4,096 tokens, anything else 1,024), so a PRICE_TABLE
 * entry that leaves it out still gets the provider's documented figure.
 */
export function minCacheableTokens(price: Price | undefined, model: string): number {
  return price?.minCacheableTokens ?? (/haiku/i.test(model) ? 4096 : 1024);
}

const int = (dflt: number, min = 0) => z.coerce.number().int().min(min).default(dflt);
const bool = (dflt: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(dflt ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    /** The compose file's Postgres (role, password and database `bo1`). */
    DATABASE_URL: z.url().default('postgres://bo1:bo1@127.0.0.1:5432/bo1'),
    /**
     * A direct connection to the same database, for what a transaction-mode pooler (PgBouncer) cannot
     * carry: migrations (a session-level lock, then DDL) and creating the database. Unset: DATABASE_URL.
     */
    DATABASE_DIRECT_URL: z.url().optional(),
    /** Connections each process's pool opens at most (a worker with many sessions shares them; see *The commit path*). */
    DATABASE_POOL_MAX: int(10, 1),
    REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
    /**
     * A Redis Cluster or Valkey cluster instead of REDIS_URL: some of its
     * nodes, `host:port,host:port` (or `redis[s]://[user:password@]host:port`
     * entries for credentials or TLS); see src/queue/cluster-nodes.ts. Set, every
     * process connects with an ioredis Cluster and REDIS_URL is not used.
     */
    REDIS_CLUSTER_NODES: z
      .string()
      .optional()
      .transform((raw, ctx): ClusterSeed | undefined => {
        if (raw === undefined) return undefined;
        const seed = parseClusterNodes(raw);
        if (typeof seed === 'string') {
          ctx.addIssue({ code: 'custom', message: seed });
          return z.NEVER;
        }
        return seed;
      }),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: int(3000).pipe(z.number().max(65535)),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** The worker's /livez, /readyz and /metrics, on HOST; unset: no health server (0: any free port). */
    WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /**
     * Browser origins allowed to call the API (CORS), comma-separated, e.g.
     * `https://app.example.com,http://localhost:5173`; `*` allows any; unset: no CORS headers.
     */
    CORS_ORIGINS: z
      .string()
      .optional()
      .transform((raw, ctx): string[] | '*' => {
        const list = (raw ?? '').split(',').map((o) => o.trim()).filter(Boolean);
        if (list.includes('*')) return '*';
        for (const origin of list) {
          if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
            ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin (scheme://host[:port], no path)` });
            return z.NEVER;
          }
        }
        return list;
      }),
    /** Empty means: anthropic when its key is set, simulated otherwise (openai is always chosen explicitly). */
    LLM_PROVIDER: z.enum(['simulated', 'anthropic', 'openai']).optional(),
    ANTHROPIC_API_KEY: z.string().min(1).optional(),
    ANTHROPIC_BASE_URL: z.url().optional(),
    ANTHROPIC_MAX_RETRIES: int(3),
    ANTHROPIC_TIMEOUT_MS: int(120_000, 1),
    /**
     * OpenAI or any OpenAI-compatible server (Ollama, vLLM, LM Studio,
     * OpenRouter): its /v1 base URL, e.g. http://127.0.0.1:11434/v1. Local
     * servers take any key; unset with a base URL sends a placeholder.
     */
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    OPENAI_MAX_RETRIES: int(3),
    OPENAI_TIMEOUT_MS: int(120_000, 1),
    /** How JSON answers are asked for: a forced function call, a response_format schema, or JSON mode (see the README). */
    OPENAI_STRUCTURED: z.enum(['tools', 'json_schema', 'json_object']).default('tools'),
    /** The request field carrying the answer's room: OpenAI's current one, or the older one some local servers honour. */
    OPENAI_MAX_TOKENS_FIELD: z.enum(['max_completion_tokens', 'max_tokens']).default('max_completion_tokens'),
    /** The model of each tier, for every call MODELS does not name: a bare id on LLM_PROVIDER, or `provider:model`. */
    MODEL_FAST: z.string().min(1).default('claude-haiku-5-5'),
    MODEL_SMART: z.string().min(1).default('claude-sonnet-5-5'),
    /**
     * JSON: models per role (`intake`, `experts`, `facilitator`, `synthesis`,
     * `memory`, `default`) and per seat (`personas`: persona code → model), each
     * a model, an ordered fallback list, or {fast, smart}; see src/domain/models.ts.
     */
    MODELS: z
      .string()
      .optional()
      .transform((raw, ctx): ModelRouting | undefined => {
        if (!raw) return undefined;
        try {
          return modelsSchema.parse(JSON.parse(raw));
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: `must be a JSON object of role/persona → model(s): ${(e as Error).message}` });
          return z.NEVER;
        }
      }),
    /** A model of a fallback chain that failed this many times in a row is skipped for MODEL_CIRCUIT_RESET_MS. */
    MODEL_CIRCUIT_FAILURES: int(3, 1),
    MODEL_CIRCUIT_RESET_MS: int(30_000, 100),
    /** JSON object: model id → { input, output, cacheRead, cacheWrite } USD per MTok, and optionally minCacheableTokens. */
    PRICE_TABLE: z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (!raw) return DEFAULT_PRICES;
        try {
          return { ...DEFAULT_PRICES, ...z.record(z.string(), priceSchema).parse(JSON.parse(raw)) };
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: `must be a JSON object of model → price: ${(e as Error).message}` });
          return z.NEVER;
        }
      }),
    /** Simulated provider: milliseconds per call (mean) and jitter share. */
    SIM_LATENCY_MS: int(0),
    SIM_JITTER: z.coerce.number().min(0).max(1).default(0.2),
    /** Queue and worker. */
    QUEUE_NAME: z.string().regex(/^[a-z0-9_-]+$/i).default('sessions'),
    /** BullMQ's key prefix; a hash tag in braces keeps every queue key in one Redis Cluster slot (src/queue/prefix.ts). */
    QUEUE_PREFIX: z.string().regex(QUEUE_PREFIX_PATTERN, 'letters, digits, _ . - and at most one {hash tag}').default(DEFAULT_QUEUE_PREFIX),
    WORKER_CONCURRENCY: int(4, 1),
    JOB_ATTEMPTS: int(3, 1),
    /** How long a worker's job lock lives without renewal; a killed worker's job is taken over after this. */
    JOB_LOCK_MS: int(30_000, 1000),
    STALLED_INTERVAL_MS: int(30_000, 500),
    /** SSE. */
    SSE_HEARTBEAT_MS: int(15_000, 100),
    SSE_RETRY_MS: int(2_000, 0),
    /** Backstop poll of watched sessions, in case a Redis wake-up is lost. */
    SSE_POLL_MS: int(5_000, 50),
    /** A queued or running session idle this long with no live job is re-queued. */
    RECONCILE_STALE_MS: int(60_000, 100),
    /** How often the worker's sweep runs (expired checkpoints, lost jobs, retention); 0: never in this process, another runs it. */
    RECONCILE_INTERVAL_MS: int(30_000, 0).refine((ms) => ms === 0 || ms >= 100, 'must be 0 (no sweep in this process) or at least 100'),
    /** Compact ended sessions' event logs and steps this many days after they ended (the worker's sweep); 0: keep for ever. */
    SESSION_RETENTION_DAYS: int(0, 0),
    /** Also re-enqueue the memory jobs of sessions that ended in the last day without reporting them. */
    RECONCILE_MEMORY_JOBS: bool(true),
    /**
     * Server timeouts: the whole request (headers and body) must arrive within
     * REQUEST_TIMEOUT_MS, its headers within HEADERS_TIMEOUT_MS (408 after
     * either); a connection idle for CONNECTION_TIMEOUT_MS is closed (0: never).
     * None ends an SSE stream: its request is complete at once, and its
     * heartbeats keep the connection busy.
     */
    REQUEST_TIMEOUT_MS: int(30_000, 100),
    HEADERS_TIMEOUT_MS: int(10_000, 100),
    CONNECTION_TIMEOUT_MS: int(120_000),
    /** Request limits. */
    MAX_PROBLEM_CHARS: int(20_000, 1),
    BODY_LIMIT_BYTES: int(256 * 1024, 1024),
    /**
     * What a /v1 request without a key gets: `auto` — the `default` tenant while
     * no active API key exists, 401 once one does; `required` — always 401;
     * `open` — always the `default` tenant (development only). A key that is
     * sent is always checked.
     */
    AUTH_MODE: z.enum(['auto', 'required', 'open']).default('auto'),
    /** How long a stream token (POST /v1/sessions/{id}/stream-token, for browsers) opens its session's stream. */
    STREAM_TOKEN_TTL_SECONDS: int(300, 10),
    /** Key lookups are cached this long: a revoked key stops working within it (0: no cache). */
    AUTH_CACHE_MS: int(5_000),
    /** Requests per API key (per client IP without one) per window; 0 disables the limit. */
    RATE_LIMIT_PER_MINUTE: int(300),
    RATE_LIMIT_WINDOW_MS: int(60_000, 1000),
    /** Queued, running or awaiting_input sessions a tenant may have at once; 0 is unlimited. */
    MAX_ACTIVE_SESSIONS_PER_TENANT: int(10),
    /** JSON object of deliberation settings (thresholds, caps) merged over the spec's defaults. */
    ENGINE_SETTINGS: z
      .string()
      .optional()
      .transform((raw, ctx): EngineSettings => {
        if (!raw) return DEFAULT_ENGINE_SETTINGS;
        try {
          return engineSettingsSchema.parse(JSON.parse(raw));
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: `must be a JSON object of engine settings: ${(e as Error).message}` });
          return z.NEVER;
        }
      }),
    /**
     * The intake harm screen: `semantic` runs the phrase rules and the
     * semantic layer (an in-process sentence encoder, loaded once per worker
     * on start; the rules alone, logged, if it cannot load); `rules` only the
     * phrase rules.
     */
    // Rules by default: on blind3, the first set measured after both layers were built, the semantic layer took false refusals from 3.1% to 10% (README).
    HARM_SCREEN: z.enum(['semantic', 'rules']).default('rules'),
    /**
     * What the intake screen's refusal does: `confirm` has the model confirm
     * it at intake (told what the screen found), so the screen's false
     * refusals of lawful wording are overruled while the model's own screen
     * still sees every request; `refuse` ends the session before any model
     * call (for a deployment whose model is too weak to trust with the call).
     */
    // Confirm by default: on blind8 the rules then the model refused 5.6% of lawful requests, the model confirming the rules 0.0%, at the same 100% recall (README).
    HARM_SCREEN_FLAG: z.enum(['refuse', 'confirm']).default('confirm'),
    /** Run migrations when a process starts. */
    MIGRATE_ON_START: bool(true),
    /**
     * Embeddings: `local` is the offline hashed embedder (EMBEDDINGS_DIM wide);
     * `http` any OpenAI-compatible POST {EMBEDDINGS_URL}/v1/embeddings server
     * (OpenAI, or a local model server). Either is calibrated, so similarity
     * thresholds mean the same with both.
     */
    EMBEDDINGS_PROVIDER: z.enum(['local', 'http']).default('local'),
    EMBEDDINGS_URL: z.url().optional(),
    EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
    EMBEDDINGS_API_KEY: z.string().min(1).optional(),
    EMBEDDINGS_DIM: int(256, 1).pipe(z.number().max(8192)),
    /** Expert memory: recalled memories lose half their weight every this many days. */
    MEMORY_RECALL_HALF_LIFE_DAYS: z.coerce.number().positive().default(90),
    /** At most this many memories recalled per expert (0 turns recall off). */
    MEMORY_RECALL_LIMIT: int(5),
    /** Token cap of the recalled-memory block per expert. */
    MEMORY_TOKEN_CAP: int(300),
    /**
     * Token cap of the case memory in every prompt. 3,000 holds the whole
     * recorded interactive trial at its end (statement, assumptions, three
     * answers and three interventions in full, three decisions, progress:
     * ~2,500) plus recent activity; over the cap activity is left out first,
     * the person's words last. At 500 the person's answers were cut off and
     * the board asked for them again.
     */
    CASE_MEMORY_TOKEN_CAP: int(3000),
    /** Stored utterance vectors (for cross-session novelty) are purged after this many days. */
    NOVELTY_RETENTION_DAYS: int(30, 1),
  })
  .transform((env) => ({
    ...env,
    LLM_PROVIDER: env.LLM_PROVIDER ?? (env.ANTHROPIC_API_KEY ? 'anthropic' : 'simulated'),
  }))
  .superRefine((env, ctx) => {
    if (env.LLM_PROVIDER === 'anthropic' && !env.ANTHROPIC_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['ANTHROPIC_API_KEY'], message: 'is required when LLM_PROVIDER=anthropic' });
    }
    if (env.LLM_PROVIDER === 'openai' && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['OPENAI_API_KEY'], message: 'is required when LLM_PROVIDER=openai talks to api.openai.com (set OPENAI_BASE_URL for a local server)' });
    }
    if (env.EMBEDDINGS_PROVIDER === 'http' && !env.EMBEDDINGS_URL) {
      ctx.addIssue({ code: 'custom', path: ['EMBEDDINGS_URL'], message: 'is required when EMBEDDINGS_PROVIDER=http' });
    }
    if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: `must not exceed REQUEST_TIMEOUT_MS (${env.REQUEST_TIMEOUT_MS})` });
    }
    if (env.CONNECTION_TIMEOUT_MS !== 0 && env.CONNECTION_TIMEOUT_MS <= env.SSE_HEARTBEAT_MS) {
      ctx.addIssue({ code: 'custom', path: ['CONNECTION_TIMEOUT_MS'], message: `must be 0 or more than SSE_HEARTBEAT_MS (${env.SSE_HEARTBEAT_MS}), or idle streams are cut` });
    }
    for (const key of ['MODEL_FAST', 'MODEL_SMART'] as const) {
      const { provider = env.LLM_PROVIDER, model } = parseModelRef(env[key]);
      if (!availableProviders(env).has(provider)) ctx.addIssue({ code: 'custom', path: [key], message: `the ${provider} provider is not configured` });
      else if (!priceFor(env.PRICE_TABLE, provider, model)) {
        ctx.addIssue({ code: 'custom', path: ['PRICE_TABLE'], message: `has no price for ${key}=${env[key]}` });
      }
    }
    for (const problem of routingProblems(env, env.MODELS)) ctx.addIssue({ code: 'custom', path: ['MODELS'], message: problem });
  });

export type Config = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the environment; the only reader of process.env. Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Record<string, string> = {}): Config {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...env, ...overrides })) if (v !== undefined && v !== '') raw[k] = v;
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** A model's price: listed under `provider:model` (where providers share an id) or under the id alone. */
export function priceFor(table: Record<string, Price>, provider: string, model: string): Price | undefined {
  return table[`${provider}:${model}`] ?? table[model];
}

/** What checking model references needs from the configuration. */
type ProviderEnv = Pick<Config, 'LLM_PROVIDER' | 'ANTHROPIC_API_KEY' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'PRICE_TABLE'>;

/** The providers this deployment can reach: the ones with credentials (or a local base URL), and the simulated board. */
export function availableProviders(env: ProviderEnv): Set<string> {
  const out = new Set<string>(['simulated', env.LLM_PROVIDER]);
  if (env.ANTHROPIC_API_KEY) out.add('anthropic');
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) out.add('openai');
  return out;
}

/** Why a model reference cannot be used here (its provider is not configured, or it has no price); empty when it can. */
export function refProblems(env: ProviderEnv, ref: string): string[] {
  const parsed = parseModelRef(ref);
  const provider = parsed.provider ?? env.LLM_PROVIDER;
  if (!availableProviders(env).has(provider)) return [`${ref}: the ${provider} provider is not configured`];
  // Unpriced models would make budgets and cost figures lie. A seat named `simulated:` is free; a bare id on a
  // simulated deployment is priced as the real model it stands for, as the tier models always were.
  if (parsed.provider !== 'simulated' && !priceFor(env.PRICE_TABLE, provider, parsed.model)) return [`has no price for ${ref}; add it to PRICE_TABLE`];
  return [];
}

/** Every problem with the models a routing names (checked for MODELS at start and for a session's own at create). */
export function routingProblems(env: ProviderEnv, routing: ModelRouting | undefined): string[] {
  return refsOf(routing).flatMap((ref) => refProblems(env, ref));
}

export type TierPrices = Record<'smart' | 'fast', { input: number; output: number }>;

/** Input/output list prices of the models behind each tier (zero for an unpriced model). */
export function tierPricesOf(models: Record<'smart' | 'fast', string>, table: Record<string, Price>, defaultProvider = ''): TierPrices {
  const of = (ref: string) => {
    const { provider = defaultProvider, model } = parseModelRef(ref);
    const p = priceFor(table, provider, model);
    return { input: p?.input ?? 0, output: p?.output ?? 0 };
  };
  return { smart: of(models.smart), fast: of(models.fast) };
}

export const tierPrices = (c: Config): TierPrices => tierPricesOf({ smart: c.MODEL_SMART, fast: c.MODEL_FAST }, c.PRICE_TABLE, c.LLM_PROVIDER);
