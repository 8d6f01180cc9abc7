import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jaccard } from '../../src/domain/debate';
import {
  contributionSchema,
  decompositionSchema,
  finalRecommendationSchema,
  optionsSchema,
  problemStatementSchema,
  synthesisSchema,
  voteSchema,
  type Contribution,
  type Option,
  type Persona,
  type SubProblem,
  type Synthesis,
  type Vote,
} from '../../src/domain/model';
import { PERSONAS } from '../../src/domain/personas';
import { simpleMajority } from '../../src/domain/voting';
import { extractJson, toJsonSchema } from '../../src/llm/gateway';
import { createSimulatedProvider } from '../../src/llm/simulated/simulated-provider';
import { LlmError, type LlmRequest } from '../../src/ports/llm';

interface Scenario {
  id: string;
  problem: string;
  context: string;
}
const SCENARIOS: Scenario[] = JSON.parse(readFileSync('/work/shared/problems/scenarios.json', 'utf8'));

const provider = createSimulatedProvider({ latencyMs: 0, jitter: 0 });

function request(purpose: string, key: string, hints: Record<string, unknown> | undefined, schema?: z.ZodType): LlmRequest {
  return {
    model: 'sim-model',
    system: ['protocol block', 'persona block'],
    cacheablePrefix: 2,
    messages: [{ role: 'user', content: `prompt for ${purpose}` }],
    maxTokens: 1000,
    key,
    purpose,
    ...(hints && { hints }),
    ...(schema && { json: { name: purpose, description: purpose, schema: toJsonSchema(schema) } }),
  };
}

/** Calls the provider and validates like the gateway does: extractJson, then zod. */
async function call<T>(purpose: string, key: string, hints: Record<string, unknown> | undefined, schema: z.ZodType<T>): Promise<T> {
  const res = await provider.generate(request(purpose, key, hints, schema));
  const parsed = schema.safeParse(extractJson(res.text));
  if (!parsed.success) throw new Error(`${purpose} ${key}: ${z.prettifyError(parsed.error)}\n${res.text}`);
  return parsed.data;
}

const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
const wordSet = (t: string) => new Set(t.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? []);
const personaHint = (p: Persona) => ({
  code: p.code,
  name: p.name,
  riskTolerance: p.riskTolerance,
  optimism: p.optimism,
  concerns: p.typicalConcerns,
});
const brief = (sp: SubProblem) => ({ id: sp.id, title: sp.title, goal: sp.goal, context: sp.context });

/** One whole simulated session for a scenario, every output validated against its schema. */
async function session(seed: string, s: Scenario) {
  const base = { problem: s.problem, context: s.context || '(none given)' };
  const statement = await call('problem_statement', `${seed}:intake#1`, base, problemStatementSchema);
  const decomposition = await call(
    'decompose',
    `${seed}:decompose#1`,
    { ...base, statement: statement.statement, domains: statement.domains },
    decompositionSchema,
  );
  const panel = PERSONAS.slice(0, 4);
  const syntheses: Synthesis[] = [];
  const openings: string[] = [];
  const contributions: string[] = [];
  const voteIdsOk: boolean[] = [];
  for (const sp of decomposition.subProblems) {
    const positions = new Map<string, string>();
    for (let round = 1; round <= 3; round++) {
      for (const p of panel) {
        const out = await call(
          round === 1 ? 'opening_statement' : 'contribution',
          `${seed}:${sp.id}/r${round}/${p.code}#1`,
          { persona: personaHint(p), subProblem: brief(sp), round, maxRounds: 7, previous: positions.get(p.code) ?? null },
          contributionSchema,
        );
        (round === 1 ? openings : contributions).push(out.text);
        positions.set(p.code, out.position);
      }
    }
    const { options } = await call(
      'options',
      `${seed}:${sp.id}/options#1`,
      { subProblem: brief(sp), positions: [...positions].map(([persona, position]) => ({ persona, position })) },
      optionsSchema,
    );
    const votes: Vote[] = [];
    for (const p of panel) {
      const out = await call(
        'vote',
        `${seed}:${sp.id}/vote/${p.code}#1`,
        {
          persona: { code: p.code, riskTolerance: p.riskTolerance, optimism: p.optimism },
          options: options.map((o) => ({ id: o.id, title: o.title, reversibility: o.reversibility })),
        },
        voteSchema,
      );
      voteIdsOk.push(options.some((o) => o.id === out.optionId));
      votes.push({ persona: p.code, ...out });
    }
    const tally = simpleMajority(
      votes,
      options.map((o) => o.id),
    );
    syntheses.push(await call('synthesis', `${seed}:${sp.id}/synthesis#1`, { options, votes, tally }, synthesisSchema));
  }
  const recommendation = await call('final_recommendation', `${seed}:recommendation#1`, { syntheses }, finalRecommendationSchema);
  return { statement, decomposition, openings, contributions, voteIdsOk, syntheses, recommendation };
}

describe('simulated provider', () => {
  it('is deterministic: same request, same text; another key, another text', async () => {
    const hints = { problem: SCENARIOS[0]!.problem, context: SCENARIOS[0]!.context };
    for (const purpose of ['problem_statement', 'decompose']) {
      const a = await provider.generate(request(purpose, 'seed1:step#1', hints, problemStatementSchema));
      const b = await provider.generate(request(purpose, 'seed1:step#1', hints, problemStatementSchema));
      const c = await provider.generate(request(purpose, 'seed2:step#1', hints, problemStatementSchema));
      expect(b.text).toBe(a.text);
      expect(c.text).not.toBe(a.text);
    }
    const p = PERSONAS[0]!;
    const sp = { id: 'sp1', title: 'Overall direction', goal: 'Decide the overall direction to commit to.', context: '' };
    const opening = (key: string) =>
      provider.generate(request('opening_statement', key, { persona: personaHint(p), subProblem: sp, round: 1, maxRounds: 5, previous: null }));
    expect((await opening('s:sp1/r1/x#1')).text).toBe((await opening('s:sp1/r1/x#1')).text);
    expect((await opening('s:sp1/r1/x#1')).text).not.toBe((await opening('s:sp1/r1/x#2')).text);
  });

  it('every purpose validates against its schema across many seeds and scenarios', async () => {
    let sessions = 0;
    for (let i = 0; i < 50; i++) {
      const s = SCENARIOS[i % SCENARIOS.length]!;
      const out = await session(`seed${i}`, s);
      expect(out.voteIdsOk.every(Boolean)).toBe(true);
      for (const text of out.openings) expect(words(text)).toBeGreaterThanOrEqual(100);
      for (const text of out.openings) expect(words(text)).toBeLessThanOrEqual(150);
      for (const text of out.contributions) expect(words(text)).toBeGreaterThanOrEqual(60);
      for (const text of out.contributions) expect(words(text)).toBeLessThanOrEqual(120);
      for (const syn of out.syntheses) expect(syn.recommendation).not.toMatch(/you must/i);
      expect(out.recommendation.steps.length).toBeGreaterThanOrEqual(3);
      expect(out.recommendation.steps.length).toBeLessThanOrEqual(6);
      sessions += 1;
    }
    expect(sessions).toBe(50);
  });

  it('restates the problem and detects domains from keywords', async () => {
    const rust = SCENARIOS.find((s) => s.id === 'rust-rewrite')!;
    const out = await call('problem_statement', 'k:intake#1', { problem: rust.problem, context: rust.context }, problemStatementSchema);
    expect(out.statement).toMatch(/Rust/);
    expect(out.domains[0]).toBe('strategy');
    expect(out.domains).toContain('technical');
    expect(out.assumptions.length).toBeGreaterThanOrEqual(1);
    expect(out.assumptions.length).toBeLessThanOrEqual(3);
    const pricing = SCENARIOS.find((s) => s.id === 'pricing-strategy')!;
    const p2 = await call('problem_statement', 'k:intake#1', { problem: pricing.problem, context: pricing.context }, problemStatementSchema);
    expect(p2.domains).toContain('finance');
  });

  it('decomposes an atomic problem into one sub-problem and the scenarios into 2-4', async () => {
    for (let i = 0; i < 10; i++) {
      for (const s of SCENARIOS) {
        const out = await call('decompose', `seed${i}:decompose#1`, { problem: s.problem, context: s.context || '(none given)' }, decompositionSchema);
        const n = out.subProblems.length;
        if (s.id === 'atomic-name') expect(n).toBe(1);
        else {
          expect(n).toBeGreaterThanOrEqual(2);
          expect(n).toBeLessThanOrEqual(4);
        }
        out.subProblems.forEach((sp, idx) => {
          expect(sp.id).toBe(`sp${idx + 1}`);
          for (const d of sp.dependsOn) expect(Number(d.slice(2))).toBeLessThan(idx + 1);
          expect(sp.complexity).toBeGreaterThanOrEqual(2);
          expect(sp.complexity).toBeLessThanOrEqual(8);
          expect(sp.successCriteria.length).toBeLessThanOrEqual(3);
        });
      }
    }
  });

  it('keeps votes among the given options, even with unusual option lists', async () => {
    for (let i = 0; i < 50; i++) {
      const p = PERSONAS[i % PERSONAS.length]!;
      const options = [
        { id: 'A', title: 'Commit now to the plan', reversibility: 'one_way' },
        { id: 'C', title: 'Pilot the plan first', reversibility: 'two_way' },
      ];
      const out = await call('vote', `v${i}#1`, { persona: { code: p.code, riskTolerance: p.riskTolerance, optimism: p.optimism }, options }, voteSchema);
      expect(['A', 'C']).toContain(out.optionId);
      expect(out.confidence).toBeGreaterThanOrEqual(0.45);
      expect(out.confidence).toBeLessThanOrEqual(0.92);
      expect(words(out.rationale)).toBeGreaterThanOrEqual(50);
      expect(words(out.rationale)).toBeLessThanOrEqual(100);
    }
  });

  it('lets novelty decay: late contributions reuse the persona’s earlier vocabulary', async () => {
    const sp = { id: 'sp1', title: 'Budget, runway and financial threshold', goal: 'Decide how much of the cash this may consume.', context: '' };
    const overlap2: number[] = [];
    const overlap5: number[] = [];
    for (let s = 0; s < 8; s++) {
      for (const p of PERSONAS.slice(0, 4)) {
        const texts: string[] = [];
        let previous: string | null = null;
        for (let round = 1; round <= 5; round++) {
          const out: Contribution = await call(
            round === 1 ? 'opening_statement' : 'contribution',
            `seed${s}:sp1/r${round}/${p.code}#1`,
            { persona: personaHint(p), subProblem: sp, round, maxRounds: 7, previous },
            contributionSchema,
          );
          previous = out.position;
          const mean = texts.length ? texts.reduce((a, t) => a + jaccard(wordSet(out.text), wordSet(t)), 0) / texts.length : 0;
          if (round === 2) overlap2.push(mean);
          if (round === 5) overlap5.push(mean);
          texts.push(out.text);
        }
      }
    }
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(avg(overlap5)).toBeGreaterThan(avg(overlap2) + 0.05);
  });

  it('synthesises a tie honestly and lists the dissent', async () => {
    const options: Option[] = ['A', 'B', 'C'].map((id) => ({
      id,
      title: `Plan ${id}`,
      description: `Description of plan ${id}.`,
      pros: ['Fast'],
      cons: ['Costly'],
      bestIf: 'It fits',
      reversibility: 'two_way',
    }));
    const votes: Vote[] = [
      { persona: 'financial_analyst', optionId: 'A', rationale: 'I vote for option A. Cash matters most here.', confidence: 0.6 },
      { persona: 'risk_manager', optionId: 'B', rationale: 'I vote for option B. It is reversible.', confidence: 0.7 },
      { persona: 'growth_strategist', optionId: 'A', rationale: 'I vote for option A. Speed wins.', confidence: 0.8 },
      { persona: 'user_advocate', optionId: 'B', rationale: 'I vote for option B. Customers first.', confidence: 0.5 },
      { persona: 'data_scientist', optionId: 'C', rationale: 'I vote for option C. Measure first.', confidence: 0.9 },
    ];
    const tally = simpleMajority(votes, ['A', 'B', 'C']);
    expect(tally.winner).toBeNull();
    const out = await call('synthesis', 'tie#1', { options, votes, tally }, synthesisSchema);
    expect(out.recommendation).toMatch(/Plan A/);
    expect(out.recommendation).toMatch(/Plan B/);
    expect(out.recommendation).toMatch(/split/);
    expect(out.dissent.map((d) => d.persona)).toEqual(['data_scientist']);
    expect(out.confidence).toBeCloseTo(Math.round(0.7 * tally.consensus * 100) / 100, 2);

    const winner = await call('synthesis', 'win#1', { options, votes: votes.slice(0, 3), tally: simpleMajority(votes.slice(0, 3), ['A', 'B', 'C']) }, synthesisSchema);
    expect(winner.recommendation).toMatch(/^We recommend option A, "Plan A"/);
    expect(winner.dissent.map((d) => d.persona)).toEqual(['risk_manager']);
  });

  it('survives missing hints for every purpose', async () => {
    const schemas: [string, z.ZodType][] = [
      ['problem_statement', problemStatementSchema],
      ['decompose', decompositionSchema],
      ['opening_statement', contributionSchema],
      ['contribution', contributionSchema],
      ['options', optionsSchema],
      ['vote', voteSchema],
      ['synthesis', synthesisSchema],
      ['final_recommendation', finalRecommendationSchema],
    ];
    for (const [purpose, schema] of schemas) {
      await call(purpose, `bare:${purpose}#1`, undefined, schema);
      await call(purpose, `junk:${purpose}#1`, { persona: 7, subProblem: 'x', options: {}, votes: [null], tally: [], syntheses: 'no' }, schema);
    }
  });

  it('answers a repair request by generating again', async () => {
    const req = request('vote', 'rep#2', { options: [{ id: 'B', title: 'Pilot it', reversibility: 'two_way' }] }, voteSchema);
    req.messages = [
      { role: 'user', content: 'vote' },
      { role: 'assistant', content: '{}' },
      { role: 'user', content: 'That answer is invalid: missing optionId' },
    ];
    const res = await provider.generate(req);
    expect(voteSchema.parse(extractJson(res.text)).optionId).toBe('B');
  });

  it('fills a nested JSON Schema for unknown purposes, and plain text without one', async () => {
    const nested = z.object({
      name: z.string().min(12),
      count: z.number().int().min(3).max(9),
      ratio: z.number().min(0.2).max(0.4),
      flag: z.boolean(),
      kind: z.enum(['x', 'y']),
      note: z.string().nullable(),
      items: z
        .array(z.object({ label: z.string().min(5).max(8), tags: z.array(z.string()).min(2), score: z.number().gt(10).lt(11) }))
        .min(3)
        .max(4),
      inner: z.object({ deep: z.object({ level: z.literal('deep'), when: z.string().optional() }) }),
    });
    for (let i = 0; i < 20; i++) {
      const res = await provider.generate(request('custom_purpose', `g${i}#1`, undefined, nested));
      const out = nested.parse(JSON.parse(res.text));
      expect(out.items.length).toBeGreaterThanOrEqual(3);
    }
    const text = await provider.generate(request('free_text', 'p#1', { problem: 'Should I move to Lisbon?' }));
    expect(text.text.length).toBeGreaterThan(40);
    expect(() => JSON.parse(text.text)).toThrow();
  });

  it('reports usage, model, stop reason and streams deterministic chunks', async () => {
    const deltas: string[] = [];
    const req = { ...request('problem_statement', 'u#1', { problem: 'Should I hire a designer?' }, problemStatementSchema), onDelta: (d: string) => deltas.push(d) };
    const res = await provider.generate(req);
    const inputChars = req.system.join('').length + req.messages.map((m) => m.content).join('').length;
    expect(res.usage).toEqual({
      inputTokens: Math.ceil(inputChars / 4),
      outputTokens: Math.ceil(res.text.length / 4),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(res).toMatchObject({ model: 'sim-model', stopReason: 'end_turn', attempts: 1 });
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.join('')).toBe(res.text);
    const again: string[] = [];
    await provider.generate({ ...req, onDelta: (d: string) => again.push(d) });
    expect(again).toEqual(deltas);
  });

  it('honours latency with jitter through the injected sleep, and skips it at zero', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const slow = createSimulatedProvider({ latencyMs: 200, jitter: 0.25, sleep });
    for (let i = 0; i < 20; i++) await slow.generate(request('contribution', `lat${i}#1`, undefined, contributionSchema));
    expect(waits).toHaveLength(20);
    for (const ms of waits) {
      expect(ms).toBeGreaterThanOrEqual(150);
      expect(ms).toBeLessThanOrEqual(250);
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
    await slow.generate(request('contribution', 'lat0#1', undefined, contributionSchema));
    expect(waits.at(-1)).toBe(waits[0]);

    const exact: number[] = [];
    await createSimulatedProvider({ latencyMs: 120, jitter: 0, sleep: async (ms) => void exact.push(ms) }).generate(request('x', 'k#1', undefined));
    expect(exact).toEqual([120]);

    const none: number[] = [];
    await createSimulatedProvider({ latencyMs: 0, jitter: 0.5, sleep: async (ms) => void none.push(ms) }).generate(request('x', 'k#1', undefined));
    expect(none).toEqual([]);
  });

  it('rejects with kind aborted, before and during the wait', async () => {
    const kindOf = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: unknown) => (e instanceof LlmError ? `${e.kind}:${e.retryable}` : String(e)),
      );
    const before = new AbortController();
    before.abort();
    expect(await kindOf(provider.generate({ ...request('vote', 'a#1', undefined, voteSchema), signal: before.signal }))).toBe('aborted:false');

    // An injected sleep that never resolves and ignores the signal: the abort must still win.
    const stuck = createSimulatedProvider({ latencyMs: 1000, jitter: 0, sleep: () => new Promise(() => {}) });
    const during = new AbortController();
    const pending = kindOf(stuck.generate({ ...request('vote', 'a#1', undefined, voteSchema), signal: during.signal }));
    setTimeout(() => during.abort(), 5);
    expect(await pending).toBe('aborted:false');

    // The default timer sleep is cut short too.
    const real = createSimulatedProvider({ latencyMs: 10_000, jitter: 0 });
    const ctl = new AbortController();
    const started = Date.now();
    const p = kindOf(real.generate({ ...request('vote', 'a#1', undefined, voteSchema), signal: ctl.signal }));
    setTimeout(() => ctl.abort(), 10);
    expect(await p).toBe('aborted:false');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
