import { TERMINAL_EVENTS } from '../domain/events';
import type { Database } from './client';
import { TERMINAL_STATUSES } from './session-store';

export interface Compacted {
  /** Sessions compacted by this call. */
  sessions: string[];
  events: number;
  steps: number;
}

/**
 * SESSION_RETENTION_DAYS: compacts sessions that ended before `endedBefore`.
 * Deletes their memoized steps and every event before the terminal one;
 * keeps the session row (status, results, error, usage), the terminal event
 * and what followed it (the memory jobs' reports), the cost ledger, and the
 * memories and lessons drawn from the session. A replayed stream or
 * /events then starts at the terminal event, so a client still learns how
 * the session ended. At most `batch` sessions per call, oldest first, so a
 * backlog is worked off over several sweeps in short transactions.
 *
 * Plain SQL over one pooled client in one transaction (PgBouncer-safe):
 * node-postgres passes JS arrays as Postgres arrays, which drizzle's `sql`
 * would spread into lists.
 */
export async function compactEndedSessions(database: Database, endedBefore: Date, batch = 200): Promise<Compacted> {
  const client = await database.pool.connect();
  try {
    await client.query('begin');
    // keep_from: the terminal event's seq; without one (never expected), the last event.
    const { rows } = await client.query<{ id: string; keep_from: number }>(
      `select s.id, coalesce(t.seq, s.last_seq) as keep_from
         from sessions s
         left join lateral (select min(e.seq) as seq from session_events e where e.session_id = s.id and e.type = any($3)) t on true
        where s.status = any($2) and coalesce(s.ended_at, s.updated_at) < $1
          and (exists (select 1 from steps st where st.session_id = s.id)
               or exists (select 1 from session_events e where e.session_id = s.id and e.seq < coalesce(t.seq, s.last_seq)))
        order by coalesce(s.ended_at, s.updated_at)
        limit $4
        for update of s skip locked`,
      [endedBefore, [...TERMINAL_STATUSES], [...TERMINAL_EVENTS], batch],
    );
    const ids = rows.map((r) => r.id);
    let events = 0;
    let steps = 0;
    if (ids.length) {
      const deleted = await client.query(
        `delete from session_events e using unnest($1::uuid[], $2::int[]) as k(id, keep_from) where e.session_id = k.id and e.seq < k.keep_from`,
        [ids, rows.map((r) => r.keep_from)],
      );
      events = deleted.rowCount ?? 0;
      steps = (await client.query('delete from steps where session_id = any($1::uuid[])', [ids])).rowCount ?? 0;
    }
    await client.query('commit');
    client.release();
    return { sessions: ids, events, steps };
  } catch (err) {
    // A connection that cannot roll back is discarded, never pooled mid-transaction.
    client.release(await client.query('rollback').then(() => undefined, (e: Error) => e));
    throw err;
  }
}
