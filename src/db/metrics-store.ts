import { sql } from 'drizzle-orm';
import type { Db } from './client';

export type LedgerTotals = {
  phase: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
};

/** Sessions per status, all tenants: what /metrics reports as bo1_sessions. */
export async function sessionsByStatus(db: Db): Promise<{ status: string; count: number }[]> {
  const { rows } = await db.execute<{ status: string; count: number }>(sql`select status, count(*)::int as count from sessions group by status`);
  return rows;
}

/**
 * The cost ledger summed per phase and model, all tenants. A scan of
 * llm_calls per scrape: fine at a scrape every 15-60 s; the ledger is the
 * record, so the figures survive restarts and agree across processes.
 */
export async function ledgerTotals(db: Db): Promise<LedgerTotals[]> {
  const { rows } = await db.execute<LedgerTotals>(sql`
    select phase, model, count(*)::int as "calls",
      coalesce(sum(input_tokens), 0)::bigint as "inputTokens", coalesce(sum(output_tokens), 0)::bigint as "outputTokens",
      coalesce(sum(cache_read_tokens), 0)::bigint as "cacheReadTokens", coalesce(sum(cache_write_tokens), 0)::bigint as "cacheWriteTokens",
      coalesce(sum(cost_usd), 0) as "costUsd"
    from llm_calls group by phase, model`);
  return rows;
}
