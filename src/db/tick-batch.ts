/**
 * Gathers the requests made during one turn of the event loop and sends them
 * as one batch when it ends (setImmediate runs once the microtasks of the turn
 * have drained). The parallel steps of a round, and the rounds of every
 * session a worker runs, ask at nearly the same moment: one statement for all
 * of them costs one round trip and one socket write where each on its own cost
 * one, and on a busy worker those writes, not the bytes, were the cost. The
 * wait is at most the rest of the turn, which the next I/O would wait anyway.
 *
 * A batch that fails is retried one request at a time, so a bad request (a
 * session deleted meanwhile) fails alone, never its neighbours: when
 * `isolate` says the failure left nothing written (a statement Postgres
 * refused is rolled back; a connection lost mid-statement may have
 * committed, and sending its requests again could write them twice).
 */
export class TickBatch<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];

  /** `run` answers each item in order: one output per item. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly isolate: (err: unknown) => boolean = () => true,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.queue.push({ item, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.run(batch.map((b) => b.item)).then(
      (outs) => batch.forEach((b, i) => b.resolve(outs[i]!)),
      (err: unknown) => {
        if (batch.length === 1 || !this.isolate(err)) return batch.forEach((b) => b.reject(err));
        for (const b of batch) this.run([b.item]).then(([o]) => b.resolve(o!), b.reject);
      },
    );
  }
}

/** A statement Postgres answered with an error (it has a SQLSTATE): rolled back, so nothing of it was written. */
export const refusedByPostgres = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);
