import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  customType,
  doublePrecision,
  real,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** One row per deliberation. `lease` fences stale workers; `last_seq` allocates gapless event numbers. */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull().default('default'),
    status: text('status').notNull(),
    phase: text('phase').notNull(),
    problem: text('problem').notNull(),
    context: text('context').notNull().default(''),
    options: jsonb('options').notNull().default(sql`'{}'::jsonb`),
    provider: text('provider').notNull(),
    seed: text('seed').notNull(),
    lease: integer('lease').notNull().default(0),
    lastSeq: integer('last_seq').notNull().default(0),
    progress: jsonb('progress').notNull().default(sql`'{}'::jsonb`),
    results: jsonb('results'),
    /** The bounded case memory (seed 001), updated with every step. */
    caseMemory: jsonb('case_memory').notNull().default(sql`'{}'::jsonb`),
    error: jsonb('error'),
    /** The checkpoint the session waits on while `awaiting_input` (interactive mode); null otherwise. */
    checkpoint: jsonb('checkpoint'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    endedAt: ts('ended_at'),
  },
  (t) => [index('sessions_tenant_created_idx').on(t.tenantId, t.createdAt, t.id), index('sessions_status_idx').on(t.status)],
);

/** API keys: only a SHA-256 of the secret is stored; `prefix` identifies a key in listings and logs. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull().unique(),
    createdAt: ts('created_at').notNull().defaultNow(),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('api_keys_tenant_idx').on(t.tenantId)],
);

/**
 * Idempotency-Key records: the first request with a key claims the row
 * (`response` null while it runs), later ones with the same key replay the
 * stored response or are told the body differs.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: text('tenant_id').notNull(),
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code'),
    response: jsonb('response'),
    headers: jsonb('headers'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.scope, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/** The append-only log a client sees: gapless `seq` from 1 per session. */
export const sessionEvents = pgTable(
  'session_events',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    ts: ts('ts').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.seq] })],
);

/** Memoized step results, by deterministic key; a re-run job skips what is here. */
export const steps = pgTable(
  'steps',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    result: jsonb('result'),
    lease: integer('lease').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.key] })],
);

/** The cost ledger: one row per model call, written with the step that made it. */
export const llmCalls = pgTable(
  'llm_calls',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    stepKey: text('step_key').notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    phase: text('phase').notNull(),
    purpose: text('purpose').notNull(),
    promptVersion: text('prompt_version').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    cacheReadTokens: integer('cache_read_tokens').notNull().default(0),
    cacheWriteTokens: integer('cache_write_tokens').notNull().default(0),
    /** Estimated tokens of the stable prompt prefix, and its hash: what a provider prompt cache could serve. */
    prefixTokens: integer('prefix_tokens').notNull().default(0),
    prefixHash: text('prefix_hash').notNull().default(''),
    costUsd: numeric('cost_usd', { precision: 12, scale: 6, mode: 'number' }).notNull(),
    latencyMs: integer('latency_ms').notNull(),
    attempt: integer('attempt').notNull(),
    outcome: text('outcome').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('llm_calls_session_idx').on(t.sessionId, t.stepKey)],
);

/** Full-text search vector, generated by Postgres from the row's text. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** Sign bits of an embedding: a portable prefilter (Hamming distance) before the exact re-rank. */
const varbit = customType<{ data: string }>({ dataType: () => 'bit varying' });

const embeddingColumns = {
  /** The vector itself, portable to any Postgres; pgvector's column is added where the extension exists. */
  embedding: real('embedding').array().notNull(),
  embeddingBits: varbit('embedding_bits').notNull(),
  embeddingProvider: text('embedding_provider').notNull(),
  embeddingDim: integer('embedding_dim').notNull(),
  /**
   * The embedding's non-zero components (0-based positions and values) and its squared norm, kept by Postgres
   * (migration 0008's functions), for the exact re-rank: it multiplies only these. The local embedder's vectors
   * have about 30 non-zeros of 256, and the dense sum had been most of a recall's database time.
   */
  embeddingAt: integer('embedding_at')
    .array()
    .notNull()
    .generatedAlwaysAs(sql`bo1_nonzero_at(embedding)`),
  embeddingNonzero: real('embedding_nonzero')
    .array()
    .notNull()
    .generatedAlwaysAs(sql`bo1_nonzero(embedding)`),
  embeddingNorm2: doublePrecision('embedding_norm2')
    .notNull()
    .generatedAlwaysAs(sql`bo1_norm2(embedding)`),
};

/**
 * What experts remember. `scope` 'sub_problem': an expert's summary of one
 * sub-problem, used later in the same session (seed 000). `scope` 'session':
 * the anonymised, cross-session memory of a tenant, keyed by persona and
 * problem category. A contradicted memory is superseded, never deleted.
 */
export const expertMemories = pgTable(
  'expert_memories',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    scope: text('scope').notNull(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    subProblemId: text('sub_problem_id').notNull(),
    persona: text('persona').notNull(),
    category: text('category').notNull(),
    summary: text('summary').notNull(),
    position: text('position').notNull(),
    confidence: real('confidence').notNull(),
    anonymised: boolean('anonymised').notNull(),
    model: text('model').notNull(),
    promptVersion: text('prompt_version').notNull(),
    ...embeddingColumns,
    tsv: tsvector('tsv')
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('english', summary || ' ' || position)`),
    supersededBy: uuid('superseded_by'),
    supersededAt: ts('superseded_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('expert_memories_recall_idx').on(t.tenantId, t.scope, t.persona, t.createdAt),
    index('expert_memories_session_idx').on(t.sessionId),
    index('expert_memories_tsv_idx').using('gin', t.tsv),
  ],
);

/** Generalised lessons (seed 004), per tenant, reinforced rather than duplicated. */
export const lessons = pgTable(
  'lessons',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    type: text('type').notNull(),
    lesson: text('lesson').notNull(),
    triggerConditions: text('trigger_conditions').notNull(),
    suggestedFix: text('suggested_fix').notNull(),
    confidence: real('confidence').notNull(),
    tags: text('tags').array().notNull(),
    reinforcements: integer('reinforcements').notNull().default(1),
    model: text('model').notNull(),
    promptVersion: text('prompt_version').notNull(),
    ...embeddingColumns,
    tsv: tsvector('tsv')
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('english', lesson || ' ' || trigger_conditions || ' ' || suggested_fix)`),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('lessons_tenant_idx').on(t.tenantId, t.updatedAt), index('lessons_tsv_idx').using('gin', t.tsv)],
);

/** Which sessions a lesson came from: deleting a session's contributions removes lessons only it supported. */
export const lessonSources = pgTable(
  'lesson_sources',
  {
    lessonId: uuid('lesson_id')
      .notNull()
      .references(() => lessons.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.lessonId, t.sessionId] }), index('lesson_sources_session_idx').on(t.sessionId)],
);

/** Novelty memory (seed 003): every contribution and facilitator question, embedded, kept for the retention period. */
export const utterances = pgTable(
  'utterances',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: text('tenant_id').notNull(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    subProblemId: text('sub_problem_id').notNull(),
    round: integer('round').notNull(),
    persona: text('persona'),
    kind: text('kind').notNull(),
    text: text('text').notNull(),
    embedding: real('embedding').array().notNull(),
    embeddingProvider: text('embedding_provider').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('utterances_session_idx').on(t.sessionId, t.subProblemId), index('utterances_created_idx').on(t.createdAt)],
);
