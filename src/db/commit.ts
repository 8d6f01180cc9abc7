import type { Envelope, EventDraft } from '../domain/events';
import { AppError } from '../domain/errors';
import { TERMINAL_STATUSES, type Commit, type SessionStatus } from '../ports/session-store';
import type { CommitHeads, Head } from './commit-heads';

/** Runs one parameterised statement, returning its rows: the pool (one round trip) or a transaction's client. */
export type RunSql = <R>(text: string, values: unknown[]) => Promise<R[]>;

/** bo1_commit (migrations/0005): one statement, one round trip, the lease check in the same UPDATE as the seq allocation. */
export const COMMIT_SQL = 'select * from bo1_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
const HEAD_SQL = 'select last_seq, case_memory from sessions where id = $1';

interface CommitRow {
  r_ok: boolean;
  r_base: number | null;
  r_lease: number;
  r_status: string;
  r_last_seq: number;
  r_case_memory: unknown;
}

/**
 * Refusals for a stale head are retried from the head Postgres returned. Each one means a commit from elsewhere
 * (another process, the API) landed first, so this only runs out when a session's commits race without end; the
 * step then fails and its job retries, as for any storage error.
 */
const MAX_ATTEMPTS = 8;

const envelopesAt = (sessionId: string, base: number, drafts: EventDraft[], ts: string): Envelope[] =>
  drafts.map((d, i) => ({ seq: base + i + 1, type: d.type, session_id: sessionId, ts, data: d.data as Record<string, unknown> }));

async function headOf(run: RunSql, heads: CommitHeads, sessionId: string): Promise<Head> {
  const known = heads.get(sessionId);
  if (known) return known;
  const [row] = await run<{ last_seq: number; case_memory: unknown }>(HEAD_SQL, [sessionId]);
  if (!row) throw new AppError('not-found', `session ${sessionId} does not exist`);
  return { lastSeq: row.last_seq, caseMemory: row.case_memory };
}

/**
 * A step's commit through bo1_commit: the events (validated by the caller), the
 * step, the ledger and the patch in one statement. With a case-memory fold, the
 * new memory is folded here onto this process's head of the log and sent with
 * `expect`, so no round trip reads the row under its lock; a stale head is
 * refused by Postgres, writes nothing, and is retried from the row it returns.
 * Callers run it under `heads.serial(sessionId, …)`.
 */
export async function commitStep(run: RunSql, heads: CommitHeads, sessionId: string, lease: number | null, c: Commit, drafts: EventDraft[]): Promise<Envelope[]> {
  // Taken when the commit's turn comes, so the log's timestamps follow its seqs as they did under the row lock.
  const now = new Date();
  const ts = now.toISOString();
  const fold = c.caseMemory && drafts.length ? c.caseMemory : undefined;
  const fixed = [
    c.step?.key ?? null,
    c.step ? JSON.stringify(c.step.result ?? null) : null,
    JSON.stringify(drafts.map((d) => ({ type: d.type, data: d.data }))),
    now,
    JSON.stringify(c.calls ?? []),
    JSON.stringify(c.patch ?? {}),
  ];
  for (let attempt = 1; ; attempt++) {
    let expect: number | null = null;
    let memory: string | null = null;
    let envelopes: Envelope[] | undefined;
    let folded: unknown;
    if (fold) {
      const head = await headOf(run, heads, sessionId);
      expect = head.lastSeq;
      envelopes = envelopesAt(sessionId, expect, drafts, ts);
      folded = fold(head.caseMemory, envelopes);
      memory = JSON.stringify(folded);
    }
    let row: CommitRow | undefined;
    try {
      [row] = await run<CommitRow>(COMMIT_SQL, [sessionId, lease, expect, ...fixed, memory]);
    } catch (err) {
      heads.drop(sessionId);
      throw err;
    }
    if (!row) {
      heads.drop(sessionId);
      throw new AppError('not-found', `session ${sessionId} does not exist`);
    }
    if (row.r_ok) {
      // An ended session commits no more; an unfolded append moved the log without this process knowing the memory at its end.
      if (c.patch?.status && TERMINAL_STATUSES.has(c.patch.status)) heads.drop(sessionId);
      else if (fold) heads.set(sessionId, { lastSeq: expect! + drafts.length, caseMemory: folded });
      else if (drafts.length) heads.drop(sessionId);
      return envelopes ?? envelopesAt(sessionId, row.r_base!, drafts, ts);
    }
    heads.drop(sessionId);
    if (lease !== null && row.r_lease !== lease) {
      throw new AppError('lease-lost', `session ${sessionId}: lease ${lease} superseded by ${row.r_lease}`);
    }
    if (TERMINAL_STATUSES.has(row.r_status as SessionStatus)) {
      throw new AppError('lease-lost', `session ${sessionId} is already ${row.r_status}`);
    }
    if (attempt >= MAX_ATTEMPTS) throw new Error(`session ${sessionId}: commit refused ${attempt} times for a moving log head`);
    heads.set(sessionId, { lastSeq: row.r_last_seq, caseMemory: row.r_case_memory });
  }
}
