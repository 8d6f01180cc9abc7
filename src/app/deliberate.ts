import type { ProblemStatement, SubProblem } from '../domain/model';
import type { Board } from './engine/board';
import { assembleBoard } from './engine/board';
import { nameOf, type Engine, type Framing } from './engine/context';
import { debate } from './engine/debate';
import { decompose } from './engine/decompose';
import { recommend, type Recommendation } from './engine/final';
import { intake } from './engine/intake';
import type { Prices } from './engine/prices';
import { synthesise, type SubProblemResult } from './engine/synthesis';
import { vote } from './engine/vote';
import { chooseLessons } from './engine/lessons';
import { memoryForPanel, recallMemories, summariseExperts, type SubProblemSummary } from './engine/memory';
import type { RecalledMemory } from '../ports/memory';
import { event } from '../domain/events';
import { ask } from './engine/checkpoints';

export interface Results {
  problemStatement?: ProblemStatement;
  subProblems?: SubProblem[];
  order?: string[];
  board?: Board['members'];
  panels?: Board['panels'];
  subProblemResults: Record<string, SubProblemResult>;
  recommendation?: Recommendation;
  /** Sub-problems the person chose not to deliberate (skip to the final recommendation). */
  skipped?: string[];
}

/**
 * The deliberation: intake → decomposition → board → every sub-problem
 * (debate, vote, synthesis) → final recommendation. Each model call is a
 * memoized step, and every decision is a pure function of earlier step
 * results, so a re-run job replays to the same place. Sub-problems run as
 * soon as their dependencies are decided, so independent ones run
 * concurrently and the wall time follows the critical path.
 */
export async function deliberate(e: Engine, prices: Prices, results: Results = { subProblemResults: {} }): Promise<Results> {
  const statement = await intake(e);
  e.category = statement.category;
  results.problemStatement = statement;
  const lessons = await chooseLessons(e, statement);
  const framing = await decompose(e, statement, prices, lessons);
  results.subProblems = framing.subProblems;
  results.order = framing.order;
  const board = await assembleBoard(e, framing);
  results.board = board.members;
  results.panels = board.panels;
  const recalled = await recallMemories(e, board.members.map((m) => m.code), statement);
  // Each expert's summaries of the sub-problems they finished, for the later ones they sit on (seed 000).
  const earlier = new Map<string, SubProblemSummary[]>();
  const context: SubProblemContext = { framing, panels: board.panels, picks: board.picks, recalled, earlier, lessons, prices };

  if (e.checkpoints) {
    const skipped = await oneAtATime(e, context, board.panels, results.subProblemResults);
    if (skipped.length) results.skipped = skipped;
    results.recommendation = await recommend(e, framing, results.subProblemResults, skipped);
    return results;
  }

  const running = new Map<string, Promise<SubProblemResult>>();
  for (const id of framing.order) {
    const sp = framing.subProblems.find((x) => x.id === id)!;
    // `order` is topological, so every dependency is already in the map.
    const inputs = Promise.all(sp.dependsOn.map((d) => running.get(d)!));
    running.set(
      id,
      // Recorded as each finishes, so a failure elsewhere keeps the decided ones in the partial results.
      inputs.then((deps) => runSubProblem(e, context, sp, board.panels[id]!, deps)).then((r) => (results.subProblemResults[r.subProblemId] = r)),
    );
  }
  try {
    // Promise.all listens to every sub-problem at once, so a failure in any of them is handled, not left unobserved.
    const done = await Promise.all(running.values());
    // In the framing's order, whichever finished first.
    results.subProblemResults = Object.fromEntries(done.map((r) => [r.subProblemId, r]));
  } catch (err) {
    // Stop the siblings at their next step instead of letting them spend on a failed session.
    e.run.halt(err as Error);
    await Promise.allSettled(running.values());
    throw err;
  }
  results.recommendation = await recommend(e, framing, results.subProblemResults);
  return results;
}

/**
 * Interactive mode: sub-problems in order, one at a time, so the person
 * steers one debate at a time, with a checkpoint before each next one.
 * Returns the ids the person skipped.
 */
async function oneAtATime(e: Engine, c: SubProblemContext, panels: Board['panels'], done: Record<string, SubProblemResult>): Promise<string[]> {
  const { order, subProblems } = c.framing;
  for (const [i, id] of order.entries()) {
    const sp = subProblems.find((x) => x.id === id)!;
    // What was just decided, shown before the next one starts (a trial's person never saw a result until the end).
    const previous = i === 0 ? null : decidedBrief(order[i - 1]!, subProblems, done[order[i - 1]!]!);
    const next = !previous
      ? null
      : await ask(e, 'next_sub_problem', `${id}.next`, () => ({
          prompt: `Decided, "${previous.title}": ${previous.outcome}. ${i} of ${order.length} sub-problems decided. Next: "${sp.title}". Continue, or skip to the final recommendation.`,
          subProblemId: id,
          proposal: { next: { id, title: sp.title }, done: i, total: order.length, decided: previous },
        }));
    if (next?.action === 'skip_to_final') return skip(e, c, order.slice(i));
    // One at a time, every earlier sub-problem is decided: the board sees all of them, not only the ones this depends on.
    done[id] = await runSubProblem(e, c, sp, panels[id]!, order.slice(0, i).map((d) => done[d]!).filter(Boolean));
    if (c.skipToFinal) return skip(e, c, order.slice(i + 1));
  }
  return [];
}

/** A decided sub-problem as the next-sub-problem checkpoint shows it: the outcome and the recommendation. */
function decidedBrief(id: string, subProblems: SubProblem[], r: SubProblemResult) {
  const title = subProblems.find((x) => x.id === id)!.title;
  const winner = r.options.options.find((o) => o.id === r.tally.winner);
  const outcome = winner ? `option ${winner.id}, ${winner.title}` : r.tally.deferred ? 'deferred (no supermajority for a one-way door)' : 'a tie';
  return { id, title, outcome, recommendation: r.synthesis.recommendation };
}

async function skip(e: Engine, c: SubProblemContext, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  await e.run.step('skipped', () => ({
    result: null,
    events: ids.map((id) => event('subproblem.skipped', { subProblemId: id, title: c.framing.subProblems.find((x) => x.id === id)!.title, reason: 'The person skipped to the final recommendation.' })),
    patch: { progress: { skipped: ids } },
  }));
  return ids;
}

interface SubProblemContext {
  /** Set when the person skipped to the final recommendation at a round checkpoint. */
  skipToFinal?: boolean;
  framing: Framing;
  panels: Board['panels'];
  picks: Board['picks'];
  recalled: Record<string, RecalledMemory[]>;
  earlier: Map<string, SubProblemSummary[]>;
  lessons: string;
  prices: Prices;
}

/** At most this many of the earlier sub-problems' open questions open a later one's record. */
const EARLIER_QUESTIONS = 8;

/**
 * What a sub-problem's record opens with from the sub-problems it depends on: each decision, and the questions their
 * experts put to the person that nobody answered (once each), so this panel does not ask them again: an automatic
 * session's experts asked the founder's runway in three sub-problems.
 */
export function earlierDecisions(deps: Pick<SubProblemResult, 'subProblemId' | 'synthesis' | 'openQuestions'>[]): string {
  if (!deps.length) return '';
  const seen = new Set<string>();
  const questions = deps
    .flatMap((d) => d.openQuestions ?? [])
    .filter((q) => !seen.has(q.question.trim().toLowerCase()) && seen.add(q.question.trim().toLowerCase()))
    .slice(0, EARLIER_QUESTIONS);
  return [
    'Decided earlier by the board:',
    ...deps.map((d) => `- ${d.subProblemId}: ${d.synthesis.recommendation}`),
    // A relay trial's "how to migrate" followed "not now": nothing said what its board should do, and it guessed.
    'Where a decision above rules out what this sub-problem was framed on (it asks how to do what the board decided not to do now), say so plainly, and work it as the plan for when that decision is revisited: what would have to change first, and how to proceed then.',
    ...(questions.length ? ["Questions those sub-problems put to the person (on the person's list already; open unless what the person told the board answers them):", ...questions.map((q) => `- ${q.question.trim()} (${nameOf(q.persona)})`)] : []),
  ]
    .join('\n')
    .concat('\n');
}

async function runSubProblem(e: Engine, c: SubProblemContext, sp: SubProblem, panel: string[], deps: SubProblemResult[]): Promise<SubProblemResult> {
  const decidedEarlier = earlierDecisions(deps);
  const memory = await memoryForPanel(e, sp, panel, c.earlier, c.recalled);
  // Seats the person asked for in words: the expert is told what for (`picks` is absent from a board step stored before seats carried it).
  const requested = Object.fromEntries((c.picks?.[sp.id] ?? []).flatMap((s) => (s.wanted ? [[s.code, s.wanted] as const] : [])));
  const d = await debate(e, sp, panel, { decidedEarlier, memory, recalled: c.recalled, lessons: c.lessons, requested }, c.prices);
  if (d.skipToFinal) c.skipToFinal = true;
  const v = await vote(e, sp, panel, d);
  const r = await synthesise(e, sp, panel, d, v, [...new Set([...sp.domains, ...c.framing.statement.domains])]);
  // A summary feeds the expert's seat on a later sub-problem, or the memory this session contributes; otherwise nothing reads it.
  const later = c.framing.order.slice(c.framing.order.indexOf(sp.id) + 1);
  const contributes = e.memory !== null && e.memorySettings.contribute;
  const needed = (code: string) => contributes || later.some((id) => c.panels[id]?.includes(code));
  for (const summary of await summariseExperts(e, sp, d, v, needed)) {
    c.earlier.set(summary.persona, [...(c.earlier.get(summary.persona) ?? []), summary]);
  }
  return r;
}
