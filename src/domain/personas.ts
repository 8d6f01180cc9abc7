import { z } from 'zod';
import expertWords from '../data/expert-words.json' with { type: 'json' };
import pool from '../data/personas.json' with { type: 'json' };
import { personaSchema, type Persona } from './model';

/** The persona pool, validated once at load; a broken data file (or a code used twice) fails at start. */
export const PERSONAS: readonly Persona[] = z
  .array(personaSchema)
  .min(24)
  .refine((ps) => new Set(ps.map((p) => p.code)).size === ps.length, 'persona codes must be unique')
  .parse(pool);

export const personaByCode = (code: string): Persona | undefined => PERSONAS.find((p) => p.code === code);

/** The persona behind a code the engine chose; an unknown code is a defect, not data. */
export const personaOf = (code: string): Persona => {
  const p = personaByCode(code);
  if (!p) throw new Error(`unknown persona ${code}`);
  return p;
};

export const nameOf = (code: string) => personaByCode(code)?.name ?? code;

/** One line per persona, as the model choosing a board sees the pool. */
export const personaSummary = (p: Persona): string =>
  `${p.name}, ${p.title}: ${p.expertise.join(', ')}; covers ${p.domains.join(', ')}; ${p.riskTolerance} risk, ${p.timeHorizon}-term, ${p.optimism}`;

/**
 * Words that say nothing about a kind of expert ("someone who has …"):
 * matching them would reward whoever has the longest background.
 */
const STOP = new Set(
  'someone somebody person who has have had with and the for that this from into over about who what when can could would should expert experts advisor help need needs want wants like been done does someone'.split(' '),
);

/** Lower-case content words of at least three letters, with a plural or -ing/-ed ending cut so "contractors" meets "contractor". */
export function contentWords(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? [];
  return [...new Set(words.filter((w) => !STOP.has(w)).map(stem))];
}

const stem = (w: string) => (w.length > 5 ? w.replace(/(ing|ed|es|s)$/, '') : w.replace(/s$/, ''));

/**
 * How well a persona answers a description of an expert or a problem: each
 * content word found in the title counts 4, in the expertise 3, in the
 * domains or typical concerns 2, in the background or approach 1 (once per
 * word, at its best place). The weights say where a word means the most: a
 * "pricing" expert has it in the title, not in passing in a career story.
 */
export function relevance(p: Persona, text: string, words: string[] = textWords(text), weight: (word: string) => number = () => 1): number {
  const weights = wordWeights(p);
  let n = 0;
  for (const word of words) {
    let w = weights.known.get(word);
    if (w === undefined) {
      w = Math.max(0, ...weights.vocab.map(([vocab, place]) => (vocab.some((v) => sameWord(word, v)) ? place : 0)));
      // Bounded: the words of the texts a persona was scored against (sub-problem descriptions), not a corpus.
      if (weights.known.size >= 10_000) weights.known.clear();
      weights.known.set(word, w);
    }
    n += weight(word) * w;
  }
  return n;
}

/**
 * A persona's words by weight, built once, and the weight of each word met so
 * far: the board policy scores every persona for every seat of every panel
 * against the same few texts, and rebuilding the vocabulary each time was most
 * of a board selection's CPU.
 */
const weightsByPersona = new WeakMap<Persona, { vocab: (readonly [string[], number])[]; known: Map<string, number> }>();

function wordWeights(p: Persona) {
  let w = weightsByPersona.get(p);
  if (!w) {
    const places: [string, number][] = [
      [`${p.title} ${p.code.replace(/_/g, ' ')}`, 4],
      [p.expertise.join(' '), 3],
      [[...p.domains, ...p.typicalConcerns].join(' '), 2],
      [[p.background, p.approach].join(' '), 1],
    ];
    w = { vocab: places.map(([t, weight]) => [contentWords(t), weight] as const), known: new Map() };
    weightsByPersona.set(p, w);
  }
  return w;
}

/** The last text's content words: scoring a panel asks for the same text once per persona in a row. */
let lastText: { text: string; words: string[] } | null = null;
function textWords(text: string): string[] {
  if (lastText?.text !== text) lastText = { text, words: contentWords(text) };
  return lastText.words;
}

/**
 * How much a word of a want tells experts apart, from 0 to about 0.8: the
 * inverse of how many of the pool's experts use it anywhere, on a log
 * scale. "Logistics" (one expert) decides; "small" and "software" (many
 * backgrounds) hardly count. A trial's "someone who has sold software to
 * logistics companies" found a Fractional CTO on "small SaaS" before.
 */
export function distinctiveness(pool: readonly Persona[] = PERSONAS): (word: string) => number {
  const vocabs = pool.map((p) => wordWeights(p).vocab.flatMap(([w]) => w));
  const n = pool.length;
  const cache = new Map<string, number>();
  return (word) => {
    let v = cache.get(word);
    if (v === undefined) {
      const df = vocabs.filter((ws) => ws.some((x) => sameWord(word, x))).length;
      v = Math.log((n + 1) / (df + 1)) / Math.log(n + 1);
      cache.set(word, v);
    }
    return v;
  };
}

/** The families keyed by the stem of each word, as `contentWords` reads a want ("advertising" → "advertis", "recruiting" → "recruit"). */
const FAMILIES = new Map<string, string[]>();
for (const [word, family] of Object.entries(expertWords.families as Record<string, string[]>)) {
  const key = stem(word);
  FAMILIES.set(key, [...new Set([...(FAMILIES.get(key) ?? []), ...family])]);
}

/**
 * The words of a wanted kind of expert, with the pool's own words for them
 * (src/data/expert-words.json): people say "sells" or "an accountant" where
 * the pool says "sales" and "financial".
 */
export function wantWords(text: string): string[] {
  const words = contentWords(text);
  return [...new Set([...words, ...words.flatMap((w) => (FAMILIES.get(w) ?? []).flatMap(contentWords))])];
}

/** Equal, or one a prefix of the other when both have four letters or more ("postgres" and "postgresql"). */
const sameWord = (a: string, b: string) => a === b || (Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a)));
