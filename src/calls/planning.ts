import { z } from 'zod';
import { decompositionSchema, type Decomposition, type Domain } from '../domain/model';
import { lessonQuerySchema, lessonRankingSchema, type LessonQuery, type LessonRanking } from '../memory/lessons';
import { defineCall, fixed } from './call';

export interface DecomposeInput {
  problem: string;
  context: string;
  statement: string;
  domains: Domain[];
  category: string;
  vague: boolean;
  /** Lessons from earlier sessions chosen for this one, rendered; '' for none. */
  lessons: string;
}

/** Decomposition: the model proposes up to 8 sub-problems; the engine normalises to 1-5 (grouping the rest into meta-problems, a stated rule). */
export const decomposeCall = defineCall<DecomposeInput, Decomposition>({
  purpose: 'decompose',
  role: 'intake',
  phase: 'decomposition',
  tier: 'smart',
  maxTokens: 4800,
  template: 'decompose',
  output: fixed(decompositionSchema),
  vars: (i) => ({ statement: i.statement, lessons: i.lessons ? `\n${i.lessons}\n` : '' }),
  estimate: { input: 1_500, output: 800 },
});

export interface LessonsQueryInput {
  problem: string;
  statement: string;
  category: string;
}

/** A retrieval query in the register lessons are stored in (no names, no figures). */
export const lessonsQueryCall = defineCall<LessonsQueryInput, LessonQuery>({
  purpose: 'lessons_query',
  role: 'intake',
  phase: 'lessons',
  tier: 'fast',
  maxTokens: 300,
  template: 'lessons_query',
  output: fixed(lessonQuerySchema),
  vars: (i) => ({ statement: i.statement, category: i.category }),
  estimate: { input: 500, output: 80 },
});

export interface LessonsRankInput {
  statement: string;
  candidates: { id: string; lesson: string; triggerConditions: string; confidence: number }[];
}

/** At most this many candidates are put to the model: the ranking's room is sized for them. */
export const MAX_LESSON_CANDIDATES = 8;

/** Which candidate lessons apply here: ids from the candidates only, each at most once. */
export const lessonsRankCall = defineCall<LessonsRankInput, LessonRanking>({
  purpose: 'lessons_rank',
  role: 'intake',
  phase: 'lessons',
  tier: 'fast',
  maxTokens: 1000,
  template: 'lessons_rank',
  output: (i) =>
    z.object({
      ranked: z
        .array(lessonRankingSchema.shape.ranked.element.extend({ id: z.enum(i.candidates.map((c) => c.id) as [string, ...string[]]) }))
        .max(i.candidates.length),
    }),
  vars: (i) => ({
    statement: i.statement,
    candidates: i.candidates.map((c) => `${c.id}: ${c.lesson} (when: ${c.triggerConditions}; confidence ${c.confidence.toFixed(2)})`),
  }),
  estimate: { input: 900, output: 250 },
});
