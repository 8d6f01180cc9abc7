import { and, asc, eq, sql } from 'drizzle-orm';
import { utterances } from '../db/schema';
import { assertSessionsOwned, rows, type Exec } from './hybrid';

/** Novelty history (seed 003): every contribution and facilitator question, embedded, kept for the retention period. */

import type { NewUtterance, Utterance } from '../ports/utterance-store';

export type { NewUtterance, Utterance };

const BATCH = 1000;

export class UtteranceStore {
  constructor(private readonly db: Exec) {}

  async insertUtterances(tenantId: string, list: NewUtterance[], exec: Exec = this.db): Promise<number> {
    await assertSessionsOwned(exec, tenantId, list.map((u) => u.sessionId));
    let n = 0;
    for (let i = 0; i < list.length; i += BATCH) {
      const values = list.slice(i, i + BATCH).map((u) => ({ ...u, tenantId }));
      n += (await exec.insert(utterances).values(values).returning({ id: utterances.id })).length;
    }
    return n;
  }

  async utteranceHistory(tenantId: string, sessionId: string, subProblemId: string): Promise<Utterance[]> {
    const found = await this.db
      .select()
      .from(utterances)
      .where(and(eq(utterances.tenantId, tenantId), eq(utterances.sessionId, sessionId), eq(utterances.subProblemId, subProblemId)))
      .orderBy(asc(utterances.id));
    return found.map(({ tenantId: _t, createdAt, kind, ...u }) => ({
      ...u,
      kind: kind as Utterance['kind'],
      createdAt: createdAt.toISOString(),
    }));
  }

  /** Retention cleanup across all tenants: the one method that is not tenant-scoped, by design. */
  async purgeUtterances(olderThan: Date): Promise<number> {
    const [r] = await rows<{ n: number }>(
      this.db,
      sql`with d as (delete from ${utterances} where created_at < ${olderThan.toISOString()}::timestamptz returning 1)
          select count(*)::int as n from d`,
    );
    return r?.n ?? 0;
  }

  /** Part of deleting a session's contributions; runs in the caller's transaction. */
  async deleteForSession(exec: Exec, tenantId: string, sessionId: string): Promise<number> {
    const [r] = await rows<{ n: number }>(
      exec,
      sql`with d as (delete from ${utterances} where tenant_id = ${tenantId} and session_id = ${sessionId} returning 1)
          select count(*)::int as n from d`,
    );
    return r?.n ?? 0;
  }
}
