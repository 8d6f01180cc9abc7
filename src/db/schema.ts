import { sql } from 'drizzle-orm';
import {
  bigserial,
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
    error: jsonb('error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    endedAt: ts('ended_at'),
  },
  (t) => [index('sessions_tenant_created_idx').on(t.tenantId, t.createdAt, t.id), index('sessions_status_idx').on(t.status)],
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
