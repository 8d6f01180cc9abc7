import type { Tx } from '../ports/session-store';

/**
 * The in-memory twins' transaction: writes a `write` hook makes through it
 * are held back until the commit that opened it applies, and dropped if the
 * commit throws, so a twin commit is all or nothing with its memory rows too.
 */
export class InMemoryTx {
  private readonly writes: (() => void)[] = [];

  /** As the opaque handle the hook gets. */
  get handle(): Tx {
    return this as unknown as Tx;
  }

  defer(write: () => void): void {
    this.writes.push(write);
  }

  commit(): void {
    for (const w of this.writes.splice(0)) w();
  }
}

/** Applies `write` now, or when the twin transaction `tx` commits. A Postgres handle here is a wiring bug. */
export function applyIn(tx: Tx | undefined, write: () => void): void {
  if (tx === undefined) return write();
  const own = tx as unknown;
  if (!(own instanceof InMemoryTx)) throw new TypeError('an in-memory store was handed a transaction of another adapter');
  own.defer(write);
}
