import { NO_CONTEXT } from '../../src/calls/intake';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CATALOGUE,
  calibrationCall,
  contributionCall,
  decomposeCall,
  facilitatorRoundCall,
  finalRecommendationCall,
  moderatorCall,
  openingStatementCall,
  optionsCall,
  problemStatementCall,
  researchCall,
  synthesisCall,
  voteCall,
  type ExpertTurnInput,
  type FacilitatorInput,
  type FinalInput,
  type ModelCall,
  type SubProblemBrief,
  type VoteInput,
} from '../../src/calls';
import { type Contribution, type Decomposition, type FacilitatorRound, type Option, type Persona, type SubProblem, type Tally, type Vote } from '../../src/domain/model';
import { PERSONAS, personaByCode } from '../../src/domain/personas';
import { debatePhase } from '../../src/domain/speakers';
import { extractJson, toJsonSchema } from '../../src/llm/gateway';
import { VOICES } from '../../src/llm/simulated/bank';
import { createSimulatedProvider, FIRST_TOKEN_SHARE } from '../../src/llm/simulated/simulated-provider';
import { estimateTokens } from '../../src/memory/tokens';
import { LlmError, type LlmRequest } from '../../src/ports/llm';
import { loadScenarios, type Scenario } from '../support/scenarios';

const SCENARIOS: Scenario[] = loadScenarios();
const scenario = (id: string) => SCENARIOS.find((s) => s.id === id)!;

const provider = createSimulatedProvider({ latencyMs: 0, jitter: 0 });
const SEEDS = Array.from({ length: 40 }, (_, i) => `seed${i}`);

function request(purpose: string, key: string, input: unknown, schema?: z.ZodType): LlmRequest {
  return {
    model: 'sim-model',
    system: ['protocol block', 'persona block'],
    cacheAfter: [1],
    messages: [{ role: 'user', content: `prompt for ${purpose}` }],
    maxTokens: 1000,
    key,
    purpose,
    ...(input !== undefined && { input }),
    ...(schema && { json: { name: purpose, description: purpose, schema: toJsonSchema(schema) } }),
  };
}

/** Calls the provider with a catalogue call's typed input and validates like the gateway: extractJson, then the call's own output schema for that input. */
async function call<I, O>(decl: ModelCall<I, O>, key: string, input: I): Promise<O> {
  const schema = decl.output(input);
  const res = await provider.generate(request(decl.purpose, key, input, schema));
  const parsed = schema.safeParse(extractJson(res.text));
  if (!parsed.success) throw new Error(`${decl.purpose} ${key}: ${z.prettifyError(parsed.error)}\n${res.text}`);
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

const brief = (sp: Pick<SubProblem, 'id' | 'title' | 'goal'> & Partial<SubProblem>): SubProblemBrief => ({ id: sp.id, title: sp.title, goal: sp.goal, context: sp.context ?? '', complexity: sp.complexity ?? 5 });
const PANEL = PERSONAS.slice(0, 4);
const CODES = PANEL.map((p) => p.code);
const phaseOf = (round: number) => debatePhase(round);

/** An expert's turn as the engine builds it, with nothing to respond to unless the test says so. */
const turnInput = (x: Pick<ExpertTurnInput, 'persona' | 'subProblem'> & Partial<ExpertTurnInput>): ExpertTurnInput => ({
  decidedEarlier: '',
  panel: CODES,
  round: 1,
  maxRounds: 5,
  phase: phaseOf(x.round ?? 1),
  memory: '',
  record: [],
  previous: null,
  others: [],
  moderator: null,
  research: [],
  question: null,
  redirect: false,
  intervention: null,
  repeated: false,
  notice: null,
  researchLeft: 2,
  personAnswers: false,
  speaking: { at: 1, of: 3 },
  ...x,
});
const facilitatorInput = (x: Pick<FacilitatorInput, 'subProblem' | 'round' | 'contributions'> & Partial<FacilitatorInput>): FacilitatorInput => ({
  maxRounds: 7,
  phase: phaseOf(x.round),
  panel: CODES,
  perRound: 3,
  lessons: '',
  keyArguments: [],
  intervention: null,
  record: [],
  ...x,
});
const voteInput = (p: Persona, options: VoteInput['options'], sp: SubProblemBrief = brief({ id: 'sp1', title: 'Overall direction', goal: 'Decide the overall direction.' })): VoteInput => ({ persona: p, subProblem: sp, keyArguments: [], facts: [], lastSummary: null, disagreements: [], position: null, options });
/** What a vote's option carries besides its title, where a test only cares about the title. */
const sides = { pros: ['Fast'], cons: ['Costly'], bestIf: 'It fits' };
/** A calibration's view of the board: every vote with its reasons. */
const boardOf = (votes: Vote[]) => votes.map((x) => ({ persona: x.persona, name: personaByCode(x.persona)!.name, optionId: x.optionId, confidence: x.confidence, rationale: x.rationale, strongObjection: x.strongObjection }));
const intake = (problem: string, context = '') => ({ problem, context, mode: 'auto' as const });

interface DebateTurn extends Contribution {
  persona: string;
  round: number;
}

/**
 * A debate the way the engine runs one (every seat speaks each round here):
 * contributions with the others' latest positions, the facilitator's question
 * and redirect, moderators when their triggers fire, research when requested.
 */
async function debate(seed: string, sp: SubProblemBrief, rounds: number, opts: { breakDeadlockAt?: number; moderators?: boolean; intervention?: { round: number; text: string } } = {}) {
  const positions = new Map<string, string>();
  const turns: DebateTurn[] = [];
  const facilitator: FacilitatorRound[] = [];
  const conflicts: number[] = [];
  let carry: Pick<ExpertTurnInput, 'moderator' | 'research' | 'question' | 'redirect'> = { moderator: null, research: [], question: null, redirect: false };
  for (let round = 1; round <= rounds; round++) {
    const roundTurns: DebateTurn[] = [];
    const intervention = opts.intervention?.round === round ? opts.intervention.text : null;
    for (const p of PANEL) {
      const input = turnInput({
        persona: p,
        subProblem: sp,
        round,
        maxRounds: rounds,
        previous: positions.get(p.code) ?? null,
        others: [...positions].filter(([c]) => c !== p.code).map(([persona, position]) => ({ persona, position })),
        intervention,
        ...carry,
      });
      const out = await call(round === 1 ? openingStatementCall : contributionCall, `${seed}:${sp.id}/r${round}/${p.code}#1`, input);
      roundTurns.push({ ...out, persona: p.code, round });
    }
    for (const t of roundTurns) positions.set(t.persona, t.position);
    turns.push(...roundTurns);
    conflicts.push(conflict(roundTurns, CODES));
    const f = await call(
      facilitatorRoundCall,
      `${seed}:${sp.id}/r${round}/facilitator#1`,
      facilitatorInput({ subProblem: sp, round, maxRounds: rounds, intervention, contributions: roundTurns.map((t) => ({ persona: t.persona, text: t.text, position: t.position, agreesWith: t.agreesWith, disagreesWith: t.disagreesWith, researchRequest: t.researchRequest })) }),
    );
    facilitator.push(f);
    let moderator: ExpertTurnInput['moderator'] = null;
    const kind = opts.breakDeadlockAt === round ? 'deadlock' : opts.moderators && f.agreement > 0.8 && round < 3 ? 'contrarian' : null;
    if (kind) {
      const m = await call(moderatorCall, `${seed}:${sp.id}/r${round}/${kind}#1`, { kind, subProblem: sp, record: [], positions: [...positions].map(([persona, position]) => ({ persona, position })) });
      moderator = { kind, text: m.text };
    }
    const research = await Promise.all(
      roundTurns
        .map((t) => t.researchRequest)
        .filter((q): q is string => !!q)
        .slice(0, 1)
        .map(async (query) => ({ query, findings: (await call(researchCall, `${seed}:${sp.id}/r${round}/research1#1`, { query, subProblem: sp })).findings })),
    );
    carry = { moderator, research, question: f.nextQuestion, redirect: f.relevance < 6 };
  }
  return { turns, facilitator, conflicts };
}

/** Options, votes, calibration, tally and synthesis for one sub-problem. */
async function decide(seed: string, sp: SubProblemBrief, positions: { persona: string; position: string }[]) {
  const out = await call(optionsCall, `${seed}:${sp.id}/options#1`, { subProblem: sp, discussion: '', facts: [], research: [], positions, straw: [] });
  const votes: Vote[] = [];
  for (const p of PANEL) {
    const position = positions.find((x) => x.persona === p.code)?.position ?? null;
    const v = await call(voteCall, `${seed}:${sp.id}/vote/${p.code}#1`, { ...voteInput(p, out.options, sp), position });
    votes.push({ persona: p.code, ...v });
  }
  const calibrated: Vote[] = [];
  for (const v of votes) {
    const c = await call(calibrationCall, `${seed}:${sp.id}/calibrate/${v.persona}#1`, {
      persona: personaByCode(v.persona)!,
      subProblem: sp,
      options: out.options,
      own: { optionId: v.optionId, confidence: v.confidence, rationale: v.rationale },
      votes: boardOf(votes),
    });
    calibrated.push({ ...v, initialConfidence: v.confidence, confidence: c.confidence });
  }
  const t = tally(
    calibrated,
    out.options.map((o) => o.id),
    out.decisionReversibility,
  );
  const synthesis = await call(synthesisCall, `${seed}:${sp.id}/synthesis#1`, { subProblem: sp, options: out.options, votes: calibrated, tally: t, facts: [] });
  return { options: out, votes, calibrated, tally: t, synthesis };
}

/** Intake then decomposition, as the engine chains them. */
async function frame(seed: string, s: Pick<Scenario, 'problem' | 'context'>) {
  const statement = await call(problemStatementCall, `${seed}:intake#1`, intake(s.problem, s.context || NO_CONTEXT));
  const decomposition = await call(decomposeCall, `${seed}:decompose#1`, {
    problem: s.problem,
    context: s.context || NO_CONTEXT,
    statement: statement.statement,
    domains: statement.domains,
    category: statement.category,
    vague: statement.vague,
    lessons: '',
  });
  return { statement, decomposition };
}

/** One whole simulated session for a scenario, every output validated against its call's schema. */
async function session(seed: string, s: Scenario, rounds = 3) {
  const { statement, decomposition } = await frame(seed, s);
  const syntheses: FinalInput['syntheses'] = [];
  const debates = [];
  const decisions = [];
  for (const sp of decomposition.subProblems.slice(0, 5)) {
    const d = await debate(seed, brief(sp), rounds);
    debates.push(d);
    const latest = new Map(d.turns.map((t) => [t.persona, t.position]));
    const decision = await decide(seed, brief(sp), [...latest].map(([persona, position]) => ({ persona, position })));
    decisions.push(decision);
    // As the engine hands a decided sub-problem to the final recommendation (src/app/engine/final.ts).
    const { tally: t, options: o } = decision;
    const ref = (id: string) => ({ id, title: o.options.find((x) => x.id === id)?.title ?? id });
    syntheses.push({ ...decision.synthesis, subProblemId: sp.id, title: sp.id, winner: t.winner ? ref(t.winner) : null, tie: t.tie.map(ref), deferred: t.deferred });
  }
  const recommendation = await call(finalRecommendationCall, `${seed}:recommendation#1`, {
    statement: statement.statement,
    syntheses,
    open: [],
    openQuestions: [],
    unansweredClarifications: [],
    facts: [],
  });
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
  it('gives every expert of the pool a voice of its own', () => {
    for (const p of PERSONAS) expect(VOICES[p.code], p.code).toBeDefined();
  });

  it('is deterministic: same request, same text; another key, another text', async () => {
    const s = SCENARIOS[0]!;
    const statement = intake(s.problem, s.context);
    const decomposition = { problem: s.problem, context: s.context, statement: s.problem, domains: ['strategy' as const, 'finance' as const], category: 'product', vague: false, lessons: '' };
    for (const [purpose, input] of [
      ['problem_statement', statement],
      ['decompose', decomposition],
    ] as const) {
      const a = await provider.generate(request(purpose, 'seed1:step#1', input));
      const b = await provider.generate(request(purpose, 'seed1:step#1', input));
      const c = await provider.generate(request(purpose, 'seed2:step#1', input));
      expect(b.text).toBe(a.text);
      expect(c.text).not.toBe(a.text);
    }
    const input = turnInput({ persona: PERSONAS[0]!, subProblem: brief({ id: 'sp1', title: 'Overall direction', goal: 'Decide the overall direction to commit to.' }) });
    const opening = (key: string) => provider.generate(request('opening_statement', key, input));
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
    const out = await call(problemStatementCall, 'k:intake#1', intake(rust.problem, rust.context));
    expect(out.statement).toMatch(/Rust/);
    expect(out.domains[0]).toBe('strategy');
    expect(out.domains).toContain('technical');
    expect(out.category).toBe('technical');
    expect(out.assumptions.length).toBeGreaterThanOrEqual(1);
    expect(out.assumptions.length).toBeLessThanOrEqual(3);
    const categories: Record<string, string> = { 'pricing-strategy': 'pricing', cofounder: 'hiring', 'growth-channel': 'growth', 'tech-debt': 'technical', 'niche-pivot': 'strategy' };
    for (const [id, category] of Object.entries(categories)) {
      const s = scenario(id);
      const p = await call(problemStatementCall, `k:${id}#1`, intake(s.problem, s.context));
      expect(p.category, id).toBe(category);
    }
    const pricing = scenario('pricing-strategy');
    const p2 = await call(problemStatementCall, 'k:intake#1', intake(pricing.problem, pricing.context));
    expect(p2.domains).toContain('finance');

    for (const seed of SEEDS) {
      for (const s of SCENARIOS.filter((x) => x.context)) {
        const st = await call(problemStatementCall, `${seed}:intake#1`, intake(s.problem, s.context));
        expect(st.clarifications, s.id).toEqual([]);
        expect(st.vague).toBe(false);
        expect(st.safety).toEqual({ allowed: true, reason: 'ordinary business decision' });
      }
    }
  });

  it('asks 1-3 blocking clarifications when the context is empty or thin', async () => {
    const thin = [
      intake(scenario('atomic-name').problem, NO_CONTEXT),
      intake('Should I hire a designer?'),
      intake('Should I raise prices for my SaaS?', 'Customers seem happy.'),
    ];
    const sizes = new Set<number>();
    for (const seed of SEEDS) {
      for (const t of thin) {
        const st = await call(problemStatementCall, `${seed}:intake#1`, t);
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
    const naming = await call(problemStatementCall, 'n:intake#1', thin[0]!);
    expect(naming.clarifications[0]!.question).toMatch(/trademark/);
  });

  it('flags a very vague problem and refuses harmful ones the pre-screen may miss', async () => {
    for (const seed of SEEDS) {
      const vague = await call(problemStatementCall, `${seed}:intake#1`, intake(VAGUE, NO_CONTEXT));
      expect(vague.vague).toBe(true);
      expect(vague.safety.allowed).toBe(true);
      for (const problem of HARMFUL) {
        const out = await call(problemStatementCall, `${seed}:intake#1`, intake(problem));
        expect(out.safety.allowed, problem).toBe(false);
        expect(out.safety.reason.length).toBeGreaterThan(20);
        expect(out.clarifications).toEqual([]);
      }
    }
    for (const problem of ['How do I grow my business?', 'What should I do with my life?', 'How can I be more successful?']) {
      expect((await call(problemStatementCall, 'v:intake#1', intake(problem))).vague, problem).toBe(true);
    }
    for (const problem of ['Should I hire a designer?', scenario('atomic-name').problem, 'How can I improve my pricing page conversion?']) {
      expect((await call(problemStatementCall, 'v:intake#1', intake(problem))).vague, problem).toBe(false);
    }
    // Ordinary words near the harmful patterns do not trip them.
    for (const problem of ['Competitors threaten my market share; should I cut prices?', 'Should I hide the free plan from new customers?']) {
      expect((await call(problemStatementCall, 'ok:intake#1', intake(problem))).safety.allowed, problem).toBe(true);
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
        const out = (await frame(seed, s)).decomposition;
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
      const complex = (await frame(seed, { problem: COMPLEX, context: '' })).decomposition;
      check(complex);
      expect(complex.atomic).toBe(false);
      expect(complex.subProblems.length).toBeGreaterThanOrEqual(6);
      expect(complex.subProblems.length).toBeLessThanOrEqual(7);
      const vague = await call(decomposeCall, `${seed}:decompose#1`, { problem: VAGUE, context: '', statement: VAGUE, domains: ['strategy'], category: 'other', vague: true, lessons: '' });
      expect(vague.subProblems).toHaveLength(1);
      expect(vague.atomic).toBe(false);
    }
    expect(sequential).toBeGreaterThan(0);
    expect(parallel).toBeGreaterThan(0);
  });

  it('drives the debate paths: polarised deadlocks, convergence, premature consensus, drift, research, sceptic triggers', async () => {
    const sp = (id: string) => brief({ id, title: 'Target customers and first channel', goal: 'Decide which customers to serve first and which channel will reach them.', context: 'Law firms pay 3x; agencies grow fastest.', complexity: 6 });
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
    const sp = brief({ id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.', complexity: 6 });
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
    const base = turnInput({ persona: p, subProblem: sp, round: 4, maxRounds: 7 });
    for (const kind of ['contrarian', 'skeptic', 'optimist'] as const) {
      const out = await call(contributionCall, `m:sp1/r4/${p.code}#1`, { ...base, moderator: { kind, text: 'moderator text here' } });
      expect(out.text).toMatch({ contrarian: /contrarian|devil/i, skeptic: /evidence|sceptic/i, optimist: /reframe|hopeful/i }[kind]);
      if (kind === 'skeptic') expect(out.claims.every((c) => c.basis !== 'assumption')).toBe(true);
    }
    const cited = await call(contributionCall, `c:sp1/r4/${p.code}#1`, {
      ...base,
      research: [{ query: 'What churn do law-firm customers show?', findings: 'Based on general knowledge (not a live source): vertical niches often retain better than horizontal tools.' }],
    });
    expect(cited.text).toMatch(/research/i);
    expect(cited.text).toMatch(/vertical niches/);
    expect(cited.claims.some((c) => c.basis === 'evidence')).toBe(true);
    const redirected = await call(contributionCall, `d:sp1/r4/${p.code}#1`, { ...base, redirect: true });
    expect(redirected.text).toMatch(/goal|what we must decide/i);
    expect(redirected.text).toMatch(/decide how to charge for the product/i);
    const asked = await call(contributionCall, `q:sp1/r4/${p.code}#1`, { ...base, question: `${p.name}, what would change your mind on pricing?` });
    expect(asked.text).toMatch(/facilitator’s question/);

    // The person's intervention is answered first by every expert, and the facilitator says it was taken up.
    const point = 'What about our cash runway of 14 months: can we afford a pilot at all?';
    const intervened = await debate('iv', sp, 3, { intervention: { round: 2, text: point } });
    for (const t of intervened.turns.filter((x) => x.round === 2)) expect(t.text).toMatch(/^Responding to your point, "What about our cash runway/);
    expect(intervened.facilitator[1]!.summary).toMatch(/took up your point/);
  });

  it('lets a groupthink board agree at once, and breaks it when the contrarian fires', async () => {
    const sp = brief({ id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.', complexity: 6 });
    let fired = 0;
    for (const seed of SEEDS) {
      const plain = await debate(seed, sp, 4);
      if (!(plain.facilitator[1]!.agreement > 0.8)) continue;
      const shaken = await debate(seed, sp, 4, { moderators: true });
      fired += 1;
      // The contrarian fires after round 2; in round 3 some expert steps back from the easy consensus.
      expect(shaken.conflicts[2]!).toBeGreaterThan(plain.conflicts[2]!);
      expect(shaken.turns.filter((t) => t.round === 3).some((t) => /devil’s advocate/.test(t.text))).toBe(true);
    }
    expect(fired).toBeGreaterThan(0);
  });

  it('gives each persona its own voice', async () => {
    const sp = brief({ id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.' });
    const texts = await Promise.all(PERSONAS.map((p) => call(openingStatementCall, `voice:sp1/r1/${p.code}#1`, turnInput({ persona: p, subProblem: sp }))));
    // Each speaks through its own lens; personas of the same temperament share stance lines, the rest little else.
    const overlaps = texts.flatMap((a, n) => texts.slice(n + 1).map((b) => jaccard(wordSet(a.text), wordSet(b.text))));
    expect(Math.max(...overlaps)).toBeLessThan(0.75);
    expect(mean(overlaps)).toBeLessThan(0.45);
    for (const [n, p] of PERSONAS.entries()) expect(texts[n]!.text).toContain(p.typicalConcerns[0]!);
    expect(new Set(texts.map((t) => t.position)).size).toBeGreaterThan(1);
  });

  it('writes facilitator summaries from the agree/disagree references', async () => {
    const sp = brief({ id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.' });
    const [a, b, c] = CODES as [string, string, string];
    const split = await call(
      facilitatorRoundCall,
      'f:sp1/r3/facilitator#1',
      facilitatorInput({
        subProblem: sp,
        round: 3,
        contributions: [
          { persona: a, text: 'Commit.', position: 'Commit now', agreesWith: [], disagreesWith: [b], researchRequest: null },
          { persona: b, text: 'Pilot.', position: 'Pilot first', agreesWith: [c], disagreesWith: [], researchRequest: 'What churn do customers show?' },
          { persona: c, text: 'Pilot.', position: 'Pilot first', agreesWith: [b], disagreesWith: [], researchRequest: null },
        ],
      }),
    );
    expect(split.agreement).toBeCloseTo(2 / 3, 2);
    expect(split.summary).toContain(`${personaByCode(a!)!.name} challenged ${personaByCode(b!)!.name}`);
    expect(split.keyArguments).toHaveLength(2);
    expect(split.wantsToSpeak).toContain(CODES[3]);
    const silent = await call(facilitatorRoundCall, 'f2#1', facilitatorInput({ subProblem: sp, round: 2, contributions: [] }));
    expect(silent.agreement).toBe(0.5);
    expect(silent.summary).toMatch(/no contributions/);
  });

  it('moderates in each role’s voice and researches from labelled general knowledge', async () => {
    const sp = brief({ id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product.' });
    const positions = CODES.map((persona) => ({ persona, position: 'Pilot first' }));
    const expected = { contrarian: /devil’s advocate|other side/i, skeptic: /evidence|assumption/i, optimist: /upside|could go right/i, deadlock: /pilot|criterion|splitting the difference/i };
    for (const seed of SEEDS.slice(0, 10)) {
      for (const kind of ['contrarian', 'skeptic', 'optimist', 'deadlock'] as const) {
        const out = await call(moderatorCall, `${seed}:sp1/r4/${kind}#1`, { kind, subProblem: sp, positions, record: [] });
        expect(words(out.text)).toBeGreaterThanOrEqual(60);
        expect(words(out.text)).toBeLessThanOrEqual(120);
        expect(out.text).toMatch(expected[kind]);
      }
      const r = await call(researchCall, `${seed}:sp1/r3/research1#1`, { query: 'What churn do law-firm customers typically show in year one?', subProblem: sp });
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
        const out = await call(optionsCall, `${seed}:${c.sp.id}/options#1`, { subProblem: brief(c.sp), discussion: '', facts: [], research: [], positions: [], straw: [] });
        expect(out.decisionReversibility, c.sp.title).toBe(c.expected);
        expect(out.options.some((o) => o.reversibility === 'one_way')).toBe(c.expected === 'one_way');
        expect(out.reversibilityWhy.length).toBeGreaterThan(10);
      }
    }
    const goal = `Decide which path to take: ${scenario('pricing-strategy').problem.split('Should I ')[1]}`;
    const pricing = await call(optionsCall, 'p:sp1/options#1', { subProblem: brief({ id: 'sp1', title: 'Overall direction', goal, complexity: 5 }), discussion: '', facts: [], research: [], positions: [], straw: [] });
    expect(pricing.options).toHaveLength(4);
    expect(pricing.decisionReversibility).toBe('two_way');
  });

  it('votes: clear majorities and 2-2 ties across seeds, strong objections to one-way doors, calibration', async () => {
    const options: VoteInput['options'] = [
      { id: 'A', title: 'Commit now to the plan', description: 'Commit now.', reversibility: 'one_way', ...sides },
      { id: 'B', title: 'Pilot the plan first', description: 'Pilot first.', reversibility: 'two_way', ...sides },
      { id: 'C', title: 'Stage the plan gradually', description: 'Stage it.', reversibility: 'two_way', ...sides },
    ];
    let ties = 0;
    let clear = 0;
    let objections = 0;
    let spreads = 0;
    for (const seed of SEEDS) {
      const votes: Vote[] = [];
      for (const p of PANEL) {
        const v = await call(voteCall, `${seed}:sp1/vote/${p.code}#1`, voteInput(p, options));
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
        const c = await call(calibrationCall, `${seed}:sp1/calibrate/${v.persona}#1`, {
          persona: personaByCode(v.persona)!,
          subProblem: brief({ id: 'sp1', title: 'Overall direction', goal: 'Decide the overall direction.' }),
          options,
          own: { optionId: v.optionId, confidence: v.confidence, rationale: v.rationale },
          votes: boardOf(votes),
        });
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
      const options: VoteInput['options'] = [
        { id: 'A', title: 'Commit now to the plan', description: 'Commit now.', reversibility: 'one_way', ...sides },
        { id: 'C', title: 'Pilot the plan first', description: 'Pilot first.', reversibility: 'two_way', ...sides },
      ];
      const out = await call(voteCall, `v${i}#1`, voteInput(p, options));
      expect(['A', 'C']).toContain(out.optionId);
    }
  });

  it('lets novelty decay: late contributions reuse the persona’s earlier vocabulary', async () => {
    const sp = brief({ id: 'sp1', title: 'Budget, runway and financial threshold', goal: 'Decide how much of the cash this may consume.' });
    const overlap2: number[] = [];
    const overlap6: number[] = [];
    for (let s = 0; s < 8; s++) {
      for (const p of PERSONAS.slice(0, 4)) {
        const texts: string[] = [];
        let previous: string | null = null;
        for (let round = 1; round <= 6; round++) {
          const out: Contribution = await call(round === 1 ? openingStatementCall : contributionCall, `seed${s}:sp1/r${round}/${p.code}#1`, turnInput({ persona: p, subProblem: sp, round, maxRounds: 7, previous }));
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
    const sp = brief({ id: 'sp1', title: 'Overall direction', goal: 'Decide the overall direction.' });
    const out = await call(synthesisCall, 'tie#1', { subProblem: sp, options, votes, tally: t, facts: [] });
    expect(out.recommendation).toMatch(/Plan A/);
    expect(out.recommendation).toMatch(/Plan B/);
    expect(out.recommendation).toMatch(/split/);
    expect(out.dissent.map((d) => d.persona)).toEqual(['data_scientist']);
    expect(out.confidence).toBeCloseTo(Math.round(0.7 * t.consensus * 100) / 100, 2);

    const winner = await call(synthesisCall, 'win#1', { subProblem: sp, options, votes: votes.slice(0, 3), tally: tally(votes.slice(0, 3), ['A', 'B', 'C'], 'two_way'), facts: [] });
    expect(winner.recommendation).toMatch(/^We recommend option A, "Plan A"/);
    expect(winner.rationale).toMatch(/simple majority/);
    expect(winner.dissent.map((d) => d.persona)).toEqual(['risk_manager']);

    // A one-way door without a supermajority: defer, with the leading option named and the dissent kept.
    const oneWay = options.map((o) => ({ ...o, reversibility: 'one_way' as const }));
    const deferredTally = tally(votes.slice(0, 3), ['A', 'B', 'C'], 'one_way');
    expect(deferredTally.deferred).toBe(true);
    const deferred = await call(synthesisCall, 'def#1', { subProblem: sp, options: oneWay, votes: votes.slice(0, 3), tally: deferredTally, facts: [] });
    expect(deferred.recommendation).toMatch(/^We recommend deferring the commitment until /);
    expect(deferred.recommendation).toMatch(/more analysis/);
    expect(deferred.recommendation).toMatch(/Plan A/);
    expect(deferred.recommendation).not.toMatch(/you must/i);
    expect(deferred.rationale).toMatch(/supermajority/);
    expect(deferred.dissent.map((d) => d.persona)).toEqual(['risk_manager']);
  });

  it('says where the advice needs a professional only where the decision or the situation calls for one', async () => {
    const guidance = async (id: string, seed: string) => {
      const out = await session(seed, scenario(id), 2);
      for (const g of [...out.syntheses.map((x) => x.beyondGeneralGuidance), out.recommendation.beyondGeneralGuidance]) expect(Array.isArray(g)).toBe(true);
      return { out, all: [...out.syntheses.flatMap((x) => x.beyondGeneralGuidance ?? []), ...(out.recommendation.beyondGeneralGuidance ?? [])] };
    };
    // Ordinary engineering, marketing and pricing choices: nothing beyond general guidance.
    for (const id of ['tech-debt', 'rust-rewrite', 'seo-vs-ads', 'growth-channel', 'pricing-strategy', 'atomic-name']) {
      for (const seed of ['g1', 'g2']) expect((await guidance(id, seed)).all, `${id} ${seed}`).toEqual([]);
    }
    // $50K of personal savings at stake: the plan as a whole names it once.
    const savings = await guidance('product-direction', 'g1');
    expect(savings.all).toEqual([{ kind: 'financial', what: expect.stringMatching(/accountant or financial adviser .*personal savings/) }]);
    expect(savings.out.recommendation.beyondGeneralGuidance).toEqual(savings.all);
    // Equity for a co-founder: the sub-problem that chose it names the lawyer, and the plan does not repeat it.
    let equity = 0;
    for (const seed of SEEDS.slice(0, 12)) {
      const { out } = await guidance('cofounder', seed);
      out.decisions.forEach((d, n) => {
        const chose = d.tally.winner ? d.options.options.find((o) => o.id === d.tally.winner)!.title : '';
        const legal = (d.synthesis.beyondGeneralGuidance ?? []).filter((g) => g.kind === 'legal');
        if (/equity/.test(chose)) {
          equity += 1;
          expect(legal, `${seed} sp${n + 1}`).toEqual([{ kind: 'legal', what: expect.stringMatching(/lawyer .*equity/) }]);
        } else expect(legal).toEqual([]);
      });
      expect(out.recommendation.beyondGeneralGuidance).toEqual([]);
    }
    expect(equity).toBeGreaterThan(0);
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

    const final = (syntheses: FinalInput['syntheses'], open: FinalInput['open'] = []) => call(finalRecommendationCall, 'fin#1', { statement: 'Decide how to grow.', syntheses, open, openQuestions: [], unansweredClarifications: [], facts: [] });
    // The simulated integrator reads the recommendations; the rest of each decision is left plain.
    const part = <T extends Pick<FinalInput['syntheses'][number], 'subProblemId' | 'title' | 'recommendation' | 'confidence' | 'deferred'>>(x: T) => ({ winner: null, tie: [], rationale: 'The board weighed the options.', dissent: [], caveats: [], ...x });
    const commit = part({ subProblemId: 'sp1', title: 'Hiring', recommendation: 'We recommend option A, "Commit now to the hire", backed by 3 of 4 board members.', confidence: 0.7, deferred: false });
    const pilot = part({ subProblemId: 'sp2', title: 'Pricing', recommendation: 'We recommend option B, "Pilot the pricing first", backed by 3 of 4 board members.', confidence: 0.7, deferred: false });
    const later = part({ subProblemId: 'sp3', title: 'Funding', recommendation: 'We recommend deferring the commitment until a cheap pilot shows whether the main risk is real.', confidence: 0.4, deferred: true });
    const clash = await final([commit, pilot]);
    expect(clash.conflicts).toEqual([{ between: ['sp1', 'sp2'], resolution: expect.stringMatching(/run the test in sp2 first/) }]);
    const held = await final([pilot, later]);
    expect(held.conflicts[0]!.between[0]).toBe('sp3');
    expect(held.summary).toMatch(/defer/);
    expect(held.confidence).not.toBe('high');
    expect((await final([pilot])).conflicts).toEqual([]);
    // A skipped sub-problem is named as open, not decided.
    expect((await final([pilot], [{ subProblemId: 'sp4', title: 'Hiring plan' }])).summary).toMatch(/open.*sp4 \(Hiring plan\)/);
  });

  it('answers from the JSON schema alone when a request arrives without its typed input', async () => {
    for (const [purpose, decl] of Object.entries(CATALOGUE)) {
      // The input only shapes the schema of calls whose options or candidates it lists; give those a small one.
      const schema = decl.output({ options: [{ id: 'B' }, { id: 'C' }], candidates: [{ id: 'l1' }] });
      for (const key of ['bare1#1', 'bare2#1']) {
        const res = await provider.generate(request(purpose, `${key}:${purpose}`, undefined, schema));
        const parsed = schema.safeParse(extractJson(res.text));
        expect(parsed.success, `${purpose}: ${res.text}`).toBe(true);
      }
    }
  });

  it('answers a repair request by generating again', async () => {
    const p = personaByCode('risk_manager')!;
    const input = voteInput(p, [{ id: 'B', title: 'Pilot it', description: 'Pilot it first.', reversibility: 'two_way', ...sides }]);
    const req = request('vote', 'rep#2', input, voteCall.output(input));
    req.messages = [
      { role: 'user', content: 'vote' },
      { role: 'assistant', content: '{}' },
      { role: 'user', content: 'That answer is invalid: missing optionId' },
    ];
    const res = await provider.generate(req);
    expect(voteCall.output(input).parse(extractJson(res.text)).optionId).toBe('B');
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
    const text = await provider.generate(request('free_text', 'p#1', undefined));
    expect(text.text.length).toBeGreaterThan(40);
    expect(() => JSON.parse(text.text)).toThrow();
  });

  it('reports usage, model, stop reason and streams deterministic chunks', async () => {
    const deltas: string[] = [];
    const fresh = createSimulatedProvider({ latencyMs: 0, jitter: 0 });
    const req = { ...request('problem_statement', 'u#1', intake('Should I hire a designer?')), onDelta: (d: string) => deltas.push(d) };
    const res = await fresh.generate(req);
    // Estimated block by block (≈ chars/4 each), split into uncached input, cache reads and cache writes.
    expect(res.usage.inputTokens + res.usage.cacheReadTokens + res.usage.cacheWriteTokens).toBe(
      req.system.reduce((n, b) => n + estimateTokens(b), 0) + req.messages.reduce((n, m) => n + estimateTokens(m.content), 0),
    );
    expect(res.usage.outputTokens).toBe(Math.ceil(res.text.length / 4));
    expect(res).toMatchObject({ model: 'sim-model', stopReason: 'end_turn', attempts: 1 });
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.join('')).toBe(res.text);
    const again: string[] = [];
    await fresh.generate({ ...req, onDelta: (d: string) => again.push(d) });
    expect(again).toEqual(deltas);
  });

  it('counts the forced tool schema as input, as the API does', async () => {
    const plain = request('free_text', 'f#1', undefined);
    const forced = request('free_text', 'f#1', undefined, z.object({ verdict: z.enum(['yes', 'no']), reasons: z.array(z.string()) }));
    const sim = createSimulatedProvider({ latencyMs: 0, jitter: 0 });
    const a = (await sim.generate(plain)).usage;
    const b = (await sim.generate(forced)).usage;
    const tool = { name: 'free_text', description: 'free_text', input_schema: { ...forced.json!.schema, type: 'object' } };
    expect(b.inputTokens - a.inputTokens).toBe(estimateTokens(JSON.stringify(tool)));
  });

  it('reports prompt-cache reads and writes over the params the anthropic adapter would send, with a cache shared by its calls', async () => {
    let t = 0;
    const sim = createSimulatedProvider({ latencyMs: 0, jitter: 0, now: () => t });
    const stable = 'The board deliberates in rounds and answers with one JSON object. '.repeat(80);
    const ask = (key: string, question: string) =>
      sim.generate({ ...request('free_text', key, undefined), model: 'claude-sonnet-5-5', system: [stable, 'persona'], messages: [{ role: 'user', content: question }] });
    const prefix = estimateTokens(stable) + estimateTokens('persona');
    const first = await ask('c1#1', 'first question');
    expect(first.usage).toEqual({ inputTokens: estimateTokens('first question'), outputTokens: first.usage.outputTokens, cacheReadTokens: 0, cacheWriteTokens: prefix });
    t += 60_000;
    expect((await ask('c2#1', 'a second question')).usage).toMatchObject({ inputTokens: estimateTokens('a second question'), cacheReadTokens: prefix, cacheWriteTokens: 0 });
    // Unused for five minutes, the entry is gone.
    t += 5 * 60_000;
    expect((await ask('c3#1', 'later')).usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: prefix });
    // Parallel calls are sent before either response begins: neither reads what the other writes.
    const other = 'A different stable prefix for another board. '.repeat(120);
    const both = await Promise.all(['p1#1', 'p2#1'].map((key) => sim.generate({ ...request('free_text', key, undefined), model: 'claude-sonnet-5-5', system: [other], messages: [{ role: 'user', content: key }] })));
    expect(both.map((r) => r.usage.cacheReadTokens)).toEqual([0, 0]);
  });

  it('caches nothing under the model minimum: a Haiku-class prefix needs 4,096 tokens', async () => {
    const sim = createSimulatedProvider({ latencyMs: 0, jitter: 0, now: () => 0 });
    const stable = 'x'.repeat(4 * 2000);
    const ask = (model: string) => sim.generate({ ...request('free_text', `${model}#1`, undefined), model, system: [stable], cacheAfter: [0], messages: [{ role: 'user', content: 'q' }] });
    await ask('claude-haiku-5-5');
    expect((await ask('claude-haiku-5-5')).usage.cacheReadTokens).toBe(0);
    await ask('claude-sonnet-5-5');
    expect((await ask('claude-sonnet-5-5')).usage.cacheReadTokens).toBe(2000);
  });

  it('honours latency with jitter through the injected sleep, and skips it at zero', async () => {
    const waits: number[] = [];
    let call: number[] = [];
    const sleep = async (ms: number) => {
      call.push(ms);
    };
    const slow = createSimulatedProvider({ latencyMs: 200, jitter: 0.25, sleep });
    const latency = async (key: string) => {
      call = [];
      await slow.generate(request('contribution', key, undefined));
      return call.reduce((a, b) => a + b, 0);
    };
    for (let i = 0; i < 20; i++) waits.push(await latency(`lat${i}#1`));
    for (const ms of waits) {
      expect(ms).toBeGreaterThanOrEqual(150);
      expect(ms).toBeLessThanOrEqual(250);
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
    expect(await latency('lat0#1')).toBe(waits[0]);

    // The answer begins after the first-token share of the latency, and ends after all of it.
    const exact: string[] = [];
    const timed = createSimulatedProvider({ latencyMs: 120, jitter: 0, sleep: async (ms) => void exact.push(`wait ${ms}`) });
    await timed.generate({ ...request('x', 'k#1', undefined), onDelta: () => void (exact.at(-1) !== 'delta' && exact.push('delta')) });
    expect(exact).toEqual([`wait ${120 * FIRST_TOKEN_SHARE}`, 'delta', `wait ${120 * (1 - FIRST_TOKEN_SHARE)}`, 'delta']);

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
    expect(await kindOf(provider.generate({ ...request('vote', 'a#1', undefined), signal: before.signal }))).toBe('aborted:false');

    // An injected sleep that never resolves and ignores the signal: the abort must still win.
    const stuck = createSimulatedProvider({ latencyMs: 1000, jitter: 0, sleep: () => new Promise(() => {}) });
    const during = new AbortController();
    const pending = kindOf(stuck.generate({ ...request('vote', 'a#1', undefined), signal: during.signal }));
    setTimeout(() => during.abort(), 5);
    expect(await pending).toBe('aborted:false');

    // The default timer sleep is cut short too.
    const real = createSimulatedProvider({ latencyMs: 10_000, jitter: 0 });
    const ctl = new AbortController();
    const started = Date.now();
    const p = kindOf(real.generate({ ...request('vote', 'a#1', undefined), signal: ctl.signal }));
    setTimeout(() => ctl.abort(), 10);
    expect(await p).toBe('aborted:false');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
