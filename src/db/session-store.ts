import { and, asc, desc, eq, gt, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { Envelope, EventDraft, Usage } from '../domain/events';
import { validateEvent } from '../domain/events';
import { AppError } from '../domain/errors';
import { sumUsage } from '../domain/usage';
import {
  ACTIVE_STATUSES,
  TERMINAL_STATUSES,
  type Commit,
  type LedgerEntry,
  type LedgerRow,
  type NewSession,
  type Page,
  type SessionRow,
  type SessionStatus,
  type SessionStorePort,
  sessionCapError,
} from '../ports/session-store';
import type { Database, Db } from './client';
import { COMMIT_ALL_SQL, COMMIT_SQL, commitArgs, commitBatch, ends, openRow, type Pending, type RunSql } from './commit';
import { CommitQueue } from './commit-queue';
import { CommitHeads } from './commit-heads';
import { refusedByPostgres, TickBatch } from './tick-batch';
import { before, encodeCursor, exactTs } from './cursor';
import { NeedsTransaction, SideRows, txOf } from './tx';
import { causeChain } from './unavailable';
import { llmCalls, sessionEvents, sessions, steps } from './schema';

export { ACTIVE_STATUSES, TERMINAL_STATUSES };

/** The HINT of a Postgres error, however the driver or drizzle wrapped it. */
const hint = (err: unknown): string | undefined => {
  for (const e of causeChain(err) as Iterable<Error & { hint?: unknown }>) if (typeof e.hint === 'string') return e.hint;
  return undefined;
};
export type { Commit, LedgerEntry, LedgerRow, LockedRow, NewSession, Page, SessionPatch, SessionRow, SessionStatus } from '../ports/session-store';

/** The port's row types are the tables' rows: a column added to one and not the other fails to compile here. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const rowsMatch: [Same<SessionRow, typeof sessions.$inferSelect>, Same<LedgerRow, typeof llmCalls.$inferSelect>] = [true, true];
void rowsMatch;

const toEnvelope = (sessionId: string, r: { seq: number; type: string; data: unknown; ts: Date }): Envelope => ({
  seq: r.seq,
  type: r.type,
  session_id: sessionId,
  ts: r.ts.toISOString(),
  data: r.data as Record<string, unknown>,
});

/**
 * The session repository: the only code that writes sessions, their event
 * log, their steps and their ledger. Every append happens under the session
 * row's lock, which is what makes `seq` gapless and the lease a fence.
 */
export class SessionStore implements SessionStorePort {
  /** This process's belief of each running session's log head (last seq, case memory): see commit-heads.ts. */
  private readonly heads = new CommitHeads();
  /** One statement straight on the pool: no drizzle query building on the hot path. */
  private readonly runOnPool: RunSql = async <R>(text: string, values: unknown[]) => (await this.database.pool.query(text, values)).rows as R[];

  /** As runOnPool, but the sessions' commit statements of one turn go as one (COMMIT_ALL_SQL). */
  private readonly runCommits: RunSql = async <R>(text: string, values: unknown[]) =>
    text === COMMIT_SQL ? [(await this.commitsOfTurn.add(values)) as R] : this.runOnPool<R>(text, values);

  /**
   * The commit statements of every session of this process made in one turn of the event loop: one statement, so a
   * worker running many sessions sends one round trip (and flushes the WAL once) where it sent one per session, each
   * waiting for a pool connection. In session-id order, so two such statements lock the rows they share in the same
   * order. At most 50 a statement; a failed statement is retried call by call (TickBatch), so one session's error is
   * its own.
   */
  private readonly commitsOfTurn = new TickBatch<unknown[], unknown>(async (calls) => {
    if (calls.length === 1) return [(await this.runOnPool(COMMIT_SQL, calls[0]!))[0]];
    const order = calls.map((values, i) => ({ i, id: String(values[0]) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.i - b.i));
    const out: unknown[] = new Array(calls.length);
    for (let k = 0; k < order.length; k += 50) {
      const chunk = order.slice(k, k + 50);
      const rows = await this.runOnPool<{ ord: number | string }>(COMMIT_ALL_SQL, [`[${chunk.map((c) => commitArgs(calls[c.i]!)).join(',')}]`]);
      // By ord: a call for a session that does not exist returns no row (and stays undefined: not found).
      for (const row of rows) out[chunk[Number(row.ord) - 1]!.i] = row;
    }
    return out;
  }, refusedByPostgres);

  constructor(private readonly database: Database) {}

  private get db(): Db {
    return this.database.db;
  }

  /**
   * Records a session and its first event, in one statement (one round trip:
   * the first SSE event is readable as soon as the POST returns). With
   * `activeCap` > 0, refuses (too-many-sessions) when the tenant already has
   * that many active sessions: `bo1_admit` (migrations/0007) counts under a
   * per-tenant advisory lock held to the statement's commit, so concurrent
   * creates cannot both take the last slot.
   */
  async create(s: NewSession, first: EventDraft, activeCap = 0): Promise<SessionRow> {
    const draft = validateEvent(first);
    // A data-modifying CTE runs whether or not the INSERT reads it; the event's foreign key is checked at the statement's end.
    const event = this.db.$with('created_event', {}).as(this.db.insert(sessionEvents).values({ sessionId: s.id, seq: 1, ...draft }).getSQL());
    const status = activeCap > 0 ? sql`case when bo1_admit(${s.tenantId}, ${activeCap}, ${`{${ACTIVE_STATUSES.join(',')}}`}::text[]) then 'queued' end` : 'queued';
    try {
      const [row] = await this.db.with(event).insert(sessions).values({ ...s, status, phase: 'queued', lastSeq: 1 }).returning();
      return row!;
    } catch (err) {
      if (hint(err) === 'bo1:too-many-sessions') throw sessionCapError(activeCap);
      throw err;
    }
  }

  async get(id: string, tenantId?: string): Promise<SessionRow | null> {
    const where = tenantId === undefined ? eq(sessions.id, id) : and(eq(sessions.id, id), eq(sessions.tenantId, tenantId));
    const [row] = await this.db.select().from(sessions).where(where);
    return row ?? null;
  }

  async list(tenantId: string, limit: number, cursor?: string, status?: SessionStatus): Promise<Page<SessionRow>> {
    const rows = await this.db
      .select({ row: sessions, cursorTs: exactTs(sessions.createdAt) })
      .from(sessions)
      .where(
        and(
          eq(sessions.tenantId, tenantId),
          status ? eq(sessions.status, status) : undefined,
          cursor === undefined ? undefined : before(sessions.createdAt, sessions.id, cursor),
        ),
      )
      .orderBy(desc(sessions.createdAt), desc(sessions.id))
      .limit(limit + 1);
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    // The cursor keeps created_at's microseconds: cut at milliseconds (a Date), it skipped sessions created in the same millisecond.
    return { items: items.map((r) => r.row), nextCursor: rows.length > limit && last ? encodeCursor(last.cursorTs, last.row.id) : null };
  }

  async events(sessionId: string, after: number, limit: number): Promise<Envelope[]> {
    const rows = await this.db
      .select({ seq: sessionEvents.seq, type: sessionEvents.type, data: sessionEvents.data, ts: sessionEvents.ts })
      .from(sessionEvents)
      .where(and(eq(sessionEvents.sessionId, sessionId), gt(sessionEvents.seq, after)))
      .orderBy(asc(sessionEvents.seq))
      .limit(limit);
    return rows.map((r) => toEnvelope(sessionId, r));
  }

  /**
   * Takes the session for a new run: bumps the lease (fencing out any older
   * run) and marks it running. Null when the session is already over.
   */
  async acquireLease(id: string): Promise<{ lease: number; row: SessionRow } | null> {
    const [row] = await this.db
      .update(sessions)
      .set({
        lease: sql`${sessions.lease} + 1`,
        status: 'running',
        startedAt: sql`coalesce(${sessions.startedAt}, now())`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(sessions.id, id), sql`${sessions.status} in ('queued', 'running')`))
      .returning();
    if (!row) return null;
    // The run's first commit folds onto this: the row was just read with its last seq and case memory.
    this.heads.set(id, { lastSeq: row.lastSeq, caseMemory: row.caseMemory });
    await this.abandonPending(id);
    return { lease: row.lease, row };
  }

  async completedSteps(sessionId: string): Promise<Map<string, unknown>> {
    const rows = await this.db
      .select({ key: steps.key, result: steps.result })
      .from(steps)
      .where(eq(steps.sessionId, sessionId));
    return new Map(rows.map((r) => [r.key, r.result]));
  }

  /**
   * Writes a step's result, its events, its ledger rows and the session patch
   * atomically. With a lease, refuses (lease-lost) unless it is still the
   * session's; without one (API-side writes), refuses on a terminal session.
   * Returns the appended envelopes.
   *
   * A session's commits in this process queue for their turn (CommitQueue),
   * and those waiting together go as one bo1_commit_many statement
   * (src/db/commit.ts): the lease check, the seq allocation and every write
   * are one atomic round trip for the whole batch, so the row is locked for
   * that statement only. A `write` hook hands its rows over (src/db/tx.ts)
   * and they go in the same statement (a hook that runs SQL of its own gets a
   * transaction instead); a failing hook fails the whole batch, which then
   * wrote nothing. A `guard` (the API's, once in a while per
   * session) takes the row lock in a transaction of its own, and its hook
   * writes through that transaction.
   */
  async commit(sessionId: string, lease: number | null, c: Commit): Promise<Envelope[]> {
    const drafts = c.events.map(validateEvent);
    if (!c.guard) return this.commits.add(sessionId, { lease, c, drafts });
    return this.db
      .transaction(async (tx) => {
        const [locked] = await tx
          .select({ tenantId: sessions.tenantId, lease: sessions.lease, status: sessions.status, checkpoint: sessions.checkpoint })
          .from(sessions)
          .where(eq(sessions.id, sessionId))
          .for('update');
        if (!locked) throw new AppError('not-found', `session ${sessionId} does not exist`);
        c.guard!(locked);
        if (c.write) await c.write(txOf(tx));
        const { envelopes } = await commitBatch(inTx(tx), this.heads, sessionId, lease, [{ c, drafts }]);
        return envelopes[0]!;
      })
      // A head kept for a guarded commit would only go stale.
      .finally(() => this.heads.drop(sessionId));
  }

  /**
   * One batch of a session's commits (all under one lease) and the pending ledger rows riding with it: one
   * statement, or a transaction when a hook writes rows.
   */
  private readonly commits = new CommitQueue<{ lease: number | null } & Pending, LedgerEntry, Envelope[], number>(
    async (sessionId, batch, open) => {
      if (!batch.length) return { results: [], ids: await this.openRows(open.map((entry) => ({ sessionId, entry }))) };
      const lease = batch[0]!.lease;
      // The hooks hand their rows (memory, utterances) over to go in the batch's own statement: no transaction, and no
      // connection is held while a hook runs.
      const side = new SideRows();
      try {
        for (const p of batch) if (p.c.write) await p.c.write(side.handle);
      } catch (err) {
        if (!(err instanceof NeedsTransaction)) throw err;
        // A hook runs SQL of its own: the batch's hooks run again in a transaction, then the same statement in it. The
        // turn was taken before this connection: a transaction holding one while it waited for its turn, behind a
        // commit waiting for a connection, would starve the pool.
        const sent = await this.db.transaction(async (tx) => {
          for (const p of batch) if (p.c.write) await p.c.write(txOf(tx));
          return commitBatch(inTx(tx), this.heads, sessionId, lease, batch, open);
        });
        return { results: sent.envelopes, ids: sent.callIds };
      }
      const sent = await commitBatch(this.runCommits, this.heads, sessionId, lease, batch, open, side);
      return { results: sent.envelopes, ids: sent.callIds };
    },
    (p) => ends(p.c),
    (p) => !!p.c.write,
  );

  /**
   * Appends events after a session ended (what its memory and lesson jobs
   * did). They join the same gapless log; a live stream has already closed at
   * the terminal event, a replay or the JSON pages show them.
   */
  async annex(sessionId: string, drafts: EventDraft[]): Promise<Envelope[]> {
    if (!drafts.length) return [];
    const valid = drafts.map(validateEvent);
    return this.db.transaction(async (tx) => {
      const [locked] = await tx.select({ lastSeq: sessions.lastSeq }).from(sessions).where(eq(sessions.id, sessionId)).for('update');
      if (!locked) throw new AppError('not-found', `session ${sessionId} does not exist`);
      const now = new Date();
      const rows = valid.map((d, i) => ({ sessionId, seq: locked.lastSeq + i + 1, type: d.type, data: d.data, ts: now }));
      await tx.insert(sessionEvents).values(rows);
      await tx.update(sessions).set({ lastSeq: locked.lastSeq + rows.length, updatedAt: now }).where(eq(sessions.id, sessionId));
      return rows.map((r) => toEnvelope(sessionId, r));
    });
  }

  /** Whether the session's log holds an event of this type (e.g. a job already reported). */
  async hasEvent(sessionId: string, type: string): Promise<boolean> {
    const [row] = await this.db
      .select({ seq: sessionEvents.seq })
      .from(sessionEvents)
      .where(and(eq(sessionEvents.sessionId, sessionId), eq(sessionEvents.type, type)))
      .limit(1);
    return !!row;
  }

  /** The session's spend so far, summed from the ledger. */
  async usage(sessionId: string): Promise<Usage> {
    const rows = await this.db
      .select({
        phase: llmCalls.phase,
        calls: sql<number>`count(*)::int`,
        inputTokens: sql<number>`sum(${llmCalls.inputTokens})::int`,
        outputTokens: sql<number>`sum(${llmCalls.outputTokens})::int`,
        cacheReadTokens: sql<number>`sum(${llmCalls.cacheReadTokens})::int`,
        cacheWriteTokens: sql<number>`sum(${llmCalls.cacheWriteTokens})::int`,
        costUsd: sql<number>`sum(${llmCalls.costUsd})::float8`,
      })
      .from(llmCalls)
      // A pending row is an estimate the running step will settle: counting it too would count that call twice.
      .where(and(eq(llmCalls.sessionId, sessionId), ne(llmCalls.outcome, 'pending')))
      .groupBy(llmCalls.phase);
    return sumUsage(rows);
  }

  /**
   * Writes a model call's ledger row before the call is made (outcome
   * `pending`, estimated tokens and cost), so a call in flight when its
   * worker dies is still accounted for: the next lease marks it `abandoned`,
   * keeping the estimate. Not fenced: a stale worker's call is spend too.
   */
  async openCall(sessionId: string, entry: LedgerEntry): Promise<number> {
    // With the session's commits gathered in this turn (the step before this call), if any: one round trip for both.
    return this.commits.ride(sessionId, entry) ?? this.opening.add({ sessionId, entry });
  }

  /**
   * Once per model call, so the rows asked for in one turn of the event loop that found no commit to ride with (a
   * round's parallel turns, every session of the worker) go as one fixed statement (bo1_open).
   */
  private readonly opening = new TickBatch<{ sessionId: string; entry: LedgerEntry }, number>((rows) => this.openRows(rows), refusedByPostgres);

  private async openRows(rows: { sessionId: string; entry: LedgerEntry }[]): Promise<number[]> {
    const json = JSON.stringify(rows.map(({ sessionId, entry }) => openRow(sessionId, entry)));
    const { rows: [row] } = await this.database.pool.query<{ ids: (number | string)[] }>('select bo1_open($1::jsonb) as ids', [json]);
    return row!.ids.map(Number);
  }

  /**
   * Calls still pending when a new run starts belong to a run that died
   * (crash, kill): they were made, so they stay, as `abandoned`, with their
   * estimate. `stepPrefix` narrows it to one job's calls.
   */
  async abandonPending(sessionId: string, stepPrefix = ''): Promise<void> {
    await this.db
      .update(llmCalls)
      .set({ outcome: 'abandoned' })
      .where(and(eq(llmCalls.sessionId, sessionId), eq(llmCalls.outcome, 'pending'), sql`starts_with(${llmCalls.stepKey}, ${stepPrefix})`));
  }

  /**
   * Settles ledger rows outside a step's commit: a failed step's calls, a
   * fenced commit's, and the memory and lesson jobs' after a session ended.
   * Not fenced, for the same reason as openCall.
   */
  async recordCalls(sessionId: string, calls: LedgerEntry[]): Promise<void> {
    if (calls.length) await this.database.pool.query('select bo1_settle($1, $2)', [sessionId, JSON.stringify(calls)]);
  }

  async caseMemory(sessionId: string): Promise<unknown> {
    const [row] = await this.db.select({ caseMemory: sessions.caseMemory }).from(sessions).where(eq(sessions.id, sessionId));
    return row?.caseMemory ?? null;
  }

  async ledger(sessionId: string): Promise<LedgerRow[]> {
    return this.db.select().from(llmCalls).where(eq(llmCalls.sessionId, sessionId)).orderBy(asc(llmCalls.id));
  }

  /** Sessions waiting on a checkpoint whose expiry has passed. */
  async expiredCheckpoints(now: Date): Promise<SessionRow[]> {
    return this.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.status, 'awaiting_input'), sql`(${sessions.checkpoint} ->> 'expiresAt')::timestamptz <= ${now.toISOString()}::timestamptz`));
  }

  /**
   * Sessions that ended between `since` and `before` whose memory jobs have
   * not reported (no `memory.contributed` / `lessons.extracted` in the log):
   * their jobs may have been lost with Redis. Refused sessions and sessions
   * that opted out of contributing have none.
   */
  async memoryJobsMissing(since: Date, before: Date): Promise<{ id: string; contribute: boolean; lessons: boolean }[]> {
    const reported = (type: string) =>
      sql`exists (select 1 from ${sessionEvents} e where e.session_id = ${sessions.id} and e.type = ${type})`;
    const rows = await this.db
      .select({
        id: sessions.id,
        contribute: sql<boolean>`${sessions.status} = 'completed' and not ${reported('memory.contributed')}`,
        lessons: sql<boolean>`not ${reported('lessons.extracted')}`,
      })
      .from(sessions)
      .where(
        and(
          sql`${sessions.status} in ('completed', 'failed')`,
          sql`${sessions.phase} <> 'refused'`,
          sql`coalesce((${sessions.options} -> 'memory' ->> 'contribute')::boolean, true)`,
          sql`${sessions.endedAt} between ${since.toISOString()}::timestamptz and ${before.toISOString()}::timestamptz`,
        ),
      );
    return rows.filter((r) => r.contribute || r.lessons);
  }

  /** Sessions that should be moving but may have lost their job (e.g. Redis was flushed). */
  async unfinished(olderThanMs: number): Promise<string[]> {
    const rows = await this.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(
        and(
          sql`${sessions.status} in ('queued', 'running')`,
          lt(sessions.updatedAt, new Date(Date.now() - olderThanMs)),
        ),
      );
    return rows.map((r) => r.id);
  }
}

/** A transaction's client as RunSql: the same statement text the pool runs. */
const inTx =
  (tx: { execute: Db['execute'] }): RunSql =>
  async <R>(text: string, values: unknown[]) =>
    (await tx.execute(bind(text, values))).rows as R[];

/** `$n` placeholders as drizzle params, so a transaction runs the same statement text the pool does. */
function bind(text: string, values: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 ? sql.param(values[Number(part) - 1]) : sql.raw(part))));
}
