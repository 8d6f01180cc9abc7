import { z } from 'zod';

/**
 * An expert's summary of its own contributions to one sub-problem (seed 000):
 * the memory it gets in later sub-problems, and — anonymised — across
 * sessions. 40-70 words of prose; the position is kept apart so a later
 * position can be compared with it (stanceChanged).
 */
export const expertSummarySchema = z.object({
  summary: z.string().min(20).max(700).describe('40-70 words: the position, the key numbers and reasoning, confidence and conditions'),
  position: z.string().min(3).max(200).describe('The stance in one line'),
  confidence: z.number().min(0).max(1),
  conditions: z.array(z.string().max(200)).max(3).describe('What the position depends on; 0-3'),
});
export type ExpertSummary = z.infer<typeof expertSummarySchema>;

type Polarity = 'go' | 'hold';

/**
 * "Hold" markers win over "go" ones, because they are mostly negations of
 * them: "don't hire yet" contains "hire". "No"/"yes" count only at the start
 * of a position, where they answer the question ("No — keep the monolith"),
 * not inside it ("no more than $10K").
 */
const HOLD =
  /^\s*no\b|\b(?:don['’]?t|do not|does not|doesn['’]?t|should not|shouldn['’]?t|must not|won['’]?t|will not|not now|not yet|never|defer(?:s|red|ring)?|delay(?:s|ed|ing)?|wait(?:s|ing)?|hold(?:ing)? (?:off|back)|paus(?:e|es|ed|ing)|postpon(?:e|es|ed|ing)|avoid(?:s|ed|ing)?|reject(?:s|ed|ing)?|declin(?:e|es|ed|ing)|against|too early|premature)\b/i;
const GO =
  /^\s*yes\b|\b(?:commit(?:s|ted|ting)?|do it|go ahead|go for|proceed|invest|launch|hire|build|ship|pursue|adopt|accept|approve|start|move forward|double down|pivot|raise|expand|switch|migrate|rewrite|sign|buy|in favou?r)\b/i;
const OPTION = /\boption\s+([A-D])\b/gi;

function polarity(position: string): Polarity | null {
  if (HOLD.test(position)) return 'hold';
  if (GO.test(position)) return 'go';
  return null;
}

function options(position: string): Set<string> {
  return new Set([...position.matchAll(OPTION)].map((m) => m[1]!.toUpperCase()));
}

/**
 * Did an expert contradict its earlier position? A pure heuristic with two
 * conditions, both required:
 *
 * 1. Low similarity: the CALIBRATED similarity of the two positions (0.1 ≈
 *    unrelated, 0.9 ≈ paraphrase; src/domain/metrics.ts) is below
 *    `threshold`. Alone this would flag mere rewording or a shift of focus.
 * 2. An opposing marker: one position commits (commit, do, yes, invest,
 *    hire…) and the other holds back (defer, don't, no, wait…), or they name
 *    different options ("Option A" vs "Option C", no option in common).
 *    Alone this would flag "hire now" vs "don't hire before the audit, then
 *    hire" — close in meaning, which the similarity catches.
 *
 * False negatives are preferred to false positives: a flagged contradiction
 * is put to the expert and the user, so a wrong flag costs attention.
 */
/**
 * The threshold callers use for one-line positions: two positions on the
 * same question share most of their words, so anything short of a paraphrase
 * (0.9 on the calibrated scale) with an opposing marker counts as a change.
 */
export const POSITION_SAME_ABOVE = 0.9;

export function stanceChanged(previous: string, current: string, similarity: number, threshold = 0.5): boolean {
  if (!Number.isFinite(similarity) || similarity >= threshold) return false;
  const a = polarity(previous);
  const b = polarity(current);
  if (a !== null && b !== null && a !== b) return true;
  const oa = options(previous);
  const ob = options(current);
  return oa.size > 0 && ob.size > 0 && ![...oa].some((o) => ob.has(o));
}
