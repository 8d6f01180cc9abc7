import { event } from '../../domain/events';
import type { ProblemStatement } from '../../domain/model';
import { renderLessons } from '../../memory/expert-context';
import { lessonsQueryCall, lessonsRankCall, MAX_LESSON_CANDIDATES } from '../../calls/planning';
import { fallbackRanking, lessonQueryFallback } from '../../memory/lessons';
import type { Engine } from './context';

/**
 * Lessons from the tenant's earlier sessions (seed 004), chosen for this one:
 * the model formulates a query, the store returns candidates (hybrid search,
 * confident lessons only), the model ranks them — at most two model calls,
 * with a deterministic fallback for either. The chosen lessons go into the
 * decomposition and facilitator prompts.
 */
export async function chooseLessons(e: Engine, statement: ProblemStatement): Promise<string> {
  const memory = e.memory;
  if (!memory || !e.memorySettings.read) return '';
  const chosen = await e.run.step('memory/lessons', async (s) => {
    const query = await s
      .call(lessonsQueryCall, { problem: e.problem, statement: statement.statement, category: statement.category })
      .catch(() => lessonQueryFallback(e.problem, statement.category));
    const [vector] = await e.embedder.embed([query.query]);
    const candidates = await memory.searchLessons(e.tenantId, { text: query.query, vector: vector!, limit: 8, minConfidence: 0.5 });
    if (!candidates.length) return { result: [] as { id: string; lesson: string; suggestedFix: string; applies: string }[] };
    let ranking: 'model' | 'fallback' = 'model';
    const ranked = await s
      .call(lessonsRankCall, {
        statement: statement.statement,
        candidates: candidates.slice(0, MAX_LESSON_CANDIDATES).map((c) => ({ id: c.id, lesson: c.lesson, triggerConditions: c.triggerConditions, confidence: c.confidence })),
      })
      .then((r) => r.ranked)
      .catch(() => {
        ranking = 'fallback';
        return fallbackRanking(candidates);
      });
    const byId = new Map(candidates.map((c) => [c.id, c]));
    const picked = ranked
      .filter((r) => r.shouldUse && byId.has(r.id))
      .slice(0, 3)
      .map((r) => ({ ...byId.get(r.id)!, applies: r.applies }));
    return {
      result: picked.map((p) => ({ id: p.id, lesson: p.lesson, suggestedFix: p.suggestedFix, applies: p.applies })),
      events: [
        event('lessons.applied', {
          query: query.query,
          lessons: picked.map((p) => ({ id: p.id, lesson: p.lesson, applies: p.applies, confidence: p.confidence, reinforcements: p.reinforcements })),
          ranking,
        }),
      ],
    };
  });
  return chosen.length ? renderLessons(chosen, 250) : '';
}
