import { event } from '../../domain/events';
import { disclaimersFor, lintAdvisory } from '../../domain/guardrails';
import { finalRecommendationSchema, type FinalRecommendation } from '../../domain/model';
import type { Engine, Framing } from './context';
import type { SubProblemResult } from './synthesis';

export type Recommendation = FinalRecommendation & {
  disclaimers: { kind: string; text: string }[];
  advisoryFixes: string[];
};

/** The integrated recommendation across sub-problems, advisory language checked on the output. */
export async function recommend(e: Engine, framing: Framing, results: Record<string, SubProblemResult>, skipped: string[] = []): Promise<Recommendation> {
  // Skipped sub-problems are named as open, not decided.
  const f = { ...framing, order: framing.order.filter((id) => !skipped.includes(id)) };
  const open = skipped.map((id) => `${id} (${framing.subProblems.find((x) => x.id === id)!.title}): not deliberated; the person skipped it, so it stays open`);
  return e.run.step('recommendation', async (s) => {
    const decisions = [...f.order.map((id) => {
      const r = results[id]!;
      return `${id} (${f.subProblems.find((x) => x.id === id)!.title}): ${r.synthesis.recommendation} (confidence ${r.synthesis.confidence.toFixed(2)}${r.tally.deferred ? ', deferred' : ''})`;
    }), ...open];
    const out = await s.llm({
      tier: 'smart',
      phase: 'recommendation',
      purpose: 'final_recommendation',
      prompt: e.prompt('final_recommendation', { statement: f.statement.statement, decisions }),
      schema: finalRecommendationSchema,
      maxTokens: 2500,
      hints: {
        syntheses: f.order.map((id) => ({
          subProblemId: id,
          recommendation: results[id]!.synthesis.recommendation,
          confidence: results[id]!.synthesis.confidence,
          deferred: results[id]!.tally.deferred,
        })),
      },
    });
    const summary = lintAdvisory(out.summary);
    const steps = out.steps.map(lintAdvisory);
    const oneWay = f.order.some((id) => results[id]!.options.decisionReversibility === 'one_way');
    const disclaimers = dedupe([
      ...f.order.flatMap((id) => results[id]!.disclaimers),
      ...disclaimersFor({ text: `${e.problem}\n${out.summary}`, domains: f.statement.domains, oneWayDoor: oneWay }),
    ]);
    const rec: Recommendation = {
      ...out,
      summary: summary.fixed,
      steps: steps.map((x) => x.fixed),
      tradeoffs: out.tradeoffs.map((t) => lintAdvisory(t).fixed),
      disclaimers,
      advisoryFixes: [...summary.violations, ...steps.flatMap((x) => x.violations)],
    };
    return {
      result: rec,
      events: [event('recommendation.completed', rec)],
      patch: { phase: 'recommendation', progress: { phase: 'recommendation', percent: 98 } },
    };
  });
}

function dedupe(items: { kind: string; text: string }[]) {
  const seen = new Set<string>();
  return items.filter((d) => !seen.has(d.kind) && seen.add(d.kind));
}
