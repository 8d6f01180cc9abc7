import { setMaxListeners } from 'node:events';
import { event, MalformedEventError, type Envelope, type EventDraft, type Usage } from '../domain/events';
import { addCalls } from '../domain/usage';
import type { Commit, LedgerEntry, SessionPatch, SessionStorePort, Tx } from '../ports/session-store';
import type { ModelCall } from '../calls/call';
import { renderCall } from '../calls/render';
import type { LedgerFact } from '../domain/model';
import type { LlmGateway } from '../llm/gateway';
import type { Template } from '../llm/prompts';
import type { Notifier } from '../ports/notifier';

/** What a step body may do: call a model (priced and ledgered) and read the clock. */
export interface StepScope {
  /** Runs a catalogue call: its prompt is rendered from `input` and the session frame. */
  call<I, O>(call: ModelCall<I, O>, input: I, onDelta?: (d: string) => void): Promise<O>;
  now(): Date;
  /** USD of the model calls this step has made so far (not yet committed). */
  pendingCostUsd(): number;
  /** The session's usage including this step's calls, for a `usage.updated` event in the same commit. */
  usageIncludingPending(): Promise<Usage>;
}

export interface StepOutput<T> {
  result: T;
  events?: EventDraft[];
  patch?: SessionPatch;
  /** Rows to write in the step's own transaction, so a re-run neither loses nor doubles them. */
  write?: (tx: Tx) => Promise<unknown>;
}

/** A step body threw: carries the step key and the model calls it paid for, so the failure can ledger them. */
export class StepFailedError extends Error {
  override name = 'StepFailedError';
  constructor(
    readonly key: string,
    override readonly cause: unknown,
    readonly calls: LedgerEntry[],
  ) {
    super(`step ${key} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** The run was asked to stop between steps (shutdown); the job goes back to the queue untouched. */
export class ReleasedError extends Error {
  override name = 'ReleasedError';
}

/** The run stopped at a checkpoint: the session waits for a person, and no job runs meanwhile. */
export class AwaitingInputError extends Error {
  override name = 'AwaitingInputError';
  constructor(readonly checkpointId: string) {
    super(`waiting for checkpoint ${checkpointId}`);
  }
}

/** How the session's case memory (seed 001) follows its events, and how prompts see it. */
export interface CaseMemoryPolicy {
  reduce(current: unknown, events: Envelope[]): unknown;
  render(memory: unknown): string;
  /** What the board record reads from it (src/domain/debate/record.ts). */
  board(memory: unknown): BoardView;
}

/** The case memory's parts the board record carries. */
export interface BoardView {
  /** Stable once the deliberation starts: the statement, its assumptions, the person's answers to the clarifying questions. */
  frame: string;
  /** The session's fact ledger, oldest first. */
  facts: LedgerFact[];
  /** The person's messages to the board (interventions), oldest first. */
  personSaid: string[];
}

const NO_BOARD: BoardView = { frame: '', facts: [], personSaid: [] };

export interface SessionRunDeps {
  store: SessionStorePort;
  gateway: LlmGateway;
  notifier: Notifier;
  clock?: () => Date;
  caseMemory?: CaseMemoryPolicy;
  prompts: Map<string, Template>;
}

/**
 * One job's run of one session: memoized steps under a lease. A step whose
 * key is already committed returns its stored result without running; a new
 * one runs, then its result, events, ledger rows and session patch commit
 * together, fenced by the lease.
 */
export class SessionRun {
  private readonly clock: () => Date;

  /** Model spend per step key, committed ones included: budgets and per-sub-problem cost read it. */
  private readonly costs = new Map<string, number>();
  private halted: Error | null = null;

  constructor(
    private readonly deps: SessionRunDeps,
    readonly sessionId: string,
    readonly lease: number,
    /** The session's seed: call keys are `seed:stepKey`, so a simulated run is reproducible from it. */
    private readonly seed: string,
    private readonly done: Map<string, unknown>,
    readonly signal: AbortSignal,
    private readonly shouldRelease: () => boolean = () => false,
    spent: { stepKey: string; costUsd: number }[] = [],
    private caseMemory: unknown = null,
  ) {
    this.clock = deps.clock ?? (() => new Date());
    // Every concurrent model call listens to this one signal.
    setMaxListeners(256, signal);
    for (const c of spent) this.costs.set(c.stepKey, (this.costs.get(c.stepKey) ?? 0) + c.costUsd);
  }

  /** USD spent so far by this session, or by the steps whose keys start with `prefix`. */
  spentUsd(prefix = ''): number {
    let sum = 0;
    for (const [key, cost] of this.costs) if (key.startsWith(prefix)) sum += cost;
    return sum;
  }

  /** The case memory as prompts render it ('' without a policy). */
  caseMemoryText(): string {
    return this.views().text;
  }

  /** The case memory's parts the board record carries. */
  board(): BoardView {
    return this.views().board;
  }

  /**
   * Rendered once per case memory: it changes only when a commit lands, and every model call of the session renders
   * it into its prompt (a round's parallel calls, the same text each).
   */
  private rendered: { of: unknown; text: string; board: BoardView } | null = null;

  private views(): { text: string; board: BoardView } {
    const policy = this.deps.caseMemory;
    if (!policy) return { text: '', board: NO_BOARD };
    let r = this.rendered;
    if (!r || r.of !== this.caseMemory) r = this.rendered = { of: this.caseMemory, text: policy.render(this.caseMemory), board: policy.board(this.caseMemory) };
    return r;
  }

  /** The decision and its context, as every prompt of the session carries them. */
  frame: { problem: string; context: string } = { problem: '', context: '(none given)' };

  private caseMemoryPrompt(): string {
    const text = this.caseMemoryText();
    return text ? `${text}\n` : '';
  }

  /** Stops every later step of this run (e.g. a sibling sub-problem failed); the in-flight ones finish. */
  halt(reason: Error): void {
    this.halted ??= reason;
  }

  has(key: string): boolean {
    return this.done.has(key);
  }

  /**
   * A checkpoint: the person's resolution once it is stored under `key`;
   * otherwise commits the request (status `awaiting_input`, the pending
   * checkpoint on the row, its events) and stops the run. The resolve
   * endpoint stores the answer under `key` and queues the continuation,
   * which replays to here and reads it.
   */
  async checkpoint<T>(key: string, request: (now: Date) => { checkpoint: { id: string }; events: EventDraft[] }): Promise<T> {
    if (this.done.has(key)) return this.done.get(key) as T;
    this.guard(key);
    const { checkpoint, events } = request(this.clock());
    await this.commitAndWake({ events, patch: { status: 'awaiting_input', checkpoint } });
    const stop = new AwaitingInputError(checkpoint.id);
    this.halt(stop);
    throw stop;
  }

  private guard(key: string): void {
    if (this.halted) throw this.halted;
    if (this.shouldRelease()) throw new ReleasedError(`released before step ${key}`);
    this.signal.throwIfAborted();
  }

  private async commitAndWake(c: Omit<Commit, 'caseMemory'>): Promise<Envelope[]> {
    const policy = this.deps.caseMemory;
    // The store folds this commit's events onto the memory as it stands before them (its siblings' in seq order
    // included) to store it: the run keeps that result rather than folding the same events a second time. The fold
    // may run more than once (a stale head is retried); the last run is the one that landed.
    let folded: { memory: unknown } | null = null;
    const envelopes = await this.deps.store.commit(this.sessionId, this.lease, {
      ...c,
      ...(policy && {
        caseMemory: (current: unknown, envs: Envelope[]) => {
          const memory = policy.reduce(current, envs);
          folded = { memory };
          return memory;
        },
      }),
    });
    if (folded) this.caseMemory = (folded as { memory: unknown }).memory;
    else if (policy && envelopes.length) this.caseMemory = policy.reduce(this.caseMemory, envelopes);
    const last = envelopes.at(-1);
    if (last) this.wake(last.seq);
    return envelopes;
  }

  /**
   * A wake-up is a hint (readers also poll), so the run does not wait for it; the commits of one batch land together,
   * and one wake-up with the highest seq serves them all.
   */
  private wakeSeq = 0;
  private wake(seq: number): void {
    const first = this.wakeSeq === 0;
    this.wakeSeq = Math.max(this.wakeSeq, seq);
    if (!first) return;
    queueMicrotask(() => {
      const at = this.wakeSeq;
      this.wakeSeq = 0;
      void this.deps.notifier.publish(this.sessionId, at).catch(() => {});
    });
  }

  async step<T>(key: string, body: (scope: StepScope) => Promise<StepOutput<T>> | StepOutput<T>): Promise<T> {
    if (this.done.has(key)) return this.done.get(key) as T;
    this.guard(key);
    const calls: LedgerEntry[] = [];
    // A fallback that answered is part of what the step did: its event commits with the step's.
    const fallbacks: EventDraft[] = [];
    const scope: StepScope = {
      now: this.clock,
      pendingCostUsd: () => calls.reduce((a, c) => a + c.costUsd, 0),
      usageIncludingPending: async () => addCalls(await this.deps.store.usage(this.sessionId), calls),
      call: (call, input, onDelta) => {
        const prompt = renderCall(call, input, this.deps.prompts, { ...this.frame, caseMemory: this.caseMemoryPrompt(), board: this.board().frame });
        return this.deps.gateway.invoke(call, input, prompt, {
          key: `${this.seed}:${key}`,
          signal: this.signal,
          open: (e) => this.deps.store.openCall(this.sessionId, { ...e, stepKey: key }),
          record: (e) => calls.push({ ...e, stepKey: key }),
          onFallback: (notice) => fallbacks.push(event('model.fallback', notice)),
          ...(onDelta && { onDelta }),
        });
      },
    };
    let out: StepOutput<T>;
    try {
      out = await body(scope);
    } catch (err) {
      throw new StepFailedError(key, err, calls);
    }
    // Stored as JSON, so a replayed run sees exactly what a fresh one saw.
    const result = JSON.parse(JSON.stringify(out.result ?? null)) as T;
    try {
      await this.commitAndWake({
        step: { key, result },
        events: [...fallbacks, ...(out.events ?? [])],
        calls,
        ...(out.patch && { patch: out.patch }),
        ...(out.write && { write: out.write }),
      });
    } catch (err) {
      // A malformed event is this step's defect (and its calls were paid); anything else (Postgres, the lease) is the commit's.
      if (err instanceof MalformedEventError) throw new StepFailedError(key, err, calls);
      // The commit was refused (lease lost, storage): the calls were still made, so their rows are settled anyway.
      await this.deps.store.recordCalls(this.sessionId, calls).catch(() => {});
      throw err;
    }
    this.done.set(key, result);
    for (const c of calls) this.costs.set(key, (this.costs.get(key) ?? 0) + c.costUsd);
    return result as T;
  }
}
