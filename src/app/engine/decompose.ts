import { estimateSessionCost, type PriceTier } from '../../domain/budget';
import { normalizeDecomposition } from '../../domain/decomposition';
import { event } from '../../domain/events';
import { decomposeCall } from '../../calls/planning';
import type { ProblemStatement, SubProblem } from '../../domain/model';
import { seatsFor } from '../../domain/board';
import { subProblemsFromEdit } from '../../domain/checkpoints';
import { ask } from './checkpoints';
import type { Engine, Framing } from './context';

/**
 * Decomposition: the model proposes sub-problems; a pure policy makes them 1-5
 * (atomic → one, vague → one high-level, more than five → meta-problems),
 * breaks dependency cycles and orders them. Then the cost estimate, before
 * any debate starts. In interactive mode the person may rewrite the list
 * first; their list goes through the same normalisation.
 */
export async function decompose(e: Engine, statement: ProblemStatement, prices: { smart: PriceTier; fast: PriceTier }, lessons = ''): Promise<Framing> {
  const framed = await e.run.step('decompose', async (s) => {
    const out = await s.call(decomposeCall, {
      problem: e.problem,
      context: e.context,
      statement: statement.statement,
      domains: statement.domains,
      category: statement.category,
      vague: statement.vague,
      lessons,
    });
    return {
      ...framingOf(e, statement, { subProblems: out.subProblems as SubProblem[], atomic: out.atomic, vague: statement.vague }, out.rationale),
      patch: { phase: 'decomposition', progress: { phase: 'decomposition', percent: 10 } },
    };
  });

  const review = await ask(e, 'sub_problems', 'sub_problems', () => ({
    prompt: `The board proposes ${framed.subProblems.length} sub-problem${framed.subProblems.length > 1 ? 's' : ''}. Continue, or send the list you want (edit, merge, add, remove).`,
    proposal: { subProblems: framed.subProblems },
  }));
  const chosen =
    review.action === 'edit' && review.subProblems
      ? await e.run.step('decompose/edited', () =>
          framingOf(
            e,
            statement,
            { subProblems: subProblemsFromEdit(review.subProblems!, framed.subProblems, statement.domains), atomic: false, vague: false },
            'Edited by the person at the review checkpoint.',
          ),
        )
      : framed;

  await e.run.step('estimate', () => {
    const estimate = estimateSessionCost(
      {
        subProblems: chosen.subProblems.map((sp) => ({ complexity: sp.complexity, panelSize: seatsFor(sp.complexity, e.settings).seats })),
        prices,
      },
      e.settings,
    );
    const data = { ...estimate, budgetUsd: e.budgetUsd };
    return { result: data, events: [event('cost.estimated', data)], patch: { progress: { phase: 'decomposition', percent: 12, estimate: data } } };
  });
  return { statement, subProblems: chosen.subProblems, order: chosen.order };
}

/** Normalises proposed sub-problems into the framing a step stores, with its `decomposition.completed` event. */
function framingOf(e: Engine, statement: ProblemStatement, proposed: { subProblems: SubProblem[]; atomic: boolean; vague: boolean }, rationale: string) {
  const n = normalizeDecomposition({ ...proposed, problem: e.problem, statement: statement.statement }, e.settings);
  return {
    result: { subProblems: n.subProblems, order: n.order },
    events: [event('decomposition.completed', { subProblems: n.subProblems, order: n.order, rationale, broken: n.broken, grouped: n.grouped, flags: n.flags })],
  };
}
