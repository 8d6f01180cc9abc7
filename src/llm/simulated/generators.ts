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

// ---- problem_statement ----

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
  return { statement: restate(problem), assumptions, domains: detectDomains(`${problem} ${context}`) };
};

// ---- decompose ----

const decompose: Generator = (h, r) => {
  const problem = str(h.problem, str(h.statement));
  const context = contextOf(h);
  const f = factsOf(`${problem} ${context}`);
  const choice = choiceOf(problem);
  const hinted = list(h.domains).filter((d): d is Domain => typeof d === 'string' && ALL_DOMAINS.has(d));
  const domains = hinted.length ? hinted : detectDomains(`${problem} ${context}`);
  const userContext = context
    ? ` From what you told us: ${sentence(clipChars(context, 220))}`
    : ' No further context was given; assume current resources stay as they are.';

  // Slots the goal templates in text-banks.ts fill from the user's own facts.
  const slots = {
    budget: f.budget ?? 'the available cash',
    runway: f.runway ? ` and the ${f.runway} of runway` : '',
    audience: f.audience ? ` (building on the ${f.audience})` : '',
    team: f.team === 'solo' ? ' beyond you alone' : f.team ? ` beyond the current ${f.team}` : '',
    hours: f.hours ? `about ${f.hours} hours a week` : 'the hours actually available',
  };
  const T = B.SUBPROBLEM_TEMPLATES;
  const direction = (id: string, complexity: number) => ({
    id,
    title: !choice
      ? T.strategy.title
      : choice.length <= 100
        ? `Overall direction: ${choice}`
        : `Overall direction: which of the ${Math.max(2, alternatives(choice).length)} paths to take`,
    goal: choice ? sentence(`Decide which path to take: ${clipChars(choice, 240)}`) : T.strategy.goal,
    context: `${T.strategy.note}${userContext}`,
    successCriteria: [...T.strategy.criteria.slice(0, r.int(1, 2)), ...(f.goal ? [`Keeps the stated goal in reach: ${f.goal}`] : [])],
    dependsOn: [] as string[],
    complexity,
  });

  // Atomic: a short question with (next to) no context is one decision.
  if (problem.length < 120 && context.length < 40) {
    return {
      subProblems: [direction('sp1', r.int(2, 4))],
      rationale: 'This is a single, self-contained choice; splitting it would only add overhead.',
    };
  }

  const rest = domains.filter((d) => d !== 'strategy') as (keyof typeof T)[];
  for (const extra of ['measures', 'operations', 'risk'] as const) if (!rest.includes(extra)) rest.push(extra);
  const n = clamp(2 + (domains.length >= 3 ? 1 : 0) + (r.chance(0.5) ? 1 : 0), 2, 4);
  const subProblems = [direction('sp1', r.int(4, 8))];
  for (const [i, d] of rest.slice(0, n - 1).entries()) {
    const t = T[d];
    const id = `sp${i + 2}`;
    const roll = r.next();
    // Mostly build on the direction; some stand alone so they can run in parallel.
    const dependsOn = roll < 0.5 ? ['sp1'] : roll < 0.75 || i === 0 ? [] : [`sp${r.int(1, i + 1)}`];
    subProblems.push({
      id,
      title: t.title,
      goal: fill(t.goal, slots),
      context: `${t.note}${userContext}`,
      successCriteria: t.criteria.slice(0, r.int(1, 2)).concat(f.goal && r.chance(0.3) ? [`Supports the goal: ${f.goal}`] : []),
      dependsOn,
      complexity: r.int(2, 8),
    });
  }
  const titles = subProblems.map((s) => s.title.split(':')[0]!.toLowerCase());
  return {
    subProblems,
    rationale: `The decision splits into ${subProblems.length} parts: ${titles.join('; ')}. The overall direction comes first; the others refine how to carry it out and can partly be debated in parallel.`,
  };
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
  const head = title.split(':')[0]!.trim();
  const core = clipWords(lcFirst(head), 8);
  const focus = /^(the|a|an|this|your)\s/i.test(core) || core === 'the decision' ? core : `the ${core}`;
  return { id: str(sp.id, 'sp1'), title, goal: str(sp.goal, 'Decide the best way forward'), focus };
}

/** The user's own alternatives, when the sub-problem lists them after a colon. */
function alternativesOf(sp: { title: string; goal: string }): string[] {
  const afterColon = (t: string) => (t.includes(':') ? t.slice(t.lastIndexOf(':') + 1).trim() : '');
  return alternatives(afterColon(sp.goal) || afterColon(sp.title));
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

/** The same key with the round and attempt removed: stable for one persona across a debate. */
const threadOf = (key: string) => key.replace(/#\d+$/, '').replace(/\/r\d+(?=\/|$)/, '');

const openingStatement: Generator = (h, r) => {
  const p = personaOf(h.persona);
  const sp = subProblemOf(h.subProblem);
  const vars = varsOf(p, sp.focus);
  const alts = alternativesOf(sp);
  const goal = /^decide\b/i.test(sp.goal) ? lcFirst(noStop(clipWords(sp.goal, 24))) : `settle this: ${noStop(clipWords(sp.goal, 20))}`;
  const text = compose(
    [
      { text: fill(r.pick(B.OPENING_INTROS), vars), required: true },
      { text: r.pick(B.STANCE_SENTENCES[p.risk]), required: true },
      ...(alts.length ? [{ text: fill(r.pick(B.OPENING_LEANS), { alt: clipWords(r.pick(alts), 12) }) }] : []),
      { text: fill(B.CONCERN_SENTENCES[0]!, vars) },
      { text: sentence(`Put simply, we need to ${goal}`) },
      { text: p.voice.habit },
      { text: fill(B.CONCERN_SENTENCES[1]!, vars) },
      { text: B.OPTIMISM_SENTENCES[p.outlook] },
      { text: `The question I want answered first is ${p.voice.question}.` },
    ],
    r.shuffle(B.PADDING),
    { min: 100, max: 150, target: r.int(112, 140) },
  );
  return { text, position: ownStance(p, sp.focus) };
};

const contribution: Generator = (h, r, key) => {
  const p = personaOf(h.persona);
  const sp = subProblemOf(h.subProblem);
  const vars = varsOf(p, sp.focus);
  const round = Math.max(2, Math.floor(num(h.round) ?? 2));
  const maxRounds = Math.max(round, Math.floor(num(h.maxRounds) ?? 5));
  const previous = str(h.previous);
  const thread = threadOf(key);

  // Convergence: most personas drift to the board's common line; a few hold out.
  const common = commonStance(sp);
  const holdout = rng(`${thread}|holdout`).chance(0.25);
  const drift = (round - 1) / Math.max(2, maxRounds * 0.6);
  const adopt = previous === common || (!holdout && r.next() < drift);
  const own = ownStance(p, sp.focus);
  const position = adopt ? common : !holdout && drift >= 0.35 ? clipChars(`${own}, though open to: ${lcFirst(common)}`, 200) : own;

  const lead =
    round >= 4 ? r.pick(B.LATE_LEADS) : previous ? fill(r.pick(B.RESPONSE_LEADS), { previous: lcFirst(noStop(clipWords(previous, 22))) }) : '';
  const close = adopt ? fill(r.pick(B.CONVERGE_SENTENCES), { common: lcFirst(common) }) : holdout && round >= 3 ? B.HOLDOUT_SENTENCES[0]! : '';
  const target = r.int(75, 105);
  const budget = target - wordCount(lead) - wordCount(close);

  // Novelty decay: from round 3 a growing share of the body comes from a small fixed per-persona set.
  const share = round <= 2 ? 0 : Math.min(1, (round - 2) * 0.35);
  const coreSet = rng(`${thread}|core`).shuffle(B.CORE_TEMPLATES).slice(0, 5).map((t) => sentence(ucFirst(fill(t, vars))));
  const core: string[] = [];
  let coreWords = 0;
  for (const s of coreSet) {
    if (share === 0 || (core.length > 0 && coreWords + wordCount(s) > share * budget + 4)) break;
    core.push(s);
    coreWords += wordCount(s);
  }
  // Late rounds also recycle a few fixed fresh lines: the debate is running dry.
  const freshPool = round >= 4 ? rng(`${thread}|fresh`).shuffle(B.FRESH_TEMPLATES).slice(0, 4) : B.FRESH_TEMPLATES;
  const fresh = r.shuffle(freshPool).map((t) => fill(t, vars));
  const text = compose(
    [
      ...(lead ? [{ text: lead, required: true }] : []),
      ...core.map((text) => ({ text, required: true })),
      ...fresh.map((text) => ({ text })),
      ...(close ? [{ text: close, required: true }] : []),
    ],
    [],
    { min: 60, max: 120, target },
  );
  return { text, position };
};

// ---- options and votes ----

const IRREVERSIBLE = /\bhire|co-?founder|equity|rewrite|migrat|pivot|\binvest|contract|\bsign|\bquit|\bsell\b|acqui/i;

function optionKind(title: string): B.OptionKind | 'neutral' {
  if (/^commit\b|go all in|full commitment/i.test(title)) return 'bold';
  if (/\bpilot\b|\btest\b|experiment|\btrial\b/i.test(title)) return 'pilot';
  if (/^stage\b|\bstaged\b|phase|defer|\bkeep\b|\bwait\b|\bhold\b|\bstay\b/i.test(title)) return 'cautious';
  return 'neutral';
}

const options: Generator = (h, r) => {
  const sp = subProblemOf(h.subProblem);
  const alts = alternativesOf(sp).slice(0, 3);
  const ids = ['A', 'B', 'C'];

  if (alts.length >= 2) {
    return {
      options: alts.map((alt, i) => ({
        id: ids[i]!,
        title: clipChars(ucFirst(alt), 120),
        description: `${ucFirst(clipChars(alt, 160))}, as the way to settle ${sp.focus}. ${r.pick(B.ALTERNATIVE_DESCRIPTIONS)}`,
        pros: r.shuffle(B.ALTERNATIVE_PROS).slice(0, r.int(2, 3)),
        cons: r.shuffle(B.ALTERNATIVE_CONS).slice(0, r.int(2, 3)),
        bestIf: r.pick(B.ALTERNATIVE_BEST_IF),
        reversibility: IRREVERSIBLE.test(alt) || r.chance(0.2) ? 'one_way' : 'two_way',
      })),
    };
  }

  const kinds = r.shuffle(['bold', 'pilot', 'cautious'] as const).slice(0, r.chance(0.75) ? 3 : 2);
  const irreversible = IRREVERSIBLE.test(`${sp.title} ${sp.goal}`) || r.chance(0.4);
  return {
    options: kinds.map((kind, i) => {
      const a = B.OPTION_ARCHETYPES[kind];
      const vars = { focus: sp.focus };
      return {
        id: ids[i]!,
        title: clipChars(ucFirst(fill(a.title, vars)), 120),
        description: sentence(fill(a.description, vars)),
        pros: r.shuffle(a.pros).slice(0, r.int(2, 3)),
        cons: r.shuffle(a.cons).slice(0, r.int(2, 3)),
        bestIf: a.bestIf,
        reversibility: kind === 'bold' && irreversible ? 'one_way' : 'two_way',
      };
    }),
  };
};

const PREFERENCE: Record<Risk, Record<B.OptionKind | 'neutral', number>> = {
  low: { bold: -1, pilot: 1, cautious: 2, neutral: 0.5 },
  medium: { bold: 0, pilot: 2, cautious: 1, neutral: 0.5 },
  high: { bold: 2, pilot: 1, cautious: -0.5, neutral: 0.5 },
};

const vote: Generator = (h, r) => {
  const p = personaOf(h.persona);
  const opts = list(h.options)
    .map(rec)
    .map((o) => ({ id: str(o.id), title: str(o.title, `option ${str(o.id, '?')}`), oneWay: o.reversibility === 'one_way' }))
    .filter((o) => /^[A-D]$/.test(o.id));
  const scored = opts.map((o) => {
    const kind = optionKind(o.title) === 'neutral' && o.oneWay ? 'bold' : optionKind(o.title);
    let fit = PREFERENCE[p.risk][kind];
    if (p.outlook === 'optimistic' && kind === 'bold') fit += 0.5;
    if (p.outlook === 'skeptical') fit += kind === 'cautious' ? 0.5 : kind === 'bold' ? -0.5 : 0;
    if (o.oneWay && p.risk === 'low') fit -= 0.5;
    // A shared appeal per option lets majorities form; the noise lets splits happen.
    const appeal = ((hash(o.title) % 1000) / 1000) * 1.5;
    return { ...o, kind, fit, score: fit + appeal + r.next() * 1.8 };
  });
  scored.sort((a, b) => b.score - a.score);
  const chosen = scored[0];
  const runnerUp = scored[1];
  const confidence = round2(clamp(0.55 + (chosen ? chosen.fit : 0) * 0.08 + (r.next() - 0.5) * 0.3, 0.45, 0.92));
  const title = chosen?.title ?? 'the first option';
  const rationale = compose(
    [
      { text: `I vote for option ${chosen?.id ?? 'A'}, "${clipWords(title, 14)}".`, required: true },
      { text: r.pick(B.VOTE_REASONS[chosen?.kind ?? 'neutral']), required: true },
      { text: sentence(`It fits how I judge these decisions, through ${p.voice.lens}`) },
      { text: sentence(`My main worry remains ${p.concerns[0]}, and this option handles it best`) },
      ...(runnerUp ? [{ text: `Option ${runnerUp.id} was my second choice, and I would not object strongly to it.` }] : []),
      { text: r.pick(B.VOTE_CLOSERS) },
    ],
    B.VOTE_CLOSERS,
    { min: 50, max: 100, target: r.int(60, 90) },
  );
  return { optionId: chosen?.id ?? 'A', rationale, confidence };
};

// ---- synthesis and final recommendation ----

/** The voter's reason: the first sentence of the rationale that is not "I vote for …". */
function reasonOf(rationale: string): string {
  const sentences = rationale.match(/[^.!?]+[.!?]+/g) ?? [];
  const reason = sentences.map((x) => x.trim()).find((x) => !/^I vote\b/i.test(x));
  return clipChars(reason ?? 'they saw a better fit in another option.', 200);
}

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
  const tie = list(tally.tie).filter((x): x is string => typeof x === 'string');
  const winner = typeof tally.winner === 'string' ? tally.winner : 'winner' in tally || leaders.length !== 1 ? null : leaders[0]!;
  const tied = tie.length > 1 ? tie : winner === null && leaders.length > 1 ? leaders : [];
  const consensus = num(tally.consensus) ?? (votes.length ? top / votes.length : 0.5);
  const confs = votes.map((v) => v.confidence).filter((c): c is number => c !== undefined);
  const meanConf = confs.length ? confs.reduce((a, b) => a + b, 0) / confs.length : 0.6;
  const backers = winner ? (counts.get(winner) ?? 0) : 0;
  const win = opts.find((o) => o.id === winner);
  const nameOf = (code: string) => personaByCode(code)?.name ?? code;

  let recommendation: string;
  let rationale: string;
  if (winner) {
    recommendation = `We recommend option ${winner}, "${titleOf(winner)}", backed by ${backers} of ${votes.length} board members.`;
    const pro = str(list(win?.pros)[0]);
    const bestIf = str(win?.bestIf);
    rationale = [
      `The board judged option ${winner} the best fit for the goal.`,
      pro ? sentence(`Its strongest argument is: ${lcFirst(pro)}`) : '',
      bestIf ? sentence(`It is the right call especially if ${lcFirst(noStop(bestIf))}`) : '',
    ]
      .filter(Boolean)
      .join(' ');
  } else if (tied.length) {
    const named = tied.map((id) => `option ${id}, "${titleOf(id)}"`).join(' and ');
    recommendation = `The board is evenly split between ${named}; we recommend treating both as viable and letting a quick, cheap test decide between them.`;
    rationale = `Votes divided equally, so neither option has a clear mandate; the arguments on each side were of similar strength.`;
  } else {
    recommendation = 'We recommend a small, reversible first step and a review once there is evidence.';
    rationale = 'No clear vote was available, so the board defaults to the option that keeps choices open.';
  }

  const inMajority = (id: string) => (winner ? id === winner : tied.includes(id));
  const dissent = votes
    .filter((v) => !inMajority(v.optionId))
    .map((v) => ({
      persona: v.persona,
      concern: `${nameOf(v.persona)} preferred option ${v.optionId} ("${clipWords(titleOf(v.optionId), 12)}"): ${reasonOf(v.rationale)}`,
    }));

  const caveats: string[] = [];
  const con = str(list(win?.cons)[0]);
  if (con) caveats.push(sentence(`Watch for this risk: ${lcFirst(con)}`));
  if (win?.reversibility === 'one_way') caveats.push('This is a one-way door: confirm the key assumption before committing money or signatures.');
  if (tied.length || (votes.length > 0 && dissent.length * 2 >= votes.length)) caveats.push('The split vote means new evidence could easily change this decision.');
  caveats.push(...r.shuffle(B.SYNTHESIS_CAVEATS));
  return {
    recommendation,
    rationale,
    dissent,
    confidence: round2(clamp(meanConf * consensus, 0, 1)),
    caveats: caveats.slice(0, r.int(1, 3)),
  };
};

/** A synthesis recommendation as a short clause: the chosen option's title, or the tie to break. */
function decisionOf(recommendation: string): string {
  const titles = [...recommendation.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  if (/evenly split/i.test(recommendation) && titles.length > 1) return `run a quick test to choose between ${titles.map(lcFirst).join(' and ')}`;
  if (titles[0]) return lcFirst(titles[0]);
  return noStop(firstSentence(recommendation)).replace(/^we recommend\s+/i, '');
}

const finalRecommendation: Generator = (h, r) => {
  const syntheses = list(h.syntheses).map(rec);
  const confs = syntheses.map((s) => num(s.confidence)).filter((c): c is number => c !== undefined);
  const mean = confs.length ? confs.reduce((a, b) => a + b, 0) / confs.length : 0.3;
  const level = mean >= 0.65 ? 'high' : mean >= 0.4 ? 'medium' : 'low';
  const cores = syntheses.map((s) => decisionOf(str(s.recommendation))).filter(Boolean).slice(0, 4);
  const summary = cores.length
    ? `Taken together, the board's ${cores.length === 1 ? 'decision points' : `${cores.length} decisions point`} to one plan: ${cores.map((c, i) => (i === 0 ? c : `then ${c}`)).join('; ')}. Overall confidence is ${level}, so we recommend treating this as a plan to test and revisit rather than a final verdict.`
    : 'We recommend a small, reversible first step and a review once there is evidence; the board reached no firm decisions.';
  const steps = cores.map((c) => sentence(clipChars(ucFirst(c), 300)));
  const stepCount = clamp(steps.length + r.int(1, 2), 3, 6);
  for (const s of B.FINAL_STEPS) if (steps.length < stepCount) steps.push(s);
  const caveat = syntheses.map((s) => str(list(s.caveats)[0])).find(Boolean);
  const tradeoffs = [...(caveat ? [caveat] : []), ...r.shuffle(B.FINAL_TRADEOFFS)].slice(0, r.int(1, 3));
  return { summary, steps, tradeoffs, confidence: level };
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
  options,
  vote,
  synthesis,
  final_recommendation: finalRecommendation,
};
