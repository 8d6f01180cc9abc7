/**
 * A session's commits in this process, one batch at a time. The commits of one
 * session go one after another anyway (the gapless log orders them, and a
 * fold needs the head the previous one left), so instead of one round trip
 * each, the commits that arrive while the session's previous batch is in
 * flight, or in the same turn of the event loop as the first, wait and then go
 * together: the parallel expert turns, votes or summaries of a round reach
 * their commits at nearly the same moment, and cost one statement instead of
 * five. A batch is cut where the lease changes (a takeover in this process)
 * and after a commit that ends the session (`ends`), and holds at most
 * MAX_BATCH commits. A turn is always taken before a pool connection, never
 * while holding one (see SessionStore.commit).
 *
 * Riders: a session's next model call writes its pending ledger row
 * (openCall) with the batch still being gathered in this turn, if there is
 * one and it is one statement (`ride`): the step's commit and the next call's
 * row are one round trip.
 *
 * Order is the contract: a run does not wait for its steps' commits (see
 * SessionRun), so what lands of a lease must be a prefix of what it
 * committed. Once a batch fails, every commit of that lease still waiting, and
 * every later one, fails with the same error (the run is over); only a commit
 * that ends the session still goes, so the run can record how it ended.
 */

/** Plenty for a round's parallel steps; bounds the statement a backlog can build. */
const MAX_BATCH = 32;

/** Sessions whose failed lease is remembered (their runs are over): a bound, oldest forgotten first. */
const MAX_POISONED = 1_000;

interface Waiting<C, O> {
  item: { commit: C } | { open: O };
  resolve: (r: never) => void;
  reject: (e: unknown) => void;
}

interface Queue<C, O> {
  waiting: Waiting<C, O>[];
  /** A flush is scheduled for the end of this turn: riders may still join. */
  gathering: boolean;
  inFlight: boolean;
}

export interface Sent<R, I> {
  results: R[];
  ids: I[];
}

export class CommitQueue<C extends { lease: number | null }, O, R, I> {
  private readonly queues = new Map<string, Queue<C, O>>();
  private readonly poisoned = new Map<string, { lease: number; err: unknown }>();

  /**
   * `send` writes one batch of a session's commits and riders, all or nothing, and answers each in order (the
   * riders are written only with the commits); its failure fails every item of the batch (nothing was written).
   * `ends` says a commit must end its batch (it ends the session).
   */
  constructor(
    private readonly send: (sessionId: string, commits: C[], riders: O[]) => Promise<Sent<R, I>>,
    private readonly ends: (commit: C) => boolean,
    /** Whether a commit makes its batch more than one round trip (a write hook's transaction). */
    private readonly slow: (commit: C) => boolean = () => false,
  ) {}

  add(sessionId: string, commit: C): Promise<R> {
    const poison = this.poisoned.get(sessionId);
    if (poison) {
      if (poison.lease === commit.lease && !this.ends(commit)) return Promise.reject(poison.err);
      if (poison.lease !== commit.lease) this.poisoned.delete(sessionId);
    }
    let q = this.queues.get(sessionId);
    if (!q) this.queues.set(sessionId, (q = { waiting: [], gathering: false, inFlight: false }));
    const queue = q;
    return new Promise<R>((resolve, reject) => {
      queue.waiting.push({ item: { commit }, resolve: resolve as (r: never) => void, reject });
      if (!queue.inFlight && !queue.gathering) {
        queue.gathering = true;
        // The rest of this turn first: siblings that commit in it, and the next call's pending row, join the batch.
        setImmediate(() => {
          queue.gathering = false;
          this.flush(sessionId);
        });
      }
    });
  }

  /**
   * Joins the batch being gathered in this turn, if there is one and it is a single statement; undefined when there
   * is none to ride with. A batch with a write hook is a transaction of several round trips: a model call waiting on
   * it would wait for all of them, so its row goes on its own instead.
   */
  ride(sessionId: string, open: O): Promise<I> | undefined {
    const q = this.queues.get(sessionId);
    if (!q?.gathering || q.waiting.some((w) => 'commit' in w.item && this.slow(w.item.commit))) return undefined;
    return new Promise<I>((resolve, reject) => q.waiting.push({ item: { open }, resolve: resolve as (r: never) => void, reject }));
  }

  private flush(sessionId: string): void {
    const q = this.queues.get(sessionId)!;
    const first = q.waiting.find((w) => 'commit' in w.item);
    if (!first) {
      // Riders left alone (a cut batch went without them) go on their own: a batch of no commits.
      if (!q.waiting.length) return void this.queues.delete(sessionId);
    }
    const lease = first && 'commit' in first.item ? first.item.commit.lease : null;
    let n = 0;
    let commits = 0;
    while (n < q.waiting.length) {
      const it = q.waiting[n]!.item;
      if ('commit' in it) {
        if (it.commit.lease !== lease || commits === MAX_BATCH) break;
        commits += 1;
        n += 1;
        if (this.ends(it.commit)) break;
      } else n += 1;
    }
    const batch = q.waiting.splice(0, n);
    q.inFlight = true;
    const cs = batch.flatMap((w) => ('commit' in w.item ? [w.item.commit] : []));
    const os = batch.flatMap((w) => ('open' in w.item ? [w.item.open] : []));
    this.send(sessionId, cs, os)
      .then(
        ({ results, ids }) => {
          let [c, o] = [0, 0];
          for (const w of batch) w.resolve(('commit' in w.item ? results[c++] : ids[o++]) as never);
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
          if (lease !== null) this.poison(sessionId, lease, err, q);
        },
      )
      .finally(() => {
        q.inFlight = false;
        // Whatever arrived meanwhile goes at once: it has waited a round trip already.
        if (q.waiting.length) this.flush(sessionId);
        else if (!q.gathering) this.queues.delete(sessionId);
      });
  }

  /** A batch of `lease` failed: what waits of that lease fails with it, and so will what comes later. */
  private poison(sessionId: string, lease: number, err: unknown, q: Queue<C, O>): void {
    this.poisoned.delete(sessionId);
    this.poisoned.set(sessionId, { lease, err });
    if (this.poisoned.size > MAX_POISONED) this.poisoned.delete(this.poisoned.keys().next().value!);
    q.waiting = q.waiting.filter((w) => {
      const doomed = 'commit' in w.item ? w.item.commit.lease === lease && !this.ends(w.item.commit) : false;
      if (doomed) w.reject(err);
      return !doomed;
    });
  }

  /** Sessions with commits waiting or in flight (for tests). */
  get size(): number {
    return this.queues.size;
  }
}
