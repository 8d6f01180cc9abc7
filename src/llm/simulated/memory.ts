import { anonymiseCall, lessonsExtractCall, lessonsQueryCall, lessonsRankCall, lessonsSameCall, type LessonsExtractInput, type LessonsQueryInput, type LessonsRankInput, type LessonsSameInput } from '../../calls';
import { CATEGORIES } from '../../domain/model';
import type { ExtractedLessons, LessonQuery, LessonRanking, SameLesson } from '../../memory/lessons';
import { answer } from './answer';
import * as B from './bank';
import { categoryOf, detectDomains } from './intake';
import { clip, clipWords, fill, joinAnd, lcFirst, noStop, round2, ucFirst, type Ctx } from './text';

/** Replaces capitalised multi-word names left after the deterministic scrub with [NAME_n]; existing placeholders stay. */
function anonymise(i: { text: string }): { text: string } {
  let next = Math.max(0, ...[...i.text.matchAll(/\[NAME_(\d+)\]/g)].map((m) => Number(m[1])));
  const seen = new Map<string, string>();
  const text = i.text.replace(/(?<![\p{L}\p{N}_[])\p{Lu}\p{Ll}[\p{L}'’-]*(?:[ \t]+\p{Lu}\p{Ll}[\p{L}'’-]*)+/gu, (run) => {
    const parts = run.split(/[ \t]+/);
    const lead = parts.findIndex((w) => !B.NOT_NAME_WORDS.has(w));
    if (lead < 0 || parts.length - lead < 2) return run;
    const name = parts.slice(lead).join(' ');
    if (!seen.has(name)) seen.set(name, `[NAME_${++next}]`);
    return [...parts.slice(0, lead), seen.get(name)!].join(' ');
  });
  return { text };
}

const known = (c: string) => ((CATEGORIES as readonly string[]).includes(c) && c !== 'other' ? c : undefined);
const labelOf = (c: string | undefined) => (c ? `${c} decisions` : 'business decisions');

interface Draft {
  lesson: string;
  triggerConditions: string;
  suggestedFix: string;
  type: ExtractedLessons['lessons'][number]['type'];
  tags: string[];
  confidence: [number, number];
}

/** After a session: 1-3 generalised lessons (no names, no figures), the failure's first when it failed. */
function lessonsExtract(i: LessonsExtractInput, { r }: Ctx): ExtractedLessons {
  const category = known(i.category.toLowerCase());
  const label = labelOf(category);
  const cat = category ?? 'general';
  const process = (name: string): Draft => {
    const l = B.PROCESS_LESSONS[name]!;
    return { lesson: fill(l.lesson, { label }), triggerConditions: l.trigger, suggestedFix: l.fix, type: 'best_practice', tags: [cat, 'process', name], confidence: l.confidence };
  };
  const stops = i.stopReasons.length;
  const maxRounds = i.stopReasons.filter((s) => /max[_ -]?rounds|round limit/i.test(s)).length;
  const converged = i.stopReasons.filter((s) => /converge|consensus|agree/i.test(s)).length;
  const drafts = [
    ...(maxRounds >= 2 || (maxRounds >= 1 && maxRounds * 2 >= stops) ? [process('max-rounds')] : []),
    ...(i.deferred > 0 ? [process('deferred')] : []),
    ...(i.ties > 0 ? [process('tie')] : []),
    ...(converged > 0 && converged * 2 > stops ? [process('convergence')] : []),
  ];
  if (i.decisions.length) {
    const [, kind, choice] = B.DECISION_KINDS.find(([re]) => re.test(r.pick(i.decisions)))!;
    drafts.push({ lesson: `On ${label}, boards tend to favour ${choice} when the evidence is thin.`, triggerConditions: `When ${label} have to be made without data from real customers or comparable cases.`, suggestedFix: `Consider ${choice} first, and name the result and the date that would justify going further.`, type: 'domain_knowledge', tags: [cat, 'domain', kind], confidence: [0.4, 0.8] });
  }
  const ordered = r.shuffle(drafts);
  if (i.failed) {
    const [, tag, lesson, trigger, fix] = B.FAILURE_LESSONS.find(([re]) => re.test(i.failureReason ?? ''))!;
    ordered.unshift({ lesson: fill(lesson, { label }), triggerConditions: trigger, suggestedFix: fix, type: 'critical_error', tags: [cat, 'failure', tag], confidence: [0.6, 0.9] });
  }
  if (!ordered.length) ordered.push(process('framing'));
  return {
    lessons: ordered.slice(0, r.int(1, Math.min(3, ordered.length))).map(({ confidence: [lo, hi], tags, ...d }) => ({ ...d, tags: [...new Set(tags)], confidence: round2(lo + r.next() * (hi - lo)) })),
  };
}

/** The same lesson at or above 0.82 similarity (the grey zone's upper part). */
const lessonsSame = (i: LessonsSameInput): SameLesson => (i.similarity >= 0.82 ? { same: true, reason: B.LESSON_REPLIES.same } : { same: false, reason: B.LESSON_REPLIES.different });

/** A retrieval query in the register lessons are stored in: the kind of decision, its topics, the problem without names or figures. */
function lessonsQuery(i: LessonsQueryInput, { r }: Ctx): LessonQuery {
  const category = known(i.category) ?? known(categoryOf(i.problem));
  const topics = detectDomains(i.problem).filter((d) => d !== 'strategy' && d !== category);
  const core = clipWords(
    anonymise({ text: i.problem })
      .text.replace(/\s*\[NAME_\d+\]/g, '')
      .replace(/(?:\b(?:from|to|of|at|by|for|with|about|around)\s+)?\$?\d[\d,.]*\s?(?:%|[kKmM]\b)?(?:\/\w+)?/g, '')
      .replace(/\bshould (?:I|we)\b/gi, 'whether to')
      .replace(/\s+([,.;:?!])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim(),
    24,
  );
  const about = `${ucFirst(labelOf(category))}${topics.length ? ` involving ${joinAnd(topics.slice(0, 2))}` : ''}`;
  return { query: clip(core ? `${about}: ${noStop(lcFirst(core))}.` : `${about}: what went wrong and what worked.`, 400), tags: [...new Set([...(category ? [category] : []), ...topics])].slice(0, r.int(3, 6)) };
}

/** Which candidates apply: best first by confidence, used from 0.6. */
function lessonsRank(i: LessonsRankInput): LessonRanking {
  const candidates = [...new Map(i.candidates.map((c) => [c.id, c])).values()].sort((a, b) => b.confidence - a.confidence);
  return {
    ranked: candidates.map((c) => ({
      id: c.id,
      shouldUse: c.confidence >= 0.6,
      applies: c.confidence >= 0.6 ? clip(fill(B.LESSON_REPLIES.use, { gist: lcFirst(noStop(clipWords(c.lesson, 12))) }), 300) : B.LESSON_REPLIES.skip,
    })),
  };
}

export const MEMORY = [answer(anonymiseCall, anonymise), answer(lessonsExtractCall, lessonsExtract), answer(lessonsSameCall, lessonsSame), answer(lessonsQueryCall, lessonsQuery), answer(lessonsRankCall, lessonsRank)];
