/**
 * Turns a call's role, tier and seat into the ordered models that may answer
 * it, and walks that chain: the first model answers unless it is overloaded,
 * out, or its circuit is open, and then the next one does. Circuit breaking
 * is cockatiel's; a breaker is kept per model and shared by every session of
 * the process, so one session's failures spare the next its timeouts.
 */
import { BrokenCircuitError, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import { chainFor, formatModelRef, parseModelRef, type ModelRouting, type RouteKey } from '../domain/models';
import { LlmError, type LlmErrorKind, type LlmProvider, type ProviderName, type Tier } from '../ports/llm';

/** One model a call may go to, and the adapter that reaches it. */
export interface Target {
  /** As written in the configuration (`openai:gpt-4.1-mini`, or a bare id). */
  ref: string;
  provider: LlmProvider;
  model: string;
}

/** A fallback answered (or is about to): the `model.fallback` event's content. */
export interface FallbackNotice {
  purpose: string;
  role: string | null;
  seat: string | null;
  from: string;
  to: string;
  /** The error kind that moved the call on, or `circuit_open` when the model was not tried. */
  reason: LlmErrorKind | 'circuit_open';
  detail: string;
}

/**
 * The failures another model may answer for: the model or its provider is
 * saturated or unreachable. A bad request, a bad key or an empty account is
 * the deployment's to fix and surfaces as it is; an abort stops everything.
 */
const FALLBACK_KINDS: ReadonlySet<LlmErrorKind> = new Set(['overloaded', 'server', 'network', 'rate_limited']);
export const isOutage = (err: unknown): err is LlmError => err instanceof LlmError && FALLBACK_KINDS.has(err.kind);

export interface BreakerOptions {
  /** Consecutive outages that open a model's circuit. */
  consecutiveFailures: number;
  /** How long an open circuit skips its model before one trial call. */
  halfOpenAfterMs: number;
}

export class ModelRouter {
  private readonly breakers = new Map<string, CircuitBreakerPolicy>();

  constructor(
    private readonly defaultProvider: LlmProvider,
    private readonly others: Partial<Record<ProviderName, LlmProvider>>,
    private readonly tierModels: Record<Tier, string>,
    private readonly breaker: BreakerOptions,
  ) {}

  /** The chain for a call: named by the routing layers (most authoritative first), else the tier's model. */
  targets(layers: readonly (ModelRouting | undefined)[], key: Partial<RouteKey> & { tier: Tier }): Target[] {
    const chain = (key.role && chainFor(layers, { role: key.role, tier: key.tier, ...(key.seat !== undefined && { seat: key.seat }) })) || [this.tierModels[key.tier]];
    return chain.map((ref) => this.target(ref));
  }

  private target(ref: string): Target {
    const parsed = parseModelRef(ref);
    const name = parsed.provider ?? this.defaultProvider.name;
    const provider = name === this.defaultProvider.name ? this.defaultProvider : this.others[name];
    // Configuration and the create endpoint check providers up front; this is the last line.
    if (!provider) throw new LlmError('bad_request', `model ${formatModelRef(parsed)}: the ${name} provider is not configured`, false);
    return { ref, provider, model: parsed.model };
  }

  /**
   * Runs `attempt` on each target in turn until one answers. A lone model runs
   * bare (no breaker), so a deployment without chains behaves as it always did.
   */
  async walk<T>(chain: Target[], attempt: (t: Target) => Promise<T>, onFallback: (from: Target, to: Target, reason: FallbackNotice['reason'], detail: string) => void): Promise<T> {
    if (chain.length === 1) return attempt(chain[0]!);
    let last: unknown;
    for (const [i, t] of chain.entries()) {
      try {
        return await this.breakerOf(t).execute(() => attempt(t));
      } catch (err) {
        const open = err instanceof BrokenCircuitError;
        const next = chain[i + 1];
        if (!open && !isOutage(err)) throw err;
        last = open ? new LlmError('overloaded', `${t.ref}: circuit open after repeated outages`, true, undefined, { cause: err }) : err;
        if (next) onFallback(t, next, open ? 'circuit_open' : (err as LlmError).kind, (last as Error).message);
      }
    }
    throw last;
  }

  private breakerOf(t: Target): CircuitBreakerPolicy {
    const key = `${t.provider.name}:${t.model}`;
    let b = this.breakers.get(key);
    if (!b) {
      b = circuitBreaker(handleWhen(isOutage), { halfOpenAfter: this.breaker.halfOpenAfterMs, breaker: new ConsecutiveBreaker(this.breaker.consecutiveFailures) });
      this.breakers.set(key, b);
    }
    return b;
  }
}
