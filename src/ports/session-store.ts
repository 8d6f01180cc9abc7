import type { Envelope, EventDraft, Usage } from '../domain/events';
import { AppError } from '../domain/errors';

/**
 * The session record as the app and HTTP layers see it: sessions, their
 * gapless event log, memoized steps and the cost ledger. Two adapters
 * implement it — Postgres (src/db/session-store.ts) and an in-memory twin
 * (src/db/in-memory-session-store.ts) — and one conformance suite
 * (tests/contract/session-store.conformance.ts) holds both to it.
 */

export type SessionStatus = 'queued' | 'running' | 'awaiting_input' | 'completed' | 'failed' | 'cancelled';
export const TERMINAL_STATUSES: ReadonlySet<SessionStatus> = new Set(['completed', 'failed', 'cancelled']);
/** Sessions that hold a slot of the tenant's cap. */
export const ACTIVE_STATUSES: readonly SessionStatus[] = ['queued', 'running', 'awaiting_input'];

/** What `create` throws when the tenant's cap of active sessions is taken. */
export const sessionCapError = (cap: number): AppError =>
  new AppError('too-many-sessions', `the tenant already has ${cap} active sessions`, { details: { cap } });

declare const txBrand: unique symbol;
/**
 * The transaction a commit runs in, opaque to the app: a `write` hook hands it
 * to another store of the same adapter family (memory rows written with the
 * step), which knows how to open it. Nothing else may look inside.
 */
export type Tx = { readonly [txBrand]: 'Tx' };

export interface SessionRow {
  id: string;
  tenantId: string;
  status: string;
  phase: string;
  problem: string;
  context: string;
  options: unknown;
  provider: string;
  seed: string;
  lease: number;
  lastSeq: number;
  progress: unknown;
  results: unknown;
  caseMemory: unknown;
  error: unknown;
  checkpoint: unknown;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** A ledger row to write; `id` set once the row was written ahead of its call (then settling updates it). */
export interface LedgerEntry {
  id?: number;
  stepKey: string;
  provider: string;
  model: string;
  phase: string;
  purpose: string;
  promptVersion: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  prefixTokens?: number;
  prefixHash?: string;
  costUsd: number;
  latencyMs: number;
  attempt: number;
  outcome: string;
}

/** A stored ledger row. */
export type LedgerRow = Required<LedgerEntry> & { sessionId: string; createdAt: Date };

/** What one commit changes besides appending events. */
export interface SessionPatch {
  status?: SessionStatus;
  phase?: string;
  /** Merged into the stored progress (top-level keys replaced). */
  progress?: Record<string, unknown>;
  /** Sets `progress.subProblems[id]`: concurrent sub-problems each write their own entry. */
  subProblemProgress?: { id: string; value: Record<string, unknown> };
  results?: Record<string, unknown>;
  error?: Record<string, unknown> | null;
  /** The checkpoint the session now waits on, or null once it is answered. */
  checkpoint?: object | null;
  ended?: boolean;
}

/** The session row as a commit sees it, under its lock. */
export interface LockedRow {
  tenantId: string;
  status: string;
  lease: number;
  checkpoint: unknown;
}

export interface Commit {
  step?: { key: string; result: unknown };
  events: EventDraft[];
  calls?: LedgerEntry[];
  patch?: SessionPatch;
  /**
   * Derives the new case memory from the stored one and the events this commit appends. Pure: it may run more than
   * once for one commit (Postgres folds onto the head of the log this process believes in and retries when another
   * writer moved it), and must not modify `current`, which the adapter may keep as the base of the next fold.
   */
  caseMemory?: (current: unknown, events: Envelope[]) => unknown;
  /** Further rows to write in the same transaction (e.g. memory rows a step produced); throwing aborts the commit. */
  write?: (tx: Tx) => Promise<unknown>;
  /** Checks the locked row before anything is written; throwing aborts the commit (e.g. a checkpoint no longer pending). */
  guard?: (row: LockedRow) => void;
}

export interface NewSession {
  id: string;
  tenantId: string;
  problem: string;
  context: string;
  options: Record<string, unknown>;
  provider: string;
  seed: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface SessionStorePort {
  /**
   * Records a session (status `queued`, lastSeq 1) and its first event. With
   * `activeCap` > 0, refuses (session cap) when the tenant already has that
   * many active sessions, atomically with respect to concurrent creates.
   */
  create(s: NewSession, first: EventDraft, activeCap?: number): Promise<SessionRow>;
  /** With a tenant, only that tenant's session. */
  get(id: string, tenantId?: string): Promise<SessionRow | null>;
  /** The tenant's sessions, newest first, keyset-paginated by an opaque cursor (a bad one is refused). */
  list(tenantId: string, limit: number, cursor?: string, status?: SessionStatus): Promise<Page<SessionRow>>;
  /** Events with seq > after, in order. */
  events(sessionId: string, after: number, limit: number): Promise<Envelope[]>;
  /** Bumps the lease (fencing older runs), marks the session running, abandons pending calls. Null once it is over. */
  acquireLease(id: string): Promise<{ lease: number; row: SessionRow } | null>;
  completedSteps(sessionId: string): Promise<Map<string, unknown>>;
  /**
   * Step result, events, ledger rows, `write` and patch, all or nothing. With
   * a lease, refused unless it is still the session's; refused on a terminal
   * session either way. Returns the appended envelopes.
   *
   * A handle's commits of one session land in the order they were made, so a
   * run need not wait for one before making the next (SessionRun). Once one
   * of a lease's unguarded commits fails, that lease's later ones fail too,
   * those already waiting included, so what lands of a run is a prefix of
   * what it committed; only a commit that ends the session still goes.
   */
  commit(sessionId: string, lease: number | null, c: Commit): Promise<Envelope[]>;
  /** Appends events after the session ended (its memory jobs' outcomes). */
  annex(sessionId: string, drafts: EventDraft[]): Promise<Envelope[]>;
  hasEvent(sessionId: string, type: string): Promise<boolean>;
  /** Spend from the ledger; pending rows are estimates and do not count. */
  usage(sessionId: string): Promise<Usage>;
  /**
   * Writes a pending ledger row ahead of a model call; returns its id. It may be written with the session's commits
   * made just before it (one round trip), and then only if they land.
   */
  openCall(sessionId: string, entry: LedgerEntry): Promise<number>;
  /** Marks pending rows (whose step key starts with `stepPrefix`) abandoned. */
  abandonPending(sessionId: string, stepPrefix?: string): Promise<void>;
  /** Settles ledger rows outside a commit (not fenced). */
  recordCalls(sessionId: string, calls: LedgerEntry[]): Promise<void>;
  caseMemory(sessionId: string): Promise<unknown>;
  ledger(sessionId: string): Promise<LedgerRow[]>;
  /** Sessions awaiting input whose checkpoint's `expiresAt` is at or before `now`. */
  expiredCheckpoints(now: Date): Promise<SessionRow[]>;
  /** Ended sessions (between `since` and `before`) whose memory jobs have not reported. */
  memoryJobsMissing(since: Date, before: Date): Promise<{ id: string; contribute: boolean; lessons: boolean }[]>;
  /** Queued or running sessions not updated for `olderThanMs`. */
  unfinished(olderThanMs: number): Promise<string[]>;
}
