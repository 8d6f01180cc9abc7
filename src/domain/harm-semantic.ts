import { z } from 'zod';
import type { ScreenResult } from './harm-screen';

/**
 * The harm screen's semantic layer: a logistic regression over a sentence
 * encoder's vector of the request (src/embeddings/sentence-encoder.ts),
 * learnt offline by scripts/harm-semantic.ts from the labelled set's
 * training splits and shipped as data (src/data/harm-semantic.json). It
 * reads what a request means rather than which words it uses, so it meets
 * paraphrases that no phrase rule anticipated; the rules stay, and each
 * layer checks the other (see `combine`).
 *
 * Pure and synchronous: the vector comes from outside, so the same vector
 * gives the same verdict on every replay.
 */

const vector = z.array(z.number()).min(1);

export const harmSemanticFileSchema = z
  .object({
    about: z.string(),
    /** The sentence encoder the weights were learnt on (SENTENCE_ENCODER_NAME): vectors of another encoder mean nothing to them. */
    encoder: z.string(),
    /** What the weights were learnt from, for a person reading the file. */
    trainedOn: z.record(z.string(), z.object({ harmful: z.number().int(), benign: z.number().int() })),
    /** How the settings were chosen: cross-validated figures on the training splits only. */
    chosen: z.record(z.string(), z.unknown()),
    /** Refuse a request the rules allowed when the probability of harm is at least this. */
    refuseAt: z.number().min(0).max(1),
    /** Overrule a rule's refusal when the probability of harm is below this: the rule matched words, not meaning. */
    overruleBelow: z.number().min(0).max(1),
    /** Categories whose rule refusals are never overruled (a missed self-harm pointer costs more than a wrong one). */
    neverOverruled: z.array(z.string()),
    /** Cues of the rules file (lawful, defensive, being the victim) that excuse a semantic refusal, as they excuse a rule's. */
    excusedBy: z.array(z.string()),
    bias: z.number(),
    weights: vector,
    /** Unit mean vector of each category's harmful training requests: a semantic refusal names the nearest. */
    centroids: z.record(z.string(), vector),
  })
  .superRefine((file, ctx) => {
    const d = file.weights.length;
    for (const [name, c] of Object.entries(file.centroids)) {
      if (c.length !== d) ctx.addIssue({ code: 'custom', message: `centroid ${name} has ${c.length} dimensions, the weights ${d}`, path: ['centroids', name] });
    }
  });

export type HarmSemanticModel = z.infer<typeof harmSemanticFileSchema>;

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

export interface SemanticVerdict {
  /** Probability of harm, 0..1. */
  probability: number;
  /** The category whose centroid is nearest (cosine). */
  category: string;
}

/** Sentences per window the layer reads. */
export const WINDOW_SENTENCES = 3;
/**
 * Overlapping windows up to this many; a longer request is read in windows
 * that overlap less, down to none, so every sentence is still read (a
 * window costs ~5 ms: a 20,000-character request, ~200 sentences, ~0.4 s).
 */
export const MAX_WINDOWS = 48;

/**
 * What the layer reads of a request: the whole of a short one (up to
 * WINDOW_SENTENCES sentences, the length of the requests it learnt from),
 * otherwise each run of WINDOW_SENTENCES consecutive sentences. One vector
 * of a long request blurs its one harmful sentence into the context (recall
 * fell by half on held-out requests with a scenario's context around them)
 * and meets the layer far from anything it learnt; windows keep both at the
 * length it knows.
 */
export function readingWindows(text: string): string[] {
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (sentences.length <= WINDOW_SENTENCES) return [text.trim()];
  const starts = sentences.length - WINDOW_SENTENCES + 1;
  const step = Math.min(WINDOW_SENTENCES, Math.max(1, Math.ceil(starts / MAX_WINDOWS)));
  const windows: string[] = [];
  for (let i = 0; i < starts; i += step) windows.push(sentences.slice(i, i + WINDOW_SENTENCES).join(' '));
  const last = sentences.slice(-WINDOW_SENTENCES).join(' ');
  if (windows.at(-1) !== last) windows.push(last);
  return windows;
}

/** The layer's reading of a request from its windows' vectors: the most harmful window. */
export function readVectors(model: HarmSemanticModel, vectors: readonly (readonly number[])[]): SemanticVerdict {
  if (vectors.length === 0) throw new Error('no vectors to read');
  return vectors.map((v) => readVector(model, v)).reduce((a, b) => (b.probability > a.probability ? b : a));
}

/** The layer's reading of one (unit) vector. */
export function readVector(model: HarmSemanticModel, v: readonly number[]): SemanticVerdict {
  if (v.length !== model.weights.length) throw new Error(`vector has ${v.length} dimensions, the model ${model.weights.length}`);
  const probability = 1 / (1 + Math.exp(-(dot(model.weights, v) + model.bias)));
  let category = '';
  let best = -Infinity;
  for (const [name, c] of Object.entries(model.centroids)) {
    const s = dot(c, v);
    if (s > best) [best, category] = [s, name];
  }
  return { probability, category };
}

export interface Combined extends ScreenResult {
  /** Which layer decided: the rules, the semantic layer, or the rules because the semantic layer was unavailable. */
  by: 'rules' | 'semantic' | 'rules-only';
  /** The semantic layer's probability of harm, when it ran (rounded: it is logged and stored). */
  probability?: number;
}

/**
 * The two layers together. A rule's refusal stands unless the semantic
 * layer is confident the request is harmless (below `overruleBelow`: the
 * rule met harmful words in a lawful request), except in `neverOverruled`
 * categories. A request the rules allowed is refused when the semantic
 * layer reaches `refuseAt`, unless a lawful or defensive cue of the rules
 * file (`excusedBy`) is in it. Both settings were chosen on the training
 * splits by cross-validation (scripts/harm-semantic.ts).
 */
export function combine(
  model: HarmSemanticModel,
  rules: ScreenResult,
  semantic: SemanticVerdict,
  cues: ReadonlySet<string>,
  refusal: (category: string) => ScreenResult,
  allowedReason: string,
): Combined {
  const probability = Math.round(semantic.probability * 1e4) / 1e4;
  if (!rules.allowed) {
    if (semantic.probability >= model.overruleBelow || model.neverOverruled.includes(rules.category)) return { ...rules, by: 'rules', probability };
    return { allowed: true, category: 'ok', reason: allowedReason, by: 'semantic', probability };
  }
  if (semantic.probability >= model.refuseAt && !model.excusedBy.some((c) => cues.has(c))) {
    return { ...refusal(semantic.category), by: 'semantic', probability };
  }
  return { ...rules, by: 'rules', probability };
}
