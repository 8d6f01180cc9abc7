import { event } from '../../domain/events';
import { currentFacts } from '../../domain/debate/record';
import { disclaimersFor, lintAdvisory, recommendsOneWay, mergeDisclaimers, type Disclaimer } from '../../domain/guardrails';
import { finalRecommendationCall } from '../../calls/synthesis';
import type { FinalRecommendation } from '../../domain/model';
import { nameOf, type Engine, type Framing } from './context';
import type { SubProblemResult } from './synthesis';

export type Recommendation = FinalRecommendation & {
  disclaimers: Disclaimer[];
  advisoryFixes: string[];
  /** Questions only the person can answer, left open: the recommendation depends on them. */
  openQuestions: { subProblemId: string; persona: string; name: string; question: string }[];
};

/** The integrated recommendation across sub-problems, advisory language checked on the output. */
export async function recommend(e: Engine, framing: Framing, results: Record<string, SubProblemResult>, skipped: string[] = []): Promise<Recommendation> {
  // Skipped sub-problems are named as open, not decided.
  const f = { ...framing, order: framing.order.filter((id) => !skipped.includes(id)) };
  const titleOf = (id: string) => framing.subProblems.find((x) => x.id === id)!.title;
  const openQuestions = f.order.flatMap((id) => (results[id]!.openQuestions ?? []).map((q) => ({ subProblemId: id, persona: q.persona, name: nameOf(q.persona), question: q.question })));
  return e.run.step('recommendation', async (s) => {
    const out = await s.call(finalRecommendationCall, {
      statement: f.statement.statement,
      syntheses: f.order.map((id) => {
        const { synthesis, tally, options } = results[id]!;
        const ref = (optionId: string) => ({ id: optionId, title: options.options.find((o) => o.id === optionId)?.title ?? `option ${optionId}` });
        return {
          subProblemId: id,
          title: titleOf(id),
          winner: tally.winner ? ref(tally.winner) : null,
          tie: tally.tie.map(ref),
          deferred: tally.deferred,
          recommendation: synthesis.recommendation,
          rationale: synthesis.rationale,
          confidence: synthesis.confidence,
          dissent: synthesis.dissent,
          caveats: synthesis.caveats,
          ...(synthesis.beyondGeneralGuidance && { beyondGeneralGuidance: synthesis.beyondGeneralGuidance }),
        };
      }),
      open: skipped.map((id) => ({ subProblemId: id, title: titleOf(id) })),
      openQuestions,
      unansweredClarifications: unansweredClarifications(f.statement),
      facts: currentFacts(e.run.board().facts),
    });
    const summary = lintAdvisory(out.summary);
    const steps = out.steps.map(lintAdvisory);
    const guidance = out.beyondGeneralGuidance?.map((x) => ({ ...x, what: lintAdvisory(x.what).fixed }));
    const oneWay = f.order.some((id) => recommendsOneWay(results[id]!.options, results[id]!.tally));
    // One per kind across the sub-problems and the plan, each with every specific act any of them named.
    const disclaimers = mergeDisclaimers([
      ...f.order.map((id) => results[id]!.disclaimers),
      disclaimersFor({ text: `${e.problem}\n${out.summary}`, domains: f.statement.domains, oneWayDoor: oneWay, beyondGeneralGuidance: guidance }),
    ]);
    const rec: Recommendation = {
      ...out,
      summary: summary.fixed,
      steps: steps.map((x) => x.fixed),
      tradeoffs: out.tradeoffs.map((t) => lintAdvisory(t).fixed),
      ...(guidance && { beyondGeneralGuidance: guidance }),
      disclaimers,
      advisoryFixes: [...summary.violations, ...steps.flatMap((x) => x.violations)],
      openQuestions,
    };
    return {
      result: rec,
      events: [event('recommendation.completed', rec)],
      patch: { phase: 'recommendation', progress: { phase: 'recommendation', percent: 98 } },
    };
  });
}

/** The intake's questions the person left unanswered (ids q1, q2… in the order asked, as the clarification checkpoint numbers them). */
export function unansweredClarifications(statement: Framing['statement'] & { answers?: { id: string }[] }): { question: string; assumption: string }[] {
  const answered = new Set((statement.answers ?? []).map((a) => a.id));
  return statement.clarifications.filter((_, i) => !answered.has(`q${i + 1}`)).map(({ question, assumption }) => ({ question, assumption }));
}
