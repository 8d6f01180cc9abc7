import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { Tx } from '../ports/session-store';

/**
 * The opaque handle a commit's `write` hook gets, on Postgres, and back: only
 * the Postgres stores open it. Two kinds:
 *
 * - a transaction (a guarded commit, the API's): the memory store writes
 *   through it, so its rows land in that transaction;
 * - the rows of a batched commit (SideRows): the memory store hands its
 *   expert memories and utterances over, and bo1_commit_many writes them in
 *   the commit's own statement (bo1_side_rows), so a step and its rows land
 *   together in one round trip, with no transaction around it. A hook that
 *   wants anything else of the handle (a lesson store's SQL) makes it throw
 *   NeedsTransaction, and the session store runs the batch's hooks again in a
 *   transaction, as every batch with a hook once was.
 */
export const txOf = (db: PgDatabase<any, any, any>): Tx => db as unknown as Tx;

export function execOf(tx: Tx): PgDatabase<any, any, any> {
  if ((tx as unknown) instanceof SideRows) throw new NeedsTransaction();
  return tx as unknown as PgDatabase<any, any, any>;
}

/** A hook asked a batched commit's rows handle for SQL of its own: the batch needs a transaction. */
export class NeedsTransaction extends Error {
  override name = 'NeedsTransaction';
  constructor() {
    super("a write hook ran SQL of its own: its commit needs a transaction, not a batch's rows");
  }
}

/** Rows a batch's hooks hand over, by table, in the tables' own columns (bo1_side_rows reads them by name). */
export class SideRows {
  readonly expert_memories: Record<string, unknown>[] = [];
  readonly utterances: Record<string, unknown>[] = [];

  get handle(): Tx {
    return this as unknown as Tx;
  }

  get empty(): boolean {
    return !this.expert_memories.length && !this.utterances.length;
  }
}

/** The batch a hook's rows go to, or null when the handle is a transaction. */
export const sideRowsOf = (tx: Tx): SideRows | null => ((tx as unknown) instanceof SideRows ? (tx as unknown as SideRows) : null);
