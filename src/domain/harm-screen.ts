import neighboursFile from '../data/harm-neighbours.json' with { type: 'json' };
import rulesFile from '../data/harm-screen.json' with { type: 'json' };
import { compileHarmScreen, GAP, GAP_WORDS, MASK, words, type CompiledRule, type CompiledScreen, type Pattern } from './harm-rules';

/**
 * The deterministic harm screen run at intake before any model call.
 *
 * A request is refused when one sentence holds a harmful act as a
 * combination of concepts — an action and what it is done to ("hide" ×
 * "income" × "tax authority", "post" × "fake" × "reviews") — rather than
 * one fixed wording, so paraphrases still meet the rule. Each concept is a
 * list of stemmed phrases in src/data/harm-screen.json. A match is excused
 * by cues in the same sentence that make the request defensive or lawful
 * ("protect our users from fraud", "pay less tax legally"), by the person's
 * stance anywhere in the request ("I refuse to pay bribes"), or by a sentence
 * that opens with someone else's act and neither asks nor offers ("Somebody
 * is posting fake reviews of our bakery"); idioms that
 * reuse a harmful word ("kill it at the trade show") are masked first.
 * Precision matters more than recall here: the model's own screen in the
 * problem statement is the second layer.
 */

/** 'ok' when allowed, otherwise a category id from the rules file. */
export type ScreenCategory = string;

export interface ScreenResult {
  allowed: boolean;
  category: ScreenCategory;
  reason: string;
}

type Span = [start: number, end: number];
type Found = Map<string, Span[]>;

/**
 * Where `pattern` matches `ws` from `at`: the end index, or -1. A gap takes
 * the fewest words that work; a reference takes the spans its concept
 * already matched from `at`.
 */
function matchAt(ws: string[], at: number, pattern: Pattern, found: Found, p = 0): number {
  if (p === pattern.length) return at;
  const want = pattern[p];
  if (want === GAP) {
    for (let k = 0; k <= GAP_WORDS && at + k <= ws.length; k++) {
      const end = matchAt(ws, at + k, pattern, found, p + 1);
      if (end >= 0) return end;
    }
    return -1;
  }
  if (typeof want === 'object') {
    for (const [s, e] of found.get(want!.ref) ?? []) {
      if (s !== at) continue;
      const end = matchAt(ws, e, pattern, found, p + 1);
      if (end >= 0) return end;
    }
    return -1;
  }
  return ws[at] === want ? matchAt(ws, at + 1, pattern, found, p + 1) : -1;
}

const NOTHING: Found = new Map();

/** Where each word occurs, so a pattern is only tried where its first word is. */
function positions(ws: string[]): Map<string, number[]> {
  const at = new Map<string, number[]>();
  ws.forEach((w, i) => (at.get(w) ?? at.set(w, []).get(w)!).push(i));
  return at;
}

/** The sentence's words with idioms masked, so "secret weapon" never reads as a weapon. */
function masked(screen: CompiledScreen, sentence: string): string[] {
  const ws = words(sentence);
  const at = positions(ws);
  for (const idiom of screen.idioms) {
    for (const i of at.get(idiom[0] as string) ?? []) {
      const end = matchAt(ws, i, idiom, NOTHING);
      if (end > i) ws.fill(MASK, i, end);
    }
  }
  return ws;
}

/** Every concept and cue found in the sentence, as spans of words; references are found before what uses them. */
function findConcepts(screen: CompiledScreen, ws: string[]): Found {
  const found: Found = new Map();
  const at = positions(ws);
  for (const concept of screen.concepts) {
    const spans: Span[] = [];
    for (const pattern of concept.patterns) {
      const first = pattern[0];
      const starts = typeof first === 'string' ? (at.get(first) ?? []) : (found.get(first!.ref) ?? []).map(([s]) => s);
      for (const start of starts) {
        const end = matchAt(ws, start, pattern, found);
        if (end <= start || spans.some(([s, e]) => s === start && e === end)) continue;
        if (concept.notFollowedBy.some((c) => matchAt(ws, end, c, found) >= 0)) continue;
        spans.push([start, end]);
      }
    }
    if (spans.length) found.set(concept.name, spans);
  }
  return found;
}

/**
 * Where the rule's concepts occur together: for an ordered rule, each place
 * its chain starts; for any order, each place where one of them appears
 * with every other one at or after it (a cue must come before all of the
 * act: "avoid hiring anyone in a wheelchair" is not excused by "avoid",
 * which is part of it).
 */
function ruleStarts(rule: CompiledRule, found: Found): number[] {
  const spans = rule.all.map((c) => found.get(c) ?? []);
  if (spans.some((s) => s.length === 0)) return [];
  if (rule.order === 'any') {
    const starts = [...new Set(spans.flat().map(([start]) => start))];
    return starts.filter((at) => spans.every((s) => s.some(([start]) => start >= at)));
  }
  // In order, each concept starting after the previous one ends and within `gap` words of it.
  const chain = (k: number, after: number): boolean =>
    k === spans.length || spans[k]!.some(([s, e]) => s >= after && s - after <= rule.gap && chain(k + 1, e));
  return spans[0]!.filter(([, e]) => chain(1, e)).map(([s]) => s);
}

function excused(rule: CompiledRule, found: Found, start: number, stance: ReadonlySet<string>): boolean {
  return rule.unless.some(({ name, where, notWith }) => {
    if (where === 'request') return stance.has(name);
    if (notWith.some((n) => found.has(`cue:${n}`))) return false;
    const spans = found.get(`cue:${name}`) ?? [];
    if (where === 'opens') return spans.some(([s]) => s === 0);
    return spans.some(([, end]) => where === 'sentence' || (end <= start && (where === 'before' || start - end <= GAP_WORDS)));
  });
}

/** Sentences: split at . ! ? and line breaks, so a cue in one sentence never excuses another. */
const sentences = (text: string) => text.split(/[.!?\n]+/u).filter((s) => s.trim().length > 0);

function verdict(screen: CompiledScreen, rule: CompiledRule): ScreenResult {
  const reason = screen.reasons.get(rule.category)!.replaceAll('{what}', rule.what);
  return { allowed: false, category: rule.category, reason };
}

/** A refusal in `category` that no rule named: the category's reason with its generic act (the semantic layer's). */
export function categoryVerdict(screen: CompiledScreen, category: string): ScreenResult {
  const template = screen.reasons.get(category);
  if (template === undefined) throw new Error(`unknown harm category ${category}`);
  return { allowed: false, category, reason: template.replaceAll('{what}', screen.generic.get(category)!) };
}

/** The first rule of `scope`, in file order, that matches `found` and is not excused (`stance`: the request-wide cues found). */
function firstMatch(screen: CompiledScreen, found: Found, scope: CompiledRule['scope'], stance: ReadonlySet<string>): CompiledRule | undefined {
  return screen.rules.find((rule) => {
    if (rule.scope !== scope) return false;
    // Any one unexcused occurrence is enough: "I don't see the point in being alive" is excused where the match starts after "don't", not where it starts with it.
    return ruleStarts(rule, found).some((start) => !excused(rule, found, start, stance));
  });
}

/**
 * Screens `text` with compiled rules: sentence rules on each sentence, then
 * rules whose concepts may sit in two neighbouring sentences on each pair,
 * joined by a word that matches nothing so no phrase spans the two.
 */
export function screenWith(screen: CompiledScreen, text: string): ScreenResult {
  const perSentence = sentences(text).map((s) => masked(screen, s));
  const found = perSentence.map((ws) => findConcepts(screen, ws));
  // The request-scope cues found in any sentence: the person's stance counts wherever they state it.
  const cues = found.flatMap((f) => [...f.keys()].filter((k) => k.startsWith('cue:')).map((k) => k.slice('cue:'.length)));
  const stance = new Set(cues.filter((c) => screen.requestCues.has(c)));
  for (const f of found) {
    const rule = firstMatch(screen, f, 'sentence', stance);
    if (rule) return verdict(screen, rule);
  }
  if (screen.rules.some((r) => r.scope === 'adjacent')) {
    const pairs = perSentence.length < 2 ? perSentence : perSentence.slice(1).map((ws, i) => [...perSentence[i]!, MASK, ...ws]);
    for (const ws of pairs) {
      const rule = firstMatch(screen, findConcepts(screen, ws), 'adjacent', stance);
      if (rule) return verdict(screen, rule);
    }
  }
  return { allowed: true, category: 'ok', reason: screen.allowedReason };
}

/**
 * The cues found anywhere in `text`, by name ("legality", "victim"): what
 * the semantic layer reads to let a lawful or defensive request through,
 * since it has no act to place a cue before.
 */
export function cuesWith(screen: CompiledScreen, text: string): Set<string> {
  const found = new Set<string>();
  for (const s of sentences(text)) {
    for (const name of findConcepts(screen, masked(screen, s)).keys()) if (name.startsWith('cue:')) found.add(name.slice('cue:'.length));
  }
  return found;
}

const SCREEN = compileHarmScreen(rulesFile, neighboursFile);

/** The shipped rules, compiled once: the semantic layer reads their cues and category reasons. */
export function shippedScreen(): CompiledScreen {
  return SCREEN;
}

/**
 * Deterministic pre-screen run before any model call: refuses clearly
 * illegal or harmful requests, with the category and a reason; ordinary
 * business hardball ("kill the free tier", "undercut a competitor") passes.
 */
export function screenRequest(text: string): ScreenResult {
  return screenWith(SCREEN, text);
}

/**
 * The model's own refusal (the intake's `safety`) as intake reports it: the
 * model's reason under the category it named. A category whose message
 * speaks to the person rather than about the request (self-harm's support
 * lines: a reason that fills no {what}) keeps that message whatever the model
 * wrote; an empty reason gets the category's own.
 */
export function modelRefusal(category: string | undefined, reason: string): ScreenResult {
  const template = category === undefined ? undefined : SCREEN.reasons.get(category);
  if (template === undefined) return { allowed: false, category: 'model_screen', reason: reason.trim() || 'The model judged the request illegal or harmful.' };
  if (!template.includes('{what}') || !reason.trim()) return categoryVerdict(SCREEN, category!);
  return { allowed: false, category: category!, reason };
}
