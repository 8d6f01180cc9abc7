import type { EventDraft } from '../domain/events';
import type { LedgerEntry, SessionPatch, SessionStore } from '../db/session-store';
import type { CallSpec, LlmGateway } from '../llm/gateway';
import type { Notifier } from '../ports/notifier';

/** What a step body may do: call a model (priced and ledgered) and read the clock. */
export interface StepScope {
  llm<T>(spec: CallSpec<T>, onDelta?: (d: string) => void): Promise<T>;
  now(): Date;
}

export interface StepOutput<T> {
  result: T;
  events?: EventDraft[];
  patch?: SessionPatch;
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

export interface SessionRunDeps {
  store: SessionStore;
  gateway: LlmGateway;
  notifier: Notifier;
  clock?: () => Date;
}

/**
 * One job's run of one session: memoized steps under a lease. A step whose
 * key is already committed returns its stored result without running; a new
 * one runs, then its result, events, ledger rows and session patch commit
 * together, fenced by the lease.
 */
export class SessionRun {
  private readonly clock: () => Date;

  constructor(
    private readonly deps: SessionRunDeps,
    readonly sessionId: string,
    readonly lease: number,
    /** The session's seed: call keys are `seed:stepKey`, so a simulated run is reproducible from it. */
    private readonly seed: string,
    private readonly done: Map<string, unknown>,
    readonly signal: AbortSignal,
    private readonly shouldRelease: () => boolean = () => false,
  ) {
    this.clock = deps.clock ?? (() => new Date());
  }

  has(key: string): boolean {
    return this.done.has(key);
  }

  async step<T>(key: string, body: (scope: StepScope) => Promise<StepOutput<T>> | StepOutput<T>): Promise<T> {
    if (this.done.has(key)) return this.done.get(key) as T;
    if (this.shouldRelease()) throw new ReleasedError(`released before step ${key}`);
    this.signal.throwIfAborted();
    const calls: LedgerEntry[] = [];
    const scope: StepScope = {
      now: this.clock,
      llm: async (spec, onDelta) => {
        const res = await this.deps.gateway.call(spec, {
          key: `${this.seed}:${key}`,
          signal: this.signal,
          record: (e) => calls.push({ ...e, stepKey: key }),
          ...(onDelta && { onDelta }),
        });
        return res.output;
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
    const envelopes = await this.deps.store.commit(this.sessionId, this.lease, {
      step: { key, result },
      events: out.events ?? [],
      calls,
      ...(out.patch && { patch: out.patch }),
    });
    this.done.set(key, result);
    const last = envelopes.at(-1);
    if (last) await this.deps.notifier.publish(this.sessionId, last.seq).catch(() => {});
    return result as T;
  }
}
