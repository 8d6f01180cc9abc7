export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** Give up once failures have lasted this long without any success in between. */
  giveUpMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 5_000, giveUpMs: 60_000 };

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Doubling delays from the first failure; `next()` says how long to wait, or null once it is time to give up. */
export class Backoff {
  private delay: number;
  private since: number | null = null;

  constructor(private readonly policy: BackoffPolicy = DEFAULT_BACKOFF) {
    this.delay = policy.initialMs;
  }

  next(now = Date.now()): number | null {
    this.since ??= now;
    if (now - this.since >= this.policy.giveUpMs) return null;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.policy.maxMs);
    return wait;
  }

  reset(): void {
    this.delay = this.policy.initialMs;
    this.since = null;
  }
}
