/**
 * Guardrails of seed 002, 4.5.11: the user alone decides and acts, so every
 * recommendation is advisory ("We recommend…", never "You must…"); advice
 * touching law, health, money or physical safety, and irreversible
 * decisions, carries an escalation disclaimer; and clearly illegal or
 * harmful requests are refused before any model is called. All rules are
 * deterministic so a replayed session produces the same text.
 */

import { DISCLAIMER_ORDER, DISCLAIMERS, distinctActs, specificDisclaimer, type Disclaimer, type DisclaimerKind } from './disclaimers';

// ───────────────────────────── advisory lint ─────────────────────────────

interface DirectiveRule {
  pattern: RegExp;
  /** Whether the directive forbids ("you must not") rather than orders; the rewrite keeps the polarity. */
  negative: boolean;
  /** The advisory phrase at the start of a clause ("We recommend that you …"). */
  replacement: string;
  /** The phrase starts with "you": judge it by the word before it (see `directiveContext`). */
  contextual: boolean;
}

/**
 * Words after which "you must / have to / need to …" still gives an order:
 * conjunctions and sentence adverbs ("and you must", "honestly you need to").
 * After any other word the phrase is a question ("do you have to"), a
 * condition ("if you need to") or a relative clause ("the runway you have to
 * spend"), none of them directive, so it is left alone.
 */
const CLAUSE_OPENERS = new Set(
  (
    'and but so then now first second third also therefore thus hence honestly frankly really simply seriously basically clearly ' +
    'obviously definitely absolutely today immediately or yet still otherwise next finally ultimately instead rather right well because since'
  ).split(' '),
);
/** Reported speech: "I think you must …" reads better as "I think it would be wise for you to …". */
const THINK_WORDS = new Set('think believe feel say said suggest that argue'.split(' '));

const ADVERB = String.raw`(?:absolutely\s+|really\s+|definitely\s+|simply\s+|just\s+|certainly\s+)?`;

/** Ordered: longer phrases first so a shorter rule never half-rewrites a longer one. */
const DIRECTIVES: DirectiveRule[] = [
  { pattern: /\bdo\s+not\s+under\s+any\s+circumstances\b,?/giu, negative: true, replacement: 'we recommend that you not', contextual: false },
  { pattern: /\bunder\s+no\s+circumstances\s+should\s+you\b/giu, negative: true, replacement: 'we recommend that you not', contextual: false },
  { pattern: /\byou(?:\s+are|'re|’re)\s+(?:required|obligated|obliged)\s+to\b/giu, negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: /\byou\s+have\s+no\s+(?:choice|option)\s+but\s+to\b/giu, negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: /\bit\s+is\s+mandatory\s+(?:that\s+you|for\s+you\s+to)\b/giu, negative: false, replacement: 'we recommend that you', contextual: false },
  { pattern: /\byou\s+should\s+(?:definitely|absolutely|certainly)\b/giu, negative: false, replacement: 'we suggest that you', contextual: true },
  { pattern: new RegExp(String.raw`\byou\s+${ADVERB}(?:must\s+not|mustn't|mustn’t)\b`, 'giu'), negative: true, replacement: 'we recommend that you not', contextual: true },
  { pattern: new RegExp(String.raw`\byou\s+${ADVERB}must\b`, 'giu'), negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: new RegExp(String.raw`\byou(?:'ve|’ve)?\s+${ADVERB}(?:have|got)\s+to\b`, 'giu'), negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: new RegExp(String.raw`\byou\s+${ADVERB}need\s+to\b`, 'giu'), negative: false, replacement: 'we recommend that you', contextual: true },
  // "Must hire a CFO." — an imperative opening a sentence, line or bullet (not "Must-have features").
  { pattern: /(?<=^|[.!?]\s+|^\s*[-*•]\s+)must(?=\s+[a-z])/gimu, negative: false, replacement: 'we recommend that you', contextual: false },
];

/** How the words before a "you must"-style phrase read: an order, an order in reported speech, or not an order at all. */
function directiveContext(text: string, offset: number): 'directive' | 'reported' | 'none' {
  const before = text.slice(0, offset);
  const word = /([A-Za-z'’]+)[ \t]*$/u.exec(before)?.[1]?.toLowerCase();
  if (word === undefined) return 'directive'; // start of text, or right after punctuation
  if (CLAUSE_OPENERS.has(word)) return 'directive';
  if (THINK_WORDS.has(word)) return 'reported';
  return 'none';
}

/** Keeps the match's capital at a sentence start: "You must" → "We recommend that you". */
function caseLike(original: string, replacement: string): string {
  return /^[A-Z]/u.test(original) ? replacement[0]!.toUpperCase() + replacement.slice(1) : replacement;
}

function lintOnce(text: string): { fixed: string; violations: string[] } {
  const violations: string[] = [];
  let fixed = text;
  for (const rule of DIRECTIVES) {
    fixed = fixed.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      // replace() passes (match, ...groups, offset, whole[, namedGroups]): the offset is the first number.
      const at = rest.findIndex((r) => typeof r === 'number');
      const offset = rest[at] as number;
      const whole = rest[at + 1] as string;
      let replacement = rule.replacement;
      if (rule.contextual) {
        const context = directiveContext(whole, offset);
        if (context === 'none') return match;
        if (context === 'reported') replacement = rule.negative ? 'it would be wise for you not to' : 'it would be wise for you to';
        // The verb is elided ("Honestly, you have to."): the advice has no object to carry.
        if (!/^\s+[A-Za-z]/u.test(whole.slice(offset + match.length))) replacement = rule.negative ? 'we recommend against it' : 'we recommend it';
      }
      violations.push(`directive language: "${match.trim().replace(/,$/u, '')}"`);
      return caseLike(match, replacement);
    });
  }
  return { fixed, violations };
}

/**
 * Finds directive language and rewrites it as advice, leaving the rest of the
 * text as written. Rewrites repeat until nothing matches (each one removes a
 * directive word, so this ends), which makes linting `fixed` again a no-op.
 */
export function lintAdvisory(text: string): { ok: boolean; violations: string[]; fixed: string } {
  const violations: string[] = [];
  let fixed = text;
  for (let i = 0; i < 10; i++) {
    const pass = lintOnce(fixed);
    if (!pass.violations.length) break;
    violations.push(...pass.violations);
    fixed = pass.fixed;
  }
  return { ok: violations.length === 0, violations, fixed };
}

// ───────────────────────────── disclaimers ─────────────────────────────

export { DISCLAIMERS, mergeDisclaimers, type Disclaimer, type DisclaimerKind } from './disclaimers';

/**
 * The keyword floor under the model's judgement: medical and physical-safety
 * questions are rare in business decisions and costly to miss. Word-bounded,
 * with lookarounds where business jargon reuses the word ("health check").
 */
const KEYWORDS: Record<'medical' | 'safety', RegExp> = {
  medical:
    /\b(?:medical|medicine|medications?|diagnosed with|therap(?:y|ies|ist)|symptoms?|doctors?|physicians?|prescriptions?|illness(?:es)?|diseases?|surgery|pregnan(?:t|cy)|mental health|depression|anxiety disorder|clinical|patients?|(?<!(?:financial|business|company|customer|account|system|service|codebase|code|brand|team|market|pipeline|portfolio|product|cash|community|platform|server|site)\s)health(?!\s*[- ]?checks?|\s+insurance)(?:care)?)\b/iu,
  safety:
    /\b(?:injur(?:y|ies|e|ed|ing)|hazards?|hazardous|weapons?|firearms?|unsafe|explosives?|toxic|poison(?:s|ous|ing)?|physical (?:safety|harm|risk)|safety risks?|workplace safety|heavy machinery|flammable|electrocution|radiation|chemicals?)\b/iu,
};

/** An act as the disclaimer quotes it: advisory (`lintAdvisory`), lower-case first letter unless an acronym or a name, no closing stop. */
function actText(what: string): string {
  const t = lintAdvisory(what.trim().replace(/\s+/gu, ' ')).fixed.replace(/[\s.;:,]+$/u, '');
  return /^[A-Z][a-z]/u.test(t) ? t.charAt(0).toLowerCase() + t.slice(1) : t;
}

/**
 * Whether what the board recommends is hard to reverse: the chosen option's
 * own door; with no winner (a tie, a deferral), the decision's. A one-way
 * decision answered with a two-way step (measure first, pilot, then decide)
 * gets no irreversibility warning: a trial's plan of reversible steps had
 * closed with "This decision is hard to reverse".
 */
export function recommendsOneWay(
  options: { decisionReversibility: 'one_way' | 'two_way'; options: readonly { id: string; reversibility: 'one_way' | 'two_way' }[] },
  tally: { winner: string | null },
): boolean {
  const chosen = tally.winner === null ? undefined : options.options.find((o) => o.id === tally.winner);
  return (chosen?.reversibility ?? options.decisionReversibility) === 'one_way';
}

/**
 * Escalation disclaimers the advice needs, at most one of each kind, always
 * in the order legal, medical, financial, safety, irreversible; irreversible
 * for a one-way door. The model says where acting on the advice goes beyond
 * general guidance (`beyondGeneralGuidance`, [] when nothing does): each kind
 * it names is one disclaimer, the standard sentence of its kind plus the
 * specific acts, so a database sprint no longer gets "not financial advice".
 * Keyword rules (or a 'medical'/'health'/'safety' domain) add only a medical
 * or physical-safety disclaimer the model left out.
 */
export function disclaimersFor(input: {
  text: string;
  domains: string[];
  oneWayDoor: boolean;
  beyondGeneralGuidance: readonly { kind: Exclude<DisclaimerKind, 'irreversible'>; what: string }[];
}): Disclaimer[] {
  const domains = new Set(input.domains.map((d) => d.toLowerCase()));
  const floor = {
    medical: () => KEYWORDS.medical.test(input.text) || domains.has('medical') || domains.has('health'),
    safety: () => KEYWORDS.safety.test(input.text) || domains.has('safety'),
  };
  const out: Disclaimer[] = [];
  for (const kind of DISCLAIMER_ORDER) {
    if (kind === 'irreversible') {
      if (input.oneWayDoor) out.push({ kind, text: DISCLAIMERS[kind] });
      continue;
    }
    const acts = distinctActs(input.beyondGeneralGuidance.filter((x) => x.kind === kind).map((x) => actText(x.what)));
    if (acts.length) out.push(specificDisclaimer(kind, acts));
    else if ((kind === 'medical' || kind === 'safety') && floor[kind]()) out.push({ kind, text: DISCLAIMERS[kind] });
  }
  return out;
}

// ───────────────────────────── request screen ─────────────────────────────

// The screen's rules are data (src/data/harm-screen.json); the matcher lives in harm-screen.ts.
export { screenRequest, type ScreenCategory, type ScreenResult } from './harm-screen';
