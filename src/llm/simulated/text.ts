import type { SubProblemBrief } from '../../calls';
import { personaByCode } from '../../domain/personas';
import type { Rng } from './random';

/** What every answer is drawn from: the generator seeded by the request, its key, and the session part of that key. */
export interface Ctx {
  r: Rng;
  key: string;
  seed: string;
}

/**
 * The session part of a step key ("seed:sp2/r3/financial_analyst#1" → "seed").
 * What must hold for a whole debate (polarised or not, which rounds drift, how
 * a vote splits) hashes from it, never from the attempt number.
 */
export const seedOf = (key: string) => {
  const i = key.indexOf(':');
  return i > 0 ? key.slice(0, i) : key.replace(/#\d+$/, '');
};

export const words = (t: string) => t.split(/\s+/).filter(Boolean);
export const wordCount = (t: string) => words(t).length;
export const ucFirst = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);
// Acronyms and proper nouns ("B2B", "SEO") keep their case.
export const lcFirst = (t: string) => (/^[A-Z][a-z]/.test(t) ? t.charAt(0).toLowerCase() + t.slice(1) : t);
export const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));
export const round2 = (n: number) => Math.round(n * 100) / 100;
export const noStop = (t: string) => t.replace(/[\s.!?;:,]+$/, '');
export const sentence = (t: string) => (/[.!?]$/.test(t) ? t : `${t}.`);
export const firstSentence = (t: string) => /^[\s\S]*?[.!?](?=\s|$)/.exec(t)?.[0] ?? t;
export const clipWords = (t: string, n: number) => (wordCount(t) <= n ? t : noStop(words(t).slice(0, n).join(' ')));
export const joinAnd = (items: string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`);
export const nameOf = (code: string) => personaByCode(code)?.name ?? ucFirst(code.replace(/_/g, ' '));
export const namesOf = (codes: string[]) => joinAnd(codes.map(nameOf)) || 'the others';
export const mean = (xs: number[], empty: number) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : empty);

/** Cuts to at most `max` characters at a word boundary (whole sentences when one ends past the middle). */
export function clip(t: string, max: number): string {
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('? '));
  if (end > max / 2) return cut.slice(0, end + 1);
  const space = cut.lastIndexOf(' ');
  return noStop(space > max / 2 ? cut.slice(0, space) : cut);
}

/** Fills `{slot}` placeholders; `{Slot}` capitalises the value. */
export function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? ucFirst(vars[lcFirst(name)] ?? ''));
}

/**
 * Joins sentences into a text of min..max words: required parts always,
 * optional ones until `target`, then padding while short. Order is kept.
 */
export function compose(parts: { text: string; required?: boolean }[], padding: readonly string[], range: { min: number; max: number; target: number }): string {
  let n = parts.filter((p) => p.required).reduce((sum, p) => sum + wordCount(p.text), 0);
  const out = parts
    .filter((p) => {
      if (p.required) return true;
      const c = wordCount(p.text);
      if (n >= range.target || n + c > range.max) return false;
      n += c;
      return true;
    })
    .map((p) => p.text);
  for (const pad of padding) {
    if (n >= range.min) break;
    if (n + wordCount(pad) > range.max) continue;
    out.push(pad);
    n += wordCount(pad);
  }
  let text = out.join(' ');
  while (wordCount(text) < range.min) text += ' That is where I stand.';
  return wordCount(text) > range.max ? sentence(clipWords(text, range.max)) : text;
}

/** What a sub-problem is about, as a noun phrase: a meta-problem ("A & B") by its first part, a verb-led title by its object. */
export function focusOf(sp: Pick<SubProblemBrief, 'title'>): string {
  const head = sp.title.split(':')[0]!.split(' & ')[0]!.trim().replace(/^(?:clarify|decide|define|choose|pick|set|find|plan|settle)\s+/i, '');
  const core = clipWords(lcFirst(head), 8) || 'the decision';
  return /^(the|a|an|this|your)\s/i.test(core) ? core : `the ${core}`;
}

/** The goal as a clause that reads after "we need to". */
export const goalClause = (sp: Pick<SubProblemBrief, 'goal'>) =>
  /^decide\b/i.test(sp.goal) ? lcFirst(noStop(clipWords(sp.goal, 24))) : `settle this: ${noStop(clipWords(sp.goal, 20))}`;

/** The alternatives a choice names ("X, Y or Z"), outside parentheses; [] when it names none. */
export function alternatives(choice: string): string[] {
  if (!/\sor\s/i.test(choice)) return [];
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < choice.length; i++) {
    const ch = choice[i]!;
    depth = Math.max(0, depth + (ch === '(' ? 1 : ch === ')' ? -1 : 0));
    const orHere = depth === 0 && /^\sor\s/i.test(choice.slice(i, i + 4));
    if (depth === 0 && (ch === ',' || orHere)) {
      parts.push(cur);
      cur = '';
      if (orHere) i += 3;
    } else cur += ch;
  }
  const alts = [...parts, cur].map((p) => noStop(p.trim().replace(/^or\s+/i, ''))).filter((p) => p.length >= 2);
  // "name it FooBar or BarFoo": a bare second name borrows the first one's verb phrase.
  const head = words(alts[0] ?? '');
  return alts.length < 2 ? [] : alts.map((a, i) => (i > 0 && wordCount(a) === 1 && head.length > 1 ? `${head.slice(0, -1).join(' ')} ${a}` : a));
}
