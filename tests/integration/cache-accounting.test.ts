import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, priceFor } from '../../src/config/config';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import type { LedgerEntry } from '../../src/ports/session-store';
import { costOf } from '../../src/llm/gateway';
import { createSimulatedProvider, simulatedPromptCache } from '../../src/llm/simulated/simulated-provider';
import { testDatabaseUrl } from '../support/env';
import { createSession, getJson, startStack, waitForStatus, type Stack } from '../support/stack';

/**
 * Cache reads and writes from the provider to the ledger, the session's usage
 * and its `usage.updated` events, priced at the cache rates. The simulated
 * board's cache gets a 256-token minimum here: today's stable prefixes are
 * under the real 1,024 (the bench reports that), and this test is about the
 * accounting, not the prompts.
 */
/** The session both tests run, memory off so the ledger holds the session's own calls. */
const pricing = (seed: string) => ({
  problem: 'Should I raise prices 20% for new customers only, or for everyone?',
  context: 'B2B SaaS, 300 customers, $60 ARPU, churn 2% a month.',
  seed,
  memory: { read: false, contribute: false },
});

let stack: Stack;
let database: Database;
beforeAll(async () => {
  const provider = createSimulatedProvider({ latencyMs: 0, jitter: 0, cache: simulatedPromptCache(() => 256) });
  stack = await startStack({}, { provider });
  database = openDatabase(testDatabaseUrl(), 1);
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

describe('prompt-cache accounting on the simulated board', () => {
  it('ledgers cache reads and writes, prices them at the cache rates, and usage.updated carries them', async () => {
    const id = await createSession(stack.url, pricing('cache-accounting'));
    await waitForStatus(stack.url, id, ['completed']);
    const ledger = (await new SessionStore(database).ledger(id)).filter((r) => !r.stepKey.startsWith('after/'));
    const reads = ledger.reduce((a, r) => a + (r.cacheReadTokens ?? 0), 0);
    const writes = ledger.reduce((a, r) => a + (r.cacheWriteTokens ?? 0), 0);
    expect(reads).toBeGreaterThan(0);
    expect(writes).toBeGreaterThan(0);
    for (const r of ledger) {
      const usage = { inputTokens: r.inputTokens, outputTokens: r.outputTokens, cacheReadTokens: r.cacheReadTokens ?? 0, cacheWriteTokens: r.cacheWriteTokens ?? 0 };
      expect(r.costUsd).toBeCloseTo(costOf(priceFor(DEFAULT_PRICES, 'simulated', r.model), usage), 5); // stored to the micro-dollar
    }
    const log = await getJson(`${stack.url}/v1/sessions/${id}/events?limit=1000`);
    const last = log.items.filter((e: { type: string }) => e.type === 'usage.updated').at(-1).data;
    expect(last).toMatchObject({ cacheReadTokens: reads, cacheWriteTokens: writes, calls: ledger.length });
    expect(last.costUsd).toBeCloseTo(ledger.reduce((a, r) => a + r.costUsd, 0), 5);
  });

  it("lets a round's lead speaker write the record's new chapter and the others read it, not each write it", async () => {
    // Latency, so that turns sent together miss each other's writes, as on the API; the lead's answer begins first.
    const provider = createSimulatedProvider({ latencyMs: 15, jitter: 0, cache: simulatedPromptCache(() => 256) });
    const staggered = await startStack({}, { provider });
    try {
      const id = await createSession(staggered.url, pricing('lead-first'));
      await waitForStatus(staggered.url, id, ['completed']);
      const rounds = new Map<string, LedgerEntry[]>();
      for (const r of await new SessionStore(database).ledger(id)) {
        const round = /^(.*\/r\d+)\/[^/]+$/.exec(r.stepKey)?.[1];
        if (!round || !['opening_statement', 'contribution'].includes(r.purpose)) continue;
        rounds.set(round, [...(rounds.get(round) ?? []), r]);
      }
      let followers = 0;
      for (const turns of rounds.values()) {
        const writers = turns.filter((t) => (t.cacheWriteTokens ?? 0) > 0);
        expect(writers.length).toBeLessThanOrEqual(1);
        const lead = writers[0];
        if (!lead) continue;
        for (const t of turns.filter((x) => x !== lead)) {
          // Everything the lead read or wrote up to its last breakpoint (the record) is read by the others.
          expect(t.cacheReadTokens).toBe((lead.cacheReadTokens ?? 0) + (lead.cacheWriteTokens ?? 0));
          followers++;
        }
      }
      expect(followers).toBeGreaterThan(0);
    } finally {
      await staggered.stop();
    }
  });
});
