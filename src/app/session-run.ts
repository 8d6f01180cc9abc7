import { setMaxListeners } from 'node:events';
import { event, validateEvent, type Envelope, type EventDraft, type Usage } from '../domain/events';
import { addCalls } from '../domain/usage';
import type { Commit, LedgerEntry, SessionPatch, SessionStorePort, Tx } from '../ports/session-store';
import type { ModelCall } from '../calls/call';
import { renderCall } from '../calls/render';
import { NO_CONTEXT } from '../calls/intake';
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
  /** Pure; reads the events' types, data and times, never their seqs (a run folds a commit before its seqs exist). */
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
  frame: { problem: string; context: string } = { problem: '', context: NO_CONTEXT };

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
    const envelopes = await this.deps.store.commit(this.sessionId, this.lease, { ...c, ...this.fold(c.events) });
    const last = envelopes.at(-1);
    if (last) this.wake(last.seq);
    return envelopes;
  }

  /**
   * Folds a commit's events into the run's case memory now, when the commit is made: the next step's prompt reads the
   * memory before this commit has landed (see `landing`). The events are folded as the log will hold them but for
   * their seqs and times, which the policy does not read (the memory's item times are the step's, not the log's).
   * The store folds onto its own head to store the memory; when that head is the memory this fold started from (no
   * other writer moved it), it takes this result instead of folding the same events a second time.
   */
  private fold(events: EventDraft[]): Pick<Commit, 'caseMemory'> {
    const policy = this.deps.caseMemory;
    if (!policy || !events.length) return {};
    const before = this.caseMemory;
    const ts = this.clock().toISOString();
    const after = policy.reduce(before, events.map((d) => ({ seq: 0, type: d.type, session_id: this.sessionId, ts, data: d.data as Record<string, unknown> })));
    this.caseMemory = after;
    return { caseMemory: (current: unknown, envs: Envelope[]) => (current === before ? after : policy.reduce(current, envs)) };
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

  /**
   * The run does not wait for a step's commit (write-behind): the next step starts while it is on its way, and its
   * model call's pending row rides with it (SessionStore.openCall), so a step costs one round trip, not two, on the
   * session's critical path, and a step without a model call costs none. The store lands a session's commits in the
   * order they were made, and once one fails it refuses that lease's later ones (SessionStorePort.commit), so what
   * lands is a prefix of what the run did. A failure stops the run at its next step (`halt`), and `settled` reports
   * it; whoever reads what the run wrote (its usage) or ends it waits for `settled` first.
   */
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;

  private landing(commit: Promise<unknown>, calls: LedgerEntry[]): void {
    const landed: Promise<void> = commit.then(
      () => {},
      async (err: Error) => {
        this.failure ??= err;
        this.halt(err);
        // The commit was refused (lease lost, storage): the calls were still made, so their rows are settled anyway.
        await this.deps.store.recordCalls(this.sessionId, calls).catch(() => {});
      },
    );
    this.inFlight.add(landed);
    void landed.then(() => this.inFlight.delete(landed));
  }

  /** Waits until every commit the run made has landed; throws the first failure, if one did not. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
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
      usageIncludingPending: async () => {
        await this.settled();
        return addCalls(await this.deps.store.usage(this.sessionId), calls);
      },
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
    const events = [...fallbacks, ...(out.events ?? [])];
    try {
      // Checked here, so a malformed event fails this step and no later one (the store checks again; a draft checked
      // once is not parsed twice).
      for (const e of events) validateEvent(e);
    } catch (err) {
      throw new StepFailedError(key, err, calls);
    }
    this.landing(
      this.commitAndWake({ step: { key, result }, events, calls, ...(out.patch && { patch: out.patch }), ...(out.write && { write: out.write }) }),
      calls,
    );
    this.done.set(key, result);
    for (const c of calls) this.costs.set(key, (this.costs.get(key) ?? 0) + c.costUsd);
    return result as T;
  }
}
