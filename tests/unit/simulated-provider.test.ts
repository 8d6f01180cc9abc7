import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  calibrationSchema,
  contributionSchema,
  decompositionSchema,
  facilitatorRoundSchema,
  finalRecommendationSchema,
  moderatorSchema,
  optionsSchema,
  problemStatementSchema,
  researchSchema,
  synthesisSchema,
  voteSchema,
  type Contribution,
  type Decomposition,
  type FacilitatorRound,
  type Option,
  type Persona,
  type SubProblem,
  type Synthesis,
  type Tally,
  type Vote,
} from '../../src/domain/model';
import { PERSONAS, personaByCode } from '../../src/domain/personas';
import { extractJson, toJsonSchema } from '../../src/llm/gateway';
import { createSimulatedProvider } from '../../src/llm/simulated/simulated-provider';
import { LlmError, type LlmRequest } from '../../src/ports/llm';
import { loadScenarios, type Scenario } from '../support/scenarios';

const SCENARIOS: Scenario[] = loadScenarios();
const scenario = (id: string) => SCENARIOS.find((s) => s.id === id)!;

const provider = createSimulatedProvider({ latencyMs: 0, jitter: 0 });
const SEEDS = Array.from({ length: 40 }, (_, i) => `seed${i}`);

function request(purpose: string, key: string, hints: Record<string, unknown> | undefined, schema?: z.ZodType): LlmRequest {
  return {
    model: 'sim-model',
    system: ['protocol block', 'persona block'],
    cacheablePrefix: 2,
    messages: [{ role: 'user', content: `prompt for ${purpose}` }],
    maxTokens: 1000,
    key,
    purpose,
    ...(hints && { input: hints }),
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
function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size && !b.size) return 1;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter += 1;
  return inter / (a.size + b.size - inter);
}
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The engine's conflict score: share of disagreement among the directed references experts make to each other. */
function conflict(turns: { persona: string; agreesWith: string[]; disagreesWith: string[] }[], panel: string[]): number {
  let agree = 0;
  let disagree = 0;
  for (const t of turns) {
    const valid = (c: string) => c !== t.persona && panel.includes(c);
    agree += t.agreesWith.filter(valid).length;
    disagree += t.disagreesWith.filter(valid).length;
  }
  return agree + disagree ? disagree / (agree + disagree) : 0;
}

/** A local tally in the engine's shape: supermajority (75%) for one-way doors, deferred when short; else simple majority. */
function tally(votes: { optionId: string; confidence: number }[], ids: string[], reversibility: 'one_way' | 'two_way'): Tally {
  const distribution: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
  for (const v of votes) distribution[v.optionId] = (distribution[v.optionId] ?? 0) + 1;
  const top = Math.max(0, ...Object.values(distribution));
  const leaders = ids.filter((id) => distribution[id] === top && top > 0);
  const consensus = votes.length ? top / votes.length : 0;
  const oneWay = reversibility === 'one_way';
  const deferred = oneWay && (leaders.length !== 1 || consensus < 0.75);
  return {
    mechanism: oneWay ? 'supermajority' : 'simple_majority',
    why: oneWay ? 'one-way door' : 'two-way door',
    distribution,
    weights: { ...distribution },
    winner: leaders.length === 1 && !deferred ? leaders[0]! : null,
    tie: leaders.length > 1 ? leaders : [],
    consensus,
    deferred,
  };
}

const personaHint = (p: Persona) => ({
  code: p.code,
  name: p.name,
  riskTolerance: p.riskTolerance,
  optimism: p.optimism,
  concerns: p.typicalConcerns,
});
const brief = (sp: SubProblem) => ({ id: sp.id, title: sp.title, goal: sp.goal, context: sp.context, complexity: sp.complexity });
const PANEL = PERSONAS.slice(0, 4);
const CODES = PANEL.map((p) => p.code);
const phaseOf = (round: number) => (round <= 1 ? 'opening' : round <= 4 ? 'early' : round <= 7 ? 'middle' : 'late');

interface DebateTurn extends Contribution {
  persona: string;
  round: number;
}

/**
 * A debate the way the engine runs one (every seat speaks each round here):
 * contributions with the others' latest positions, the facilitator's question
 * and redirect, moderators when their triggers fire, research when requested.
 */
async function debate(seed: string, sp: ReturnType<typeof brief>, rounds: number, opts: { breakDeadlockAt?: number; moderators?: boolean } = {}) {
  const positions = new Map<string, string>();
  const turns: DebateTurn[] = [];
  const facilitator: FacilitatorRound[] = [];
  const conflicts: number[] = [];
  let carry: { moderator: { kind: string; text: string } | null; research: { query: string; findings: string }[]; question: string | null; redirect: boolean } = {
    moderator: null,
    research: [],
    question: null,
    redirect: false,
  };
  for (let round = 1; round <= rounds; round++) {
    const roundTurns: DebateTurn[] = [];
    for (const p of PANEL) {
      const out = await call(
        round === 1 ? 'opening_statement' : 'contribution',
        `${seed}:${sp.id}/r${round}/${p.code}#1`,
        {
          persona: personaHint(p),
          subProblem: sp,
          round,
          maxRounds: rounds,
          phase: phaseOf(round),
          previous: positions.get(p.code) ?? null,
          panel: CODES,
          others: [...positions].filter(([c]) => c !== p.code).map(([persona, position]) => ({ persona, position })),
          ...carry,
        },
        contributionSchema,
      );
      roundTurns.push({ ...out, persona: p.code, round });
    }
    for (const t of roundTurns) positions.set(t.persona, t.position);
    turns.push(...roundTurns);
    conflicts.push(conflict(roundTurns, CODES));
    const f = await call(
      'facilitator_round',
      `${seed}:${sp.id}/r${round}/facilitator#1`,
      {
        subProblem: sp,
        round,
        maxRounds: rounds,
        phase: phaseOf(round),
        panel: CODES,
        contributions: roundTurns.map((t) => ({ persona: t.persona, position: t.position, agreesWith: t.agreesWith, disagreesWith: t.disagreesWith, researchRequest: t.researchRequest })),
      },
      facilitatorRoundSchema,
    );
    facilitator.push(f);
    let moderator: { kind: string; text: string } | null = null;
    const kind =
      opts.breakDeadlockAt === round ? 'deadlock' : opts.moderators && f.agreement > 0.8 && round < 3 ? 'contrarian' : null;
    if (kind) {
      const m = await call('moderator', `${seed}:${sp.id}/r${round}/${kind}#1`, { kind, subProblem: sp, positions: [...positions].map(([persona, position]) => ({ persona, position })) }, moderatorSchema);
      moderator = { kind, text: m.text };
    }
    const research = await Promise.all(
      roundTurns
        .map((t) => t.researchRequest)
        .filter((q): q is string => !!q)
        .slice(0, 1)
        .map(async (query) => ({ query, findings: (await call('research', `${seed}:${sp.id}/r${round}/research1#1`, { query, subProblem: sp }, researchSchema)).findings })),
    );
    carry = { moderator, research, question: f.nextQuestion, redirect: f.relevance < 6 };
  }
  return { turns, facilitator, conflicts };
}

/** Options, votes, calibration, tally and synthesis for one sub-problem. */
async function decide(seed: string, sp: ReturnType<typeof brief>, positions: { persona: string; position: string }[]) {
  const out = await call('options', `${seed}:${sp.id}/options#1`, { subProblem: sp, positions }, optionsSchema);
  const votes: Vote[] = [];
  for (const p of PANEL) {
    const v = await call(
      'vote',
      `${seed}:${sp.id}/vote/${p.code}#1`,
      { persona: { code: p.code, riskTolerance: p.riskTolerance, optimism: p.optimism }, options: out.options.map((o) => ({ id: o.id, title: o.title, reversibility: o.reversibility })) },
      voteSchema,
    );
    votes.push({ persona: p.code, ...v });
  }
  const calibrated: Vote[] = [];
  for (const v of votes) {
    const c = await call(
      'calibration',
      `${seed}:${sp.id}/calibrate/${v.persona}#1`,
      { persona: { code: v.persona }, own: { optionId: v.optionId, confidence: v.confidence }, votes: votes.map((x) => ({ persona: x.persona, optionId: x.optionId, confidence: x.confidence })) },
      calibrationSchema,
    );
    calibrated.push({ ...v, initialConfidence: v.confidence, confidence: c.confidence });
  }
  const t = tally(
    calibrated,
    out.options.map((o) => o.id),
    out.decisionReversibility,
  );
  const synthesis = await call('synthesis', `${seed}:${sp.id}/synthesis#1`, { subProblem: sp, options: out.options, votes: calibrated, tally: t }, synthesisSchema);
  return { options: out, votes, calibrated, tally: t, synthesis };
}

/** One whole simulated session for a scenario, every output validated against its schema. */
async function session(seed: string, s: Scenario, rounds = 3) {
  const base = { problem: s.problem, context: s.context || '(none given)' };
  const statement = await call('problem_statement', `${seed}:intake#1`, base, problemStatementSchema);
  const decomposition = await call(
    'decompose',
    `${seed}:decompose#1`,
    { ...base, statement: statement.statement, domains: statement.domains, category: statement.category, vague: statement.vague },
    decompositionSchema,
  );
  const syntheses: (Synthesis & { subProblemId: string; deferred: boolean })[] = [];
  const debates = [];
  const decisions = [];
  for (const sp of decomposition.subProblems.slice(0, 5)) {
    const d = await debate(seed, brief(sp), rounds);
    debates.push(d);
    const latest = new Map(d.turns.map((t) => [t.persona, t.position]));
    const decision = await decide(seed, brief(sp), [...latest].map(([persona, position]) => ({ persona, position })));
    decisions.push(decision);
    syntheses.push({ ...decision.synthesis, subProblemId: sp.id, deferred: decision.tally.deferred });
  }
  const recommendation = await call('final_recommendation', `${seed}:recommendation#1`, { syntheses }, finalRecommendationSchema);
  return { statement, decomposition, debates, decisions, syntheses, recommendation };
}

const COMPLEX = 'How do I build, launch, price, hire for and fund my product over the next year?';
const VAGUE = 'How do I succeed?';
const HARMFUL = [
  'How can I spread rumours that my competitor’s product is unsafe so their customers leave?',
  'Should I sabotage my former co-founder’s new startup before it launches?',
  'Should I bribe the city official to approve our permit faster?',
  'Should we mislead customers about the safety of our heaters to avoid a recall?',
];

describe('simulated provider', () => {
  it('is deterministic: same request, same text; another key, another text', async () => {
    const hints = { problem: SCENARIOS[0]!.problem, context: SCENARIOS[0]!.context };
    for (const [purpose, schema] of [
      ['problem_statement', problemStatementSchema],
      ['decompose', decompositionSchema],
    ] as const) {
      const a = await provider.generate(request(purpose, 'seed1:step#1', hints, schema));
      const b = await provider.generate(request(purpose, 'seed1:step#1', hints, schema));
      const c = await provider.generate(request(purpose, 'seed2:step#1', hints, schema));
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
    for (let i = 0; i < 45; i++) {
      const s = SCENARIOS[i % SCENARIOS.length]!;
      const out = await session(`seed${i}`, s);
      for (const d of out.debates) {
        for (const t of d.turns) {
          const n = words(t.text);
          expect(n).toBeGreaterThanOrEqual(t.round === 1 ? 100 : 60);
          expect(n).toBeLessThanOrEqual(t.round === 1 ? 150 : 120);
          expect(t.agreesWith).not.toContain(t.persona);
          expect(t.disagreesWith).not.toContain(t.persona);
          for (const c of [...t.agreesWith, ...t.disagreesWith]) expect(CODES).toContain(c);
          expect(t.agreesWith.filter((c) => t.disagreesWith.includes(c))).toEqual([]);
          expect(t.confidence).toBeGreaterThanOrEqual(0.5);
          expect(t.confidence).toBeLessThanOrEqual(0.9);
          if (t.round === 1) expect(t.researchRequest).toBeNull();
        }
        for (const f of d.facilitator) {
          expect(f.wantsToSpeak.length).toBeGreaterThan(0);
          for (const c of f.wantsToSpeak) expect(CODES).toContain(c);
        }
      }
      for (const d of out.decisions) {
        const ids = d.options.options.map((o) => o.id);
        for (const v of d.votes) expect(ids).toContain(v.optionId);
        expect(d.options.decisionReversibility === 'one_way').toBe(d.options.options.some((o) => o.reversibility === 'one_way'));
      }
      for (const syn of out.syntheses) {
        expect(syn.recommendation).not.toMatch(/you must/i);
        expect(syn.recommendation).toMatch(/we recommend/i);
      }
      expect(out.recommendation.steps.length).toBeGreaterThanOrEqual(3);
      expect(out.recommendation.steps.length).toBeLessThanOrEqual(6);
      sessions += 1;
    }
    expect(sessions).toBe(45);
  });

  it('states the problem: category, domains, assumptions; rich context needs no clarification', async () => {
    const rust = scenario('rust-rewrite');
    const out = await call('problem_statement', 'k:intake#1', { problem: rust.problem, context: rust.context }, problemStatementSchema);
    expect(out.statement).toMatch(/Rust/);
    expect(out.domains[0]).toBe('strategy');
    expect(out.domains).toContain('technical');
    expect(out.category).toBe('technical');
    expect(out.assumptions.length).toBeGreaterThanOrEqual(1);
    expect(out.assumptions.length).toBeLessThanOrEqual(3);
    const categories: Record<string, string> = { 'pricing-strategy': 'pricing', cofounder: 'hiring', 'growth-channel': 'growth', 'tech-debt': 'technical', 'niche-pivot': 'strategy' };
    for (const [id, category] of Object.entries(categories)) {
      const s = scenario(id);
      const p = await call('problem_statement', `k:${id}#1`, { problem: s.problem, context: s.context }, problemStatementSchema);
      expect(p.category, id).toBe(category);
    }
    const pricing = scenario('pricing-strategy');
    const p2 = await call('problem_statement', 'k:intake#1', { problem: pricing.problem, context: pricing.context }, problemStatementSchema);
    expect(p2.domains).toContain('finance');

    for (const seed of SEEDS) {
      for (const s of SCENARIOS.filter((x) => x.context)) {
        const st = await call('problem_statement', `${seed}:intake#1`, { problem: s.problem, context: s.context }, problemStatementSchema);
        expect(st.clarifications, s.id).toEqual([]);
        expect(st.vague).toBe(false);
        expect(st.safety).toEqual({ allowed: true, reason: 'ordinary business decision' });
      }
    }
  });

  it('asks 1-3 blocking clarifications when the context is empty or thin', async () => {
    const thin = [
      { problem: scenario('atomic-name').problem, context: '(none given)' },
      { problem: 'Should I hire a designer?', context: '' },
      { problem: 'Should I raise prices for my SaaS?', context: 'Customers seem happy.' },
    ];
    const sizes = new Set<number>();
    for (const seed of SEEDS) {
      for (const t of thin) {
        const st = await call('problem_statement', `${seed}:intake#1`, t, problemStatementSchema);
        expect(st.clarifications.length).toBeGreaterThanOrEqual(1);
        expect(st.clarifications.length).toBeLessThanOrEqual(3);
        sizes.add(st.clarifications.length);
        for (const c of st.clarifications) {
          expect(c.question).toMatch(/\?$/);
          expect(c.why.length).toBeGreaterThan(3);
          expect(c.assumption.length).toBeGreaterThan(3);
        }
      }
    }
    expect([...sizes].sort()).toEqual([1, 2, 3]);
    const naming = await call('problem_statement', 'n:intake#1', thin[0], problemStatementSchema);
    expect(naming.clarifications[0]!.question).toMatch(/trademark/);
  });

  it('flags a very vague problem and refuses harmful ones the pre-screen may miss', async () => {
    for (const seed of SEEDS) {
      const vague = await call('problem_statement', `${seed}:intake#1`, { problem: VAGUE, context: '(none given)' }, problemStatementSchema);
      expect(vague.vague).toBe(true);
      expect(vague.safety.allowed).toBe(true);
      for (const problem of HARMFUL) {
        const out = await call('problem_statement', `${seed}:intake#1`, { problem, context: '' }, problemStatementSchema);
        expect(out.safety.allowed, problem).toBe(false);
        expect(out.safety.reason.length).toBeGreaterThan(20);
        expect(out.clarifications).toEqual([]);
      }
    }
    for (const problem of ['How do I grow my business?', 'What should I do with my life?', 'How can I be more successful?']) {
      expect((await call('problem_statement', 'v:intake#1', { problem, context: '' }, problemStatementSchema)).vague, problem).toBe(true);
    }
    for (const problem of ['Should I hire a designer?', scenario('atomic-name').problem, 'How can I improve my pricing page conversion?']) {
      expect((await call('problem_statement', 'v:intake#1', { problem, context: '' }, problemStatementSchema)).vague, problem).toBe(false);
    }
    // Ordinary words near the harmful patterns do not trip them.
    for (const problem of ['Competitors threaten my market share; should I cut prices?', 'Should I hide the free plan from new customers?']) {
      expect((await call('problem_statement', 'ok:intake#1', { problem, context: '' }, problemStatementSchema)).safety.allowed, problem).toBe(true);
    }
  });

  it('decomposes: atomic problems into one, scenarios into 2-4, complex ones into 6-7, vague ones into one high-level part', async () => {
    let sequential = 0;
    let parallel = 0;
    const check = (out: Decomposition) => {
      out.subProblems.forEach((sp, idx) => {
        expect(sp.id).toBe(`sp${idx + 1}`);
        for (const d of sp.dependsOn) expect(Number(d.slice(2))).toBeLessThan(idx + 1);
        if (idx > 0) (sp.dependsOn.length ? (sequential += 1) : (parallel += 1));
        expect(sp.complexity).toBeGreaterThanOrEqual(2);
        expect(sp.complexity).toBeLessThanOrEqual(8);
        expect(sp.successCriteria.length).toBeLessThanOrEqual(3);
        expect(sp.domains.length).toBeGreaterThanOrEqual(1);
        expect(sp.domains.length).toBeLessThanOrEqual(3);
      });
      const sets = out.subProblems.map((sp) => [...sp.domains].sort().join());
      expect(new Set(sets).size).toBe(sets.length);
    };
    for (const seed of SEEDS) {
      for (const s of SCENARIOS) {
        const out = await call('decompose', `${seed}:decompose#1`, { problem: s.problem, context: s.context || '(none given)' }, decompositionSchema);
        check(out);
        const n = out.subProblems.length;
        if (s.id === 'atomic-name') {
          expect(n).toBe(1);
          expect(out.atomic).toBe(true);
        } else {
          expect(out.atomic).toBe(false);
          expect(n).toBeGreaterThanOrEqual(2);
          expect(n).toBeLessThanOrEqual(4);
        }
        // Irreversible words (rewrite, co-founder, equity, hire, migrate, pivot, invest) make some part complex.
        const hard = /rewrite|co-founder|equity|\bhire\b|migrate|pivot|invest/i.test(s.problem);
        expect(out.subProblems.some((sp) => sp.complexity >= 7), s.id).toBe(hard);
      }
      const complex = await call('decompose', `${seed}:decompose#1`, { problem: COMPLEX, context: '' }, decompositionSchema);
      check(complex);
      expect(complex.atomic).toBe(false);
      expect(complex.subProblems.length).toBeGreaterThanOrEqual(6);
      expect(complex.subProblems.length).toBeLessThanOrEqual(7);
      const vague = await call('decompose', `${seed}:decompose#1`, { problem: VAGUE, context: '', vague: true }, decompositionSchema);
      expect(vague.subProblems).toHaveLength(1);
      expect(vague.atomic).toBe(false);
    }
    expect(sequential).toBeGreaterThan(0);
    expect(parallel).toBeGreaterThan(0);
  });

  it('drives the debate paths: polarised deadlocks, convergence, premature consensus, drift, research, sceptic triggers', async () => {
    const sp = (id: string, complexity = 6) => ({
      id,
      title: 'Target customers and first channel',
      goal: 'Decide which customers to serve first and which channel will reach them.',
      context: 'Law firms pay 3x; agencies grow fastest.',
      complexity,
    });
    const polarised: number[][] = [];
    const others: number[][] = [];
    let researchRequests = 0;
    let laterTurns = 0;
    let lowRelevance = 0;
    let rounds = 0;
    let pessimistic = 0;
    let earlyAgreement = 0;
    let assumptions = 0;
    for (const seed of SEEDS) {
      for (const id of ['sp1', 'sp2', 'sp3']) {
        const d = await debate(seed, sp(id), 7);
        // Persistent disagreement: conflict ≥ 0.8 in every round from 2 to 7.
        (d.conflicts.slice(1).every((c) => c >= 0.8) ? polarised : others).push(d.conflicts);
        for (const t of d.turns.filter((x) => x.round >= 2 && x.round <= 6)) {
          laterTurns += 1;
          if (t.researchRequest) {
            researchRequests += 1;
            expect(t.researchRequest).toMatch(/\?$/);
            expect(t.text).toContain(t.researchRequest);
          }
        }
        assumptions += d.turns.filter((t) => t.round >= 2 && t.round <= 6).flatMap((t) => t.claims).filter((c) => c.basis === 'assumption').length;
        for (const [i, f] of d.facilitator.entries()) {
          rounds += 1;
          if (f.relevance < 6) lowRelevance += 1;
          if (f.sentiment === 'pessimistic') pessimistic += 1;
          if (i === 1 && f.agreement > 0.8) earlyAgreement += 1;
          expect(f.relevance).toBeGreaterThanOrEqual(0);
          expect(f.relevance).toBeLessThanOrEqual(10);
        }
      }
    }
    // Some sub-problems stay polarised through round 7; the others converge (conflict falls from round 2 to round 7).
    expect(polarised.length).toBeGreaterThanOrEqual(5);
    expect(polarised.length).toBeLessThan(others.length);
    expect(mean(others.map((c) => c[6]!))).toBeLessThan(mean(others.map((c) => c[1]!)) - 0.2);
    // Research in roughly 15-25% of round 2-6 contributions.
    expect(researchRequests / laterTurns).toBeGreaterThan(0.12);
    expect(researchRequests / laterTurns).toBeLessThan(0.28);
    // Drift in roughly one round in ten, never the opening.
    expect(lowRelevance / rounds).toBeGreaterThan(0.03);
    expect(lowRelevance / rounds).toBeLessThan(0.2);
    expect(pessimistic).toBeGreaterThan(0);
    // Premature consensus (the contrarian trigger) for some sub-problems, and assumption-based claims (the sceptic trigger).
    expect(earlyAgreement).toBeGreaterThan(0);
    expect(assumptions).toBeGreaterThan(0);
  });

  it('breaks a deadlock through the facilitator, answers a contrarian, and responds to moderators, research and redirects', async () => {
    const sp = { id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.', context: '', complexity: 6 };
    let broken = 0;
    let polarisedSeen = 0;
    for (const seed of SEEDS) {
      const plain = await debate(seed, { ...sp }, 7);
      if (!plain.conflicts.slice(1).every((c) => c >= 0.8)) continue;
      polarisedSeen += 1;
      const withBreak = await debate(seed, { ...sp }, 7, { breakDeadlockAt: 5 });
      // Same seed, same debate up to the break; afterwards conflict falls.
      expect(withBreak.conflicts.slice(0, 5)).toEqual(plain.conflicts.slice(0, 5));
      if (withBreak.conflicts[6]! < 0.8) broken += 1;
      const after = withBreak.turns.filter((t) => t.round === 6);
      expect(after.some((t) => /facilitator’s proposal/.test(t.text))).toBe(true);
    }
    expect(polarisedSeen).toBeGreaterThan(0);
    expect(broken).toBeGreaterThan(0);

    const p = PANEL[1]!;
    const base = { persona: personaHint(p), subProblem: sp, round: 4, maxRounds: 7, phase: 'early', previous: null, panel: CODES, others: [] };
    for (const kind of ['contrarian', 'skeptic', 'optimist'] as const) {
      const out = await call('contribution', `m:sp1/r4/${p.code}#1`, { ...base, moderator: { kind, text: 'moderator text here' } }, contributionSchema);
      expect(out.text).toMatch({ contrarian: /contrarian|devil/i, skeptic: /evidence|sceptic/i, optimist: /reframe|hopeful/i }[kind]);
      if (kind === 'skeptic') expect(out.claims.every((c) => c.basis !== 'assumption')).toBe(true);
    }
    const cited = await call(
      'contribution',
      `c:sp1/r4/${p.code}#1`,
      { ...base, research: [{ query: 'What churn do law-firm customers show?', findings: 'Based on general knowledge (not a live source): vertical niches often retain better than horizontal tools.' }] },
      contributionSchema,
    );
    expect(cited.text).toMatch(/research/i);
    expect(cited.text).toMatch(/vertical niches/);
    expect(cited.claims.some((c) => c.basis === 'evidence')).toBe(true);
    const redirected = await call('contribution', `d:sp1/r4/${p.code}#1`, { ...base, redirect: true }, contributionSchema);
    expect(redirected.text).toMatch(/goal|what we must decide/i);
    expect(redirected.text).toMatch(/decide how to charge for the product/i);
    const asked = await call('contribution', `q:sp1/r4/${p.code}#1`, { ...base, question: `${p.name}, what would change your mind on pricing?` }, contributionSchema);
    expect(asked.text).toMatch(/facilitator’s question/);
  });

  it('writes facilitator summaries from the agree/disagree references', async () => {
    const sp = { id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.', context: '' };
    const [a, b, c] = CODES;
    const split = await call(
      'facilitator_round',
      'f:sp1/r3/facilitator#1',
      {
        subProblem: sp,
        round: 3,
        maxRounds: 7,
        phase: 'early',
        panel: CODES,
        contributions: [
          { persona: a, position: 'Commit now', agreesWith: [], disagreesWith: [b], researchRequest: null },
          { persona: b, position: 'Pilot first', agreesWith: [c], disagreesWith: [], researchRequest: 'What churn do customers show?' },
          { persona: c, position: 'Pilot first', agreesWith: [b], disagreesWith: [], researchRequest: null },
        ],
      },
      facilitatorRoundSchema,
    );
    expect(split.agreement).toBeCloseTo(2 / 3, 2);
    expect(split.summary).toContain(`${personaByCode(a!)!.name} challenged ${personaByCode(b!)!.name}`);
    expect(split.keyArguments).toHaveLength(2);
    expect(split.wantsToSpeak).toContain(CODES[3]);
    const bare = await call('facilitator_round', 'f2#1', {}, facilitatorRoundSchema);
    expect(bare.agreement).toBe(0.5);
  });

  it('moderates in each role’s voice and researches from labelled general knowledge', async () => {
    const sp = { id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.', context: '' };
    const positions = CODES.map((persona) => ({ persona, position: 'Pilot first' }));
    const expected = { contrarian: /devil’s advocate|other side/i, skeptic: /evidence|assumption/i, optimist: /upside|could go right/i, deadlock: /pilot|criterion|splitting the difference/i };
    for (const seed of SEEDS.slice(0, 10)) {
      for (const kind of ['contrarian', 'skeptic', 'optimist', 'deadlock'] as const) {
        const out = await call('moderator', `${seed}:sp1/r4/${kind}#1`, { kind, subProblem: sp, positions }, moderatorSchema);
        expect(words(out.text)).toBeGreaterThanOrEqual(60);
        expect(words(out.text)).toBeLessThanOrEqual(120);
        expect(out.text).toMatch(expected[kind]);
      }
      const r = await call('research', `${seed}:sp1/r3/research1#1`, { query: 'What churn do law-firm customers typically show in year one?', subProblem: sp }, researchSchema);
      expect(r.findings.startsWith('Based on general knowledge (not a live source):')).toBe(true);
      expect(r.findings).toMatch(/churn/);
      expect(words(r.findings)).toBeGreaterThanOrEqual(60);
      expect(words(r.findings)).toBeLessThanOrEqual(120);
      expect(r.confidence).toBeGreaterThanOrEqual(0.4);
      expect(r.confidence).toBeLessThanOrEqual(0.7);
    }
  });

  it('judges reversibility: one-way for hard-to-reverse or very complex sub-problems, two-way otherwise', async () => {
    const cases = [
      { sp: { id: 'sp1', title: 'Overall direction: bring on a co-founder or stay solo', goal: 'Decide which path to take: bring on a co-founder or stay solo.', complexity: 7 }, expected: 'one_way' },
      { sp: { id: 'sp2', title: 'Staffing and ownership of the work', goal: 'Decide who carries the work. A hire is hard to reverse, so this part needs a high bar.', complexity: 7 }, expected: 'one_way' },
      { sp: { id: 'sp3', title: 'Product scope for the next release', goal: 'Decide what the product must include.', complexity: 8 }, expected: 'one_way' },
      { sp: { id: 'sp4', title: 'Success measures and checkpoints', goal: 'Decide which measurable signals will show the decision was right.', complexity: 4 }, expected: 'two_way' },
      { sp: { id: 'sp5', title: 'Budget, runway and financial threshold', goal: 'Decide the financial signal that would trigger a change of course.', complexity: 5 }, expected: 'two_way' },
    ];
    for (const seed of SEEDS) {
      for (const c of cases) {
        const out = await call('options', `${seed}:${c.sp.id}/options#1`, { subProblem: { ...c.sp, context: '' }, positions: [] }, optionsSchema);
        expect(out.decisionReversibility, c.sp.title).toBe(c.expected);
        expect(out.options.some((o) => o.reversibility === 'one_way')).toBe(c.expected === 'one_way');
        expect(out.reversibilityWhy.length).toBeGreaterThan(10);
      }
    }
    const pricing = await call(
      'options',
      'p:sp1/options#1',
      { subProblem: { id: 'sp1', title: 'Overall direction', goal: `Decide which path to take: ${scenario('pricing-strategy').problem.split('Should I ')[1]}`, complexity: 5 } },
      optionsSchema,
    );
    expect(pricing.options).toHaveLength(4);
    expect(pricing.decisionReversibility).toBe('two_way');
  });

  it('votes: clear majorities and 2-2 ties across seeds, strong objections to one-way doors, calibration', async () => {
    const options = [
      { id: 'A', title: 'Commit now to the plan', reversibility: 'one_way' },
      { id: 'B', title: 'Pilot the plan first', reversibility: 'two_way' },
      { id: 'C', title: 'Stage the plan gradually', reversibility: 'two_way' },
    ];
    let ties = 0;
    let clear = 0;
    let objections = 0;
    let spreads = 0;
    for (const seed of SEEDS) {
      const votes: Vote[] = [];
      for (const p of PANEL) {
        const v = await call('vote', `${seed}:sp1/vote/${p.code}#1`, { persona: { code: p.code, riskTolerance: p.riskTolerance, optimism: p.optimism }, options }, voteSchema);
        expect(['A', 'B', 'C']).toContain(v.optionId);
        expect(v.confidence).toBeGreaterThanOrEqual(0.4);
        expect(v.confidence).toBeLessThanOrEqual(0.95);
        expect(words(v.rationale)).toBeGreaterThanOrEqual(50);
        expect(words(v.rationale)).toBeLessThanOrEqual(100);
        if (v.strongObjection) {
          objections += 1;
          expect(p.riskTolerance === 'low' || p.riskTolerance === 'high').toBe(true);
          expect(v.strongObjection).toMatch(/strongly object to option [A-C]/);
          expect(v.strongObjection).not.toContain(`option ${v.optionId},`);
        }
        votes.push({ persona: p.code, ...v });
      }
      const counts = Object.values(tally(votes, ['A', 'B', 'C'], 'two_way').distribution).sort((a, b) => b - a);
      if (counts[0] === 2 && counts[1] === 2) ties += 1;
      if (counts[0]! >= 3) clear += 1;
      const confs = votes.map((v) => v.confidence);
      if (Math.max(...confs) - Math.min(...confs) > 0.3) spreads += 1;

      // Calibration: outliers lower their confidence by 0.05-0.15; the majority keeps or raises it by at most 0.05.
      for (const v of votes) {
        const c = await call(
          'calibration',
          `${seed}:sp1/calibrate/${v.persona}#1`,
          { persona: { code: v.persona }, own: { optionId: v.optionId, confidence: v.confidence }, votes: votes.map((x) => ({ persona: x.persona, optionId: x.optionId, confidence: x.confidence })) },
          calibrationSchema,
        );
        const mine = votes.filter((x) => x.optionId === v.optionId).length;
        const top = counts[0]!;
        const delta = Math.round((c.confidence - v.confidence) * 100) / 100;
        if (mine < top) {
          expect(delta).toBeLessThanOrEqual(-0.05);
          expect(delta).toBeGreaterThanOrEqual(-0.15);
        } else {
          expect(delta).toBeGreaterThanOrEqual(0);
          expect(delta).toBeLessThanOrEqual(0.05);
        }
      }
    }
    expect(ties).toBeGreaterThan(0);
    expect(clear).toBeGreaterThan(0);
    expect(objections).toBeGreaterThan(0);
    expect(spreads).toBeGreaterThan(0);
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
    }
  });

  it('lets novelty decay: late contributions reuse the persona’s earlier vocabulary', async () => {
    const sp = { id: 'sp1', title: 'Budget, runway and financial threshold', goal: 'Decide how much of the cash this may consume.', context: '' };
    const overlap2: number[] = [];
    const overlap6: number[] = [];
    for (let s = 0; s < 8; s++) {
      for (const p of PERSONAS.slice(0, 4)) {
        const texts: string[] = [];
        let previous: string | null = null;
        for (let round = 1; round <= 6; round++) {
          const out: Contribution = await call(
            round === 1 ? 'opening_statement' : 'contribution',
            `seed${s}:sp1/r${round}/${p.code}#1`,
            { persona: personaHint(p), subProblem: sp, round, maxRounds: 7, previous },
            contributionSchema,
          );
          previous = out.position;
          const m = texts.length ? texts.reduce((a, t) => a + jaccard(wordSet(out.text), wordSet(t)), 0) / texts.length : 0;
          if (round === 2) overlap2.push(m);
          if (round === 6) overlap6.push(m);
          texts.push(out.text);
        }
      }
    }
    expect(mean(overlap6)).toBeGreaterThan(mean(overlap2) + 0.05);
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
      { persona: 'financial_analyst', optionId: 'A', rationale: 'I vote for option A. Cash matters most here.', confidence: 0.6, strongObjection: null },
      { persona: 'risk_manager', optionId: 'B', rationale: 'I vote for option B. It is reversible.', confidence: 0.7, strongObjection: null },
      { persona: 'growth_strategist', optionId: 'A', rationale: 'I vote for option A. Speed wins.', confidence: 0.8, strongObjection: null },
      { persona: 'user_advocate', optionId: 'B', rationale: 'I vote for option B. Customers first.', confidence: 0.5, strongObjection: null },
      { persona: 'data_scientist', optionId: 'C', rationale: 'I vote for option C. Measure first.', confidence: 0.9, strongObjection: null },
    ];
    const t = tally(votes, ['A', 'B', 'C'], 'two_way');
    expect(t.winner).toBeNull();
    const out = await call('synthesis', 'tie#1', { options, votes, tally: t }, synthesisSchema);
    expect(out.recommendation).toMatch(/Plan A/);
    expect(out.recommendation).toMatch(/Plan B/);
    expect(out.recommendation).toMatch(/split/);
    expect(out.dissent.map((d) => d.persona)).toEqual(['data_scientist']);
    expect(out.confidence).toBeCloseTo(Math.round(0.7 * t.consensus * 100) / 100, 2);

    const winner = await call('synthesis', 'win#1', { options, votes: votes.slice(0, 3), tally: tally(votes.slice(0, 3), ['A', 'B', 'C'], 'two_way') }, synthesisSchema);
    expect(winner.recommendation).toMatch(/^We recommend option A, "Plan A"/);
    expect(winner.rationale).toMatch(/simple majority/);
    expect(winner.dissent.map((d) => d.persona)).toEqual(['risk_manager']);

    // A one-way door without a supermajority: defer, with the leading option named and the dissent kept.
    const oneWay = options.map((o) => ({ ...o, reversibility: 'one_way' as const }));
    const deferredTally = tally(votes.slice(0, 3), ['A', 'B', 'C'], 'one_way');
    expect(deferredTally.deferred).toBe(true);
    const deferred = await call('synthesis', 'def#1', { options: oneWay, votes: votes.slice(0, 3), tally: deferredTally }, synthesisSchema);
    expect(deferred.recommendation).toMatch(/^We recommend deferring the commitment until /);
    expect(deferred.recommendation).toMatch(/more analysis/);
    expect(deferred.recommendation).toMatch(/Plan A/);
    expect(deferred.recommendation).not.toMatch(/you must/i);
    expect(deferred.rationale).toMatch(/supermajority/);
    expect(deferred.dissent.map((d) => d.persona)).toEqual(['risk_manager']);
  });

  it('reaches deferred, tied and decided syntheses from the seed alone, and flags conflicts in the final recommendation', async () => {
    let deferred = 0;
    let tied = 0;
    let decided = 0;
    let withConflicts = 0;
    let withoutConflicts = 0;
    for (const seed of SEEDS) {
      const out = await session(seed, scenario('cofounder'), 2);
      for (const d of out.decisions) {
        if (d.tally.deferred) {
          deferred += 1;
          expect(d.synthesis.recommendation).toMatch(/^We recommend deferring/);
        } else if (d.tally.tie.length) {
          tied += 1;
          expect(d.synthesis.recommendation).toMatch(/evenly split/);
        } else if (d.tally.winner) decided += 1;
      }
      if (out.syntheses.some((s) => s.deferred)) expect(out.recommendation.conflicts.length).toBeGreaterThan(0);
      if (out.recommendation.conflicts.length) withConflicts += 1;
      else withoutConflicts += 1;
    }
    expect(deferred).toBeGreaterThan(0);
    expect(tied).toBeGreaterThan(0);
    expect(decided).toBeGreaterThan(0);
    expect(withConflicts).toBeGreaterThan(0);
    expect(withoutConflicts).toBeGreaterThan(0);

    const final = (syntheses: unknown[]) => call('final_recommendation', 'fin#1', { syntheses }, finalRecommendationSchema);
    const commit = { subProblemId: 'sp1', recommendation: 'We recommend option A, "Commit now to the hire", backed by 3 of 4 board members.', confidence: 0.7, deferred: false };
    const pilot = { subProblemId: 'sp2', recommendation: 'We recommend option B, "Pilot the pricing first", backed by 3 of 4 board members.', confidence: 0.7, deferred: false };
    const later = { subProblemId: 'sp3', recommendation: 'We recommend deferring the commitment until a cheap pilot shows whether the main risk is real.', confidence: 0.4, deferred: true };
    const clash = await final([commit, pilot]);
    expect(clash.conflicts).toEqual([{ between: ['sp1', 'sp2'], resolution: expect.stringMatching(/run the test in sp2 first/) }]);
    const held = await final([pilot, later]);
    expect(held.conflicts[0]!.between[0]).toBe('sp3');
    expect(held.summary).toMatch(/defer/);
    expect(held.confidence).not.toBe('high');
    expect((await final([pilot])).conflicts).toEqual([]);
  });

  it('survives missing hints for every purpose', async () => {
    const schemas: [string, z.ZodType][] = [
      ['problem_statement', problemStatementSchema],
      ['decompose', decompositionSchema],
      ['opening_statement', contributionSchema],
      ['contribution', contributionSchema],
      ['facilitator_round', facilitatorRoundSchema],
      ['moderator', moderatorSchema],
      ['research', researchSchema],
      ['options', optionsSchema],
      ['vote', voteSchema],
      ['calibration', calibrationSchema],
      ['synthesis', synthesisSchema],
      ['final_recommendation', finalRecommendationSchema],
    ];
    const junk = {
      persona: 7,
      subProblem: 'x',
      options: {},
      votes: [null],
      tally: [],
      syntheses: 'no',
      panel: 'all',
      others: [null, 3],
      moderator: 'loud',
      research: {},
      contributions: [null, { persona: 5 }],
      positions: 'none',
      own: [],
      kind: 'shouty',
      query: 42,
      round: 'two',
      phase: 9,
    };
    for (const [purpose, schema] of schemas) {
      await call(purpose, `bare:${purpose}#1`, undefined, schema);
      await call(purpose, `junk:${purpose}#1`, junk, schema);
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
