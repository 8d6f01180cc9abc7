import { z } from 'zod';
import { extractedLessonsSchema, sameLessonSchema, type ExtractedLessons, type SameLesson } from '../memory/lessons';
import { defineCall, fixed } from './call';

/** The model's anonymisation pass, after the deterministic one. */
export const anonymisedSchema = z.object({ text: z.string().min(1).max(2000) });

export const anonymiseCall = defineCall<{ text: string }, z.infer<typeof anonymisedSchema>>({
  purpose: 'anonymise',
  role: 'memory',
  phase: 'memory',
  tier: 'fast',
  maxTokens: 600,
  template: 'anonymise',
  output: fixed(anonymisedSchema),
  vars: (i) => ({ text: i.text }),
  estimate: { input: 600, output: 200 },
});

export interface LessonsExtractInput {
  category: string;
  stopReasons: string[];
  failed: boolean;
  failureReason?: string;
  /** The step that failed, when the session failed: lessons come from the real failure, never guesses. */
  failedStep?: string | null;
  deferred: number;
  ties: number;
  decisions: string[];
}

/** After a session: generalised lessons for future boards. */
export const lessonsExtractCall = defineCall<LessonsExtractInput, ExtractedLessons>({
  purpose: 'lessons_extract',
  role: 'memory',
  phase: 'lessons',
  tier: 'fast',
  maxTokens: 2400,
  template: 'lessons_extract',
  output: fixed(extractedLessonsSchema),
  vars: (i) => ({ summary: JSON.stringify(i, null, 1) }),
  estimate: { input: 900, output: 500 },
});

export interface LessonsSameInput {
  a: string;
  b: string;
  similarity: number;
}

/** In the grey zone of similarity: are two lessons the same? */
export const lessonsSameCall = defineCall<LessonsSameInput, SameLesson>({
  purpose: 'lessons_same',
  role: 'memory',
  phase: 'lessons',
  tier: 'fast',
  maxTokens: 200,
  template: 'lessons_same',
  output: fixed(sameLessonSchema),
  vars: (i) => ({ a: i.a, b: i.b }),
  estimate: { input: 400, output: 60 },
});
