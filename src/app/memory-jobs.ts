import { createHash } from 'node:crypto';
import { event, type EventDraft } from '../domain/events';
import { calibratedSimilarity } from '../domain/metrics';
import { sessionModels } from '../domain/models';
import type { LedgerEntry, SessionRow, SessionStorePort } from '../ports/session-store';
import type { ModelCall } from '../calls/call';
import { anonymiseCall, lessonsExtractCall, lessonsSameCall, type LessonsExtractInput } from '../calls/memory';
import { renderCall } from '../calls/render';
import { NO_CONTEXT } from '../calls/intake';
import type { LlmGateway } from '../llm/gateway';
import type { Template } from '../llm/prompts';
import { anonymise, findPii } from '../memory/anonymise';
import { dedupeDecision } from '../memory/lessons';
import type { MemoryStore } from '../memory/memory-store';
import { POSITION_SAME_ABOVE, stanceChanged } from '../memory/summary';
import type { Embedder } from '../ports/embeddings';
import type { Notifier } from '../ports/notifier';
import { PERSONAS } from '../domain/personas';

export interface MemoryJobDeps {
  store: SessionStorePort;
  memory: MemoryStore;
  gateway: LlmGateway;
  embedder: Embedder;
  prompts: Map<string, Template>;
  notifier: Notifier;
  clock?: () => Date;
}

/** The board's own names are not the user's personal data. */
const KEEP = { keep: PERSONAS.flatMap((p) => p.name.split(/\s+/).filter((w) => /^[A-Z]/.test(w) && !/^Dr\.?$/.test(w))) };

/**
 * A UUID derived from what a row is (its session, job and source), so a job
 * that runs again after a crash writes the same ids and the stores' ON
 * CONFLICT DO NOTHING keeps one copy.
 */
export function stableId(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Runs a model call for a job, outside any session step, and ledgers it on the session it serves. */
function jobLlm(deps: MemoryJobDeps, session: SessionRow, key: string) {
  const calls: LedgerEntry[] = [];
  // A job runs again only after it died without reporting: its calls still pending were made, and are abandoned.
  const ready = deps.store.abandonPending(session.id, key);
  const frame = { problem: session.problem, context: session.context || NO_CONTEXT, caseMemory: '' };
  // The session's own models (its `memory` role) serve its jobs too.
  const gateway = deps.gateway.forSession(sessionModels(session.options));
  return {
    calls,
    gateway,
    call: <I, O>(call: ModelCall<I, O>, input: I) =>
      ready.then(() => gateway.invoke(call, input, renderCall(call, input, deps.prompts, frame), {
        key: `${session.seed}:${key}`,
        open: (e) => deps.store.openCall(session.id, { ...e, stepKey: key }),
        record: (e) => calls.push({ ...e, stepKey: key }),
      })),
  };
}

/** Appends the job's outcome to the session's log after its terminal event, and ledgers what it spent. */
async function finish(deps: MemoryJobDeps, sessionId: string, calls: LedgerEntry[], events: EventDraft[]): Promise<void> {
  await deps.store.recordCalls(sessionId, calls);
  const envs = await deps.store.annex(sessionId, events);
  const last = envs.at(-1);
  if (last) await deps.notifier.publish(sessionId, last.seq).catch(() => {});
}

/**
 * After a completed session: its experts' sub-problem summaries become the
 * tenant's cross-session memories — anonymised by deterministic code first,
 * the model second, and dropped if personal data still shows; a memory that
 * contradicts an earlier one of the same expert supersedes it (both kept).
 */
export async function contributeMemories(deps: MemoryJobDeps, sessionId: string): Promise<{ memories: number; superseded: number; dropped: number }> {
  const session = await deps.store.get(sessionId);
  if (!session || session.status !== 'completed') return { memories: 0, superseded: 0, dropped: 0 };
  const options = session.options as { memory?: { contribute?: boolean } };
  if (options.memory?.contribute === false) return { memories: 0, superseded: 0, dropped: 0 };
  // Reported already: a duplicate run (retry, reconciler) has nothing to do.
  if (await deps.store.hasEvent(sessionId, 'memory.contributed')) return { memories: 0, superseded: 0, dropped: 0 };
  const results = session.results as { board?: { code: string }[]; problemStatement?: { category?: string } } | null;
  const category = results?.problemStatement?.category ?? 'other';
  const llm = jobLlm(deps, session, 'after/contribute');
  const similarity = calibratedSimilarity(deps.embedder.calibration);
  const now = deps.clock?.() ?? new Date();
  let memories = 0;
  let superseded = 0;
  let dropped = 0;
  const board = (results?.board ?? []).map((m) => m.code);
  const summaries = await deps.memory.sessionSummaries(session.tenantId, sessionId);
  // Each summary anonymised by deterministic code first, the model second, and dropped if personal data still shows.
  // The model's passes run side by side: they are independent, and their ledger rows go out together.
  const prepared = await Promise.all(
    board.map((code) =>
      Promise.all(
        (summaries.get(code) ?? []).map(async (row) => {
          const scrub = (t: string) => anonymise(t, KEEP).text;
          const first = { summary: scrub(row.summary), position: scrub(row.position) };
          // Without the model's pass a memory is not stored: the deterministic pass alone is not the bar.
          const second = await llm.call(anonymiseCall, { text: `${first.summary}\n---\n${first.position}` }).catch(() => null);
          if (!second) return null;
          const [summary = first.summary, position = first.position] = second.text.split('\n---\n').map((t) => scrub(t.trim()));
          if (findPii(`${summary}\n${position}`, KEEP).length) return null;
          const [vector, positionVector] = await deps.embedder.embed([`${summary} ${position}`, position]);
          return { code, row, summary, position, vector: vector!, positionVector: positionVector!, id: stableId(sessionId, 'contribute', row.id) };
        }),
      ),
    ),
  );
  dropped = prepared.flat().filter((p) => !p).length;
  const kept = prepared.map((list) => list.filter((p) => p !== null));
  // In waves, each expert's next summary in each: experts never share memories, so a wave recalls for all of them at
  // once (one query set) and writes their rows together, and an expert's later summary still recalls after what
  // their earlier one superseded, as one at a time did.
  for (let w = 0; kept.some((list) => list[w]); w++) {
    const wave = kept.flatMap((list) => list.slice(w, w + 1));
    const recalled = await deps.memory.recallMany(
      session.tenantId,
      wave.map((x) => ({ persona: x.code, category, text: x.summary, vector: x.vector, limit: 3, halfLifeDays: 3650, now, excludeSessionId: sessionId })),
    );
    memories += await deps.memory.insertMemories(
      session.tenantId,
      wave.map((x) => ({
        id: x.id,
        scope: 'session' as const,
        sessionId,
        subProblemId: x.row.subProblemId,
        persona: x.code,
        category,
        summary: x.summary,
        position: x.position,
        confidence: x.row.confidence,
        anonymised: true,
        model: x.row.model,
        promptVersion: x.row.promptVersion,
        embedding: x.vector,
        embeddingProvider: deps.embedder.name,
      })),
    );
    for (const [j, x] of wave.entries()) {
      for (const old of recalled[j]!.filter((m) => m.category === category)) {
        const [oldVector] = await deps.embedder.embed([old.position]);
        if (stanceChanged(old.position, x.position, similarity(oldVector!, x.positionVector), POSITION_SAME_ABOVE)) {
          await deps.memory.supersede(session.tenantId, old.id, x.id, now);
          superseded += 1;
          break;
        }
      }
    }
  }
  await finish(deps, sessionId, llm.calls, [event('memory.contributed', { memories, superseded, dropped })]);
  return { memories, superseded, dropped };
}

/**
 * After a session ends, completed or failed: generalised lessons, each either
 * new or reinforcing an existing one (a count), with a model "same lesson?"
 * check in the grey zone of similarity.
 */
export async function extractLessons(deps: MemoryJobDeps, sessionId: string): Promise<number> {
  const session = await deps.store.get(sessionId);
  if (!session || !['completed', 'failed'].includes(session.status)) return 0;
  const options = session.options as { memory?: { contribute?: boolean } };
  if (options.memory?.contribute === false) return 0;
  const events = await deps.store.events(sessionId, 0, 10_000);
  if (events.some((e) => e.type === 'lessons.extracted')) return 0;
  const stopReasons = events.filter((e) => e.type === 'subproblem.completed').map((e) => String(e.data.stopReason));
  const tallies = events.filter((e) => e.type === 'vote.completed').map((e) => e.data.tally as { deferred?: boolean; tie?: string[] });
  const decisions = events.filter((e) => e.type === 'synthesis.completed').map((e) => anonymise(String((e.data.synthesis as { recommendation?: string }).recommendation ?? ''), KEEP).text);
  const failure = events.find((e) => e.type === 'session.failed')?.data;
  const results = session.results as { problemStatement?: { category?: string } } | null;
  const summary: LessonsExtractInput = {
    category: results?.problemStatement?.category ?? 'other',
    stopReasons,
    failed: session.status === 'failed',
    // The real failing step and error, never a guess: an internal failure's lessons are about that step.
    ...(failure && { failureReason: `${String(failure.kind)}: ${String(failure.reason ?? '')}`.slice(0, 300), failedStep: (failure.step as string | null) ?? null }),
    deferred: tallies.filter((t) => t.deferred).length,
    ties: tallies.filter((t) => t.tie?.length).length,
    decisions,
  };
  const llm = jobLlm(deps, session, 'after/lessons');
  const out = await llm.call(lessonsExtractCall, summary);
  const similarity = calibratedSimilarity(deps.embedder.calibration);
  const extracted: { id: string; lesson: string; type: string; confidence: number; outcome: 'new' | 'reinforced' }[] = [];
  for (const [index, l] of out.lessons.entries()) {
    const scrub = (t: string) => anonymise(t, KEEP).text;
    const lesson = { ...l, lesson: scrub(l.lesson), triggerConditions: scrub(l.triggerConditions), suggestedFix: scrub(l.suggestedFix) };
    const [vector] = await deps.embedder.embed([`${lesson.lesson} ${lesson.triggerConditions}`]);
    const [nearest] = await deps.memory.nearestLessons(session.tenantId, vector!, 1);
    let same = false;
    if (nearest) {
      const sim = similarity(vector!, nearest.lesson.embedding);
      const decision = dedupeDecision(sim);
      if (decision === 'reinforce') same = true;
      else if (decision === 'ask') {
        const verdict = await llm.call(lessonsSameCall, { a: nearest.lesson.lesson, b: lesson.lesson, similarity: sim });
        same = verdict.same;
      }
    }
    if (same && nearest) {
      await deps.memory.reinforceLesson(session.tenantId, nearest.lesson.id, sessionId);
      extracted.push({ id: nearest.lesson.id, lesson: nearest.lesson.lesson, type: nearest.lesson.type, confidence: nearest.lesson.confidence, outcome: 'reinforced' });
    } else {
      const id = stableId(sessionId, 'lesson', String(index));
      await deps.memory.insertLesson(
        session.tenantId,
        { id, ...lesson, model: llm.gateway.chainOf(lessonsExtractCall, summary)[0]!, promptVersion: 'lessons_extract', embedding: vector!, embeddingProvider: deps.embedder.name },
        sessionId,
      );
      extracted.push({ id, lesson: lesson.lesson, type: lesson.type, confidence: lesson.confidence, outcome: 'new' });
    }
  }
  await finish(deps, sessionId, llm.calls, [event('lessons.extracted', { lessons: extracted })]);
  return extracted.length;
}
