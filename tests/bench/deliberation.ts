/**
 * Deliberation figures: wall time against the critical-path bound, calls,
 * tokens and cost per session and per sub-problem, input tokens per round,
 * and the share of input a provider prompt cache could serve. Reads the
 * ledger straight from Postgres after each session.
 */
import { loadScenarios } from '../support/scenarios';
import pg from 'pg';
import { criticalPathLength } from '../../src/domain/decomposition';
import { PERSONAS } from '../../src/domain/personas';
import { FIRST_TOKEN_SHARE } from '../../src/llm/simulated/simulated-provider';
import { pct } from './percentile';

interface Row {
  step_key: string;
  phase: string;
  purpose: string;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  prefix_tokens: number;
  prefix_hash: string;
}

/** The stage a step belongs to: calls of one stage run in parallel, stages run in sequence. */
const PERSONA = new RegExp(`^(sp\\d+)/r(\\d+)/(?:${PERSONAS.map((p) => p.code).join('|')})$`);

export function stageOf(stepKey: string): string {
  return stepKey
    .replace(PERSONA, (_m, sp: string, r: string) => `${sp}/r${r}/turns`)
    .replace(/^(sp\d+)\/r(\d+)\/research\d+$/, '$1/r$2/research')
    .replace(/^(sp\d+)\/(vote|calibrate|summary)\/[a-z_]+$/, '$1/$2');
}

/**
 * Sum over sequential stages on the longest dependency chain of the slowest call in each stage. A round's turns are
 * asked lead first (src/app/engine/lead-first.ts): that stage lasts the lead's time to first token (the simulated
 * board's share of its latency) plus the slowest of the rest, or the lead's whole call where that is longer. `rows`
 * in ledger order, so a stage's first step is its lead.
 */
export function criticalPathBound(rows: Pick<Row, 'step_key' | 'latency_ms'>[], subProblems: { id: string; dependsOn: string[] }[]): number {
  const perStep = new Map<string, number>();
  // The memory jobs run after the session has ended: not part of its wall time.
  for (const r of rows) if (!r.step_key.startsWith('after/')) perStep.set(r.step_key, (perStep.get(r.step_key) ?? 0) + r.latency_ms);
  const steps = new Map<string, number[]>();
  for (const [step, ms] of perStep) steps.set(stageOf(step), [...(steps.get(stageOf(step)) ?? []), ms]);
  const perStage = new Map<string, number>();
  for (const [stage, [lead = 0, ...rest]] of steps) {
    const staggered = stage.endsWith('/turns') && rest.length > 0;
    perStage.set(stage, staggered ? Math.max(lead, lead * FIRST_TOKEN_SHARE + Math.max(...rest)) : Math.max(lead, ...rest));
  }
  let outside = 0;
  const spCost = new Map<string, number>();
  for (const [stage, ms] of perStage) {
    const sp = /^(sp\d+)\//.exec(stage)?.[1];
    if (sp) spCost.set(sp, (spCost.get(sp) ?? 0) + ms);
    else outside += ms;
  }
  return outside + criticalPathLength(subProblems, (id) => spCost.get(id) ?? 0);
}

const usd = (n: number) => `$${n.toFixed(4)}`;

async function waitDone(url: string, id: string): Promise<Record<string, any>> {
  for (;;) {
    const s = (await (await fetch(`${url}/v1/sessions/${id}`)).json()) as Record<string, any>;
    if (['completed', 'failed'].includes(s.status)) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits (bounded) for the memory jobs that follow a session to append their events. */
async function waitJobs(url: string, id: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { items } = (await (await fetch(`${url}/v1/sessions/${id}/events?limit=1000`)).json()) as { items: { type: string }[] };
    const types = new Set(items.map((e) => e.type));
    if (types.has('lessons.extracted') && (types.has('memory.contributed') || types.has('session.failed'))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function create(url: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return ((await res.json()) as { id: string }).id;
}

export async function deliberationBench(url: string, databaseUrl: string, latencyMs: number): Promise<string[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const scenarios = loadScenarios();
  const out: string[] = [];
  const ratios: number[] = [];
  const perSession: { calls: number; input: number; output: number; cost: number; sps: number }[] = [];
  let expertMemoryCost = 0;
  let memoryJobCost = 0;
  let cacheable = 0;
  let cacheableLong = 0;
  let inputAll = 0;
  out.push(`\ndeliberation: simulated latency ${latencyMs} ms per call, no jitter, one session at a time`);
  out.push('scenario            sub-problems  calls  input tok  output tok   cost      wall s  bound s  ratio');
  for (const sc of scenarios) {
    const id = await create(url, { problem: sc.problem, context: sc.context, seed: `bench-${sc.id}` });
    const s = await waitDone(url, id);
    await waitJobs(url, id);
    const rows = (await db.query<Row>('select step_key, phase, purpose, latency_ms, input_tokens, output_tokens, cost_usd::float8 as cost_usd, prefix_tokens, prefix_hash from llm_calls where session_id = $1 order by id', [id])).rows;
    const subProblems = (s.results?.subProblems ?? []) as { id: string; dependsOn: string[] }[];
    const wall = Date.parse(s.ended_at) - Date.parse(s.started_at);
    const bound = criticalPathBound(rows, subProblems);
    ratios.push(wall / bound);
    const seen = new Set<string>();
    for (const r of rows) {
      if (seen.has(r.prefix_hash)) {
        cacheable += r.prefix_tokens;
        if (r.prefix_tokens >= 1024) cacheableLong += r.prefix_tokens;
      }
      seen.add(r.prefix_hash);
      inputAll += r.input_tokens;
    }
    const t = { calls: rows.length, input: sum(rows, 'input_tokens'), output: sum(rows, 'output_tokens'), cost: sum(rows, 'cost_usd'), sps: subProblems.length };
    expertMemoryCost += sum(rows.filter((r) => r.phase === 'expert_memory'), 'cost_usd');
    memoryJobCost += sum(rows.filter((r) => r.step_key.startsWith('after/') || r.step_key.startsWith('memory/')), 'cost_usd');
    perSession.push(t);
    out.push(
      `${sc.id.padEnd(20)}${String(t.sps).padStart(12)}${String(t.calls).padStart(7)}${String(t.input).padStart(11)}${String(t.output).padStart(12)}  ${usd(t.cost).padStart(8)}${(wall / 1000).toFixed(2).padStart(9)}${(bound / 1000).toFixed(2).padStart(9)}${(wall / bound).toFixed(3).padStart(7)}`,
    );
  }
  const mean = (f: (x: (typeof perSession)[number]) => number) => perSession.reduce((a, x) => a + f(x), 0) / perSession.length;
  const spCount = perSession.reduce((a, x) => a + x.sps, 0);
  out.push(`wall / critical-path bound: p50 ${pct(ratios, 50).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)} (target ≤ 1.10)`);
  out.push(
    `per session (mean): ${mean((x) => x.calls).toFixed(1)} calls, ${Math.round(mean((x) => x.input))} input / ${Math.round(mean((x) => x.output))} output tokens, ${usd(mean((x) => x.cost))} at list prices`,
  );
  const totalCost = perSession.reduce((a, x) => a + x.cost, 0);
  out.push(`per sub-problem (mean over ${spCount}): ${(perSession.reduce((a, x) => a + x.calls, 0) / spCount).toFixed(1)} calls, ${usd(totalCost / spCount)}`);
  out.push(
    `memory cost share: expert summaries across sub-problems ${((100 * expertMemoryCost) / totalCost).toFixed(1)}% (target < 5%); recall, lessons and the post-session memory jobs ${((100 * memoryJobCost) / totalCost).toFixed(1)}%`,
  );
  out.push(
    `prompt cache: ${((100 * cacheable) / inputAll).toFixed(1)}% of input tokens are a repeated stable prefix; ${((100 * cacheableLong) / inputAll).toFixed(1)}% counting only prefixes ≥ 1,024 tokens (the provider's minimum)`,
  );

  // A long debate, early stops disabled, to see prompt growth per round.
  const longId = await create(url, {
    problem: 'Should I migrate our monolith to microservices, rewrite the billing core, and sign a three-year cloud contract?',
    context: 'Team of 6, $2M ARR, billing outages monthly.',
    seed: 'bench-long',
    settings: {
      roundCaps: { simple: 10, moderate: 10, complex: 10, hard: 15 },
      consensusMinRounds: 99,
      diminishingReturns: { marginalUtilityBelow: 0, consecutiveRounds: 99, repetitionAbove: 1 },
      deadlock: { conflictAbove: 1, rounds: 99 },
    },
  });
  await waitDone(url, longId);
  const turns = (
    await db.query<{ round: number; input: number }>(
      // Every token the prompt held, cached or not: the cache changes the price of a long prompt, not its length.
      `select (regexp_match(step_key, '^sp\\d+/r(\\d+)/'))[1]::int as round, avg(input_tokens + cache_read_tokens + cache_write_tokens)::float8 as input
       from llm_calls where session_id = $1 and purpose in ('opening_statement', 'contribution') group by 1 order by 1`,
      [longId],
    )
  ).rows;
  const byRound = new Map(turns.map((r) => [r.round, r.input]));
  out.push(`input tokens per expert turn by round (forced 10-round debate): ${turns.map((r) => `r${r.round} ${Math.round(r.input)}`).join(', ')}`);
  const r2 = byRound.get(2);
  const r10 = byRound.get(10);
  if (r2 && r10) out.push(`round 10 / round 2 input tokens: ${(r10 / r2).toFixed(2)} (target ≤ 1.5)`);
  await db.end();
  return out;
}

const sum = (rows: Row[], k: keyof Row) => rows.reduce((a, r) => a + Number(r[k]), 0);
