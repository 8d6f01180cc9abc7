import type { Envelope, EventDraft, Usage } from '../domain/events';
import { validateEvent } from '../domain/events';
import { AppError } from '../domain/errors';
import { round6, sumUsage, type PhaseRow } from '../domain/usage';
import {
  ACTIVE_STATUSES,
  TERMINAL_STATUSES,
  type Commit,
  type LedgerEntry,
  type LedgerRow,
  type NewSession,
  type Page,
  type SessionPatch,
  type SessionRow,
  type SessionStatus,
  type SessionStorePort,
  sessionCapError,
} from '../ports/session-store';
import { decodeCursor, encodeCursor } from './cursor';
import { InMemoryTx } from './in-memory-tx';

interface StoredEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  ts: Date;
}

interface SessionState {
  row: SessionRow;
  events: StoredEvent[];
  steps: Map<string, unknown>;
}

const copy = <T>(v: T): T => structuredClone(v);

const toEnvelope = (sessionId: string, e: StoredEvent): Envelope => ({
  seq: e.seq,
  type: e.type,
  session_id: sessionId,
  ts: e.ts.toISOString(),
  data: copy(e.data),
});

/**
 * The session store in process memory: the twin of the Postgres store for
 * unit tests of use-cases, held to the same conformance suite. A per-session
 * lock (a promise chain) stands in for the row lock, and a commit stages
 * everything and applies it only once nothing threw, so it is all or
 * nothing as a transaction is. Rows go in and out as copies: a caller
 * mutating what it got cannot change the record.
 */
export class InMemorySessionStore implements SessionStorePort {
  private readonly sessions = new Map<string, SessionState>();
  private readonly calls: LedgerRow[] = [];
  private nextCallId = 1;
  private readonly locks = new Map<string, Promise<unknown>>();
  private lastCreatedMs = 0;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async create(s: NewSession, first: EventDraft, activeCap = 0): Promise<SessionRow> {
    const draft = validateEvent(first);
    if (activeCap > 0) {
      const active = [...this.sessions.values()].filter(
        (x) => x.row.tenantId === s.tenantId && ACTIVE_STATUSES.includes(x.row.status as SessionStatus),
      ).length;
      if (active >= activeCap) throw sessionCapError(activeCap);
    }
    // Postgres refuses a duplicate primary key the same way: an unexpected error, not a domain one.
    if (this.sessions.has(s.id)) throw new Error(`duplicate key value: session ${s.id} exists`);
    // Postgres timestamps are microseconds, so creation order is (practically) total; at milliseconds a burst
    // of creates would tie and list by id instead. One millisecond apart keeps newest-first meaning newest.
    const now = new Date(Math.max(this.clock().getTime(), this.lastCreatedMs + 1));
    this.lastCreatedMs = now.getTime();
    const row: SessionRow = {
      ...copy(s),
      status: 'queued',
      phase: 'queued',
      lease: 0,
      lastSeq: 1,
      progress: {},
      results: null,
      caseMemory: {},
      error: null,
      checkpoint: null,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      endedAt: null,
    };
    this.sessions.set(s.id, { row, events: [{ seq: 1, type: draft.type, data: copy(draft.data), ts: now }], steps: new Map() });
    return copy(row);
  }

  async get(id: string, tenantId?: string): Promise<SessionRow | null> {
    const state = this.sessions.get(id);
    if (!state || (tenantId !== undefined && state.row.tenantId !== tenantId)) return null;
    return copy(state.row);
  }

  async list(tenantId: string, limit: number, cursor?: string, status?: SessionStatus): Promise<Page<SessionRow>> {
    const after = cursor === undefined ? null : decodeCursor(cursor);
    const newestFirst = (a: SessionRow, b: SessionRow) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    const rows = [...this.sessions.values()]
      .map((x) => x.row)
      .filter((r) => r.tenantId === tenantId && (!status || r.status === status))
      .filter((r) => {
        if (!after) return true;
        const ts = Date.parse(after[0]);
        return r.createdAt.getTime() < ts || (r.createdAt.getTime() === ts && r.id < after[1]);
      })
      .sort(newestFirst)
      .slice(0, limit + 1);
    const items = rows.slice(0, limit).map(copy);
    const last = items.at(-1);
    return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt.toISOString(), last.id) : null };
  }

  async events(sessionId: string, after: number, limit: number): Promise<Envelope[]> {
    const state = this.sessions.get(sessionId);
    if (!state) return [];
    return state.events.filter((e) => e.seq > after).slice(0, limit).map((e) => toEnvelope(sessionId, e));
  }

  async acquireLease(id: string): Promise<{ lease: number; row: SessionRow } | null> {
    // Under the session's lock, as the Postgres update waits for a commit holding the row.
    return this.locked(id, async () => {
      const state = this.sessions.get(id);
      if (!state || (state.row.status !== 'queued' && state.row.status !== 'running')) return null;
      const now = this.clock();
      Object.assign(state.row, { lease: state.row.lease + 1, status: 'running', startedAt: state.row.startedAt ?? now, updatedAt: now });
      await this.abandonPending(id);
      return { lease: state.row.lease, row: copy(state.row) };
    });
  }

  async completedSteps(sessionId: string): Promise<Map<string, unknown>> {
    return new Map([...(this.sessions.get(sessionId)?.steps ?? [])].map(([k, v]) => [k, copy(v)]));
  }

  /** A lease whose commit failed, per session: its later commits fail too (see CommitQueue), bar the one that ends it. */
  private readonly poisoned = new Map<string, { lease: number; err: unknown }>();

  async commit(sessionId: string, lease: number | null, c: Commit): Promise<Envelope[]> {
    const drafts = c.events.map(validateEvent);
    const fenced = lease !== null && !c.guard;
    const ends = !!c.patch?.status && TERMINAL_STATUSES.has(c.patch.status);
    const poison = () => {
      const p = this.poisoned.get(sessionId);
      if (!fenced || !p) return;
      if (p.lease !== lease) this.poisoned.delete(sessionId);
      else if (!ends) throw p.err;
    };
    poison();
    return this.locked(sessionId, async () => {
      // A commit queued behind one that failed fails with it.
      poison();
      try {
        return await this.apply(sessionId, lease, c, drafts);
      } catch (err) {
        if (fenced) this.poisoned.set(sessionId, { lease: lease!, err });
        throw err;
      }
    });
  }

  private async apply(sessionId: string, lease: number | null, c: Commit, drafts: EventDraft[]): Promise<Envelope[]> {
    const state = this.sessions.get(sessionId);
    if (!state) throw new AppError('not-found', `session ${sessionId} does not exist`);
    const locked = state.row;
    c.guard?.(copy({ tenantId: locked.tenantId, status: locked.status, lease: locked.lease, checkpoint: locked.checkpoint }));
    if (lease !== null && locked.lease !== lease) {
      throw new AppError('lease-lost', `session ${sessionId}: lease ${lease} superseded by ${locked.lease}`);
    }
    if (TERMINAL_STATUSES.has(locked.status as SessionStatus)) {
      throw new AppError('lease-lost', `session ${sessionId} is already ${locked.status}`);
    }
    if (c.step && state.steps.has(c.step.key)) throw new Error(`duplicate key value: step ${c.step.key} of session ${sessionId}`);
    const now = this.clock();
    const added = drafts.map((d, i) => ({ seq: locked.lastSeq + i + 1, type: d.type, data: copy(d.data), ts: now }));
    const settleLedger = this.stageSettle(sessionId, c.calls ?? []);
    const tx = new InMemoryTx();
    if (c.write) await c.write(tx.handle);
    const envelopes = added.map((e) => toEnvelope(sessionId, e));
    const caseMemory = c.caseMemory && envelopes.length ? c.caseMemory(copy(locked.caseMemory), envelopes) : undefined;
    // Nothing threw: apply it all at once, as the transaction commits.
    if (c.step) state.steps.set(c.step.key, copy(c.step.result));
    state.events.push(...added);
    settleLedger();
    tx.commit();
    Object.assign(locked, patched(locked, c.patch ?? {}, now), { lastSeq: locked.lastSeq + added.length, updatedAt: now });
    if (caseMemory !== undefined) locked.caseMemory = copy(caseMemory);
    return envelopes;
  }

  async annex(sessionId: string, drafts: EventDraft[]): Promise<Envelope[]> {
    if (!drafts.length) return [];
    const valid = drafts.map(validateEvent);
    return this.locked(sessionId, async () => {
      const state = this.sessions.get(sessionId);
      if (!state) throw new AppError('not-found', `session ${sessionId} does not exist`);
      const now = this.clock();
      const added = valid.map((d, i) => ({ seq: state.row.lastSeq + i + 1, type: d.type, data: copy(d.data), ts: now }));
      state.events.push(...added);
      Object.assign(state.row, { lastSeq: state.row.lastSeq + added.length, updatedAt: now });
      return added.map((e) => toEnvelope(sessionId, e));
    });
  }

  async hasEvent(sessionId: string, type: string): Promise<boolean> {
    return this.sessions.get(sessionId)?.events.some((e) => e.type === type) ?? false;
  }

  async usage(sessionId: string): Promise<Usage> {
    const byPhase = new Map<string, PhaseRow>();
    // A pending row is an estimate the running step will settle: counting it too would count that call twice.
    for (const c of this.calls.filter((x) => x.sessionId === sessionId && x.outcome !== 'pending')) {
      const r = byPhase.get(c.phase) ?? { phase: c.phase, calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
      r.calls += 1;
      r.inputTokens += c.inputTokens;
      r.outputTokens += c.outputTokens;
      r.cacheReadTokens += c.cacheReadTokens;
      r.cacheWriteTokens += c.cacheWriteTokens;
      r.costUsd += c.costUsd;
      byPhase.set(c.phase, r);
    }
    return sumUsage([...byPhase.values()]);
  }

  async openCall(sessionId: string, entry: LedgerEntry): Promise<number> {
    // As Postgres's foreign key: a ledger row belongs to a session that exists.
    if (!this.sessions.has(sessionId)) throw new AppError('not-found', `session ${sessionId} does not exist`);
    return this.insertCall(sessionId, { ...entry, outcome: 'pending' });
  }

  async abandonPending(sessionId: string, stepPrefix = ''): Promise<void> {
    for (const c of this.calls) {
      if (c.sessionId === sessionId && c.outcome === 'pending' && c.stepKey.startsWith(stepPrefix)) c.outcome = 'abandoned';
    }
  }

  async recordCalls(sessionId: string, calls: LedgerEntry[]): Promise<void> {
    this.stageSettle(sessionId, calls)();
  }

  async caseMemory(sessionId: string): Promise<unknown> {
    return copy(this.sessions.get(sessionId)?.row.caseMemory ?? null);
  }

  async ledger(sessionId: string): Promise<LedgerRow[]> {
    return this.calls.filter((c) => c.sessionId === sessionId).map(copy);
  }

  async expiredCheckpoints(now: Date): Promise<SessionRow[]> {
    return [...this.sessions.values()]
      .map((x) => x.row)
      .filter((r) => {
        const expiresAt = (r.checkpoint as { expiresAt?: unknown } | null)?.expiresAt;
        return r.status === 'awaiting_input' && typeof expiresAt === 'string' && Date.parse(expiresAt) <= now.getTime();
      })
      .map(copy);
  }

  async memoryJobsMissing(since: Date, before: Date): Promise<{ id: string; contribute: boolean; lessons: boolean }[]> {
    const found: { id: string; contribute: boolean; lessons: boolean }[] = [];
    for (const { row, events } of this.sessions.values()) {
      const optedIn = (row.options as { memory?: { contribute?: boolean } }).memory?.contribute ?? true;
      const ended = row.endedAt?.getTime();
      if (!['completed', 'failed'].includes(row.status) || row.phase === 'refused' || !optedIn) continue;
      if (ended === undefined || ended < since.getTime() || ended > before.getTime()) continue;
      const reported = (type: string) => events.some((e) => e.type === type);
      const r = { id: row.id, contribute: row.status === 'completed' && !reported('memory.contributed'), lessons: !reported('lessons.extracted') };
      if (r.contribute || r.lessons) found.push(r);
    }
    return found;
  }

  async unfinished(olderThanMs: number): Promise<string[]> {
    const cutoff = this.clock().getTime() - olderThanMs;
    return [...this.sessions.values()]
      .map((x) => x.row)
      .filter((r) => (r.status === 'queued' || r.status === 'running') && r.updatedAt.getTime() < cutoff)
      .map((r) => r.id);
  }

  /** Runs `fn` after every earlier holder of the session's lock: commits of one session serialize, as under its row lock. */
  private locked<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const prior = this.locks.get(sessionId) ?? Promise.resolve();
    const run = prior.then(fn, fn);
    const tail = run.catch(() => {});
    this.locks.set(sessionId, tail);
    void tail.then(() => {
      if (this.locks.get(sessionId) === tail) this.locks.delete(sessionId);
    });
    return run;
  }

  /** Checks the calls now and returns the write, for a commit to apply once nothing else threw. */
  private stageSettle(sessionId: string, calls: LedgerEntry[]): () => void {
    const staged = copy(calls);
    return () => {
      for (const { id, ...c } of staged) {
        if (id === undefined) {
          this.insertCall(sessionId, c);
          continue;
        }
        // As the Postgres update: only this session's row, only the fields given.
        const row = this.calls.find((x) => x.id === id && x.sessionId === sessionId);
        if (row) Object.assign(row, definedOnly(c), c.costUsd === undefined ? {} : { costUsd: round6(c.costUsd) });
      }
    };
  }

  private insertCall(sessionId: string, entry: Omit<LedgerEntry, 'id'>): number {
    const id = this.nextCallId++;
    this.calls.push({
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      prefixTokens: 0,
      prefixHash: '',
      ...definedOnly(entry),
      // Postgres keeps cost as numeric(12, 6).
      costUsd: round6(entry.costUsd),
      id,
      sessionId,
      createdAt: this.clock(),
    } as LedgerRow);
    return id;
  }
}

const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The row fields a patch changes (progress merged shallowly, a sub-problem's entry set), as the Postgres update does. */
function patched(row: SessionRow, p: SessionPatch, now: Date): Partial<SessionRow> {
  let progress = row.progress as Record<string, unknown>;
  if (p.progress) progress = { ...progress, ...copy(p.progress) };
  if (p.subProblemProgress) {
    const { id, value } = p.subProblemProgress;
    progress = { ...progress, subProblems: { ...((progress.subProblems as Record<string, unknown> | undefined) ?? {}), [id]: copy(value) } };
  }
  return {
    ...(p.status && { status: p.status }),
    ...(p.phase && { phase: p.phase }),
    ...((p.progress || p.subProblemProgress) && { progress }),
    ...(p.results && { results: copy(p.results) }),
    ...(p.error !== undefined && { error: copy(p.error) }),
    ...(p.checkpoint !== undefined && { checkpoint: copy(p.checkpoint) }),
    ...(p.ended && { endedAt: now }),
  };
}
