/**
 * A session's commits in this process, one batch at a time. The commits of one
 * session go one after another anyway (the gapless log orders them, and a
 * fold needs the head the previous one left), so instead of one round trip
 * each, the commits that arrive while the session's previous batch is in
 * flight, or in the same turn of the event loop as the first, wait and then go
 * together: the parallel expert turns, votes or summaries of a round reach
 * their commits at nearly the same moment, and cost one statement instead of
 * five. A batch is cut where the lease changes (a takeover in this process)
 * and after a commit that ends the session (`last`), and holds at most
 * MAX_BATCH commits. A turn is always taken before a pool connection, never
 * while holding one (see SessionStore.commit).
 */

/** Plenty for a round's parallel steps; bounds the statement a backlog can build. */
const MAX_BATCH = 32;

interface Waiting<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

export class CommitQueue<T extends { lease: number | null }, R> {
  private readonly queues = new Map<string, { waiting: Waiting<T, R>[]; busy: boolean }>();

  /**
   * `send` writes one batch of a session's commits, all or nothing, and answers each in order; its failure fails
   * every commit of the batch (nothing was written). `last` says a commit must end its batch.
   */
  constructor(
    private readonly send: (sessionId: string, batch: T[]) => Promise<R[]>,
    private readonly last: (item: T) => boolean,
  ) {}

  add(sessionId: string, item: T): Promise<R> {
    let q = this.queues.get(sessionId);
    if (!q) this.queues.set(sessionId, (q = { waiting: [], busy: false }));
    const queue = q;
    return new Promise<R>((resolve, reject) => {
      queue.waiting.push({ item, resolve, reject });
      if (!queue.busy) {
        queue.busy = true;
        // The rest of this turn first: siblings that commit in it join the batch.
        setImmediate(() => this.flush(sessionId));
      }
    });
  }

  private flush(sessionId: string): void {
    const q = this.queues.get(sessionId)!;
    if (!q.waiting.length) {
      this.queues.delete(sessionId);
      return;
    }
    const lease = q.waiting[0]!.item.lease;
    let n = 0;
    while (n < q.waiting.length && n < MAX_BATCH && q.waiting[n]!.item.lease === lease) {
      n += 1;
      if (this.last(q.waiting[n - 1]!.item)) break;
    }
    const batch = q.waiting.splice(0, n);
    this.send(sessionId, batch.map((w) => w.item))
      .then(
        (out) => batch.forEach((w, i) => w.resolve(out[i]!)),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      // Whatever arrived meanwhile goes at once: it has waited a round trip already.
      .finally(() => this.flush(sessionId));
  }

  /** Sessions with commits waiting or in flight (for tests). */
  get size(): number {
    return this.queues.size;
  }
}
