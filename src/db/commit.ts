import type { Envelope, EventDraft } from '../domain/events';
import { AppError } from '../domain/errors';
import { TERMINAL_STATUSES, type Commit, type LedgerEntry, type SessionStatus } from '../ports/session-store';
import type { CommitHeads, Head } from './commit-heads';
import type { SideRows } from './tx';

/** Runs one parameterised statement, returning its rows: the pool (one round trip) or a transaction's client. */
export type RunSql = <R>(text: string, values: unknown[]) => Promise<R[]>;

/**
 * bo1_commit_many (migrations/0006): one statement, one round trip, for every commit of the batch; the lease check is
 * in the same UPDATE as the seq allocation.
 */
export const COMMIT_SQL = 'select * from bo1_commit_many($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)';

/**
 * Several sessions' COMMIT_SQL calls in one statement (SessionStore batches the ones of one turn): one round trip,
 * one transaction and so one WAL flush for all of them, where a worker running many sessions at once otherwise
 * queued a statement per session for a pool connection each. `$1` is a JSON array of each call's arguments in
 * COMMIT_SQL's order; a row per call comes back, in order. One call's error fails the statement (nothing of it is
 * written), and the caller then runs each call on its own.
 */
export const COMMIT_ALL_SQL = `select b.ord, r.* from jsonb_array_elements($1::jsonb) with ordinality as b(v, ord)
  cross join lateral bo1_commit_many((b.v ->> 0)::uuid, (b.v ->> 1)::integer, (b.v ->> 2)::integer, b.v -> 3, b.v -> 4,
    (b.v ->> 5)::timestamptz, b.v -> 6, b.v -> 7, b.v -> 8, b.v -> 9, b.v -> 10) as r
  order by b.ord`;

/**
 * One COMMIT_SQL call's arguments as an element of COMMIT_ALL_SQL's array. The JSON arguments are already JSON text,
 * so they go in as they are rather than as strings to parse twice.
 */
export function commitArgs(values: unknown[]): string {
  const [sessionId, lease, expect, steps, events, now, calls, patches, memory, opens, rows] = values as [
    string, number | null, number | null, string, string, Date, string, string, string | null, string, string,
  ];
  return `[${JSON.stringify(sessionId)},${lease ?? 'null'},${expect ?? 'null'},${steps},${events},${JSON.stringify(now.toISOString())},${calls},${patches},${memory ?? 'null'},${opens},${rows}]`;
}
const HEAD_SQL = 'select last_seq, case_memory from sessions where id = $1';

/** One commit of a batch: what the caller asked for, its events validated. */
export interface Pending {
  c: Commit;
  drafts: EventDraft[];
}

interface CommitRow {
  r_ok: boolean;
  r_base: number | null;
  r_lease: number;
  r_status: string;
  r_last_seq: number;
  r_case_memory: unknown;
  r_open: number[] | null;
}

/**
 * Refusals for a stale head are retried from the head Postgres returned. Each one means a commit from elsewhere
 * (another process, the API) landed first, so this only runs out when a session's commits race without end; the
 * step then fails and its job retries, as for any storage error.
 */
const MAX_ATTEMPTS = 8;

const envelopesAt = (sessionId: string, base: number, drafts: EventDraft[], ts: string): Envelope[] =>
  drafts.map((d, i) => ({ seq: base + i + 1, type: d.type, session_id: sessionId, ts, data: d.data as Record<string, unknown> }));

/** A pending ledger row as bo1_open takes it (the llm_calls columns). */
export const openRow = (sessionId: string, e: LedgerEntry) => ({
  session_id: sessionId, step_key: e.stepKey, provider: e.provider, model: e.model, phase: e.phase, purpose: e.purpose,
  prompt_version: e.promptVersion, input_tokens: e.inputTokens, output_tokens: e.outputTokens,
  cache_read_tokens: e.cacheReadTokens ?? 0, cache_write_tokens: e.cacheWriteTokens ?? 0, prefix_tokens: e.prefixTokens ?? 0,
  prefix_hash: e.prefixHash ?? '', cost_usd: e.costUsd, latency_ms: e.latencyMs, attempt: e.attempt,
});

/** Each commit's envelopes, numbered on from `base` in the batch's order. */
function envelopesOf(sessionId: string, base: number, batch: Pending[], ts: string): Envelope[][] {
  let seq = base;
  return batch.map(({ drafts }) => {
    const envs = envelopesAt(sessionId, seq, drafts, ts);
    seq += drafts.length;
    return envs;
  });
}

/**
 * What a commit sends of the case memory: `merge`, the top-level keys whose value the fold replaced, which
 * bo1_commit_many merges into the stored memory (`||`; the stored one is the head's, since the commit applies only at
 * the head's seq), or `all`, the whole memory. A fold shares what it did not change (the same value, or a list or
 * record of the same items), so a step that adds an activity entry and a counter sends those two, not the whole
 * memory (a dozen KB, the facts and decisions included). A key the fold dropped cannot be merged away, and a memory
 * that is not a record cannot be merged at all: then the whole memory goes.
 */
export function memoryChange(base: unknown, next: unknown): { merge: Record<string, unknown> } | { all: unknown } {
  if (!isRecord(base) || !isRecord(next) || Object.keys(base).some((k) => !(k in next))) return { all: next };
  const merge: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) if (!same(base[k], v)) merge[k] = v;
  return { merge };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The same value, or a list or record of the very same items in the same places. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(b);
    return keys.length === Object.keys(a).length && keys.every((k) => k in a && a[k] === b[k]);
  }
  return false;
}

async function headOf(run: RunSql, heads: CommitHeads, sessionId: string): Promise<Head> {
  const known = heads.get(sessionId);
  if (known) return known;
  const [row] = await run<{ last_seq: number; case_memory: unknown }>(HEAD_SQL, [sessionId]);
  if (!row) throw new AppError('not-found', `session ${sessionId} does not exist`);
  return { lastSeq: row.last_seq, caseMemory: row.case_memory };
}

/** Whether a commit ends the session: nothing may follow it in a batch. */
export const ends = (c: Commit): boolean => !!c.patch?.status && TERMINAL_STATUSES.has(c.patch.status);

/**
 * A batch of one session's commits, all under the same lease, through bo1_commit_many: their events (validated by
 * the caller), steps, ledger rows and patches in one statement, all or nothing. With a case-memory fold, the memory
 * is folded here over the batch's events, in order, onto this process's head of the log and sent with `expect`, so no
 * round trip reads the row under its lock; a stale head is refused by Postgres, writes nothing, and is retried from
 * the row it returns. Only a batch's last commit may end the session. `open` are pending ledger rows of the session's
 * next model calls riding along (openCall), and `side` the rows the batch's write hooks handed over: both written only
 * if the batch lands. Callers run it in the session's turn (CommitQueue). Returns each commit's envelopes and the open
 * rows' ids.
 */
export async function commitBatch(
  run: RunSql,
  heads: CommitHeads,
  sessionId: string,
  lease: number | null,
  batch: Pending[],
  open: LedgerEntry[] = [],
  side: SideRows | null = null,
): Promise<{ envelopes: Envelope[][]; callIds: number[] }> {
  // Taken when the batch's turn comes, so the log's timestamps follow its seqs as they did under the row lock.
  const now = new Date();
  const ts = now.toISOString();
  const n = batch.reduce((a, p) => a + p.drafts.length, 0);
  // A commit without a fold leaves its events out of the case memory, as one on its own always did.
  const folds = batch.some((p) => p.c.caseMemory && p.drafts.length);
  const fixed = [
    JSON.stringify(batch.flatMap(({ c }) => (c.step ? [{ key: c.step.key, result: c.step.result ?? null }] : []))),
    JSON.stringify(batch.flatMap(({ drafts }) => drafts.map((d) => ({ type: d.type, data: d.data })))),
    now,
    JSON.stringify(batch.flatMap(({ c }) => c.calls ?? [])),
    JSON.stringify(batch.flatMap(({ c }) => (c.patch && Object.keys(c.patch).length ? [c.patch] : []))),
  ];
  const opens = JSON.stringify(open.map((e) => openRow(sessionId, e)));
  const rows = side && !side.empty ? JSON.stringify({ expert_memories: side.expert_memories, utterances: side.utterances }) : '{}';
  for (let attempt = 1; ; attempt++) {
    let expect: number | null = null;
    let memory: string | null = null;
    let envelopes: Envelope[][] | undefined;
    let folded: unknown;
    if (folds) {
      const head = await headOf(run, heads, sessionId);
      expect = head.lastSeq;
      envelopes = envelopesOf(sessionId, expect, batch, ts);
      folded = head.caseMemory;
      batch.forEach(({ c, drafts }, i) => {
        if (c.caseMemory && drafts.length) folded = c.caseMemory(folded, envelopes![i]!);
      });
      memory = JSON.stringify(memoryChange(head.caseMemory, folded));
    }
    let row: CommitRow | undefined;
    try {
      [row] = await run<CommitRow>(COMMIT_SQL, [sessionId, lease, expect, ...fixed, memory, opens, rows]);
    } catch (err) {
      heads.drop(sessionId);
      // bo1_side_rows's tenancy check, as the memory store would have refused the rows.
      if (err instanceof Error && err.message.startsWith('bo1 tenancy:')) throw new AppError('tenancy', 'a session id does not belong to this tenant');
      throw err;
    }
    if (!row) {
      heads.drop(sessionId);
      throw new AppError('not-found', `session ${sessionId} does not exist`);
    }
    if (row.r_ok) {
      // An ended session commits no more; an unfolded append moved the log without this process knowing the memory at its end.
      if (ends(batch.at(-1)!.c)) heads.drop(sessionId);
      else if (folds) heads.set(sessionId, { lastSeq: expect! + n, caseMemory: folded });
      else if (n) heads.drop(sessionId);
      return { envelopes: envelopes ?? envelopesOf(sessionId, row.r_base!, batch, ts), callIds: (row.r_open ?? []).map(Number) };
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
