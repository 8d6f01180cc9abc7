import type { HarmCategory } from '../../domain/harm-categories';
import { decomposeCall, problemStatementCall, type DecomposeInput, type IntakeInput } from '../../calls';
import { NO_CONTEXT } from '../../calls/intake';
import { CATEGORIES, DOMAINS, type Decomposition, type Domain, type ProblemStatement } from '../../domain/model';
import * as B from './bank';
import { answer } from './answer';
import type { Rng } from './random';
import { alternatives, clamp, clip, fill, noStop, sentence, ucFirst, wordCount, type Ctx } from './text';

type Category = (typeof CATEGORIES)[number];
type Facts = Partial<Record<B.Fact, string>>;

/** The engine's frame says NO_CONTEXT for an empty context: that is no context. */
export const contextOf = (context: string) => (context.trim() === NO_CONTEXT ? '' : context.trim());

const scoreOf = (re: RegExp, ...texts: [string, number][]) => texts.reduce((n, [t, w]) => n + (t.match(re) ?? []).length * w, 0);

/** The keyword table's entries that match, best first (ties: table order). */
function ranked(table: [string, RegExp][], ...texts: [string, number][]): string[] {
  return table
    .map(([name, re], i) => ({ name, i, n: scoreOf(re, ...texts) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n || a.i - b.i)
    .map((x) => x.name);
}

export const categoryOf = (problem: string, context = ''): Category => (ranked(B.CATEGORY_WORDS, [problem, 2], [context, 1])[0] ?? 'other') as Category;
export const detectDomains = (text: string): Domain[] => ['strategy', ...(ranked(B.DOMAIN_WORDS, [text, 1]).slice(0, 4) as Domain[])];

function factsOf(text: string): Facts {
  const found = Object.entries(B.FACTS).map(([k, re]) => [k, re.exec(text)?.slice(1).find(Boolean)?.trim()] as const);
  return Object.fromEntries(found.filter(([, v]) => v).map(([k, v]) => [k, clip(v!, 100)]));
}

/** First person to second person, so the board addresses the person. */
const toSecondPerson = (t: string) =>
  t
    .replace(/\bI am\b/g, 'you are')
    .replace(/\bI(['’])m\b/g, 'you$1re')
    .replace(/\bI\b/g, 'you')
    .replace(/\bmy\b/g, 'your')
    .replace(/\bMy\b/g, 'Your')
    .replace(/\bme\b/g, 'you')
    .replace(/(^|[.!?]\s+)you/g, (_, lead: string) => `${lead}You`);

/** "Should I X or Y?" → the choice, in the second person; '' when the problem asks no such question. */
export function choiceOf(problem: string): string {
  const asked = /\bshould (?:i|we)\s+([^?]+)\?/i.exec(problem)?.[1];
  return asked ? toSecondPerson(asked.trim()) : /\sor\s/i.test(problem) ? toSecondPerson(noStop(problem)) : '';
}

function restate(problem: string): string {
  const asked = problem.replace(/\bshould (?:I|we)\s+([^?]*)\?/gi, 'decide whether to $1.');
  const text = sentence(clip(ucFirst(toSecondPerson(asked)).replace(/(^|[.!?]\s+)decide/g, (_, lead: string) => `${lead}Decide`), 300));
  return text.length >= 10 ? text : `Decide how to proceed with: ${text}`;
}

/** Too vague to decompose: short, generic, nothing concrete to decide, no context to go on. */
function isVague(problem: string, context: string): boolean {
  if (context.length >= 20 || wordCount(problem) > 12 || /\d/.test(problem) || alternatives(choiceOf(problem)).length) return false;
  return categoryOf(problem.replace(B.GENERIC, ' ')) === 'other';
}

/** Rich context (numbers and specifics to work from) needs no clarification; thin context gets the 1-3 questions that block most. */
function clarifications(problem: string, context: string, f: Facts, r: Rng) {
  if (Object.keys(factsOf(context)).length >= 2 || (/\d/.test(context) && wordCount(context) >= 8)) return [];
  const order = B.CLARIFY_ORDER[categoryOf(problem, context)] ?? B.CLARIFY_ORDER.other!;
  const missing = order.filter((k) => !f[k]);
  const keys = [...(/\bname\b|\bbrand/i.test(problem) ? (['naming'] as const) : []), ...(missing.length ? missing : (['goal'] as const))];
  return keys.slice(0, r.int(1, Math.min(3, keys.length))).map((k) => ({ ...B.CLARIFY[k] }));
}

function problemStatement(i: IntakeInput, { r }: Ctx): ProblemStatement {
  const problem = i.problem.trim();
  const context = contextOf(i.context);
  const all = `${problem} ${context}`;
  const f = factsOf(all);
  const found = (Object.keys(B.FACTS) as B.Fact[]).filter((k) => f[k]).map((k) => clip(fill(B.ASSUMPTIONS[k], f), 300));
  const assumptions = found.length ? r.shuffle(found).slice(0, r.int(1, Math.min(3, found.length))) : [B.ASSUMPTIONS.none];
  // A flag from the intake screen is confirmed (the simulated board reads no meaning to overrule it with), so
  // HARM_SCREEN_FLAG=confirm refuses here what `refuse` refuses before the call.
  const matched = B.HARMFUL.find(([re]) => re.test(all));
  const harm = i.flagged
    ? { reason: clip(i.flagged.reason, 300), category: i.flagged.category as HarmCategory }
    : matched && { reason: matched[1], category: matched[2] };
  // Written again after the answers: the answers join the statement, the assumptions that stood are kept, nothing is asked again.
  const revise = i.revise;
  if (revise && !harm) {
    const known = revise.answers.map((a) => noStop(a.answer)).join('; ');
    return {
      statement: clip(`${revise.statement} Known from the person: ${known}.`, 600),
      clarifications: [],
      assumptions: revise.assumptions.slice(0, 5).map((a) => clip(a, 300)),
      domains: detectDomains(all),
      category: categoryOf(problem, context),
      vague: isVague(problem, context),
      safety: { allowed: true, reason: 'ordinary business decision' },
    };
  }
  return {
    statement: restate(problem),
    clarifications: harm ? [] : clarifications(problem, context, f, r),
    assumptions,
    domains: detectDomains(all),
    category: categoryOf(problem, context),
    vague: isVague(problem, context),
    safety: harm ? { allowed: false, ...harm } : { allowed: true, reason: 'ordinary business decision' },
  };
}

/** Distinct concerns a problem lists ("build, launch, price, hire for and fund…"), as a list, questions or bullets. */
function concernCount(problem: string, context: string): number {
  const listed = problem
    .replace(/\([^)]*\)/g, '')
    .split(/(?<=[.?!])\s+/)
    // A list joined by "or" offers alternatives for one decision, not separate concerns.
    .filter((s) => /\band\b/i.test(s) && !/\bor\b/i.test(s))
    .map((s) => s.split(/,\s*|\s+and\s+/i).filter((x) => x.trim().length > 1).length);
  const all = `${problem}\n${context}`;
  return Math.max(0, ...listed, (all.match(/\?/g) ?? []).length, (all.match(/^\s*(?:[-*•]|\d+[.)])\s+/gm) ?? []).length);
}

/** Makes every sub-problem's domain set differ from the ones before it. */
function distinctDomains(sets: string[][]): Domain[][] {
  const seen = new Set<string>();
  return sets.map((set) => {
    let out = [...new Set(set)].slice(0, 3) as Domain[];
    for (const extra of DOMAINS) {
      if (!seen.has([...out].sort().join())) break;
      if (!out.includes(extra)) out = [...out.slice(0, 2), extra];
    }
    seen.add([...out].sort().join());
    return out;
  });
}

type Draft = Decomposition['subProblems'][number];

function decompose(i: DecomposeInput, { r }: Ctx): Decomposition {
  const problem = i.problem.trim() || i.statement;
  const context = contextOf(i.context);
  const f = factsOf(`${problem} ${context}`);
  const choice = choiceOf(problem);
  const told = context ? `From what you told us: ${sentence(clip(context, 300))}` : 'No further context was given; assume current resources stay as they are.';
  const hard = B.IRREVERSIBLE.test(problem);
  const slots = { budget: f.budget ?? 'the available cash', audience: f.audience ? ` (building on the ${f.audience})` : '', team: f.team ? ` beyond the current team (${f.team})` : '', hours: f.hours ? `about ${f.hours} hours a week` : 'the hours actually available' };
  const finish = (subProblems: Draft[], atomic: boolean, rationale: string): Decomposition => {
    const sets = distinctDomains(subProblems.map((s) => s.domains));
    return { subProblems: subProblems.map((s, n) => ({ ...s, domains: sets[n]! })), atomic, rationale: clip(rationale, 600) };
  };

  if (i.vague || isVague(problem, context)) {
    const v = B.VAGUE_SUBPROBLEM;
    const only = { id: 'sp1', ...v, successCriteria: v.criteria, context: told, dependsOn: [], complexity: r.int(3, 5), domains: ['strategy', 'people'] as Domain[] };
    return finish([only], false, 'The question is too open to split into concrete parts; the board first defines what success means and the first step towards it.');
  }
  // The overall direction: the person's own choice when they named one; hard to reverse when it names a commitment.
  const S = B.SUBPROBLEMS.strategy!;
  const title = !choice ? S.title : choice.length <= 100 ? `Overall direction: ${choice}` : `Overall direction: which of the ${Math.max(2, alternatives(choice).length)} paths to take`;
  const goal = choice ? sentence(`Decide which path to take: ${clip(choice, 240)}`) : S.goal;
  const criteria = [...S.criteria.slice(0, r.int(1, 2)), ...(f.goal ? [clip(`Keeps the stated goal in reach: ${f.goal}`, 160)] : [])];
  const domains = i.domains.length ? i.domains : detectDomains(`${problem} ${context}`);
  const concerns = concernCount(problem, context);
  const direction = (lo: number, hi: number): Draft => ({
    id: 'sp1',
    title: clip(title, 120),
    goal: hard ? `${goal} It is hard to reverse, so this part needs a high bar.` : goal,
    context: told,
    successCriteria: criteria,
    dependsOn: [],
    complexity: hard ? r.int(7, 8) : r.int(lo, hi),
    domains: ['strategy', ...domains.filter((d) => d !== 'strategy').slice(0, 1)],
  });
  // Atomic: a short question with (next to) no context is one decision.
  if (concerns < 5 && problem.length < 120 && context.length < 40) return finish([direction(2, 4)], true, 'This is a single, self-contained choice; splitting it would only add overhead.');

  let names: string[];
  if (concerns >= 5) {
    // Over-complex: one part per concern named (the engine groups more than five into meta-problems).
    const items = problem.replace(/\([^)]*\)/g, '').split(/,\s*|\s+and\s+|[.?!]\s+|\n/);
    const named = items.flatMap((item) => Object.entries(B.SUBPROBLEMS).find(([n, t]) => n !== 'strategy' && t.match.test(item))?.[0] ?? []);
    names = [...new Set([...named, 'market', 'finance', 'product', 'people', 'operations', 'technical', 'risk'])].slice(0, r.int(5, 6));
  } else {
    const pricing = /\bpric|\btiers?\b|monetis|monetiz|\/month/i.test(problem);
    const fromDomains = domains.filter((d) => d !== 'strategy').map((d) => (d === 'finance' && pricing ? 'pricing' : d));
    names = [...new Set([...fromDomains, 'measures', 'operations', 'risk'])].slice(0, clamp(1 + (domains.length >= 3 ? 1 : 0) + (r.chance(0.5) ? 1 : 0), 1, 3));
  }
  const subProblems = [direction(4, 6)];
  for (const [n, name] of names.entries()) {
    const t = B.SUBPROBLEMS[name]!;
    // A mix of sequential and parallel: sp2 and sp3 always differ, later ones vary; only earlier ids.
    const second = subProblems[1]?.dependsOn.length;
    const roll = r.next();
    const dependsOn = n === 0 ? (roll < 0.7 ? ['sp1'] : []) : n === 1 ? (second ? [] : ['sp1']) : roll < 0.4 ? ['sp1'] : roll < 0.7 ? [] : [`sp${r.int(2, n + 1)}`];
    // A part that carries one of the problem's hard-to-reverse commitments names it, so its options include the one-way door.
    const commits = t.hard?.exec(problem)?.[0].toLowerCase();
    const goal = fill(t.goal, slots) + (commits ? ` What it commits to (${commits}) is hard to reverse, so this part needs a high bar.` : '');
    subProblems.push({ id: `sp${n + 2}`, title: t.title, goal, context: told, successCriteria: t.criteria.slice(0, r.int(1, 2)), dependsOn, complexity: commits ? r.int(7, 8) : r.int(2, 6), domains: t.domains as Domain[] });
  }
  const titles = subProblems.map((s) => s.title.split(':')[0]!.toLowerCase()).join('; ');
  return finish(
    subProblems,
    false,
    concerns >= 5
      ? `The problem bundles ${concerns} distinct concerns, so it splits into ${subProblems.length} parts: ${titles}. Several can be debated in parallel once the overall direction is set.`
      : `The decision splits into ${subProblems.length} parts: ${titles}. The overall direction comes first; the others refine how to carry it out.`,
  );
}

export const INTAKE = [answer(problemStatementCall, problemStatement), answer(decomposeCall, decompose)];
