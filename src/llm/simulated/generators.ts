import { personaByCode } from '../../domain/personas';
import { hash, rng, type Rng } from './random';
import * as B from './text-banks';

/**
 * One generator per purpose: reads the engine's `hints` (defensively: any of
 * them may be missing) and returns an object that satisfies the purpose's zod
 * schema in src/domain/model.ts. All randomness comes from the Rng passed in.
 */

type Rec = Record<string, unknown>;
export type Generator = (hints: Rec, r: Rng, key: string) => unknown;
type Risk = 'low' | 'medium' | 'high';
type Outlook = 'skeptical' | 'balanced' | 'optimistic';
type Domain = 'strategy' | 'finance' | 'market' | 'product' | 'technical' | 'operations' | 'risk' | 'people' | 'legal';

// ---- small text helpers ----

const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' && v.trim() ? v.trim().replace(/\s+/g, ' ') : fallback);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const words = (t: string) => t.split(/\s+/).filter(Boolean);
const wordCount = (t: string) => words(t).length;
const ucFirst = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);
// Keep acronyms and proper nouns ("B2B", "SEO") as they are.
const lcFirst = (t: string) => (/^[A-Z][a-z]/.test(t) ? t.charAt(0).toLowerCase() + t.slice(1) : t);
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));
const round2 = (n: number) => Math.round(n * 100) / 100;
const noStop = (t: string) => t.replace(/[\s.!?;:,]+$/, '');
const sentence = (t: string) => (/[.!?]$/.test(t) ? t : `${t}.`);
const firstSentence = (t: string) => /^[\s\S]*?[.!?](?=\s|$)/.exec(t)?.[0] ?? t;

function clipWords(t: string, n: number): string {
  const w = words(t);
  return w.length <= n ? t : noStop(w.slice(0, n).join(' '));
}

/** Clips to whole sentences when one ends past the middle of the limit, else to a word boundary. */
function clipSentences(t: string, max: number): string {
  if (t.length <= max) return t;
  const cut = t.slice(0, max + 1);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('? '), cut.lastIndexOf('! '));
  return end > max / 2 ? cut.slice(0, end + 1) : clipChars(t, max);
}

function clipChars(t: string, max: number): string {
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return noStop(space > max / 2 ? cut.slice(0, space) : cut);
}

/** Fills `{slot}` placeholders; `{Slot}` capitalises the value. */
function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const direct = vars[name];
    if (direct !== undefined) return direct;
    const lower = vars[name.charAt(0).toLowerCase() + name.slice(1)];
    return lower !== undefined ? ucFirst(lower) : '';
  });
}

/**
 * Joins sentences into a text of min..max words: required parts always,
 * optional ones until `target`, padding if still short. Order is kept.
 */
function compose(
  parts: { text: string; required?: boolean }[],
  padding: readonly string[],
  range: { min: number; max: number; target: number },
): string {
  const requiredWords = parts.filter((p) => p.required).reduce((n, p) => n + wordCount(p.text), 0);
  let n = requiredWords;
  const kept = parts.filter((p) => {
    if (p.required) return true;
    const c = wordCount(p.text);
    if (n >= range.target || n + c > range.max) return false;
    n += c;
    return true;
  });
  const out = kept.map((p) => p.text);
  for (const pad of padding) {
    if (n >= range.min) break;
    const c = wordCount(pad);
    if (n + c <= range.max) {
      out.push(pad);
      n += c;
    }
  }
  let text = out.join(' ');
  while (wordCount(text) < range.min) text += ' That is where I stand.';
  if (wordCount(text) > range.max) text = sentence(noStop(words(text).slice(0, range.max).join(' ')));
  return text;
}

// ---- reading the problem ----

const contextOf = (h: Rec) => {
  const c = str(h.context);
  return c === '(none given)' ? '' : c;
};

/** First person to second person, so the board addresses the user. */
function toSecondPerson(t: string): string {
  return t
    .replace(/\bI am\b/g, 'you are')
    .replace(/\bI was\b/g, 'you were')
    .replace(/\bI(['’])(m)\b/g, 'you$1re')
    .replace(/\bI(['’])(ve|d|ll)\b/g, 'you$1$2')
    .replace(/\bI\b/g, 'you')
    .replace(/\bmy\b/g, 'your')
    .replace(/\bMy\b/g, 'Your')
    .replace(/\bmyself\b/g, 'yourself')
    .replace(/\bme\b/g, 'you')
    .replace(/(^|[.!?]\s+)you/g, (_, lead: string) => `${lead}You`);
}

function restate(problem: string): string {
  if (problem.length < 3) return 'Decide how to proceed with the decision described.';
  const asked = problem.replace(/\bshould (?:I|we)\s+([^?]*)\?/gi, 'decide whether to $1.');
  const text = ucFirst(toSecondPerson(asked).replace(/(^|[.!?]\s+)decide/g, (_, lead: string) => `${lead}Decide`));
  const out = sentence(clipChars(text, 300));
  return out.length >= 10 ? out : `Decide: ${out} (as stated).`;
}

/** The alternatives the user asked about ("X, Y or Z"), paren-aware; [] when none. */
function alternatives(choice: string): string[] {
  if (!/\sor\s/i.test(choice)) return [];
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < choice.length; i++) {
    const ch = choice[i]!;
    if (ch === '(') depth += 1;
    if (ch === ')') depth = Math.max(0, depth - 1);
    const orHere = depth === 0 && /^\sor\s/i.test(choice.slice(i, i + 4));
    if (depth === 0 && (ch === ',' || orHere)) {
      parts.push(cur);
      cur = '';
      if (orHere) i += 3;
      continue;
    }
    cur += ch;
  }
  parts.push(cur);
  const alts = parts.map((p) => noStop(p.trim().replace(/^or\s+/i, ''))).filter((p) => p.length >= 2);
  // "name it FooBar or BarFoo": the bare second name borrows the first one's verb phrase.
  const head = words(alts[0] ?? '');
  return alts.length < 2
    ? []
    : alts.map((a, i) => (i > 0 && wordCount(a) === 1 && head.length > 1 ? `${head.slice(0, -1).join(' ')} ${a}` : a));
}

function choiceOf(problem: string): string {
  const asked = /\bshould (?:i|we)\s+([^?]+)\?/i.exec(problem)?.[1];
  if (asked) return toSecondPerson(asked.trim());
  return /\sor\s/i.test(problem) ? toSecondPerson(noStop(problem)) : '';
}

const DOMAIN_KEYWORDS: [Domain, RegExp][] = [
  ['finance', /\$|\bprice|\bpricing|\bmrr\b|runway|revenue|budget|profit|cash|\binvest|\bltv\b|\bcac\b|\bcost|money|\bpay(?:ing)?\b/gi],
  ['market', /customer|\bmarket|channel|\bseo\b|\bads\b|advertis|competitor|segment|\bsales\b|acquisition|\bbrand|\bname my\b|partnership|outbound/gi],
  ['technical', /\bcode|rewrite|architect|scal(?:e|ing|able)|\brust\b|python|performance|refactor|migrat|database|postgres|monolith|tech(?:nical)? debt|test coverage/gi],
  ['people', /\bhire|hiring|co-?founder|\bteam\b|burnt|burnout|developers?\b|salesperson|contractor|\bsolo\b|morale/gi],
  ['legal', /legal|contract|equity|compliance|licen[cs]e|trademark|regulat/gi],
  ['risk', /\brisk|\bfail|outage|security|worst|running out|irreversib/gi],
  ['product', /\bproduct|feature|\btool\b|\bapp\b|dashboard|\bmvp\b|free plan|premium|\bplg\b/gi],
  ['operations', /hours?\/week|\bhours\b|process|operations|part-time|workload|-hour weeks|capacity/gi],
];

function detectDomains(text: string): Domain[] {
  const scored = DOMAIN_KEYWORDS.map(([d, re], i) => ({ d, i, n: (text.match(re) ?? []).length })).filter((x) => x.n > 0);
  scored.sort((a, b) => b.n - a.n || a.i - b.i);
  return ['strategy', ...scored.slice(0, 4).map((x) => x.d)];
}

const ALL_DOMAINS = new Set<string>(['strategy', ...DOMAIN_KEYWORDS.map(([d]) => d)]);

interface Facts {
  money?: string;
  budget?: string;
  time?: string;
  runway?: string;
  team?: string;
  audience?: string;
  hours?: string;
  goal?: string;
}

function factsOf(text: string): Facts {
  const f: Facts = {};
  const money = /\$\s?\d[\d,.]*\s?[kKmM]?/.exec(text)?.[0];
  const budget =
    /(\$\s?\d[\d,.]*\s?[kKmM]?)\s*(?:saved|budget|to invest)/i.exec(text)?.[1] ??
    /(?:budget|invest|resources:)\s*(?:of\s*)?\(?(\$\s?\d[\d,.]*\s?[kKmM]?)/i.exec(text)?.[1];
  const time =
    /\b(?:in|within|next|over)\s+(?:the\s+next\s+)?(\d+)\s*(month|week)s?\b/i.exec(text) ?? /(\d+)\s*(month)s?\s*(?:of\s*)?runway/i.exec(text);
  const runway = /(\d+)\s*months?\s*(?:of\s*)?runway|running out of (?:money|cash) in (\d+) months/i.exec(text);
  const team = /(\d+)\s+(developers|engineers|people)\b/i.exec(text);
  const audience = /(\d[\d,]*)\s+(paying customers|customers|free users|users)\b/i.exec(text);
  const hours = /(\d+)\s*hours?\s*(?:\/|per\s)\s*week/i.exec(text);
  const goal = /\b(?:goal|success(?: criteria)?)\s*:\s*([^.]+)/i.exec(text)?.[1];
  if (money) f.money = money;
  if (budget) f.budget = budget;
  if (time) f.time = `${time[1]}-${time[2]!.toLowerCase()}`;
  if (runway) f.runway = `${runway[1] ?? runway[2]} months`;
  if (team) f.team = `${team[1]} ${team[2]!.toLowerCase()}`;
  else if (/\bsolo\b|\balone\b|no technical co-?founder/i.test(text)) f.team = 'solo';
  if (audience) f.audience = `${audience[1]} ${audience[2]!.toLowerCase()}`;
  if (hours) f.hours = hours[1]!;
  if (goal) f.goal = clipChars(goal.trim(), 100);
  return f;
}

// ---- the seed and the paths it drives ----

/**
 * The session part of a step key ("seed:sp2/r3/financial_analyst#1" → "seed").
 * Everything that must hold for a whole debate (polarised or not, which rounds
 * drift, how a vote splits) hashes from it, never from the attempt number.
 */
export const seedOf = (key: string) => {
  const i = key.indexOf(':');
  return i > 0 ? key.slice(0, i) : key.replace(/#\d+$/, '');
};

/** How a sub-problem's debate runs: most converge, some polarise into deadlock, some agree too early. */
export type DebateMode = 'polarised' | 'groupthink' | 'normal';

export function debateMode(seed: string, subProblemId: string): DebateMode {
  const h = hash(`${seed}|${subProblemId}|mode`) % 100;
  return h < 18 ? 'polarised' : h < 30 ? 'groupthink' : 'normal';
}

/** Rounds (never the opening) in which the discussion wanders off the goal: about one in ten. */
export const driftRound = (seed: string, subProblemId: string, round: number) => round >= 2 && hash(`${seed}|${subProblemId}|r${round}|drift`) % 100 < 10;

const codes = (v: unknown): string[] => [...new Set(list(v).filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()))];
const nameOf = (code: string) => personaByCode(code)?.name ?? ucFirst(code.replace(/_/g, ' '));
const joinAnd = (items: string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`);
const namesOf = (cs: string[]) => joinAnd(cs.map(nameOf)) || 'the others';

// ---- problem_statement ----

type Category = 'product' | 'pricing' | 'growth' | 'technical' | 'hiring' | 'strategy' | 'finance' | 'operations' | 'legal' | 'other';

const CATEGORY_KEYWORDS: [Category, RegExp][] = [
  ['hiring', /\bhir(?:e|es|ing)\b|recruit|co-?founder|salesperson|contractor|employee|freelancer/gi],
  ['pricing', /\bpric|\btiers?\b|\/month|\/mo\b|per month|monetis|monetiz|subscription|discount|usage-based|freemium/gi],
  ['technical', /rewrit|refactor|migrat|architect|codebase|tech(?:nical)? debt|database|\brust\b|python|scal(?:ing|ability|able)|infrastructure|legacy code/gi],
  ['growth', /marketing|\bseo\b|\bads\b|channel|growth|acquisition|outbound|audience|traffic|grow my|\bgrow\b/gi],
  ['product', /feature|\bproduct\b|\bapp\b|\bmvp\b|\bbuild\b|launch|roadmap/gi],
  ['finance', /\binvest|funding|\braise\b|loan|runway|budget|investor|\bcash\b/gi],
  ['legal', /legal|\bcontracts?\b|trademark|lawsuit|compliance|gdpr|incorporat|licen[cs]/gi],
  ['operations', /process|operations|supplier|logistics|workload|outsourc|burnout|burnt out/gi],
  ['strategy', /pivot|niche|direction|strategy|double down|\bmarket\b|segment|expand|name my|\bbrand/gi],
];

function categoryOf(problem: string, context: string): Category {
  const score = (re: RegExp) => (problem.match(re) ?? []).length * 2 + (context.match(re) ?? []).length;
  const scored = CATEGORY_KEYWORDS.map(([c, re], i) => ({ c, i, n: score(re) })).filter((x) => x.n > 0);
  scored.sort((a, b) => b.n - a.n || a.i - b.i);
  return scored[0]?.c ?? 'other';
}

/** Words that make a question generic: with these removed, nothing concrete is left to decide. */
const GENERIC =
  /\b(?:succeed|success(?:ful)?|happ(?:y|ier|iness)|better|improve|make it|make money|get rich|grow my (?:business|company|startup)|be great|thrive|win|what should i do(?: next| now)?(?: with my life)?|where (?:do|should) i (?:start|begin)|my life|my career)\b/gi;

/** Too vague to decompose: short, generic, nothing concrete to decide, no context to go on. */
function isVague(problem: string, context: string): boolean {
  if (context.length >= 20 || wordCount(problem) > 12 || /\d/.test(problem)) return false;
  if (alternatives(choiceOf(problem)).length) return false;
  return categoryOf(problem.replace(GENERIC, ' '), '') === 'other';
}

/** Rich context: numbers and specifics the board can work from. */
function isRich(context: string): boolean {
  return Object.keys(factsOf(context)).length >= 2 || (/\d/.test(context) && wordCount(context) >= 8);
}

function safetyOf(text: string): { allowed: boolean; reason: string } {
  for (const [re, reason] of B.HARMFUL_REQUESTS) if (re.test(text)) return { allowed: false, reason };
  return { allowed: true, reason: 'ordinary business decision' };
}

type ClarificationKey = keyof typeof B.CLARIFICATIONS;

/** The facts that block each kind of decision most, most blocking first. */
const CLARIFY_PRIORITY: Partial<Record<Category, ClarificationKey[]>> = {
  hiring: ['team', 'budget', 'goal', 'time', 'audience'],
  pricing: ['audience', 'goal', 'budget', 'time', 'team'],
  growth: ['budget', 'goal', 'time', 'audience', 'team'],
  technical: ['team', 'time', 'goal', 'budget', 'audience'],
  product: ['goal', 'audience', 'budget', 'time', 'team'],
};

function clarificationsFor(problem: string, context: string, f: Facts, r: Rng) {
  if (isRich(context)) return [];
  const known: Record<ClarificationKey, boolean> = {
    budget: !!(f.budget ?? f.money),
    goal: !!f.goal,
    time: !!f.time,
    team: !!f.team,
    audience: !!f.audience,
    naming: false,
  };
  const order = CLARIFY_PRIORITY[categoryOf(problem, context)] ?? ['goal', 'budget', 'time', 'team', 'audience'];
  const topical: ClarificationKey[] = /\bname\b|\bbrand/i.test(problem) ? ['naming'] : [];
  const missing = order.filter((k) => !known[k]);
  const keys = [...topical, ...(missing.length ? missing : (['goal'] as const))];
  return keys.slice(0, r.int(1, Math.min(3, keys.length))).map((k) => ({ ...B.CLARIFICATIONS[k] }));
}

const problemStatement: Generator = (h, r) => {
  const problem = str(h.problem);
  const context = contextOf(h);
  const f = factsOf(`${problem} ${context}`);
  const found: string[] = [];
  if (f.budget) found.push(`The ${f.budget} mentioned is the budget available for this; no outside funding is assumed.`);
  else if (f.money) found.push(`The figures given (such as ${f.money}) are current and accurate.`);
  if (f.time) found.push(`The ${f.time} timeline is a firm constraint rather than a rough estimate.`);
  if (f.team === 'solo') found.push('You remain the only full-time person on this unless the decision itself adds someone.');
  else if (f.team) found.push(`The current team of ${f.team} stays in place while this is decided.`);
  if (f.hours) found.push(`Available time stays at roughly ${f.hours} hours per week.`);
  if (f.audience) found.push(`The existing ${f.audience} stay roughly stable while this is decided.`);
  if (!found.length) found.push('No hard constraints apply beyond those stated; current resources stay as they are.');
  const assumptions = r.shuffle(found).slice(0, r.int(1, Math.min(3, found.length)));
  const safety = safetyOf(`${problem} ${context}`);
  return {
    statement: restate(problem),
    clarifications: safety.allowed ? clarificationsFor(problem, context, f, r) : [],
    assumptions,
    domains: detectDomains(`${problem} ${context}`),
    category: categoryOf(problem, context),
    vague: isVague(problem, context),
    safety,
  };
};

// ---- decompose ----

const IRREVERSIBLE =
  /\bhir(?:e|es|ing)\b|co-?founder|equity|rewrit|migrat|pivot|\binvest|\bcontracts?\b|\bsign(?:s|ed|ing)?\b|\bquit\b|\bsell (?:the|my|our) (?:company|business|startup)/i;

/** Which templates carry which hard-to-reverse commitment when the problem mentions it. */
const HARD_TO_REVERSE: Partial<Record<B.TemplateName, RegExp>> = {
  strategy: IRREVERSIBLE,
  people: /co-?founder|equity|\bhir(?:e|es|ing)\b/i,
  legal: /equity|\bsign(?:s|ed|ing)?\b|\bcontracts?\b/i,
  technical: /rewrit|migrat/i,
  finance: /\binvest/i,
  product: /pivot/i,
  market: /pivot/i,
};

function hardNote(template: B.TemplateName, problem: string): string {
  const m = HARD_TO_REVERSE[template]?.exec(problem);
  if (!m) return '';
  const phrase = B.IRREVERSIBLE_PHRASES.find(([re]) => re.test(m[0]))?.[1] ?? 'This commitment';
  return `${phrase} is hard to reverse, so this part needs a high bar.`;
}

/** Distinct concerns a problem lists ("build, launch, price, hire for and fund…"), questions or bullet points. */
function concernCount(problem: string, context: string): number {
  let best = 0;
  for (const s of problem.replace(/\([^)]*\)/g, '').split(/(?<=[.?!])\s+/)) {
    // A list joined by "or" offers alternatives for one decision, not separate concerns.
    if (/\bor\b/i.test(s) || !/\band\b/i.test(s)) continue;
    best = Math.max(best, s.split(/,\s*|\s+and\s+/i).filter((x) => x.trim().length > 1).length);
  }
  const questions = (`${problem} ${context}`.match(/\?/g) ?? []).length;
  const bullets = (`${problem}\n${context}`.match(/^\s*(?:[-*•]|\d+[.)])\s+/gm) ?? []).length;
  return Math.max(best, questions, bullets);
}

const ITEM_TEMPLATES: [RegExp, B.TemplateName][] = [
  [/pric|monetis|monetiz|charge/i, 'pricing'],
  [/\bhir|recruit|staff|\bteam\b|co-?founder/i, 'people'],
  [/fund|raise|financ|budget|invest|pay for|cash/i, 'finance'],
  [/legal|incorporat|trademark|contract|protect|equity/i, 'legal'],
  [/launch|market|sell|promot|grow|acquir|customers?/i, 'market'],
  [/\bbuild|develop|ship|\bcode|design|\bmake\b|product/i, 'product'],
  [/scal|operat|\brun\b|support|process/i, 'operations'],
  [/tech|architect|infrastructure|platform|stack/i, 'technical'],
  [/risk|secur|safe/i, 'risk'],
];

const FILL_ORDER: B.TemplateName[] = ['market', 'finance', 'product', 'people', 'operations', 'technical', 'risk', 'measures', 'legal', 'pricing'];

/** Makes every sub-problem's domain set different from the ones before it. */
function distinctDomains(sets: Domain[][]): Domain[][] {
  const seen = new Set<string>();
  const all = ['strategy', ...DOMAIN_KEYWORDS.map(([d]) => d)] as Domain[];
  return sets.map((set) => {
    let out = [...new Set(set)].slice(0, 3);
    for (const extra of all) {
      if (!seen.has([...out].sort().join())) break;
      if (!out.includes(extra)) out = [...out.slice(0, 2), extra];
    }
    seen.add([...out].sort().join());
    return out;
  });
}

const decompose: Generator = (h, r) => {
  const problem = str(h.problem, str(h.statement));
  const context = contextOf(h);
  const f = factsOf(`${problem} ${context}`);
  const choice = choiceOf(problem);
  const hinted = list(h.domains).filter((d): d is Domain => typeof d === 'string' && ALL_DOMAINS.has(d));
  const domains = hinted.length ? hinted : detectDomains(`${problem} ${context}`);
  const userContext = context
    ? ` From what you told us: ${sentence(clipSentences(context, 240))}`
    : ' No further context was given; assume current resources stay as they are.';
  const pricingProblem = /\bpric|\btiers?\b|monetis|monetiz|\/month/i.test(problem);

  // Slots the goal templates in text-banks.ts fill from the user's own facts.
  const slots = {
    budget: f.budget ?? 'the available cash',
    runway: f.runway ? ` and the ${f.runway} of runway` : '',
    audience: f.audience ? ` (building on the ${f.audience})` : '',
    team: f.team === 'solo' ? ' beyond you alone' : f.team ? ` beyond the current ${f.team}` : '',
    hours: f.hours ? `about ${f.hours} hours a week` : 'the hours actually available',
  };
  const T = B.SUBPROBLEM_TEMPLATES;
  // The overall direction carries a hard-to-reverse note only when the user's own choice names the commitment.
  const noted = (template: B.TemplateName) => (template === 'strategy' && !choice ? '' : hardNote(template, problem));
  const withNote = (goal: string, template: B.TemplateName) => {
    const note = IRREVERSIBLE.test(goal) ? '' : noted(template);
    return note ? `${sentence(goal)} ${note}` : goal;
  };
  const complexityOf = (template: B.TemplateName, lo: number, hi: number) => (noted(template) ? r.int(7, 8) : r.int(lo, hi));
  const directionDomains: Domain[] = ['strategy', ...domains.filter((d) => d !== 'strategy').slice(0, 1)];
  const direction = (id: string, complexity: number) => ({
    id,
    title: !choice
      ? T.strategy.title
      : choice.length <= 100
        ? `Overall direction: ${choice}`
        : `Overall direction: which of the ${Math.max(2, alternatives(choice).length)} paths to take`,
    goal: withNote(choice ? sentence(`Decide which path to take: ${clipChars(choice, 240)}`) : T.strategy.goal, 'strategy'),
    context: `${T.strategy.note}${userContext}`,
    successCriteria: [...T.strategy.criteria.slice(0, r.int(1, 2)), ...(f.goal ? [`Keeps the stated goal in reach: ${f.goal}`] : [])],
    dependsOn: [] as string[],
    complexity,
    domains: directionDomains,
  });
  const fromTemplate = (name: B.TemplateName, id: string, dependsOn: string[]) => {
    const t = T[name];
    return {
      id,
      title: t.title,
      goal: withNote(fill(t.goal, slots), name),
      context: `${t.note}${userContext}`,
      successCriteria: t.criteria.slice(0, r.int(1, 2)).concat(f.goal && r.chance(0.3) ? [`Supports the goal: ${f.goal}`] : []),
      dependsOn,
      complexity: complexityOf(name, 2, 6),
      domains: [...t.domains] as Domain[],
    };
  };
  /** A mix of sequential and parallel: sp2 and sp3 always differ, later ones vary; only earlier ids. */
  const dependsOnFor = (i: number, previousSecond: string[] | undefined): string[] => {
    if (i === 1) return r.chance(0.7) ? ['sp1'] : [];
    if (i === 2) return previousSecond?.length ? [] : ['sp1'];
    const roll = r.next();
    return roll < 0.4 ? ['sp1'] : roll < 0.7 ? [] : [`sp${r.int(2, i)}`];
  };
  const finish = (subProblems: ReturnType<typeof direction>[], atomic: boolean, rationale: string) => {
    const sets = distinctDomains(subProblems.map((s) => s.domains));
    return { subProblems: subProblems.map((s, i) => ({ ...s, domains: sets[i]! })), atomic, rationale };
  };

  // Too vague to split: one high-level sub-problem that pins down what success means.
  if (h.vague === true || isVague(problem, context)) {
    const v = B.VAGUE_SUBPROBLEM;
    return finish(
      [{ id: 'sp1', title: v.title, goal: v.goal, context: `${v.note}${userContext}`, successCriteria: v.criteria, dependsOn: [], complexity: r.int(3, 5), domains: ['strategy', 'people'] }],
      false,
      'The question is too open to split into concrete parts; the board first defines what success means and the first step towards it.',
    );
  }

  const concerns = concernCount(problem, context);
  // Atomic: a short question with (next to) no context is one decision.
  if (concerns < 5 && problem.length < 120 && context.length < 40) {
    return finish(
      [direction('sp1', complexityOf('strategy', 2, 4))],
      true,
      'This is a single, self-contained choice; splitting it would only add overhead.',
    );
  }

  let names: B.TemplateName[];
  if (concerns >= 5) {
    // Overly complex: one part per concern (the engine groups them into meta-problems).
    const n = r.int(6, 7);
    const items = problem.replace(/\([^)]*\)/g, '').split(/,\s*|\s+and\s+|[.?!]\s+|\n/);
    names = [];
    for (const item of items) {
      const match = ITEM_TEMPLATES.find(([re]) => re.test(item))?.[1];
      if (match && !names.includes(match)) names.push(match);
    }
    for (const extra of FILL_ORDER) if (!names.includes(extra)) names.push(extra);
    names = names.slice(0, n - 1);
  } else {
    names = domains.filter((d) => d !== 'strategy').map((d) => (d === 'finance' && pricingProblem ? 'pricing' : d)) as B.TemplateName[];
    for (const extra of ['measures', 'operations', 'risk'] as const) if (!names.includes(extra)) names.push(extra);
    const n = clamp(2 + (domains.length >= 3 ? 1 : 0) + (r.chance(0.5) ? 1 : 0), 2, 4);
    names = names.slice(0, n - 1);
  }

  const subProblems = [direction('sp1', complexityOf('strategy', 4, 6))];
  let second: string[] | undefined;
  for (const [i, name] of names.entries()) {
    const dependsOn = dependsOnFor(i + 1, second);
    if (i === 0) second = dependsOn;
    subProblems.push(fromTemplate(name, `sp${i + 2}`, dependsOn));
  }
  const titles = subProblems.map((s) => s.title.split(':')[0]!.toLowerCase());
  return finish(
    subProblems,
    false,
    concerns >= 5
      ? `The problem bundles ${concerns} distinct concerns, so it splits into ${subProblems.length} parts: ${titles.join('; ')}. Several can be debated in parallel once the overall direction is set.`
      : `The decision splits into ${subProblems.length} parts: ${titles.join('; ')}. The overall direction comes first; the others refine how to carry it out and can partly be debated in parallel.`,
  );
};

// ---- debate: personas, stances, contributions ----

interface PersonaHint {
  code: string;
  name: string;
  risk: Risk;
  outlook: Outlook;
  concerns: string[];
  voice: B.Voice;
}

function personaOf(v: unknown): PersonaHint {
  const p = rec(v);
  const code = str(p.code, 'expert');
  const risk = (['low', 'medium', 'high'] as const).find((x) => x === p.riskTolerance) ?? 'medium';
  const outlook = (['skeptical', 'balanced', 'optimistic'] as const).find((x) => x === p.optimism) ?? 'balanced';
  // Vote hints carry no concerns or name: fall back to the pool's persona.
  const known = personaByCode(code);
  const given = list(p.concerns).filter((c): c is string => typeof c === 'string' && c.trim() !== '');
  const concerns = given.length ? given : (known?.typicalConcerns ?? []);
  return {
    code,
    name: str(p.name, known?.name ?? ucFirst(code.replace(/_/g, ' '))),
    risk,
    outlook,
    concerns: concerns.length >= 2 ? concerns : [...concerns, ...B.DEFAULT_CONCERNS],
    voice: B.VOICES[code] ?? B.DEFAULT_VOICE,
  };
}

function subProblemOf(v: unknown) {
  const sp = rec(v);
  const title = str(sp.title, 'the decision');
  // A meta-problem ("A & B") is named by its first part; a verb-led title ("Clarify the direction") by its object.
  const head = title.split(':')[0]!.split(' & ')[0]!.trim().replace(/^(?:clarify|decide|define|choose|pick|set|find|plan|settle)\s+/i, '');
  const core = clipWords(lcFirst(head), 8);
  const focus = /^(the|a|an|this|your)\s/i.test(core) || core === 'the decision' ? core : `the ${core}`;
  return {
    id: str(sp.id, 'sp1'),
    title,
    goal: str(sp.goal, 'Decide the best way forward'),
    context: str(sp.context),
    complexity: num(sp.complexity),
    focus,
  };
}

/** The goal as a clause that reads after "we need to". */
const goalClause = (sp: { goal: string }) =>
  /^decide\b/i.test(sp.goal) ? lcFirst(noStop(clipWords(sp.goal, 24))) : `settle this: ${noStop(clipWords(sp.goal, 20))}`;

/** The user's own alternatives, when the sub-problem lists them after a colon. */
function alternativesOf(sp: { title: string; goal: string }): string[] {
  const afterColon = (t: string) => (t.includes(':') ? t.slice(t.lastIndexOf(':') + 1).trim() : '');
  return alternatives(afterColon(firstSentence(sp.goal)) || afterColon(sp.title));
}

function varsOf(p: PersonaHint, focus: string): Record<string, string> {
  return {
    focus,
    lens: p.voice.lens,
    metric: p.voice.metric,
    habit: p.voice.habit,
    concern: p.concerns[0]!,
    concern2: p.concerns[1]!,
  };
}

const ownStance = (p: PersonaHint, focus: string) => clipChars(ucFirst(fill(B.OWN_STANCES[p.risk], varsOf(p, focus))), 200);

function commonStance(sp: { id: string; title: string; focus: string }): string {
  const template = B.COMMON_STANCES[hash(`${sp.id}|${sp.title}`) % B.COMMON_STANCES.length]!;
  return clipChars(ucFirst(fill(template, { focus: sp.focus })), 200);
}

type Camp = 'commit' | 'hold';

/** In a polarised debate: the bold commit, the cautious hold, the balanced split by seed. */
function campOf(p: PersonaHint, seed: string, spId: string): Camp {
  if (p.risk === 'high' || (p.risk === 'medium' && p.outlook === 'optimistic')) return 'commit';
  if (p.risk === 'low' || p.outlook === 'skeptical') return 'hold';
  return hash(`${seed}|${spId}|${p.code}|camp`) % 2 ? 'commit' : 'hold';
}

type Family = 'common' | 'commit' | 'hold' | 'pilot' | 'stage' | 'other';

function familyOf(position: string, common: string): Family {
  if (position === common) return 'common';
  if (/^commit\b/i.test(position)) return 'commit';
  if (/^do not commit\b/i.test(position)) return 'hold';
  if (/^pilot\b/i.test(position)) return 'pilot';
  if (/^stage\b/i.test(position)) return 'stage';
  if (/^(?:time-box a pilot|take a reversible first step|start .+ small)/i.test(position)) return 'common';
  return 'other';
}

/** How two stances relate: the shared pilot line sits near both the pilot and the staged view, unless one side is holding out. */
function compatibility(a: Family, b: Family, holdingOut: boolean): 'same' | 'near' | 'opposed' {
  if (a === b && a !== 'other') return 'same';
  const pair = new Set([a, b]);
  if (!holdingOut && pair.has('common') && (pair.has('pilot') || pair.has('stage'))) return 'near';
  if (pair.has('pilot') && pair.has('stage')) return 'near';
  return 'opposed';
}

/** The same key with the round and attempt removed: stable for one persona across a debate. */
const threadOf = (key: string) => key.replace(/#\d+$/, '').replace(/\/r\d+(?=\/|$)/, '');

type Phase = 'opening' | 'early' | 'middle' | 'late';

function phaseOf(v: unknown, round: number, maxRounds: number): Phase {
  if (v === 'opening' || v === 'early' || v === 'middle' || v === 'late') return v;
  if (round <= 1) return 'opening';
  if (round >= 3 && round / maxRounds >= 0.8) return 'late';
  return round <= 4 ? 'early' : 'middle';
}

const MODERATOR_KINDS = ['contrarian', 'skeptic', 'optimist', 'deadlock'] as const;
type ModeratorKind = (typeof MODERATOR_KINDS)[number];

function researchQuestion(p: PersonaHint, sp: { title: string; goal: string; context: string; focus: string }, r: Rng): string {
  const text = `${sp.title} ${sp.goal} ${sp.context}`;
  const topical = B.TOPIC_RESEARCH.filter(([re]) => re.test(text)).flatMap(([, qs]) => qs);
  if (topical.length && r.chance(0.6)) return r.pick(topical);
  return clipChars(fill(B.PERSONA_RESEARCH[p.code] ?? B.DEFAULT_RESEARCH, { focus: sp.focus }), 300);
}

const stripResearchPrefix = (t: string) => t.replace(/^based on general knowledge \(not a live source\):\s*/i, '');

type Basis = 'evidence' | 'experience' | 'assumption';

function claimsFor(
  count: number,
  phase: Phase,
  skeptic: boolean,
  assumptionRate: number,
  research: { query: string; findings: string }[],
  vars: Record<string, string>,
  r: Rng,
) {
  const out: { claim: string; basis: Basis }[] = [];
  const cited = research[0];
  if (cited && count > 0) out.push({ claim: clipChars(sentence(`Research indicates ${lcFirst(noStop(firstSentence(stripResearchPrefix(cited.findings))))}`), 300), basis: 'evidence' });
  const used = new Set<string>();
  while (out.length < count) {
    const roll = r.next();
    const basis: Basis =
      phase === 'late' || skeptic ? (roll < 0.6 ? 'experience' : 'evidence') : roll < assumptionRate ? 'assumption' : roll < 0.7 ? 'experience' : 'evidence';
    const claim = ucFirst(fill(r.pick(B.CLAIMS[basis]), vars));
    if (used.has(claim)) {
      if (used.size >= 6) break;
      continue;
    }
    used.add(claim);
    out.push({ claim, basis });
  }
  return out;
}

/**
 * One expert's turn, opening or later. The sub-problem's debate mode (from the
 * seed) decides the dynamics: normal debates start contested and converge, a
 * polarised one splits into two camps that disagree with everyone until a
 * deadlock intervention, and a groupthink one agrees at once until a contrarian
 * shakes it up.
 */
function debateTurn(h: Rec, r: Rng, key: string, opening: boolean) {
  const p = personaOf(h.persona);
  const sp = subProblemOf(h.subProblem);
  const vars = varsOf(p, sp.focus);
  const seed = seedOf(key);
  const thread = threadOf(key);
  const round = opening ? 1 : Math.max(2, Math.floor(num(h.round) ?? 2));
  const maxRounds = Math.max(round, Math.floor(num(h.maxRounds) ?? 5));
  const phase: Phase = opening ? 'opening' : phaseOf(h.phase, round, maxRounds);
  const previous = str(h.previous);
  const others = list(h.others)
    .map(rec)
    .map((o) => ({ persona: str(o.persona), position: str(o.position) }))
    .filter((o) => o.persona && o.persona !== p.code);
  const panel = codes(h.panel);
  const peers = (panel.length ? panel : others.map((o) => o.persona)).filter((c) => c !== p.code);
  const moderator = rec(h.moderator);
  const modKind: ModeratorKind | undefined = MODERATOR_KINDS.find((k) => k === moderator.kind);
  const research = list(h.research)
    .map(rec)
    .map((x) => ({ query: str(x.query), findings: str(x.findings) }))
    .filter((x) => x.findings);
  const question = str(h.question);
  const redirect = h.redirect === true;
  const mode = debateMode(seed, sp.id);
  const common = commonStance(sp);
  const own = ownStance(p, sp.focus);
  const camp = campOf(p, seed, sp.id);
  const holdout = rng(`${thread}|holdout`).chance(0.25);

  // ---- where this expert stands now ----
  type Stance = 'entrenched' | 'compromise' | 'adopted' | 'open' | 'own' | 'broke';
  let stance: Stance;
  if (mode === 'polarised') {
    // The deadlock breaks only through the facilitator's proposal, then spreads to those who see others accept it.
    if (!opening && previous === common) stance = 'adopted';
    else if (!opening && !holdout && (modKind === 'deadlock' || others.some((o) => o.position === common))) stance = 'compromise';
    else stance = 'entrenched';
  } else if (opening) stance = 'own';
  else if (mode === 'groupthink' && modKind === 'contrarian' && (p.risk === 'low' || p.outlook === 'skeptical' || rng(`${thread}|break`).chance(0.5))) stance = 'broke';
  else if (mode === 'groupthink' && (round === 2 || previous === common)) stance = 'adopted';
  else {
    const drift = (round - 1) / Math.max(2, maxRounds * 0.6);
    const pull = modKind === 'deadlock' || modKind === 'optimist' ? 0.25 : 0;
    if (previous === common || (!holdout && r.next() < drift + pull)) stance = 'adopted';
    else if (!holdout && drift >= 0.35) stance = 'open';
    else stance = 'own';
  }
  const campStance = clipChars(ucFirst(fill(B.CAMP_STANCES[camp], vars)), 200);
  const position =
    stance === 'entrenched'
      ? campStance
      : stance === 'adopted' || stance === 'compromise'
        ? common
        : stance === 'open'
          ? clipChars(`${own}, though open to: ${lcFirst(common)}`, 200)
          : own;

  // ---- who they side with ----
  const agreesWith: string[] = [];
  const disagreesWith: string[] = [];
  const known = new Map(others.map((o) => [o.persona, o.position]));
  const mine = familyOf(position, common);
  if (!opening || others.length) {
    // Divergence early, convergence late: the chance to challenge a peer falls as the debate nears its cap.
    const base = phase === 'opening' ? 0.5 : phase === 'late' ? 0.15 : clamp(0.8 - 0.7 * (round / maxRounds), 0.1, 0.7);
    const pDis = clamp(base + (holdout || stance === 'broke' ? 0.25 : 0) - (stance === 'adopted' ? 0.15 : 0), 0.05, 0.95);
    for (const peer of peers) {
      const roll = r.next();
      if (stance === 'entrenched') disagreesWith.push(peer);
      else if (mode === 'groupthink' && stance === 'adopted' && !modKind) agreesWith.push(peer);
      else {
        const theirs = known.get(peer);
        const fit = theirs === undefined ? 'unknown' : compatibility(mine, familyOf(theirs, common), holdout || stance === 'broke');
        if (fit === 'same') {
          if (roll < 0.85) agreesWith.push(peer);
        } else if (fit === 'near') {
          if (roll < pDis * 0.8) disagreesWith.push(peer);
          else if (roll > 0.5) agreesWith.push(peer);
        } else if (fit === 'opposed') {
          if (roll < Math.max(0.3, pDis)) disagreesWith.push(peer);
        } else if (roll < pDis) disagreesWith.push(peer);
        else if (roll < pDis + (1 - pDis) * 0.6) agreesWith.push(peer);
      }
    }
  }

  const confidence = round2(
    clamp(
      stance === 'entrenched'
        ? 0.78 + r.next() * 0.12
        : 0.62 +
            (p.risk === 'high' ? 0.06 : p.risk === 'low' ? -0.03 : 0) +
            (p.outlook === 'optimistic' ? 0.04 : p.outlook === 'skeptical' ? -0.04 : 0) +
            (stance === 'adopted' || stance === 'compromise' ? 0.05 + (phase === 'late' ? 0.08 : 0) : 0) +
            (stance === 'broke' ? -0.05 : 0) +
            (modKind === 'optimist' ? 0.03 : 0) +
            (r.next() - 0.5) * 0.12,
      0.5,
      0.9,
    ),
  );
  // Some boards lean on assumptions (the sceptic's trigger), others argue from evidence and experience throughout.
  const assumptionRate = hash(`${seed}|${sp.id}|claims`) % 100 < 35 ? 0 : 0.35;
  const claims = claimsFor(opening ? r.int(1, 2) : r.int(research.length ? 1 : 0, 3), phase, modKind === 'skeptic', assumptionRate, research, vars, r);
  const researchRequest = !opening && round <= 6 && r.chance(research.length ? 0.1 : 0.2) ? researchQuestion(p, sp, r) : null;
  return { p, sp, vars, seed, thread, round, maxRounds, phase, previous, others, known, modKind, research, question, redirect, mode, common, own, camp, holdout, stance, position, agreesWith, disagreesWith, confidence, claims, researchRequest };
}

const openingStatement: Generator = (h, r, key) => {
  const t = debateTurn(h, r, key, true);
  const { p, sp, vars } = t;
  const alts = alternativesOf(sp);
  const risk: Risk = t.stance === 'entrenched' ? (t.camp === 'commit' ? 'high' : 'low') : p.risk;
  const text = compose(
    [
      { text: fill(r.pick(B.OPENING_INTROS), vars), required: true },
      { text: r.pick(B.STANCE_SENTENCES[risk]), required: true },
      ...(alts.length ? [{ text: fill(r.pick(B.OPENING_LEANS), { alt: clipWords(r.pick(alts), 12) }) }] : []),
      { text: fill(B.CONCERN_SENTENCES[0]!, vars) },
      { text: sentence(`Put simply, we need to ${goalClause(sp)}`) },
      { text: p.voice.habit },
      { text: fill(B.CONCERN_SENTENCES[1]!, vars) },
      { text: B.OPTIMISM_SENTENCES[p.outlook] },
      { text: `The question I want answered first is ${p.voice.question}.` },
    ],
    r.shuffle(B.PADDING),
    { min: 100, max: 150, target: r.int(112, 140) },
  );
  return {
    text,
    position: t.stance === 'entrenched' ? t.position : ownStance(p, sp.focus),
    agreesWith: t.agreesWith,
    disagreesWith: t.disagreesWith,
    confidence: t.confidence,
    claims: t.claims,
    researchRequest: null,
  };
};

const CONCESSION = /concede|fair challenge|I accept that|stronger than I first|I can support|I agree with the direction/i;

/** Another expert's stance in a few words: its kind, or a short quote when it fits no kind. */
function stanceName(position: string, common: string): string {
  const family = familyOf(position, common);
  if (family !== 'other') return B.STANCE_NAMES[family];
  const clipped = clipWords(noStop(position), 10);
  return `"${clipped}${clipped.length < noStop(position).length ? '…' : ''}"`;
}

/** How a persona takes a point the person raised mid-debate, by risk tolerance. */
const INTERVENTION_REPLIES: Record<Risk, string> = {
  low: 'it raises the stakes, so I would protect the downside before anything else.',
  medium: 'it shifts the balance, and I would fold it into the first milestone.',
  high: 'it is a reason to move faster, not slower, as long as we measure it.',
};

const contribution: Generator = (h, r, key) => {
  const t = debateTurn(h, r, key, false);
  const { p, sp, vars, round, previous, stance, common } = t;
  // What this turn must say, by priority: if it would overflow, the least important goes first.
  const parts: { text: string; priority: number; order: number }[] = [];
  const add = (text: string, priority: number, order: number) => parts.push({ text, priority, order });

  // The person's intervention comes first and is answered by name of its point.
  const intervention = str(h.intervention);
  if (intervention) add(`Responding to your point, "${clipWords(noStop(intervention), 16)}": ${INTERVENTION_REPLIES[p.risk]}`, 11, -1);
  if (t.redirect) add(fill(r.pick(B.REDIRECT_LEADS), { goal: goalClause(sp) }), 9, 0);
  if (t.modKind) {
    add(
      t.modKind === 'deadlock' && stance === 'entrenched'
        ? fill(B.DEADLOCK_REFUSALS[0]!, vars)
        : fill(r.pick(B.MODERATOR_REPLIES[t.modKind]), { ...vars, common: lcFirst(common) }),
      8,
      1,
    );
  }
  // Answer the facilitator's question when addressed by name, otherwise most of the time.
  if (t.question && (t.question.includes(p.name) || r.chance(0.5))) add(`${r.pick(B.QUESTION_LEADS)} ${fill(r.pick(B.QUESTION_ANSWERS), vars)}`, 3, 2);

  // Respond to the others, by name.
  if (stance === 'entrenched' && t.disagreesWith.length) {
    add(fill(r.pick(B.CAMP_LINES[t.camp]), { names: namesOf(t.disagreesWith.slice(0, 2)) }), 6, 3);
  } else {
    const against = t.disagreesWith.find((c) => t.known.has(c));
    const withThem = t.agreesWith.find((c) => t.known.has(c));
    if (against) add(fill(r.pick(B.DISAGREE_LINES), { ...vars, name: nameOf(against), stance: stanceName(t.known.get(against)!, common) }), 5, 3);
    else if (withThem) add(fill(r.pick(B.AGREE_LINES), { ...vars, name: nameOf(withThem), stance: stanceName(t.known.get(withThem)!, common) }), 5, 3);
    else if (t.disagreesWith.length) add(`I disagree with ${namesOf(t.disagreesWith.slice(0, 2))} on how fast to move.`, 5, 3);
    else if (t.agreesWith.length) add(`I agree with ${namesOf(t.agreesWith.slice(0, 2))} on the overall direction.`, 5, 3);
  }

  const cited = t.research[0];
  if (cited) {
    const finding = clipWords(noStop(firstSentence(stripResearchPrefix(cited.findings))), 22);
    const query = noStop(cited.query || 'the open question');
    const short = clipWords(query, 14);
    add(sentence(fill(r.pick(B.RESEARCH_CITES), { query: short.length < query.length ? `${short}…` : short, finding })), 7, 4);
  }
  if (driftRound(t.seed, sp.id, round) && !t.redirect) add(r.pick(B.DRIFT_TANGENTS), 4, 5);
  if (t.researchRequest) add(fill(r.pick(B.RESEARCH_REQUEST_LEADS), { question: t.researchRequest }), 10, 6);
  while (parts.reduce((n, x) => n + wordCount(x.text), 0) > 80 && parts.length > 1) {
    const lowest = parts.reduce((lo, x) => (x.priority < lo.priority ? x : lo));
    parts.splice(parts.indexOf(lowest), 1);
  }
  const required = parts.sort((x, y) => x.order - y.order).map((x) => x.text);
  // The usual opener only when nothing more pressing leads the turn.
  const lead =
    required.length > 0
      ? ''
      : round >= 4
        ? r.pick(B.LATE_LEADS)
        : previous
          ? fill(r.pick(B.RESPONSE_LEADS), { previous: lcFirst(noStop(clipWords(previous, 22))) })
          : '';

  const close =
    stance === 'adopted'
      ? fill(r.pick(B.CONVERGE_SENTENCES), vars)
      : stance === 'broke'
        ? sentence(`I am stepping back from the easy consensus until I see ${vars.metric}`)
        : t.holdout && round >= 3 && stance !== 'entrenched'
          ? B.HOLDOUT_SENTENCES[0]!
          : '';
  const target = r.int(75, 105);
  const fixed = wordCount(lead) + wordCount(close) + required.reduce((n, s) => n + wordCount(s), 0);
  const budget = Math.max(12, target - fixed);

  // Novelty decay: from round 4 a growing share of the body comes from a small fixed per-persona set
  // (entrenched experts keep finding new ways to say no, so a polarised debate stays lively until it deadlocks).
  const share = round <= 3 || stance === 'entrenched' ? 0 : Math.min(1, (round - 3) * 0.3);
  const coreSet = rng(`${t.thread}|core`).shuffle(B.CORE_TEMPLATES).slice(0, 5).map((s) => sentence(ucFirst(fill(s, vars))));
  const core: string[] = [];
  let coreWords = 0;
  for (const s of coreSet) {
    if (share === 0 || fixed + coreWords + wordCount(s) > 118 || (core.length > 0 && coreWords + wordCount(s) > share * budget + 4)) break;
    core.push(s);
    coreWords += wordCount(s);
  }
  // Each round turns to a new angle, the same for every speaker of that round (order shuffled per sub-problem).
  const angles = rng(`${t.seed}|${sp.id}|angles`).shuffle(B.ANGLES);
  const angle = round - 2 < angles.length ? angles[round - 2]! : undefined;
  // Fewer new angles as the debate runs on: two early, one in the middle, none late.
  const angleCount = round <= 3 ? 2 : round <= 5 ? 1 : 0;
  const angleLines = angle ? r.shuffle(angle.lines).slice(0, angleCount).map((s) => fill(s, vars)) : [];
  // Late rounds also recycle a few fixed fresh lines: the debate is running dry.
  const freshPool = round >= 6 ? rng(`${t.thread}|fresh`).shuffle(B.FRESH_TEMPLATES).slice(0, 4) : B.FRESH_TEMPLATES;
  // Those holding their ground do not concede in passing.
  const firm = stance === 'entrenched' || (t.holdout && stance === 'own');
  const fresh = r
    .shuffle(freshPool)
    .filter((s) => !firm || !CONCESSION.test(s))
    .map((s) => fill(s, vars));
  const text = compose(
    [
      ...(lead ? [{ text: lead, required: true }] : []),
      ...required.map((text) => ({ text, required: true })),
      ...core.map((text) => ({ text, required: true })),
      ...angleLines.map((text) => ({ text })),
      ...fresh.map((text) => ({ text })),
      ...(close ? [{ text: close, required: true }] : []),
    ],
    [],
    { min: 60, max: 120, target },
  );
  return {
    text,
    position: t.position,
    agreesWith: t.agreesWith,
    disagreesWith: t.disagreesWith,
    confidence: t.confidence,
    claims: t.claims,
    researchRequest: t.researchRequest,
  };
};

// ---- facilitator, moderators, research ----

const facilitatorRound: Generator = (h, r, key) => {
  const sp = subProblemOf(h.subProblem);
  const seed = seedOf(key);
  const round = Math.max(1, Math.floor(num(h.round) ?? 2));
  const maxRounds = Math.max(round, Math.floor(num(h.maxRounds) ?? 5));
  const phase = phaseOf(h.phase, round, maxRounds);
  const panel = codes(h.panel);
  const contributions = list(h.contributions)
    .map(rec)
    .map((c) => ({
      persona: str(c.persona, 'expert'),
      position: str(c.position),
      agreesWith: codes(c.agreesWith),
      disagreesWith: codes(c.disagreesWith),
      researchRequest: str(c.researchRequest),
    }));

  // Agreement: the share aligned on one position. Speakers who challenged no one and backed someone are aligned;
  // so are the members of the largest camp (same kind of stance, by its first word) who challenged no one.
  const n = contributions.length;
  const backing = contributions.filter((c) => c.disagreesWith.length === 0 && c.agreesWith.length > 0).length;
  const camps = new Map<string, number>();
  for (const c of contributions) {
    const camp = c.position.split(/\s+/)[0]!.toLowerCase();
    if (camp && c.disagreesWith.length === 0) camps.set(camp, (camps.get(camp) ?? 0) + 1);
  }
  const largestCamp = Math.max(0, ...camps.values());
  const aligned = Math.max(backing, largestCamp >= 2 ? largestCamp : 0);
  const agreement = n ? round2(aligned / n) : 0.5;

  const drifted = driftRound(seed, sp.id, round);
  const relevance = drifted ? round2(3.5 + r.next() * 2) : round2(7 + r.next() * 2.5);
  const sentiment =
    (agreement < 0.34 && r.chance(0.6)) || (phase === 'late' && r.chance(0.3)) ? 'pessimistic' : agreement >= 0.75 ? 'optimistic' : 'balanced';

  const clashes = contributions.flatMap((c) => c.disagreesWith.map((d) => [c.persona, d] as const));
  const requests = contributions.filter((c) => c.researchRequest);
  const speakers = contributions.map((c) => nameOf(c.persona));
  const summary = [
    contributions.length
      ? `In round ${round} on ${sp.focus}, ${joinAnd(speakers)} spoke; ${aligned >= 2 ? `${aligned} of ${n} were aligned on one position` : 'no two of them were aligned yet'}.`
      : `Round ${round} on ${sp.focus} produced no contributions to summarise.`,
    clashes.length
      ? `The main disagreements: ${joinAnd(clashes.slice(0, 3).map(([a, b]) => `${nameOf(a)} challenged ${nameOf(b)}`))}.`
      : contributions.length
        ? 'Nobody challenged another expert directly this round.'
        : '',
    str(h.intervention) && contributions.length ? `They took up your point ("${clipWords(noStop(str(h.intervention)), 12)}"): ${joinAnd(speakers)} answered it first.` : '',
    drifted ? r.pick(B.FACILITATOR_DRIFT_NOTES) : requests.length ? `${joinAnd(requests.map((c) => nameOf(c.persona)))} asked for research before deciding.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const seen = new Set<string>();
  const keyArguments = contributions
    .filter((c) => c.position && !seen.has(c.position) && seen.add(c.position))
    .slice(0, 5)
    .map((c) => clipChars(`${nameOf(c.persona)}: ${c.position}`, 240));

  // Who has something to add: the challenged, the challengers, research askers, and anyone not heard this round.
  const pool = panel.length ? panel : contributions.map((c) => c.persona);
  const spoke = new Set(contributions.map((c) => c.persona));
  const eager = new Set<string>([...clashes.flat(), ...requests.map((c) => c.persona), ...pool.filter((c) => !spoke.has(c))]);
  let wantsToSpeak = pool.filter((c) => eager.has(c));
  if (!wantsToSpeak.length && pool.length) wantsToSpeak = r.shuffle(pool).slice(0, Math.min(2, pool.length));

  const vars = { focus: sp.focus };
  const nextQuestion = drifted
    ? `Coming back to the goal (${noStop(clipWords(goalClause(sp), 20))}): which option serves it best, and why?`
    : clashes.length
      ? `${nameOf(clashes[0]![0])} and ${nameOf(clashes[0]![1])}, what single piece of evidence would change your view on ${sp.focus}?`
      : fill(r.pick(phase === 'late' ? B.FACILITATOR_LATE_QUESTIONS : B.FACILITATOR_QUESTIONS), vars);
  return { summary, keyArguments, relevance, agreement, sentiment, wantsToSpeak, nextQuestion };
};

const moderatorText: Generator = (h, r) => {
  const kind: ModeratorKind = MODERATOR_KINDS.find((k) => k === h.kind) ?? 'contrarian';
  const sp = subProblemOf(h.subProblem);
  const named = list(h.positions)
    .map(rec)
    .map((x) => str(x.persona))
    .filter(Boolean);
  const vars = { focus: sp.focus, names: named.length ? namesOf(named.slice(0, 3)) : 'The experts' };
  if (kind === 'deadlock') {
    const D = B.DEADLOCK_TEXTS;
    const way = r.pick(['pilot', 'criterion', 'split'] as const);
    return {
      text: compose(
        [
          { text: fill(r.pick(D.open), { ...vars, names: named.length ? namesOf(named.slice(0, 4)) : 'the experts' }), required: true },
          { text: r.pick(D.acknowledge), required: true },
          { text: fill(D.ways[way], vars), required: true },
          { text: r.pick(D.close), required: true },
        ],
        [...D.acknowledge, ...D.close],
        { min: 60, max: 120, target: 90 },
      ),
    };
  }
  const M = B.MODERATOR_TEXTS[kind];
  return {
    text: compose(
      [
        { text: fill(r.pick(M.open), vars), required: true },
        ...r.shuffle(M.body).map((text, i) => ({ text: fill(text, vars), required: i < 2 })),
        { text: r.pick(M.close), required: true },
      ],
      M.close,
      { min: 60, max: 120, target: r.int(70, 100) },
    ),
  };
};

const research: Generator = (h, r) => {
  const query = str(h.query, 'the open question');
  const sp = subProblemOf(h.subProblem);
  const topic = B.RESEARCH_FINDINGS.find(([re]) => re.test(query)) ?? B.RESEARCH_FINDINGS.find(([re]) => re.test(`${sp.title} ${sp.goal}`));
  const found = topic ? [...topic[1]] : r.shuffle(B.RESEARCH_GENERAL).slice(0, 2);
  const findings = compose(
    [
      { text: `${B.RESEARCH_PREFIX} ${found[0] ?? B.RESEARCH_GENERAL[0]!}`, required: true },
      ...found.slice(1).map((f) => ({ text: ucFirst(f) })),
      { text: sentence(`For the question "${noStop(clipWords(query, 20))}", this suggests treating any single figure as a range rather than a forecast`), required: true },
      { text: r.pick(B.RESEARCH_CAVEATS), required: true },
    ],
    [...B.RESEARCH_GENERAL.map(ucFirst), ...B.RESEARCH_CAVEATS],
    { min: 60, max: 120, target: 90 },
  );
  return { findings, confidence: round2(0.4 + r.next() * 0.3) };
};

// ---- options and votes ----

function optionKind(title: string): B.OptionKind | 'neutral' {
  if (/^commit\b|go all in|full commitment/i.test(title)) return 'bold';
  if (/\bpilot\b|\btest\b|experiment|\btrial\b/i.test(title)) return 'pilot';
  if (/^stage\b|\bstaged\b|phase|defer|\bkeep\b|\bwait\b|\bhold\b|\bstay\b/i.test(title)) return 'cautious';
  return 'neutral';
}

const STATUS_QUO = /\b(?:stay|keep|stick|continue|wait|double down|current|horizontal)\b/i;

const options: Generator = (h, r) => {
  const sp = subProblemOf(h.subProblem);
  const alts = alternativesOf(sp).slice(0, 4);
  const ids = ['A', 'B', 'C', 'D'];
  const hard = `${sp.title} ${sp.goal}`;
  const spOneWay = IRREVERSIBLE.test(hard) || (sp.complexity ?? 0) >= 8;
  const phrase = B.IRREVERSIBLE_PHRASES.find(([re]) => re.test(hard))?.[1];

  let opts: Rec[];
  if (alts.length >= 2) {
    const flagged = alts.map((alt) => IRREVERSIBLE.test(alt));
    // A one-way decision whose alternatives name no commitment: every active path is the hard-to-reverse one.
    if (spOneWay && !flagged.some(Boolean)) alts.forEach((alt, i) => (flagged[i] = !STATUS_QUO.test(alt)));
    if (spOneWay && !flagged.some(Boolean)) flagged[0] = true;
    opts = alts.map((alt, i) => ({
      id: ids[i]!,
      title: clipChars(ucFirst(alt), 120),
      description: `${ucFirst(clipChars(alt, 160))}, as the way to settle ${sp.focus}. ${r.pick(B.ALTERNATIVE_DESCRIPTIONS)}`,
      pros: r.shuffle(B.ALTERNATIVE_PROS).slice(0, r.int(2, 3)),
      cons: r.shuffle(B.ALTERNATIVE_CONS).slice(0, r.int(2, 3)),
      bestIf: r.pick(B.ALTERNATIVE_BEST_IF),
      reversibility: flagged[i] ? 'one_way' : 'two_way',
    }));
  } else {
    let kinds = r.shuffle(['bold', 'pilot', 'cautious'] as const).slice(0, r.chance(0.75) ? 3 : 2);
    if (spOneWay && !kinds.includes('bold')) kinds = ['bold', ...kinds.slice(1)];
    opts = kinds.map((kind, i) => {
      const a = B.OPTION_ARCHETYPES[kind];
      const vars = { focus: sp.focus };
      return {
        id: ids[i]!,
        title: clipChars(ucFirst(fill(a.title, vars)), 120),
        description: sentence(fill(a.description, vars)),
        pros: r.shuffle(a.pros).slice(0, r.int(2, 3)),
        cons: r.shuffle(a.cons).slice(0, r.int(2, 3)),
        bestIf: a.bestIf,
        reversibility: kind === 'bold' && spOneWay ? 'one_way' : 'two_way',
      };
    });
  }
  const oneWay = opts.some((o) => o.reversibility === 'one_way');
  return {
    options: opts,
    decisionReversibility: oneWay ? 'one_way' : 'two_way',
    reversibilityWhy: oneWay
      ? `${phrase ?? 'The leading commitment'} would be hard to undo once made: it ties up money, people or signatures, so it needs broad agreement before anyone acts.`
      : 'Every option can be tried and reversed within weeks at modest cost, so the board can learn by doing and correct course.',
  };
};

const PREFERENCE: Record<Risk, Record<B.OptionKind | 'neutral', number>> = {
  low: { bold: -1, pilot: 1, cautious: 2, neutral: 0.5 },
  medium: { bold: 0, pilot: 2, cautious: 1, neutral: 0.5 },
  high: { bold: 2, pilot: 1, cautious: -0.5, neutral: 0.5 },
};

/**
 * How the board's votes fall on one decision, the same for every voter (keyed
 * by the seed and the options): a clear majority behind one option, an even
 * split between two (ties for an even board), or each voting their own taste.
 */
export function voteSplit(seed: string, optionKeys: string[]): 'clear' | 'split' | 'free' {
  const roll = hash(`${seed}|${optionKeys.join('|')}|votes`) % 100;
  return roll < 35 ? 'split' : roll < 80 ? 'clear' : 'free';
}

const vote: Generator = (h, r, key) => {
  const p = personaOf(h.persona);
  const opts = list(h.options)
    .map(rec)
    .map((o) => ({ id: str(o.id), title: str(o.title, `option ${str(o.id, '?')}`), oneWay: o.reversibility === 'one_way' }))
    .filter((o) => /^[A-D]$/.test(o.id));
  const decision = `${seedOf(key)}|${opts.map((o) => `${o.id}:${o.title}`).join('|')}`;
  const mode = voteSplit(seedOf(key), opts.map((o) => `${o.id}:${o.title}`));
  const scored = opts.map((o) => {
    const kind = optionKind(o.title) === 'neutral' && o.oneWay ? 'bold' : optionKind(o.title);
    let fit = PREFERENCE[p.risk][kind];
    if (p.outlook === 'optimistic' && kind === 'bold') fit += 0.5;
    if (p.outlook === 'skeptical') fit += kind === 'cautious' ? 0.5 : kind === 'bold' ? -0.5 : 0;
    if (o.oneWay && p.risk === 'low') fit -= 0.5;
    const appeal = hash(`${decision}|${o.id}|appeal`) % 1000;
    return { ...o, kind, fit, appeal, score: fit + r.next() * 1.8 };
  });
  const byAppeal = [...scored].sort((a, b) => b.appeal - a.appeal);
  const byTaste = [...scored].sort((a, b) => b.score - a.score);
  let chosen = byTaste[0];
  if (mode === 'clear') chosen = r.chance(0.9) ? byAppeal[0] : byTaste[0];
  if (mode === 'split' && byAppeal.length >= 2) chosen = byAppeal[hash(`${decision}|${p.code}|side`) % 2];
  const runnerUp = byTaste.find((o) => o !== chosen);

  const wide = hash(`${decision}|spread`) % 100 < 30;
  const u = r.next();
  // A clear majority votes with conviction, a split board less so; some boards differ widely in certainty.
  const base = mode === 'clear' ? 0.74 : mode === 'split' ? 0.6 : 0.64;
  const raw = wide ? 0.4 + u * 0.55 : base + (chosen ? chosen.fit : 0) * 0.03 + (u - 0.5) * 0.14;
  const confidence = round2(clamp(raw, 0.4, 0.95));

  // A strong objection: a cautious expert facing a one-way door they did not choose, or a bold one facing a stall.
  const objectTo =
    scored.find((o) => o !== chosen && o.oneWay && p.risk === 'low' && r.chance(0.45)) ??
    scored.find((o) => o !== chosen && o.kind === 'cautious' && p.risk === 'high' && r.chance(0.3));
  const strongObjection = objectTo
    ? fill(objectTo.oneWay && p.risk === 'low' ? B.STRONG_OBJECTIONS.oneWay : B.STRONG_OBJECTIONS.stall, {
        id: objectTo.id,
        title: clipWords(objectTo.title.replace(/\s*\([^)]*\)/g, ''), 12),
      })
    : null;

  const title = chosen?.title ?? 'the first option';
  const rationale = compose(
    [
      { text: `I vote for option ${chosen?.id ?? 'A'}, "${clipWords(title, 14)}".`, required: true },
      { text: r.pick(B.VOTE_REASONS[chosen?.kind ?? 'neutral']), required: true },
      { text: sentence(`It fits how I judge these decisions, through ${p.voice.lens}`) },
      { text: sentence(`My main worry remains ${p.concerns[0]}, and this option handles it best`) },
      ...(runnerUp && !objectTo ? [{ text: `Option ${runnerUp.id} was my second choice, and I would not object strongly to it.` }] : []),
      { text: r.pick(B.VOTE_CLOSERS) },
    ],
    B.VOTE_CLOSERS,
    { min: 50, max: 100, target: r.int(60, 90) },
  );
  return { optionId: chosen?.id ?? 'A', rationale, confidence, strongObjection };
};

const calibration: Generator = (h, r) => {
  const p = personaOf(h.persona);
  const own = rec(h.own);
  const ownId = str(own.optionId);
  const before = num(own.confidence) ?? 0.6;
  const votes = list(h.votes)
    .map(rec)
    .map((v) => ({ persona: str(v.persona), optionId: str(v.optionId) }))
    .filter((v) => v.optionId);
  if (ownId && !votes.some((v) => v.persona === p.code)) votes.push({ persona: p.code, optionId: ownId });
  const counts = new Map<string, number>();
  for (const v of votes) counts.set(v.optionId, (counts.get(v.optionId) ?? 0) + 1);
  const top = Math.max(0, ...counts.values());
  const leaders = [...counts].filter(([, n]) => n === top).map(([id]) => id);
  const mine = counts.get(ownId) ?? 0;
  const where: keyof typeof B.CALIBRATION_REASONS = !ownId || votes.length < 2 ? 'tied' : mine < top ? 'outlier' : leaders.length > 1 ? 'tied' : 'majority';
  const delta = where === 'majority' ? r.int(0, 5) / 100 : where === 'outlier' ? -r.int(5, 15) / 100 : 0;
  return { confidence: round2(clamp(before + delta, 0, 1)), reason: r.pick(B.CALIBRATION_REASONS[where]) };
};

// ---- synthesis and final recommendation ----

/** The voter's reason: the first sentence of the rationale that is not "I vote for …". */
function reasonOf(rationale: string): string {
  const sentences = rationale.match(/[^.!?]+[.!?]+/g) ?? [];
  const reason = sentences.map((x) => x.trim()).find((x) => !/^I vote\b/i.test(x));
  return clipChars(reason ?? 'they saw a better fit in another option.', 200);
}

const MECHANISM_LABELS: Record<string, string> = {
  simple_majority: 'simple majority',
  supermajority: 'a supermajority (at least three quarters), because the decision is hard to reverse',
  confidence_weighted: 'confidence-weighted votes, because the experts’ confidence varied widely',
};

const synthesis: Generator = (h, r) => {
  const opts = list(h.options).map(rec);
  const titleOf = (id: string) => str(opts.find((o) => o.id === id)?.title, `option ${id}`);
  const votes = list(h.votes)
    .map(rec)
    .map((v) => ({ persona: str(v.persona, 'expert'), optionId: str(v.optionId), rationale: str(v.rationale), confidence: num(v.confidence) }))
    .filter((v) => v.optionId);
  const counts = new Map<string, number>();
  for (const v of votes) counts.set(v.optionId, (counts.get(v.optionId) ?? 0) + 1);
  const top = Math.max(0, ...counts.values());
  const leaders = [...counts].filter(([, n]) => n === top).map(([id]) => id);
  const tally = rec(h.tally);
  const deferred = tally.deferred === true;
  const tie = list(tally.tie).filter((x): x is string => typeof x === 'string');
  const winner = typeof tally.winner === 'string' ? tally.winner : 'winner' in tally || leaders.length !== 1 ? null : leaders[0]!;
  const tied = tie.length > 1 ? tie : winner === null && leaders.length > 1 ? leaders : [];
  const consensus = num(tally.consensus) ?? (votes.length ? top / votes.length : 0.5);
  const confs = votes.map((v) => v.confidence).filter((c): c is number => c !== undefined);
  const meanConf = confs.length ? confs.reduce((a, b) => a + b, 0) / confs.length : 0.6;
  const win = opts.find((o) => o.id === winner);
  const leading = winner ?? tied[0] ?? (leaders.length === 1 ? leaders[0] : undefined);
  const backers = leading ? (counts.get(leading) ?? 0) : 0;
  const mechanism = MECHANISM_LABELS[str(tally.mechanism)];
  const how = mechanism ? ` The votes were tallied by ${mechanism}.` : '';

  let recommendation: string;
  let rationale: string;
  if (deferred) {
    const condition = r.pick(B.DEFER_CONDITIONS);
    const lead = leading ? ` Option ${leading}, "${titleOf(leading)}", led with ${backers} of ${votes.length} votes, short of the broad agreement a one-way decision needs.` : '';
    recommendation = `We recommend deferring the commitment until ${condition}, and doing more analysis before anything irreversible.${lead}`;
    rationale = `This is a hard-to-reverse decision and the board did not reach the supermajority it requires, so committing now would override substantial dissent.${how}`;
  } else if (winner) {
    recommendation = `We recommend option ${winner}, "${titleOf(winner)}", backed by ${backers} of ${votes.length} board members.`;
    const pro = str(list(win?.pros)[0]);
    const bestIf = str(win?.bestIf);
    rationale = [
      `The board judged option ${winner} the best fit for the goal.`,
      pro ? sentence(`Its strongest argument is: ${lcFirst(pro)}`) : '',
      bestIf ? sentence(`It is the right call especially if ${lcFirst(noStop(bestIf))}`) : '',
    ]
      .filter(Boolean)
      .join(' ') + how;
  } else if (tied.length) {
    const named = tied.map((id) => `option ${id}, "${titleOf(id)}"`).join(' and ');
    recommendation = `The board is evenly split between ${named}; we recommend treating both as viable and letting a quick, cheap test decide between them.`;
    rationale = `Votes divided equally, so neither option has a clear mandate; the arguments on each side were of similar strength.${how}`;
  } else {
    recommendation = 'We recommend a small, reversible first step and a review once there is evidence.';
    rationale = 'No clear vote was available, so the board defaults to the option that keeps choices open.';
  }

  const inMajority = (id: string) => (deferred ? id === leading : winner ? id === winner : tied.includes(id));
  const dissent = votes
    .filter((v) => !inMajority(v.optionId))
    .map((v) => ({
      persona: v.persona,
      concern: `${nameOf(v.persona)} preferred option ${v.optionId} ("${clipWords(titleOf(v.optionId), 12)}"): ${reasonOf(v.rationale)}`,
    }));

  const caveats: string[] = [];
  const con = str(list((win ?? opts.find((o) => o.id === leading))?.cons)[0]);
  if (deferred) caveats.push('Deferring has its own cost: set a date by which the board revisits this, so the delay does not become a decision by default.');
  if (con) caveats.push(sentence(`Watch for this risk: ${lcFirst(con)}`));
  if (!deferred && win?.reversibility === 'one_way') caveats.push('This is a one-way door: confirm the key assumption before committing money or signatures.');
  if (tied.length || (votes.length > 0 && dissent.length * 2 >= votes.length)) caveats.push('The split vote means new evidence could easily change this decision.');
  caveats.push(...r.shuffle(B.SYNTHESIS_CAVEATS));
  return {
    recommendation,
    rationale,
    dissent,
    confidence: round2(clamp(meanConf * consensus * (deferred ? 0.8 : 1), 0, 1)),
    caveats: caveats.slice(0, deferred ? 3 : r.int(1, 3)),
  };
};

/** A synthesis recommendation as a short clause: the chosen option's title, the tie to break, or the deferral. */
function decisionOf(recommendation: string): string {
  const titles = [...recommendation.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  if (/^we recommend deferring/i.test(recommendation)) {
    const until = /deferring the commitment until ([^,.]+)/i.exec(recommendation)?.[1];
    return `defer ${titles[0] ? `"${lcFirst(titles[0])}"` : 'the commitment'} until ${until ?? 'more analysis is done'}`;
  }
  if (/evenly split/i.test(recommendation) && titles.length > 1) return `run a quick test to choose between ${titles.map(lcFirst).join(' and ')}`;
  if (titles[0]) return lcFirst(titles[0]);
  return noStop(firstSentence(recommendation)).replace(/^we recommend\s+/i, '');
}

type Direction = 'deferred' | 'commit' | 'test' | 'other';

function directionOf(s: { recommendation: string; deferred: boolean }): Direction {
  if (s.deferred || /^we recommend deferring/i.test(s.recommendation)) return 'deferred';
  const core = decisionOf(s.recommendation);
  if (/\bpilot\b|\btest\b|experiment|\btrial\b|\bstage\b|gradual|reversible first step/i.test(core)) return 'test';
  if (/^commit\b|go all in|full commitment|\bhire\b|co-?founder|rewrite|migrate|\bpivot\b|\binvest/i.test(core)) return 'commit';
  return 'other';
}

const finalRecommendation: Generator = (h, r) => {
  const syntheses = list(h.syntheses)
    .map(rec)
    .map((s, i) => ({
      id: str(s.subProblemId, `sp${i + 1}`),
      recommendation: str(s.recommendation),
      confidence: num(s.confidence),
      deferred: s.deferred === true,
      caveats: list(s.caveats),
    }));
  const confs = syntheses.map((s) => s.confidence).filter((c): c is number => c !== undefined);
  const mean = confs.length ? confs.reduce((a, b) => a + b, 0) / confs.length : 0.3;
  const anyDeferred = syntheses.some((s) => directionOf(s) === 'deferred');
  const level = mean >= 0.65 && !anyDeferred ? 'high' : mean >= 0.4 ? 'medium' : 'low';

  // Conflicts: a deferred part holds back what depends on it; a commitment next to a test should wait for the test.
  const conflicts: { between: string[]; resolution: string }[] = [];
  const dirs = syntheses.map((s) => ({ id: s.id, dir: directionOf(s) }));
  for (const d of dirs.filter((x) => x.dir === 'deferred')) {
    const rest = dirs.filter((x) => x.id !== d.id).map((x) => x.id);
    conflicts.push({ between: [d.id, ...rest.slice(0, 2)], resolution: fill(B.CONFLICT_RESOLUTIONS.deferred, { id: d.id }) });
  }
  const committing = dirs.find((x) => x.dir === 'commit');
  const testing = dirs.find((x) => x.dir === 'test');
  if (committing && testing) {
    conflicts.push({ between: [committing.id, testing.id], resolution: fill(B.CONFLICT_RESOLUTIONS.direction, { commit: committing.id, test: testing.id }) });
  }

  const cores = syntheses.map((s) => decisionOf(s.recommendation)).filter(Boolean).slice(0, 4);
  const summary = cores.length
    ? `Taken together, the board's ${cores.length === 1 ? 'decision points' : `${cores.length} decisions point`} to one plan: ${cores.map((c, i) => (i === 0 ? c : `then ${c}`)).join('; ')}. Overall confidence is ${level}, so we recommend treating this as a plan to test and revisit rather than a final verdict.${conflicts.length ? ' Where the parts pull in different directions, the reversible steps come first.' : ''}`
    : 'We recommend a small, reversible first step and a review once there is evidence; the board reached no firm decisions.';
  const steps = cores.map((c) => sentence(clipChars(ucFirst(c), 300)));
  const stepCount = clamp(steps.length + r.int(1, 2), 3, 6);
  for (const s of B.FINAL_STEPS) if (steps.length < stepCount) steps.push(s);
  const caveat = syntheses.map((s) => str(s.caveats[0])).find(Boolean);
  const tradeoffs = [...(caveat ? [caveat] : []), ...r.shuffle(B.FINAL_TRADEOFFS)].slice(0, r.int(1, 3));
  return { summary, conflicts: conflicts.slice(0, 5), steps: steps.slice(0, 8), tradeoffs, confidence: level };
};

// ---- memory: expert summaries, anonymisation, lessons ----

const SUMMARY_CONDITIONS: Record<Risk, readonly string[]> = {
  low: [
    'a small pilot of {focus} shows real demand first',
    'nothing irreversible is signed before the evidence is in',
    'the downside stays affordable if {focus} fails',
    'the key assumption is checked with real customers',
  ],
  medium: [
    'the first cheap test of {focus} confirms the main assumption',
    'early results are reviewed at a fixed date',
    'the budget holds for at least two quarters',
    'the team can absorb the extra work without slipping',
  ],
  high: [
    'we move before the window on {focus} closes',
    'the upside is large enough to justify the risk',
    'the team commits fully rather than hedging',
    'early signals are read quickly and acted on',
  ],
};

const SUMMARY_CLOSERS: Record<Risk, readonly string[]> = {
  low: ['If those conditions fail, I would rather wait than commit.', 'My worry is the cost of being wrong, not the cost of waiting.'],
  medium: ['I would revisit this view once the first results are in.', 'The trade-off is real, but the evidence leans this way.'],
  high: ['Waiting has a cost too, and I think it is the larger one.', 'I would rather learn by doing than by debating longer.'],
};

const SUMMARY_PADDING = [
  'Cheap evidence should come before any large commitment.',
  'The rest of the debate did not change this core view.',
  'That is the view I would want the next discussion to start from.',
];

/** The clause of the latest turn that holds a figure (money, a share, a duration, a count), without its leading connective. */
function keyNumber(turns: string[]): string | undefined {
  const re = /\$\s?\d|\b\d[\d,.]*\s?(?:%|x\b|k\b|months?\b|weeks?\b|days?\b|hours?\b|years?\b|customers\b|users\b|developers\b|people\b|firms\b)/;
  for (const turn of [...turns].reverse()) {
    const clause = turn.split(/[.!?;,:]+(?:\s|$)|\s[-–—]\s/).find((c) => re.test(c));
    if (clause) return noStop(clipWords(clause.trim().replace(/^(?:with|at|given|because|since|as|so|and|but)\s+/i, ''), 10));
  }
  return undefined;
}

const expertSummary: Generator = (h, r) => {
  const p = personaOf(h.persona);
  const sp = subProblemOf(h.subProblem);
  const turns = list(h.contributions).map((x) => str(x)).filter(Boolean);
  const given = str(h.position);
  const lastTurn = turns.at(-1);
  const position = clipChars(
    given.length >= 3 ? given : lastTurn ? noStop(firstSentence(lastTurn)) : ownStance(p, sp.focus),
    200,
  );
  const confidence = round2(clamp(num(h.confidence) ?? 0.5 + r.int(0, 30) / 100, 0, 1));
  const level = confidence >= 0.75 ? 'high' : confidence >= 0.5 ? 'moderate' : 'low';
  const conditions = r
    .shuffle(SUMMARY_CONDITIONS[p.risk])
    .slice(0, r.int(1, 2))
    .map((c) => fill(c, { focus: sp.focus }));
  const figure = keyNumber(turns);
  const summary = compose(
    [
      { text: `On ${sp.focus}, my position: ${lcFirst(noStop(clipWords(position, 16)))}.`, required: true },
      ...(figure ? [{ text: `The key number: ${lcFirst(figure)}.`, required: true }] : []),
      { text: `My confidence is ${level} (${Math.round(confidence * 100)}%).`, required: true },
      { text: `This holds only if ${joinAnd(conditions)}.`, required: true },
      { text: r.pick(SUMMARY_CLOSERS[p.risk]) },
    ],
    r.shuffle(SUMMARY_PADDING),
    { min: 42, max: 75, target: 60 },
  );
  return { summary: clipSentences(summary, 700), position, confidence, conditions };
};

/** Sentence openers and function words that start a capitalised run without being part of a name. */
const NOT_NAME_WORDS = new Set(
  ('The A An Our My We I This That These Those In On At For If When While But And Or So As It Its They Their ' +
    'He She His Her You Your After Before With Without From To By Of Then There Here What Which Who How Why Both Each Every')
    .split(' '),
);

/** Replaces capitalised multi-word names left after scrubbing with [NAME_n]; placeholders stay as they are. */
const anonymise: Generator = (h) => {
  const text = typeof h.text === 'string' ? h.text : '';
  let next = Math.max(0, ...[...text.matchAll(/\[NAME_(\d+)\]/g)].map((m) => Number(m[1])));
  const seen = new Map<string, string>();
  const out = text.replace(/(?<![\p{L}\p{N}_[])\p{Lu}\p{Ll}[\p{L}'’-]*(?:[ \t]+\p{Lu}\p{Ll}[\p{L}'’-]*)+/gu, (run) => {
    const parts = run.split(/[ \t]+/);
    let i = 0;
    while (i < parts.length && NOT_NAME_WORDS.has(parts[i]!)) i++;
    const name = parts.slice(i);
    if (name.length < 2) return run;
    const key = name.join(' ');
    let placeholder = seen.get(key);
    if (!placeholder) {
      next += 1;
      placeholder = `[NAME_${next}]`;
      seen.set(key, placeholder);
    }
    return [...parts.slice(0, i), placeholder].join(' ');
  });
  return { text: out };
};

type LessonKind = 'critical_error' | 'best_practice' | 'domain_knowledge';
interface LessonDraft {
  lesson: string;
  triggerConditions: string;
  suggestedFix: string;
  type: LessonKind;
  tags: string[];
  confidence: [number, number];
}

const knownCategory = (v: unknown): Category | undefined => {
  const c = str(v).toLowerCase();
  return CATEGORY_KEYWORDS.some(([k]) => k === c) ? (c as Category) : undefined;
};
const decisionsLabel = (c: Category | undefined) => (c ? `${c} decisions` : 'business decisions');

const FAILURE_LESSONS: [RegExp, string, (label: string) => Omit<LessonDraft, 'type' | 'tags' | 'confidence'>][] = [
  [/budget|cost|spend|token/i, 'budget', (l) => ({
    lesson: `A deliberation on ${l} can exhaust its budget before it reaches a recommendation when many sub-problems debate for the full number of rounds.`,
    triggerConditions: 'When the decision splits into many sub-problems or the debates run long without converging.',
    suggestedFix: 'Cap the sub-problems and rounds up front, and stop each debate as soon as the positions converge.',
  })],
  [/time ?out|timed out|time_limit|deadline|too long/i, 'timeout', (l) => ({
    lesson: `A session on ${l} can run out of time when every sub-problem gets a full-length debate.`,
    triggerConditions: 'When the session has a time limit and several complex sub-problems.',
    suggestedFix: 'Give the simpler sub-problems shorter debates and checkpoint after each one.',
  })],
  [/rate|429|overload|unavailable|5\d\d|provider|network|connection|server/i, 'provider', (l) => ({
    lesson: `A model provider outage can stop a session on ${l} midway and lose the work done so far.`,
    triggerConditions: 'When the model provider is rate limiting or failing intermittently.',
    suggestedFix: 'Retry with backoff and save progress after each step, so a resumed session does not start over.',
  })],
  [/auth|bad_request|credential|permission|forbidden/i, 'configuration', (l) => ({
    lesson: `A misconfigured model provider stops a session on ${l} before the board can deliberate.`,
    triggerConditions: 'When credentials, model names or request limits of the provider were changed or never checked.',
    suggestedFix: 'Check the provider configuration with a cheap call at start-up, before any session is accepted.',
  })],
  [/refus|unsafe|policy/i, 'refused', (l) => ({
    lesson: `A request framed outside an ordinary business decision is refused before any deliberation on ${l}.`,
    triggerConditions: 'When the problem asks for something harmful or is not a decision at all.',
    suggestedFix: 'Restate the problem as a lawful business choice between concrete options, with a goal.',
  })],
  [/schema|json|invalid|parse|malformed|validation|truncat/i, 'invalid-output', (l) => ({
    lesson: `An answer that does not fit the expected structure can stop a session on ${l} before any recommendation.`,
    triggerConditions: 'When a step asks for a large or deeply nested structured answer.',
    suggestedFix: 'Keep the requested structures small and repair or retry an invalid answer before failing the session.',
  })],
  [/cancel|abort/i, 'cancelled', (l) => ({
    lesson: `A session on ${l} that is stopped midway leaves nothing usable unless interim results are kept.`,
    triggerConditions: 'When a long session may be cancelled before the final recommendation.',
    suggestedFix: 'Publish an interim recommendation after each sub-problem so partial work still helps.',
  })],
  [/vague|unclear|clarif|ambiguous/i, 'vague', (l) => ({
    lesson: `Sessions on ${l} fail when the problem is too vague to split into concrete sub-problems.`,
    triggerConditions: 'When the problem names no concrete choice, goal or constraint.',
    suggestedFix: 'Ask for the goal, the options and the main constraint before starting the debate.',
  })],
];

function failureLesson(reason: string, label: string, cat: string): LessonDraft {
  const found = FAILURE_LESSONS.find(([re]) => re.test(reason));
  const body = found
    ? found[2](label)
    : {
        lesson: `A session on ${label} can fail before any recommendation for reasons unrelated to the decision itself.`,
        triggerConditions: 'When a long session depends on many consecutive model calls.',
        suggestedFix: 'Save the progress of each sub-problem so a retry resumes rather than restarts.',
      };
  return { ...body, type: 'critical_error', tags: [cat, 'failure', found?.[1] ?? 'session'], confidence: [0.6, 0.9] };
}

const DECISION_KINDS: [RegExp, string, string][] = [
  [/\bdefer|\bwait|postpone|more analysis/i, 'defer', 'deferring the commitment until the key assumption is tested'],
  [/\bpilot\b|\btest\b|\btrial\b|experiment|\bstage|gradual|reversible/i, 'pilot', 'a staged pilot before a full commitment'],
  [/\bhir(?:e|ing)\b|recruit|contractor|part-time|salesperson|co-?founder/i, 'hiring', 'a part-time or contract hire before a permanent one'],
  [/\bpric|\btier|discount|subscription/i, 'pricing', 'testing a price change on new customers before existing ones'],
  [/rewrit|migrat|refactor|architect/i, 'technical', 'incremental change over a full rewrite'],
  [/focus|niche|segment|vertical|double down/i, 'focus', 'focusing on one segment before expanding'],
];

function domainLesson(decision: string, label: string, cat: string): LessonDraft {
  const [, kind, choice] = DECISION_KINDS.find(([re]) => re.test(decision)) ?? [/x/, 'first-step', 'a reversible first step with a fixed review date'];
  return {
    lesson: `On ${label}, boards tend to favour ${choice} when the evidence is thin.`,
    triggerConditions: `When ${label} have to be made without data from real customers or comparable cases.`,
    suggestedFix: `Consider ${choice} first, and name the result and the date that would justify going further.`,
    type: 'domain_knowledge',
    tags: [cat, 'domain', kind],
    confidence: [0.4, 0.8],
  };
}

const lessonsExtract: Generator = (h, r) => {
  const category = knownCategory(h.category);
  const label = decisionsLabel(category);
  const cat = category ?? 'general';
  const stops = list(h.stopReasons).map((x) => str(x)).filter(Boolean);
  const decisions = list(h.decisions).map((x) => str(x)).filter(Boolean);
  const deferred = num(h.deferred) ?? 0;
  const ties = num(h.ties) ?? 0;
  const maxRounds = stops.filter((s) => /max[_ -]?rounds|round limit/i.test(s)).length;
  const converged = stops.filter((s) => /converge|consensus|agree/i.test(s)).length;

  const process: LessonDraft[] = [];
  if (maxRounds >= 2 || (maxRounds >= 1 && maxRounds * 2 >= stops.length)) {
    process.push({
      lesson: `On ${label}, debates that run to the round limit usually lack a concrete success criterion to converge on.`,
      triggerConditions: 'When a sub-problem has no measurable success criterion or the experts keep restating their positions.',
      suggestedFix: 'Set tighter success criteria for each sub-problem before the debate starts, and ask each expert what evidence would change their mind.',
      type: 'best_practice',
      tags: [cat, 'process', 'max-rounds'],
      confidence: [0.55, 0.85],
    });
  }
  if (deferred > 0) {
    process.push({
      lesson: `Hard-to-reverse ${label} without broad agreement end up deferred unless the board has a reversible option to choose.`,
      triggerConditions: 'When a one-way decision divides the experts.',
      suggestedFix: 'Include a staged, reversible option such as a pilot or a trial among the options of every one-way decision.',
      type: 'best_practice',
      tags: [cat, 'process', 'deferred'],
      confidence: [0.45, 0.8],
    });
  }
  if (ties > 0) {
    process.push({
      lesson: `Evenly split votes on ${label} often mean the options were not separated by the criterion that matters most.`,
      triggerConditions: 'When the experts split evenly between two options.',
      suggestedFix: 'Name the deciding criterion before the vote, and add a cheap test that would break the tie.',
      type: 'best_practice',
      tags: [cat, 'process', 'tie'],
      confidence: [0.4, 0.75],
    });
  }
  if (converged > 0 && converged * 2 > stops.length) {
    process.push({
      lesson: `Debates on ${label} converge quickly when every sub-problem has a concrete goal.`,
      triggerConditions: 'When the sub-problems are phrased as concrete choices with a stated goal.',
      suggestedFix: 'Keep phrasing sub-problems as concrete choices, each with its goal.',
      type: 'best_practice',
      tags: [cat, 'process', 'convergence'],
      confidence: [0.4, 0.65],
    });
  }
  const failed = h.failed === true;
  const others = [...process, ...(decisions.length ? [domainLesson(r.pick(decisions), label, cat)] : [])];
  const drafts = failed ? [failureLesson(str(h.failureReason), label, cat), ...r.shuffle(others)] : r.shuffle(others);
  if (!drafts.length) {
    drafts.push({
      lesson: `Sessions on ${label} go best when the goal, the options and the main constraint are stated up front.`,
      triggerConditions: 'When a new problem arrives with little context.',
      suggestedFix: 'Ask for the goal, the options and the main constraint before the debate starts.',
      type: 'best_practice',
      tags: [cat, 'process', 'framing'],
      confidence: [0.4, 0.7],
    });
  }
  const picked = drafts.slice(0, r.int(1, Math.min(3, drafts.length)));
  return {
    lessons: picked.map((d) => ({
      lesson: d.lesson,
      triggerConditions: d.triggerConditions,
      suggestedFix: d.suggestedFix,
      confidence: round2(d.confidence[0] + r.next() * (d.confidence[1] - d.confidence[0])),
      tags: [...new Set(d.tags)].slice(0, 6),
      type: d.type,
    })),
  };
};

const lessonText = (v: unknown) => (typeof v === 'string' ? v.trim() : str(rec(v).lesson));

/** Share of content words two texts have in common (Jaccard), when no similarity is given. */
function wordOverlap(a: string, b: string): number {
  const set = (t: string) => new Set(t.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 3));
  const x = set(a);
  const y = set(b);
  const shared = [...x].filter((w) => y.has(w)).length;
  return x.size + y.size - shared > 0 ? shared / (x.size + y.size - shared) : 0;
}

const lessonsSame: Generator = (h, r) => {
  const a = lessonText(h.a);
  const b = lessonText(h.b);
  const similarity = num(h.similarity) ?? wordOverlap(a, b);
  const same = similarity >= 0.82;
  const reason = same
    ? r.pick([
        'Both give the same advice for the same kind of situation; the second adds nothing new.',
        'They are the same lesson in different words: same trigger, same fix.',
      ])
    : r.pick([
        'They share a topic but apply to different situations, so both are worth keeping.',
        'The advice differs: a board that knows one would still learn something from the other.',
      ]);
  return { same, reason };
};

const lessonsQuery: Generator = (h, r) => {
  const problem = str(h.problem);
  const category = knownCategory(h.category) ?? knownCategory(categoryOf(problem, ''));
  const label = decisionsLabel(category);
  const topics = detectDomains(problem).filter((d) => d !== 'strategy' && d !== category);
  // Generalised: no figures, no capitalised names.
  const scrubbed = (anonymise({ text: problem }, r, '') as { text: string }).text;
  const core = clipWords(
    scrubbed
      .replace(/\s*\[NAME_\d+\]/g, '')
      .replace(/(?:\b(?:from|to|of|at|by|for|with|about|around)\s+)?\$?\d[\d,.]*\s?(?:%|[kKmM]\b)?(?:\/\w+)?/g, '')
      .replace(/\bshould (?:I|we)\b/gi, 'whether to')
      .replace(/\s+([,.;:?!])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim(),
    24,
  );
  const about = topics.length ? ` involving ${joinAnd(topics.slice(0, 2))}` : '';
  const query = core ? `${ucFirst(label)}${about}: ${noStop(lcFirst(core))}.` : `${ucFirst(label)}${about}: what went wrong and what worked.`;
  const tags = [...new Set([...(category ? [category] : []), ...topics])].slice(0, r.int(3, 6));
  return { query, tags };
};

const APPLIES_USE = ['Applies here: {gist}.', 'Relevant, as this decision has the same shape: {gist}.', 'Worth keeping in mind: {gist}.'];
const APPLIES_SKIP = ['Too uncertain to rely on for this decision.', 'Low confidence; only worth raising if the debate reaches this point.', 'Not reliable enough to steer this board.'];

const lessonsRank: Generator = (h, r) => {
  const seen = new Set<string>();
  const candidates = list(h.candidates)
    .map(rec)
    .map((c, i) => ({ id: str(c.id, `lesson${i + 1}`), lesson: str(c.lesson, 'a past lesson'), confidence: num(c.confidence) ?? 0, i }))
    .filter((c) => !seen.has(c.id) && (seen.add(c.id), true));
  candidates.sort((a, b) => b.confidence - a.confidence || a.i - b.i);
  return {
    ranked: candidates.map((c) => {
      const shouldUse = c.confidence >= 0.6;
      const gist = clipChars(lcFirst(noStop(clipWords(c.lesson, 12))), 200);
      return { id: c.id, shouldUse, applies: shouldUse ? fill(r.pick(APPLIES_USE), { gist }) : r.pick(APPLIES_SKIP) };
    }),
  };
};

// ---- anything else ----

/** A minimal valid value for a JSON Schema (the subset zod's toJSONSchema emits). */
export function sampleFromSchema(schema: unknown, r: Rng, root: unknown = schema, name = 'value', depth = 0): unknown {
  if (schema === true || schema === undefined) return `simulated ${name}`;
  const s = rec(schema);
  if (depth > 12) return null;
  const next = (sub: unknown, subName = name) => sampleFromSchema(sub, r, root, subName, depth + 1);
  if (typeof s.$ref === 'string') {
    const target = s.$ref
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .reduce<unknown>((node, part) => rec(node)[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    return next(target);
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return r.pick(s.enum);
  for (const k of ['anyOf', 'oneOf'] as const) {
    const branches = list(s[k]);
    if (branches.length) return next(branches.find((b) => rec(b).type !== 'null') ?? branches[0]);
  }
  if (Array.isArray(s.allOf)) {
    const merged = list(s.allOf).map(rec).reduce<Rec>(
      (acc, b) => ({ ...acc, ...b, properties: { ...rec(acc.properties), ...rec(b.properties) }, required: [...list(acc.required), ...list(b.required)] }),
      {},
    );
    const { allOf: _skip, ...restOfS } = s;
    return next({ ...merged, ...restOfS, properties: { ...rec(merged.properties), ...rec(s.properties) } });
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const type = types.find((t) => typeof t === 'string' && t !== 'null') ?? (types.includes('null') ? 'null' : s.properties ? 'object' : s.items ? 'array' : undefined);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return r.chance(0.5);
    case 'integer':
    case 'number': {
      const lo = num(s.minimum) ?? (num(s.exclusiveMinimum) !== undefined ? num(s.exclusiveMinimum)! + (type === 'integer' ? 1 : 0.01) : undefined);
      const hi = num(s.maximum) ?? (num(s.exclusiveMaximum) !== undefined ? num(s.exclusiveMaximum)! - (type === 'integer' ? 1 : 0.01) : undefined);
      const min = lo ?? Math.min(0, hi ?? 0);
      const max = hi ?? min + 100;
      if (type === 'integer') return max < min ? Math.ceil(min) : r.int(Math.ceil(min), Math.floor(max));
      return max < min ? min : round2(clamp(min + r.next() * (max - min), min, max));
    }
    case 'string': {
      if (s.format === 'date-time') return '2024-01-01T00:00:00.000Z';
      if (s.format === 'date') return '2024-01-01';
      if (s.format === 'email') return 'simulated@example.com';
      if (s.format === 'uri' || s.format === 'url') return 'https://example.com/simulated';
      if (s.format === 'uuid') return `00000000-0000-4000-8000-${hash(name).toString(16).padStart(12, '0').slice(0, 12)}`;
      const min = num(s.minLength) ?? 0;
      const max = num(s.maxLength) ?? Infinity;
      let text = `Simulated ${name.replace(/[_-]+/g, ' ')}`;
      while (text.length < min) text += ' text';
      return text.slice(0, Math.max(min, Math.min(max, text.length)));
    }
    case 'array': {
      const min = num(s.minItems) ?? 0;
      const max = num(s.maxItems) ?? Infinity;
      const prefix = list(s.prefixItems);
      const count = Math.min(max, Math.max(min, 1, prefix.length));
      return Array.from({ length: count }, (_, i) => next(prefix[i] ?? s.items ?? true, `${name} item`));
    }
    case 'object': {
      const required = new Set(list(s.required).filter((x): x is string => typeof x === 'string'));
      const out: Rec = {};
      for (const [prop, sub] of Object.entries(rec(s.properties))) {
        // Deep in a recursive schema only required properties, so generation ends.
        if (depth < 6 || required.has(prop)) out[prop] = next(sub, prop);
      }
      return out;
    }
    default:
      return `simulated ${name}`;
  }
}

/** Free text for purposes without a schema. */
export function plainText(hints: Rec, r: Rng): string {
  const topic = str(rec(hints.subProblem).title, str(hints.problem));
  const lead = topic ? `On "${clipChars(topic, 120)}": a considered view follows.` : 'A considered view follows.';
  return [lead, ...r.shuffle(B.PLAIN_SENTENCES).slice(0, r.int(3, 5))].join(' ');
}

export const GENERATORS: Record<string, Generator> = {
  problem_statement: problemStatement,
  decompose,
  opening_statement: openingStatement,
  contribution,
  facilitator_round: facilitatorRound,
  moderator: moderatorText,
  research,
  options,
  vote,
  calibration,
  synthesis,
  final_recommendation: finalRecommendation,
  expert_summary: expertSummary,
  anonymise,
  lessons_extract: lessonsExtract,
  lessons_same: lessonsSame,
  lessons_query: lessonsQuery,
  lessons_rank: lessonsRank,
};
