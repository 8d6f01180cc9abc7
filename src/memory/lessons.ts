import { z } from 'zod';

/**
 * Lessons: generalised, reusable insights a finished (or failed) session
 * leaves for future ones (seed 004: insight extraction, typed insights,
 * model-governed retrieval, duplicate detection, confidence filtering).
 * Pure: schemas for the four model calls (extract, same?, query, rank) and
 * the deterministic rules used around and instead of them.
 *
 * Similarities here are on the CALIBRATED scale (src/domain/metrics.ts,
 * calibratedSimilarity): an embedder's mean cosine on unrelated pairs of the
 * labelled set maps to 0.1 and on paraphrase pairs to 0.9, so a threshold
 * means the same for the local hashed embedder and any HTTP model:
 *
 *   ≥ 0.90  as close as a typical paraphrase: the same lesson again, reinforce
 *           it without asking (seed 004's 0.95 raw-cosine duplicate cut-off,
 *           made provider-independent);
 *   0.75 … 0.90  grey zone: the same topic, maybe the same lesson; ask the
 *           model (`lessons_same`) rather than guess;
 *   < 0.75  a new lesson; store it.
 *
 * 0.75 sits above seed 003's "penalise" band (0.70-0.80 similar) on purpose:
 * merging two different lessons loses one for good, storing a near-duplicate
 * only costs a reinforcement later.
 */

export const LESSON_TYPES = ['critical_error', 'best_practice', 'domain_knowledge'] as const;
export type LessonType = (typeof LESSON_TYPES)[number];

export const lessonSchema = z.object({
  /** The generalised lesson: no names, no figures tied to one user. */
  lesson: z.string().min(10).max(500),
  /** When it applies: the kind of decision or situation that should recall it. */
  triggerConditions: z.string().min(3).max(400),
  /** What to do differently. */
  suggestedFix: z.string().min(3).max(400),
  confidence: z.number().min(0).max(1),
  tags: z.array(z.string().min(1).max(40)).max(6),
  type: z.enum(LESSON_TYPES),
});
export type Lesson = z.infer<typeof lessonSchema>;

export const extractedLessonsSchema = z.object({ lessons: z.array(lessonSchema).max(5) });
export type ExtractedLessons = z.infer<typeof extractedLessonsSchema>;

export const sameLessonSchema = z.object({ same: z.boolean(), reason: z.string().max(300) });
export type SameLesson = z.infer<typeof sameLessonSchema>;

export const lessonQuerySchema = z.object({ query: z.string().min(3).max(400), tags: z.array(z.string().max(40)).max(6) });
export type LessonQuery = z.infer<typeof lessonQuerySchema>;

export const lessonRankingSchema = z.object({
  ranked: z.array(z.object({ id: z.string().max(64), shouldUse: z.boolean(), applies: z.string().max(300) })).max(8),
});
export type LessonRanking = z.infer<typeof lessonRankingSchema>;
export type RankedLesson = LessonRanking['ranked'][number];

/** Calibrated-scale thresholds for deduplicating a new lesson against its nearest stored one. */
export interface DedupeThresholds {
  /** At or above: the same lesson, reinforce the stored one. */
  reinforceAbove: number;
  /** At or above (and below reinforceAbove): ask the model whether it is the same lesson. */
  greyAbove: number;
}

export const DEFAULT_DEDUPE_THRESHOLDS: DedupeThresholds = { reinforceAbove: 0.9, greyAbove: 0.75 };

/** Lessons below this confidence are kept but never recalled (seed 004's min_confidence). */
export const MIN_RECALL_CONFIDENCE = 0.5;

/** What to do with a new lesson given its calibrated similarity to the nearest stored lesson. */
export function dedupeDecision(similarity: number, t: DedupeThresholds = DEFAULT_DEDUPE_THRESHOLDS): 'reinforce' | 'ask' | 'new' {
  if (!Number.isFinite(similarity)) return 'new';
  if (similarity >= t.reinforceAbove) return 'reinforce';
  if (similarity >= t.greyAbove) return 'ask';
  return 'new';
}

export interface LessonCandidate {
  id: string;
  /** Retrieval relevance on the calibrated scale (0…1), already decayed for age if the caller decays. */
  score: number;
  confidence: number;
  /** How many times the lesson was learned again (0 = learned once). */
  reinforcements: number;
  lesson: string;
}

const finite = (x: number, dflt = 0) => (Number.isFinite(x) ? x : dflt);
const clamp01 = (x: number) => Math.min(1, Math.max(0, finite(x)));

/** Reinforcement boost: 1 for a lesson learned once, 2 for twice, 3 for four times… (log, so a popular lesson cannot swamp a relevant one). */
const boost = (reinforcements: number) => 1 + Math.log2(1 + Math.max(0, finite(reinforcements)));

/**
 * Relevance of each candidate in 0…1: score × confidence × boost, divided by
 * the largest boost among the candidates so the best possible value is 1.
 */
export function lessonWeights(candidates: LessonCandidate[]): Map<string, number> {
  const maxBoost = Math.max(1, ...candidates.map((c) => boost(c.reinforcements)));
  return new Map(candidates.map((c) => [c.id, (clamp01(c.score) * clamp01(c.confidence) * boost(c.reinforcements)) / maxBoost]));
}

/**
 * The deterministic ranking used when the `lessons_rank` model call fails:
 * only lessons with confidence ≥ 0.5 and a positive relevance, best first
 * (ties by id), at most `limit`, all marked shouldUse.
 */
export function fallbackRanking(candidates: LessonCandidate[], limit = 3): RankedLesson[] {
  const weights = lessonWeights(candidates);
  return candidates
    .filter((c) => finite(c.confidence) >= MIN_RECALL_CONFIDENCE && (weights.get(c.id) ?? 0) > 0)
    .sort((a, b) => (weights.get(b.id) ?? 0) - (weights.get(a.id) ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, Math.max(0, limit))
    .map((c) => ({
      id: c.id,
      shouldUse: true,
      applies: `Learned on a similar past decision (match ${Math.round(clamp01(c.score) * 100)}%); check that its trigger conditions hold here before relying on it.`,
    }));
}

/** A lowercase, hyphenated tag: "Tech Debt" → "tech-debt"; '' when nothing is left. */
export function normaliseTag(tag: string): string {
  return tag
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
}

const TOPIC_TAGS: [string, RegExp][] = [
  ['pricing', /\bpric|\btiers?\b|subscription|discount|freemium/i],
  ['hiring', /\bhir(?:e|es|ing)\b|recruit|co-?founder|salesperson|contractor/i],
  ['growth', /marketing|\bseo\b|\bads\b|channel|acquisition|growth/i],
  ['technical', /rewrit|refactor|migrat|architect|codebase|tech(?:nical)? debt|database/i],
  ['finance', /\binvest|funding|\braise\b|loan|runway|budget|\bcash\b/i],
  ['product', /feature|\bproduct\b|\bmvp\b|launch|roadmap/i],
  ['strategy', /pivot|niche|segment|expand|strategy|double down/i],
  ['legal', /legal|\bcontracts?\b|trademark|compliance|licen[cs]/i],
  ['operations', /process|operations|supplier|workload|outsourc|burnout/i],
  ['people', /\bteam\b|morale|burn(?:ed|t)? out|founder/i],
];

/** The query and tags used when the `lessons_query` model call fails: the kind of decision and the problem itself, tagged by topic. */
export function lessonQueryFallback(problem: string, category: string): { query: string; tags: string[] } {
  const text = problem.trim().replace(/\s+/g, ' ');
  const cat = normaliseTag(category);
  const clipped = text.length > 360 ? text.slice(0, 360).replace(/\s+\S*$/, '') : text;
  // Stored lessons are phrased by kind of decision ("On pricing decisions, …"): lead with it.
  const kind = cat && cat !== 'other' ? `${cat} decision` : 'business decision';
  const query = clipped.length >= 3 ? `${kind}: ${clipped}` : kind;
  const tags = [...new Set([cat, ...TOPIC_TAGS.filter(([, re]) => re.test(text)).map(([t]) => t)].filter((t) => t && t !== 'other'))];
  return { query, tags: tags.slice(0, 6) };
}
