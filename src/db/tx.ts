import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { Tx } from '../ports/session-store';

/**
 * A Postgres transaction as the opaque handle a commit's `write` hook gets,
 * and back: only the Postgres stores open it, so memory rows a step writes
 * land in the step's own transaction.
 */
export const txOf = (db: PgDatabase<any, any, any>): Tx => db as unknown as Tx;
export const execOf = (tx: Tx): PgDatabase<any, any, any> => tx as unknown as PgDatabase<any, any, any>;
