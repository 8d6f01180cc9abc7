import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadPrompts, render } from '../../src/llm/prompts';
import { simulate } from '../../src/llm/simulated/simulated-provider';
import {
  dedupeDecision,
  extractedLessonsSchema,
  fallbackRanking,
  lessonQueryFallback,
  lessonQuerySchema,
  lessonRankingSchema,
  lessonSchema,
  normaliseTag,
  sameLessonSchema,
  type LessonCandidate,
} from '../../src/memory/lessons';
import { PERSONAS } from '../../src/domain/personas';

/** Mirror of src/memory/summary.ts's expertSummarySchema (owned by another module). */
const expertSummarySchema = z.object({
  summary: z.string().min(20).max(700),
  position: z.string().min(3).max(200),
  confidence: z.number().min(0).max(1),
  conditions: z.array(z.string()).max(3),
});

const SEEDS = Array.from({ length: 80 }, (_, i) => `seed${i}`);
const wordCount = (t: string) => t.split(/\s+/).filter(Boolean).length;

function gen<T>(purpose: string, key: string, hints: Record<string, unknown>, schema: z.ZodType<T>): T {
  const text = simulate({ key, purpose, input: hints });
  expect(simulate({ key, purpose, input: hints }), `${purpose} is deterministic`).toBe(text);
  const parsed = schema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${purpose} ${key}: ${z.prettifyError(parsed.error)}\n${text}`);
  return parsed.data;
}

const LESSON = {
  lesson: 'Debates that run to the round limit usually lack a concrete success criterion.',
  triggerConditions: 'When a sub-problem has no measurable goal.',
  suggestedFix: 'Set tighter success criteria before the debate.',
  confidence: 0.7,
  tags: ['process', 'max-rounds'],
  type: 'best_practice' as const,
};

describe('lesson schemas', () => {
  it('accepts a well-formed lesson and rejects out-of-range fields', () => {
    expect(lessonSchema.parse(LESSON)).toEqual(LESSON);
    expect(lessonSchema.safeParse({ ...LESSON, confidence: 1.2 }).success).toBe(false);
    expect(lessonSchema.safeParse({ ...LESSON, confidence: -0.1 }).success).toBe(false);
    expect(lessonSchema.safeParse({ ...LESSON, tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }).success).toBe(false);
    expect(lessonSchema.safeParse({ ...LESSON, type: 'anecdote' }).success).toBe(false);
    expect(lessonSchema.safeParse({ ...LESSON, suggestedFix: undefined }).success).toBe(false);
    for (const type of ['critical_error', 'best_practice', 'domain_knowledge']) expect(lessonSchema.safeParse({ ...LESSON, type }).success).toBe(true);
  });
  it('caps extraction at five lessons and allows none', () => {
    expect(extractedLessonsSchema.safeParse({ lessons: [] }).success).toBe(true);
    expect(extractedLessonsSchema.safeParse({ lessons: Array(5).fill(LESSON) }).success).toBe(true);
    expect(extractedLessonsSchema.safeParse({ lessons: Array(6).fill(LESSON) }).success).toBe(false);
  });
  it('validates the same / query / ranking answers', () => {
    expect(sameLessonSchema.safeParse({ same: true, reason: 'same advice' }).success).toBe(true);
    expect(sameLessonSchema.safeParse({ same: 'yes', reason: '' }).success).toBe(false);
    expect(lessonQuerySchema.safeParse({ query: 'pricing decisions', tags: ['pricing'] }).success).toBe(true);
    expect(lessonQuerySchema.safeParse({ query: 'ab', tags: [] }).success).toBe(false);
    expect(lessonQuerySchema.safeParse({ query: 'abc', tags: Array(7).fill('t') }).success).toBe(false);
    expect(lessonRankingSchema.safeParse({ ranked: [{ id: 'l1', shouldUse: true, applies: 'x' }] }).success).toBe(true);
    expect(lessonRankingSchema.safeParse({ ranked: [{ id: 'l1', shouldUse: 'no', applies: 'x' }] }).success).toBe(false);
  });
});

describe('dedupeDecision (calibrated scale)', () => {
  it('reinforces at or above 0.90, asks from 0.75, stores below', () => {
    expect(dedupeDecision(1)).toBe('reinforce');
    expect(dedupeDecision(0.9)).toBe('reinforce');
    expect(dedupeDecision(0.8999)).toBe('ask');
    expect(dedupeDecision(0.82)).toBe('ask');
    expect(dedupeDecision(0.75)).toBe('ask');
    expect(dedupeDecision(0.7499)).toBe('new');
    expect(dedupeDecision(0.1)).toBe('new');
    expect(dedupeDecision(Number.NaN)).toBe('new');
  });
  it('takes other thresholds', () => {
    const t = { reinforceAbove: 0.95, greyAbove: 0.8 };
    expect(dedupeDecision(0.94, t)).toBe('ask');
    expect(dedupeDecision(0.95, t)).toBe('reinforce');
    expect(dedupeDecision(0.79, t)).toBe('new');
  });
});

describe('fallbackRanking', () => {
  const c = (id: string, score: number, confidence: number, reinforcements = 0): LessonCandidate => ({ id, score, confidence, reinforcements, lesson: `lesson ${id}` });

  it('orders by score × confidence × reinforcement boost and drops confidence < 0.5', () => {
    const ranked = fallbackRanking([c('a', 0.6, 0.9), c('b', 0.9, 0.9), c('low', 0.99, 0.49), c('edge', 0.7, 0.5), c('d', 0.5, 0.6)], 5);
    expect(ranked.map((r) => r.id)).toEqual(['b', 'a', 'edge', 'd']);
    expect(ranked.every((r) => r.shouldUse && r.applies.length > 10 && r.applies.length < 200)).toBe(true);
  });
  it('lets reinforcement lift a lesson, logarithmically', () => {
    // 0.6 × 0.8 × (1 + log2 4) = 1.44 beats 0.9 × 0.8 × 1 = 0.72.
    expect(fallbackRanking([c('fresh', 0.9, 0.8, 0), c('proven', 0.6, 0.8, 3)]).map((r) => r.id)).toEqual(['proven', 'fresh']);
    // but not a barely relevant one: 0.2 × 0.8 × 3 = 0.48 < 0.72.
    expect(fallbackRanking([c('fresh', 0.9, 0.8, 0), c('popular', 0.2, 0.8, 3)]).map((r) => r.id)).toEqual(['fresh', 'popular']);
  });
  it('keeps at most `limit` (default 3), breaks ties by id, skips irrelevant ones', () => {
    const many = ['e', 'd', 'c', 'b', 'a'].map((id) => c(id, 0.8, 0.8));
    expect(fallbackRanking(many).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(fallbackRanking(many, 1).map((r) => r.id)).toEqual(['a']);
    expect(fallbackRanking(many, 0)).toEqual([]);
    expect(fallbackRanking([c('zero', 0, 0.9), c('nan', Number.NaN, 0.9)])).toEqual([]);
    expect(fallbackRanking([])).toEqual([]);
  });
  it('is valid as a ranking answer', () => {
    expect(lessonRankingSchema.safeParse({ ranked: fallbackRanking([c('a', 0.5, 0.7)]) }).success).toBe(true);
  });
});

describe('lessonQueryFallback', () => {
  it('leads with the kind of decision and tags the topics', () => {
    const q = lessonQueryFallback('Should I raise my prices from $29 to $49, or hire a salesperson first?', 'pricing');
    expect(q.query).toBe('pricing decision: Should I raise my prices from $29 to $49, or hire a salesperson first?');
    expect(q.tags[0]).toBe('pricing');
    expect(q.tags).toContain('hiring');
    expect(lessonQuerySchema.safeParse(q).success).toBe(true);
  });
  it('copes with a tiny problem, an "other" category, and long text', () => {
    expect(lessonQueryFallback('', 'other')).toEqual({ query: 'business decision', tags: [] });
    expect(lessonQueryFallback('?', 'Hiring')).toEqual({ query: 'hiring decision', tags: ['hiring'] });
    const long = lessonQueryFallback('pricing hiring seo rewrite funding roadmap pivot legal process team '.repeat(40), 'growth');
    expect(long.tags.length).toBeLessThanOrEqual(6);
    expect(long.query.length).toBeLessThanOrEqual(420);
    expect(lessonQuerySchema.safeParse(long).success).toBe(true);
  });
  it('normalises tags', () => {
    expect(normaliseTag('  Tech Debt! ')).toBe('tech-debt');
    expect(normaliseTag('max_rounds')).toBe('max-rounds');
  });
});

describe('memory prompt templates', () => {
  const all = loadPrompts();
  const persona = PERSONAS[0]!;
  // The variables the callers (src/app/engine/*.ts, src/app/memory-jobs.ts) render them with.
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['lessons_extract', { summary: '{"category":"pricing","failed":true}' }, /"failed":true/],
    ['lessons_same', { a: 'lesson one', b: 'lesson two' }, /Lesson A: lesson one[\s\S]*Lesson B: lesson two/],
    ['lessons_query', { statement: 'Decide the price.', category: 'pricing' }, /Problem category: pricing[\s\S]*Decide the price\./],
    ['lessons_rank', { statement: 'Decide the price.', candidates: ['l1: lesson (when: x; confidence 0.70)'] }, /- l1: lesson/],
    [
      'expert_summary',
      { persona, subProblem: { id: 'sp1', title: 'Pricing tiers', goal: 'g' }, omitted: '', contributions: ['turn one', 'turn two'], vote: 'A (confidence 0.70): because' },
      /Sub-problem sp1: Pricing tiers[\s\S]*- turn one\n- turn two[\s\S]*Your vote: A/,
    ],
    ['anonymise', { text: 'As [PERSON_1] said\n---\nposition' }, /As \[PERSON_1\] said\n---\nposition/],
  ];
  // Version 1 unless a template was revised since (expert_summary: every turn, within a cap; anonymise 2: countries stay).
  const versions: Record<string, string> = { expert_summary: '5', anonymise: '2' };
  it.each(cases)('%s parses, has stable system sections first, and renders', (name, vars, user) => {
    const t = all.get(name);
    const version = versions[name] ?? '1';
    expect(t, name).toBeDefined();
    expect(t!.version).toBe(version);
    expect(t!.system.length).toBeGreaterThan(0);
    expect(t!.system[0]!.body).toMatch(/Board of One/);
    const out = render(t!, vars);
    expect(out.version).toBe(`${name}@${version}`);
    expect(out.user).toMatch(user);
    expect(out.user).toMatch(/JSON object only/);
  });
  it('expert_summary puts the persona in a system section', () => {
    const out = render(all.get('expert_summary')!, { persona, subProblem: { id: 'sp1', title: 't' }, omitted: '', contributions: [], vote: 'v' });
    expect(out.system.join('\n')).toContain(`You are ${persona.name}`);
    expect(out.user).toMatch(/40-70 words/);
  });
});

describe('simulated memory generators', () => {
  it('expert_summary: 40-75 words with position, key number, confidence and 1-2 conditions', () => {
    const confs = new Set<string>();
    for (const seed of SEEDS) {
      const p = PERSONAS[Number(seed.slice(4)) % PERSONAS.length]!;
      const withNumber = Number(seed.slice(4)) % 2 === 0;
      const contributions = withNumber
        ? ['We should test the $49 tier first.', 'With churn at 30% a month, the horizontal product leaks customers faster than we add them.']
        : ['I think we should pilot with a few firms before committing.'];
      const out = gen(
        'expert_summary',
        `${seed}:sp1/summary/${p.code}`,
        { persona: p, subProblem: { id: 'sp1', title: 'Choose the target segment', goal: 'Decide which segment to serve.', context: '', complexity: 5 }, position: 'Focus on law firms with a paid pilot first', confidence: 0.72, contributions, vote: null },
        expertSummarySchema,
      );
      const n = wordCount(out.summary);
      expect(n, out.summary).toBeGreaterThanOrEqual(40);
      expect(n, out.summary).toBeLessThanOrEqual(75);
      expect(out.position).toBe('Focus on law firms with a paid pilot first');
      expect(out.summary).toMatch(/focus on law firms with a paid pilot first/);
      expect(out.summary).toMatch(/My confidence is moderate \(72%\)/);
      expect(out.confidence).toBe(0.72);
      expect(out.conditions.length).toBeGreaterThanOrEqual(1);
      expect(out.conditions.length).toBeLessThanOrEqual(2);
      expect(out.summary).toMatch(/This holds only if /);
      if (withNumber) expect(out.summary).toMatch(/The key number: churn at 30% a month\./);
      else expect(out.summary).not.toMatch(/key number/);
      out.conditions.forEach((c) => confs.add(c));
    }
    expect(confs.size).toBeGreaterThan(3);
  });

  it('expert_summary copes with an expert who stated no position', () => {
    for (const seed of SEEDS.slice(0, 10)) {
      const subProblem = { id: 'sp1', title: 'Choose the target segment', goal: 'Decide which segment to serve.', context: '', complexity: 5 };
      const out = gen('expert_summary', seed, { persona: PERSONAS[0]!, subProblem, position: '', confidence: 0.6, contributions: [], vote: null }, expertSummarySchema);
      expect(wordCount(out.summary)).toBeGreaterThanOrEqual(40);
      expect(out.confidence).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('anonymise: removes capitalised names, keeps placeholders, separators and sentence openers', () => {
    const anonymised = z.object({ text: z.string() });
    const text =
      'As [PERSON_1] told Jane Doe, The Acme Widgets deal with [COMPANY_1] matters.\n---\nWe recommend Jane Doe calls María García and McKinsey Partners. I think SEO works. Law firms pay more.';
    const out = gen('anonymise', 'seed1:anon', { text }, anonymised).text;
    expect(out).toBe(
      'As [PERSON_1] told [NAME_1], The [NAME_2] deal with [COMPANY_1] matters.\n---\nWe recommend [NAME_1] calls [NAME_3] and [NAME_4]. I think SEO works. Law firms pay more.',
    );
    expect(gen('anonymise', 'seed1:anon2', { text: 'Already [NAME_2], now Bob Smith.' }, anonymised).text).toBe('Already [NAME_2], now [NAME_3].');
    expect(gen('anonymise', 'seed1:anon3', { text: '' }, anonymised).text).toBe('');
  });

  const sessions = [
    { category: 'pricing', stopReasons: ['max_rounds', 'max_rounds', 'consensus'], failed: false, deferred: 0, ties: 1, decisions: ['Raise the Pro tier at Acme Corp to $49 for new customers first'] },
    { category: 'hiring', stopReasons: ['consensus'], failed: true, failureReason: 'spend_limit', deferred: 1, ties: 0, decisions: ['Hire a part-time salesperson for 3 months'] },
    { category: 'technical', stopReasons: [], failed: true, failureReason: 'internal', deferred: 0, ties: 0, decisions: [] },
    { category: 'other', stopReasons: ['consensus', 'diminishing_returns'], failed: false, deferred: 0, ties: 0, decisions: [] },
    { category: 'growth', stopReasons: ['max_rounds'], failed: true, failureReason: 'rate_limited', deferred: 2, ties: 2, decisions: ['defer "Paid ads" until the SEO test ends'] },
  ];

  it('lessons_extract: 1-3 generalised, typed lessons; critical_error first when the session failed', () => {
    const confidences: number[] = [];
    const types = new Set<string>();
    for (const seed of SEEDS) {
      for (const [i, hints] of sessions.entries()) {
        const { lessons } = gen('lessons_extract', `${seed}:lessons/${i}`, hints, extractedLessonsSchema);
        expect(lessons.length).toBeGreaterThanOrEqual(1);
        expect(lessons.length).toBeLessThanOrEqual(3);
        if (hints.failed) expect(lessons[0]!.type).toBe('critical_error');
        else expect(lessons.some((l) => l.type === 'critical_error')).toBe(false);
        for (const l of lessons) {
          const all = `${l.lesson} ${l.triggerConditions} ${l.suggestedFix}`;
          expect(all, 'no figures tied to the user').not.toMatch(/\d|\$|Acme|Pro tier/);
          expect(l.tags.length).toBeLessThanOrEqual(6);
          expect(l.confidence).toBeGreaterThanOrEqual(0.4);
          expect(l.confidence).toBeLessThanOrEqual(0.9);
          confidences.push(l.confidence);
          types.add(l.type);
        }
        if (hints.category !== 'other') expect(lessons.every((l) => l.tags[0] === hints.category)).toBe(true);
      }
    }
    expect(types).toEqual(new Set(['critical_error', 'best_practice', 'domain_knowledge']));
    expect(confidences.some((c) => c < 0.5)).toBe(true);
    expect(confidences.some((c) => c >= 0.8)).toBe(true);
  });

  it('lessons_extract: many max_rounds stops teach tighter success criteria; failure kinds are generalised', () => {
    const hints = { category: 'pricing', stopReasons: ['max_rounds', 'max_rounds'], failed: false, deferred: 0, ties: 0, decisions: [] };
    const { lessons } = gen('lessons_extract', 'seed0:lessons', hints, extractedLessonsSchema);
    expect(lessons).toHaveLength(1);
    expect(lessons[0]).toMatchObject({ type: 'best_practice', tags: ['pricing', 'process', 'max-rounds'] });
    expect(lessons[0]!.suggestedFix).toMatch(/tighter success criteria/);
    const failed = gen('lessons_extract', 'seed0:lessons', { ...hints, stopReasons: [], failed: true, failureReason: 'spend_limit' }, extractedLessonsSchema);
    expect(failed.lessons[0]!.tags).toEqual(['pricing', 'failure', 'budget']);
    expect(failed.lessons[0]!.lesson).toMatch(/budget/);
  });

  it('lessons_same: same at or above 0.82 similarity', () => {
    for (const seed of SEEDS.slice(0, 20)) {
      expect(gen('lessons_same', seed, { a: 'one', b: 'two', similarity: 0.82 }, sameLessonSchema).same).toBe(true);
      expect(gen('lessons_same', seed, { a: 'one', b: 'two', similarity: 0.8199 }, sameLessonSchema).same).toBe(false);
    }
    expect(gen('lessons_same', 'x', { a: 'set tighter success criteria early', b: 'set tighter success criteria early', similarity: 1 }, sameLessonSchema).same).toBe(true);
  });

  it('lessons_query: a generalised query and topic tags', () => {
    const problems = [
      { problem: 'Should I raise prices for Acme Corp customers from $29 to $49/month?', category: 'pricing' },
      { problem: 'Should we hire a co-founder or a contractor to build the MVP in 6 months?', category: 'hiring' },
      { problem: 'help', category: 'other' },
      { problem: '', category: 'other' },
    ];
    for (const seed of SEEDS.slice(0, 20)) {
      for (const hints of problems) {
        const q = gen('lessons_query', `${seed}:memory/lessons`, { ...hints, statement: hints.problem }, lessonQuerySchema);
        expect(q.query).not.toMatch(/\d|Acme Corp/);
        if (hints.category === 'pricing') {
          expect(q.query).toMatch(/^Pricing decisions/);
          expect(q.tags[0]).toBe('pricing');
        }
      }
    }
  });

  it('lessons_rank: best first by confidence, shouldUse from 0.6, a short `applies`', () => {
    const candidates = [
      { id: 'a', lesson: 'Debates without success criteria run to the round limit.', confidence: 0.55 },
      { id: 'b', lesson: 'Pilot before committing on pricing decisions.', confidence: 0.85 },
      { id: 'c', lesson: 'Split votes mean the deciding criterion was not named.', confidence: 0.6 },
      { id: 'd', lesson: 'A hunch.', confidence: 0.3 },
    ];
    for (const seed of SEEDS.slice(0, 20)) {
      const { ranked } = gen('lessons_rank', seed, { statement: 'Should I raise prices?', candidates: candidates.map((c) => ({ ...c, triggerConditions: 'When pricing.' })) }, lessonRankingSchema);
      expect(ranked.map((r) => r.id)).toEqual(['b', 'c', 'a', 'd']);
      expect(ranked.map((r) => r.shouldUse)).toEqual([true, true, false, false]);
      expect(ranked.every((r) => r.applies.length > 10 && wordCount(r.applies) <= 25)).toBe(true);
    }
    expect(gen('lessons_rank', 'x', { statement: 'x', candidates: [] }, lessonRankingSchema).ranked).toEqual([]);
  });
});
