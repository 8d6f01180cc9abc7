import { z } from 'zod';
import { stem } from '../embeddings/local-embedder';

/**
 * The harm screen's rules as data (src/data/harm-screen.json), validated
 * with zod and compiled once at load, so a broken file fails at start and
 * rules change without touching code.
 *
 * A phrase is words ("hide", "off the books"); `*` stands for up to three
 * words of any kind ("keep * off the books") and `@name` for every phrase
 * of another concept ("@owner * @role"). Words are normalised and stemmed
 * the same way as the request, so "hiding", "hides" and "hide" are one word.
 * References are matched, not expanded: "@det @modifier @role" stays three
 * lookups however long the lists grow. `~word` is the word or any of its
 * nearest neighbours in word-vector space ("without * ~noticing" also meets
 * "without him realising"): the neighbours are data too, computed offline
 * into src/data/harm-neighbours.json by scripts/harm-neighbours.ts, so the
 * screen itself loads no vectors and stays a few lookups per word.
 */

const id = z.string().regex(/^[a-z][a-z0-9_]*$/u, 'lower_snake_case id');
const phrase = z
  .string()
  .trim()
  .min(1)
  .refine((p) => !/^\*|\*$/u.test(p), 'a phrase neither starts nor ends with *');

const concept = z.union([
  z.array(phrase).min(1),
  z.object({
    phrases: z.array(phrase).min(1),
    /** Words right after the phrase that show it means something else: "employee" + "morale". */
    notFollowedBy: z.array(phrase).min(1),
  }),
]);

const cue = z.object({
  /**
   * Where the cue must sit: anywhere before the act, within three words before it, anywhere in the sentence,
   * anywhere in the request (the person's stance on the act, often in a sentence of its own: "A procurement officer
   * hinted at a fee. I refuse to pay bribes."), or opening the act's sentence (someone else as the one who acts:
   * "Someone keeps leaving fake reviews on our page.").
   */
  where: z.enum(['before', 'justBefore', 'sentence', 'request', 'opens']),
  phrases: z.array(phrase).min(1),
  /**
   * Cues that cancel this one in a sentence holding both: a third party's act is reported, unless the same sentence
   * asks or offers ("A supplier offered to write us invoices for goods we never receive").
   */
  notWith: z.array(id).optional(),
});

const rule = z.object({
  id,
  category: id,
  /** Completes "The request asks for help with …". */
  what: z.string().min(5),
  /** Concepts that must all appear in one sentence: in this order within `gap` words of each other, or in any order. */
  all: z.array(id).min(1),
  order: z.enum(['given', 'any']).default('given'),
  gap: z.number().int().min(0).max(20).default(6),
  /** Cues that excuse a match; the file's `defaultUnless` when absent. */
  unless: z.array(id).optional(),
  /**
   * Where the concepts must meet: one sentence, or a sentence and the next
   * ("Tell people their flour is bad. It isn't true." splits the act and
   * the admission that makes it harmful across two). Never the whole text:
   * a long context would then hold every concept somewhere.
   */
  scope: z.enum(['sentence', 'adjacent']).default('sentence'),
});

export const harmScreenFileSchema = z
  .object({
    version: z.literal(1),
    /** What the file is, for a person reading it. */
    about: z.string().optional(),
    categories: z.record(
      id,
      z.object({
        reason: z.string().min(20),
        /**
         * The act in a few words: fills {what} when the semantic layer refuses for this category with no rule of its
         * own to name the act, and describes the category to the model's own screen at intake (every shipped
         * category has one).
         */
        what: z.string().min(5).optional(),
      }),
    ),
    allowedReason: z.string().min(5),
    defaultUnless: z.array(id),
    cues: z.record(id, cue),
    /** Ordinary phrases that contain a harmful word ("secret weapon", "kill it"): masked before any rule is tried. */
    idioms: z.array(phrase.refine((p) => !/[@~]/u.test(p), 'an idiom is plain words: it is masked before any concept is found')),
    concepts: z.record(id, concept),
    rules: z.array(rule).min(1),
  })
  .superRefine((file, ctx) => {
    const issue = (message: string, path: (string | number)[]) => ctx.addIssue({ code: 'custom', message, path });
    const ids = new Set<string>();
    file.rules.forEach((r, i) => {
      if (ids.has(r.id)) issue(`duplicate rule id ${r.id}`, ['rules', i, 'id']);
      ids.add(r.id);
      if (r.category === 'ok') issue('ok means allowed and cannot be a refusal category', ['rules', i, 'category']);
      if (!file.categories[r.category]) issue(`unknown category ${r.category}`, ['rules', i, 'category']);
      r.all.forEach((c, j) => file.concepts[c] || issue(`unknown concept ${c}`, ['rules', i, 'all', j]));
      (r.unless ?? []).forEach((c, j) => file.cues[c] || issue(`unknown cue ${c}`, ['rules', i, 'unless', j]));
    });
    file.defaultUnless.forEach((c, j) => file.cues[c] || issue(`unknown cue ${c}`, ['defaultUnless', j]));
    for (const [name, c] of Object.entries(file.cues)) (c.notWith ?? []).forEach((n, j) => file.cues[n] || issue(`unknown cue ${n}`, ['cues', name, 'notWith', j]));
    const phrasesOf = (c: z.infer<typeof concept>) => (Array.isArray(c) ? c : [...c.phrases, ...c.notFollowedBy]);
    const all: [string[], string[]][] = [
      ...Object.entries(file.concepts).map(([name, c]): [string[], string[]] => [['concepts', name], phrasesOf(c)]),
      ...Object.entries(file.cues).map(([name, c]): [string[], string[]] => [['cues', name], c.phrases]),
      [['idioms'], file.idioms],
    ];
    for (const [path, phrases] of all)
      for (const p of phrases)
        for (const ref of p.match(/@[a-z0-9_]+/gu) ?? []) if (!file.concepts[ref.slice(1)]) issue(`unknown concept ${ref} in "${p}"`, path);
    // A concept that includes itself, directly or not, would never finish expanding.
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (name: string): void => {
      if (done.has(name) || !file.concepts[name]) return;
      if (visiting.has(name)) return issue(`concept ${name} includes itself`, ['concepts', name]);
      visiting.add(name);
      for (const p of phrasesOf(file.concepts[name]!)) for (const ref of p.match(/@[a-z0-9_]+/gu) ?? []) visit(ref.slice(1));
      visiting.delete(name);
      done.add(name);
    };
    Object.keys(file.concepts).forEach(visit);
  });

export type HarmScreenFile = z.infer<typeof harmScreenFileSchema>;

/** Each `~word`'s nearest neighbours (surface forms), generated by scripts/harm-neighbours.ts. */
export const harmNeighboursFileSchema = z.object({
  about: z.string().optional(),
  source: z.string().min(1),
  minCosine: z.number().min(0).max(1),
  maxPerWord: z.number().int().min(1),
  neighbours: z.record(z.string().regex(/^[a-z]+$/u), z.array(z.string().regex(/^[a-z]+$/u))),
});

export type HarmNeighboursFile = z.infer<typeof harmNeighboursFileSchema>;

/** Every `~word` the rules use, so the generator knows what to look up and the compiler what to require. */
export function semanticSlots(file: HarmScreenFile): string[] {
  const phrases = [
    ...Object.values(file.concepts).flatMap((c) => (Array.isArray(c) ? c : [...c.phrases, ...c.notFollowedBy])),
    ...Object.values(file.cues).flatMap((c) => c.phrases),
  ];
  return [...new Set(phrases.flatMap((p) => (p.match(/~[a-z]+/gu) ?? []).map((w) => w.slice(1))))].sort();
}

// ───────────────────────────── compiled form ─────────────────────────────

/** A word, the gap `*` (up to three words), or a reference to another concept's matches. */
export const GAP = null;
export const GAP_WORDS = 3;
export type Element = string | typeof GAP | { ref: string };
export type Pattern = Element[];

/** A word that matches nothing: what an idiom's words become. */
export const MASK = '\u0000';

/**
 * Lower case, straight apostrophes, the possessive split off as its own
 * word ("rival's" → "rival s", so "people's objections" is not "people"),
 * other apostrophes dropped ("don't" → "dont"), then stemmed words.
 */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[‘’ʼ`]/gu, "'")
    .replace(/'s\b/gu, ' s')
    .replace(/'/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .map(stem);
}

export interface CompiledRule {
  id: string;
  category: string;
  what: string;
  all: string[];
  order: 'given' | 'any';
  gap: number;
  scope: 'sentence' | 'adjacent';
  unless: { name: string; where: 'before' | 'justBefore' | 'sentence' | 'request' | 'opens'; notWith: string[] }[];
}

export interface CompiledConcept {
  /** The concept's name, or `cue:name` for a cue. */
  name: string;
  patterns: Pattern[];
  /** Patterns whose presence right after a match cancels it. */
  notFollowedBy: Pattern[];
}

export interface CompiledScreen {
  /** Concepts, then cues, each after every concept it refers to, so one pass finds them all. */
  concepts: CompiledConcept[];
  idioms: Pattern[];
  rules: CompiledRule[];
  reasons: Map<string, string>;
  /** Each category's generic act, for a refusal that no rule named (see the file's `what`). */
  generic: Map<string, string>;
  allowedReason: string;
  /** The cues that count anywhere in the request (`where: "request"`). */
  requestCues: ReadonlySet<string>;
}

const toPattern = (p: string): Pattern =>
  p
    .split(/\s+/u)
    .flatMap((w): Element[] => (w === '*' ? [GAP] : w.startsWith('@') ? [{ ref: w.slice(1) }] : w.startsWith('~') ? [{ ref: w }] : words(w)));

const refsOf = (patterns: Pattern[]) => patterns.flatMap((p) => p.flatMap((e) => (e !== null && typeof e === 'object' ? [e.ref] : [])));

const NO_NEIGHBOURS: HarmNeighboursFile = { source: 'none', minCosine: 1, maxPerWord: 1, neighbours: {} };

/**
 * Validates the file and compiles it: phrases stemmed, concepts ordered so
 * references come first, each `~word` a concept of the word and its
 * neighbours. A `~word` the neighbours file lacks is an error: regenerate it.
 */
export function compileHarmScreen(raw: unknown, rawNeighbours: unknown = NO_NEIGHBOURS): CompiledScreen {
  const file = harmScreenFileSchema.parse(raw);
  const { neighbours } = harmNeighboursFileSchema.parse(rawNeighbours);
  const missing = semanticSlots(file).filter((w) => !neighbours[w]);
  if (missing.length) throw new Error(`no neighbours for ~${missing.join(', ~')}: run scripts/harm-neighbours.ts`);
  const slots: CompiledConcept[] = semanticSlots(file).map((w) => ({
    name: `~${w}`,
    patterns: [w, ...neighbours[w]!].map(toPattern),
    notFollowedBy: [],
  }));
  const byName = new Map<string, CompiledConcept>(
    Object.entries(file.concepts).map(([name, c]) => [
      name,
      { name, patterns: (Array.isArray(c) ? c : c.phrases).map(toPattern), notFollowedBy: Array.isArray(c) ? [] : c.notFollowedBy.map(toPattern) },
    ]),
  );
  const ordered: CompiledConcept[] = [...slots];
  const placed = new Set<string>(slots.map((c) => c.name));
  const place = (c: CompiledConcept): void => {
    if (placed.has(c.name)) return;
    placed.add(c.name); // the schema has already refused cycles
    for (const ref of refsOf([...c.patterns, ...c.notFollowedBy])) if (!placed.has(ref)) place(byName.get(ref)!);
    ordered.push(c);
  };
  byName.forEach(place);
  for (const [name, c] of Object.entries(file.cues)) ordered.push({ name: `cue:${name}`, patterns: c.phrases.map(toPattern), notFollowedBy: [] });
  return {
    concepts: ordered,
    idioms: file.idioms.map(toPattern),
    rules: file.rules.map((r) => ({
      id: r.id,
      category: r.category,
      what: r.what,
      all: r.all,
      order: r.order,
      gap: r.gap,
      scope: r.scope,
      unless: (r.unless ?? file.defaultUnless).map((name) => ({ name, where: file.cues[name]!.where, notWith: file.cues[name]!.notWith ?? [] })),
    })),
    reasons: new Map(Object.entries(file.categories).map(([k, v]) => [k, v.reason])),
    generic: new Map(Object.entries(file.categories).map(([k, v]) => [k, v.what ?? `something in the category ${k}`])),
    allowedReason: file.allowedReason,
    requestCues: new Set(Object.entries(file.cues).flatMap(([name, c]) => (c.where === 'request' ? [name] : []))),
  };
}
