import type { Usage } from './events';
import type { LedgerEntry } from '../ports/session-store';

/** Usage figures from ledger rows: what the stores sum and what a running step adds before it commits. */

export type PhaseRow = Omit<Usage, 'byPhase'> & { phase: string };

/** Folds per-phase ledger sums into one usage figure. */
export function sumUsage(rows: PhaseRow[]): Usage {
  const usage: Usage = {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    byPhase: {},
  };
  for (const r of rows) {
    usage.calls += r.calls;
    usage.inputTokens += r.inputTokens;
    usage.outputTokens += r.outputTokens;
    usage.cacheReadTokens += r.cacheReadTokens;
    usage.cacheWriteTokens += r.cacheWriteTokens;
    usage.costUsd += r.costUsd;
    usage.byPhase[r.phase] = { calls: r.calls, costUsd: round6(r.costUsd) };
  }
  usage.costUsd = round6(usage.costUsd);
  return usage;
}

/** USD to the micro-dollar: the ledger stores cost as numeric(12, 6). */
export const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** Usage with not-yet-committed ledger entries added, per phase. */
export function addCalls(base: Usage, calls: LedgerEntry[]): Usage {
  const rows: PhaseRow[] = Object.entries(base.byPhase).map(([phase, p]) => ({
    phase,
    calls: p.calls,
    costUsd: p.costUsd,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  }));
  const totals = sumUsage([
    ...rows,
    ...calls.map((c) => ({
      phase: c.phase,
      calls: 1,
      costUsd: c.costUsd,
      inputTokens: c.inputTokens,
      outputTokens: c.outputTokens,
      cacheReadTokens: c.cacheReadTokens ?? 0,
      cacheWriteTokens: c.cacheWriteTokens ?? 0,
    })),
  ]);
  return {
    ...totals,
    inputTokens: totals.inputTokens + base.inputTokens,
    outputTokens: totals.outputTokens + base.outputTokens,
    cacheReadTokens: totals.cacheReadTokens + base.cacheReadTokens,
    cacheWriteTokens: totals.cacheWriteTokens + base.cacheWriteTokens,
  };
}
