import { randomUUID } from 'node:crypto';
import { event } from '../../domain/events';
import type { ProblemStatement, SubProblem } from '../../domain/model';
import { calibratedSimilarity } from '../../domain/metrics';
import { renderRecalledMemory, renderSubProblemMemory } from '../../memory/expert-context';
import { expertSummaryCall } from '../../calls/synthesis';
import { POSITION_SAME_ABOVE, stanceChanged } from '../../memory/summary';
import type { RecalledMemory } from '../../ports/memory';
import { brief, persona, type Engine } from './context';
import type { DebateOutcome } from './debate';
import type { VoteOutcome } from './vote';

/** One expert's summary of a finished sub-problem (seed 000), kept for the later sub-problems they sit on. */
export interface SubProblemSummary {
  persona: string;
  subProblemId: string;
  title: string;
  summary: string;
  position: string;
  confidence: number;
  createdAt: string;
}

/** Everything memory contributes to one expert's prompt, and the stance they held before. */
export interface ExpertMemory {
  text: string;
  fromSubProblems: string[];
  recalled: string[];
}

/**
 * Cross-session recall at the start: for each expert on the board, their
 * tenant's anonymised memories for this persona (hybrid search, recency
 * half-life), emitted with full provenance.
 */
export async function recallMemories(e: Engine, members: string[], statement: ProblemStatement): Promise<Record<string, RecalledMemory[]>> {
  const memory = e.memory;
  if (!memory || !e.memorySettings.read) return {};
  return e.run.step('memory/recall', async (s) => {
    const [vector] = await e.embedder.embed([statement.statement]);
    // Every member at once: one query set for the board, not one per member on the session's critical path.
    const byPersona = await memory.recallEach(e.tenantId, {
      personas: members,
      category: statement.category,
      text: statement.statement,
      vector: vector!,
      limit: e.memorySettings.recallLimit,
      halfLifeDays: e.memorySettings.halfLifeDays,
      now: s.now(),
      excludeSessionId: e.run.sessionId,
    });
    // In the members' order, as the step's stored result always was.
    const recalled: Record<string, RecalledMemory[]> = Object.fromEntries(members.map((code) => [code, byPersona[code] ?? []]));
    const items = Object.values(recalled)
      .flat()
      .map((m) => ({
        id: m.id,
        persona: m.persona,
        summary: m.summary,
        position: m.position,
        score: m.score,
        provenance: { sessionId: m.sessionId, subProblemId: m.subProblemId, expert: m.persona, date: m.createdAt, model: m.model, promptVersion: m.promptVersion },
      }));
    return { result: recalled, events: items.length ? [event('memory.recalled', { items })] : [] };
  });
}

/** Expert memory text for a sub-problem: their earlier sub-problems here, then what they remember from earlier sessions. */
export async function memoryForPanel(
  e: Engine,
  sp: SubProblem,
  panel: string[],
  earlier: Map<string, SubProblemSummary[]>,
  recalled: Record<string, RecalledMemory[]>,
): Promise<Record<string, ExpertMemory>> {
  return e.run.step(`${sp.id}/memory`, () => {
    const out: Record<string, ExpertMemory> = {};
    const events = [];
    const cap = e.memorySettings.tokenCap;
    for (const code of panel) {
      const own = [...(earlier.get(code) ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      const inSession = renderSubProblemMemory(own, cap);
      const past = renderRecalledMemory(recalled[code] ?? [], cap);
      out[code] = { text: [inSession.text, past.text].filter(Boolean).join('\n\n'), fromSubProblems: inSession.used, recalled: past.used };
      if (inSession.used.length) events.push(event('expert_memory.injected', { subProblemId: sp.id, persona: code, fromSubProblems: inSession.used }));
    }
    return { result: out, events };
  });
}

/**
 * The stance ledger inside a session: an expert whose opening position here
 * contradicts what they concluded before (in an earlier session) is told to
 * explain the change; both positions stay on record.
 */
export async function checkStances(
  e: Engine,
  sp: SubProblem,
  positions: Record<string, string>,
  recalled: Record<string, RecalledMemory[]>,
): Promise<Record<string, string>> {
  return e.run.step(`${sp.id}/stances`, async () => {
    const similarity = calibratedSimilarity(e.embedder.calibration);
    const notices: Record<string, string> = {};
    const events = [];
    for (const [code, position] of Object.entries(positions)) {
      const previous = recalled[code]?.[0];
      if (!previous) continue;
      const [a, b] = await e.embedder.embed([previous.position, position]);
      if (!stanceChanged(previous.position, position, similarity(a!, b!), POSITION_SAME_ABOVE)) continue;
      const id = `${sp.id}:${code}`;
      notices[code] = `In an earlier session (${previous.createdAt.slice(0, 10)}) you concluded: "${previous.position}". Your position now differs: explain what changed your mind.`;
      events.push(event('memory.contradiction', { id, subProblemId: sp.id, persona: code, previous: previous.position, current: position, memoryId: previous.id, sourceSessionId: previous.sessionId }));
    }
    return { result: notices, events };
  });
}

/**
 * After a sub-problem: each expert who spoke summarises their position in
 * 40-70 words on the fast model, in parallel; the summaries are stored as
 * rows with the step that made them (phase `expert_memory`). Only the
 * experts `needed` says something will read (a later seat, the memory the
 * session contributes) are asked.
 */
export async function summariseExperts(e: Engine, sp: SubProblem, d: DebateOutcome, v: VoteOutcome, needed: (code: string) => boolean = () => true): Promise<SubProblemSummary[]> {
  const spoke = Object.keys(d.turnsByPersona).filter(needed);
  const out = await Promise.all(
    spoke.map((code) =>
      e.run.step(`${sp.id}/summary/${code}`, async (s) => {
        const p = persona(code);
        const vote = v.votes.find((x) => x.persona === code);
        const position = d.positions[code] ?? '';
        // Every turn: an opening figure is as much the expert's view as a late one (the prompt caps the total, oldest dropped first).
        const summary = await s.call(expertSummaryCall, {
          persona: p,
          subProblem: brief(sp),
          contributions: d.turnsByPersona[code] ?? [],
          vote: vote ? { optionId: vote.optionId, confidence: vote.confidence, rationale: vote.rationale } : null,
          position,
          confidence: vote?.confidence ?? 0.6,
        });
        const createdAt = s.now().toISOString();
        const row: SubProblemSummary = { persona: code, subProblemId: sp.id, title: sp.title, summary: summary.summary, position: summary.position, confidence: summary.confidence, createdAt };
        const memory = e.memory;
        const [vector] = memory ? await e.embedder.embed([`${summary.summary} ${summary.position}`]) : [];
        return {
          result: row,
          ...(memory && {
            write: (tx) =>
              memory.insertMemories(
                e.tenantId,
                [
                  {
                    id: randomUUID(),
                    scope: 'sub_problem',
                    sessionId: e.run.sessionId,
                    subProblemId: sp.id,
                    persona: code,
                    category: e.category,
                    summary: summary.summary,
                    position: summary.position,
                    confidence: summary.confidence,
                    anonymised: false,
                    model: e.models.fast,
                    promptVersion: 'expert_summary',
                    embedding: vector!,
                    embeddingProvider: e.embedder.name,
                    createdAt: new Date(createdAt),
                  },
                ],
                tx,
              ),
          }),
        };
      }),
    ),
  );
  return out;
}
