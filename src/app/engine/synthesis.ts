import { debateEffect, type DebateEffect, type StrawVote } from '../../domain/straw';
import { commitmentStatement, commitmentTriggers, qualityReport, type QualityReport } from '../../domain/commitment';
import { event } from '../../domain/events';
import { withFactIds } from '../../domain/debate/record';
import { disclaimersFor, lintAdvisory, recommendsOneWay, type Disclaimer } from '../../domain/guardrails';
import { synthesisCall } from '../../calls/synthesis';
import type { Synthesis, SubProblem, Vote } from '../../domain/model';
import { brief, nameOf, round4, subProblemFacts, type Engine } from './context';
import type { DebateOutcome } from './debate';
import type { VoteOutcome } from './vote';

export interface SubProblemResult {
  subProblemId: string;
  panel: string[];
  synthesis: Synthesis;
  commitment: { triggered: boolean; triggers: string[]; statement: string };
  disclaimers: Disclaimer[];
  quality: QualityReport;
  options: VoteOutcome['options'];
  votes: VoteOutcome['votes'];
  tally: VoteOutcome['tally'];
  advisoryFixes: string[];
  /** Questions only the person can answer that the debate left open. */
  openQuestions: DebateOutcome['openQuestions'];
  /** What a plain vote on the opening positions would have chosen. */
  strawVote: StrawVote | null;
  /** Whether the debate changed that outcome, and who moved and why. */
  debateEffect: DebateEffect;
}

/**
 * Synthesis of one sub-problem: the facilitator's recommendation, checked for
 * advisory language on the output itself; the disagree-and-commit statement
 * when a trigger fires; escalation disclaimers; the quality report.
 */
export async function synthesise(e: Engine, sp: SubProblem, panel: string[], d: DebateOutcome, v: VoteOutcome, domains: string[]): Promise<SubProblemResult> {
  const spBrief = brief(sp);
  const { options, votes, tally } = v;
  return e.run.step(`${sp.id}/synthesis`, async (s) => {
    const ledger = subProblemFacts(e, sp.id);
    const out = await s.call(synthesisCall, { subProblem: spBrief, options: options.options, votes, tally, facts: ledger });
    const decided = decisionFacts(sp.id, out.facts);
    const rec = lintAdvisory(out.recommendation);
    const why = lintAdvisory(out.rationale);
    const caveats = out.caveats.map((c) => lintAdvisory(c).fixed);
    const guidance = out.beyondGeneralGuidance?.map((x) => ({ ...x, what: lintAdvisory(x.what).fixed }));
    const synthesis: Synthesis = { ...out, recommendation: rec.fixed, rationale: why.fixed, caveats, ...(guidance && { beyondGeneralGuidance: guidance }) };
    // The door of what the board chose: committing to a reversible step is no one-way commitment.
    const triggers = commitmentTriggers({ tally, votes, reversibility: recommendsOneWay(options, tally) ? 'one_way' : 'two_way' }, e.settings);
    const winner = options.options.find((o) => o.id === tally.winner);
    const dissenters = dissentersOf(votes, tally.winner);
    // A tie or a deferral is said plainly: there is no decision to commit to.
    const statement = winner
      ? commitmentStatement({ decision: winner.title, dissenters, rationale: firstSentence(synthesis.rationale), triggered: triggers.length > 0, confidence: synthesis.confidence })
      : tally.deferred
        ? `The board defers this decision: it is a one-way door and no option reached the ${Math.round(e.settings.supermajority * 100)}% supermajority. The synthesis says what would settle it.`
        : `The board is split between options ${tally.tie.join(', ')}: no option has a majority, so the board commits to none. The synthesis says what would settle it.`;
    const disclaimers = disclaimersFor({
      text: `${e.problem}\n${sp.goal}\n${synthesis.recommendation}`,
      domains,
      oneWayDoor: recommendsOneWay(options, tally),
      beyondGeneralGuidance: guidance,
    });
    const meanConfidence = votes.length ? votes.reduce((a, x) => a + x.confidence, 0) / votes.length : 0;
    const meanRelevance = d.metrics.length ? d.metrics.reduce((a, m) => a + m.relevance, 0) / d.metrics.length : 10;
    const quality = qualityReport({
      roundsUsed: d.rounds,
      maxRounds: d.maxRounds,
      elapsedMs: d.elapsedMs,
      stopReason: d.stopReason,
      consensus: tally.consensus,
      meanConfidence: round4(meanConfidence),
      meanRelevance,
      researchUsed: d.researchUsed,
      interventions: d.interventions,
      deadlocksResolved: d.deadlocksResolved,
      redirects: d.redirects,
      costUsd: round4(e.run.spentUsd(`${sp.id}/`) + s.pendingCostUsd()),
    });
    const advisoryFixes = [...rec.violations, ...why.violations];
    const result: SubProblemResult = {
      subProblemId: sp.id,
      panel,
      synthesis,
      commitment: { triggered: triggers.length > 0, triggers, statement },
      disclaimers,
      quality,
      options,
      votes,
      tally,
      advisoryFixes,
      openQuestions: d.openQuestions,
      strawVote: d.straw,
      debateEffect: debateEffect(d.straw, options.options, votes, tally.winner),
    };
    return {
      result,
      events: [
        // Before the synthesis, so the ledger every later step reads holds the decision's figures in place of what they settle.
        ...(decided.length ? [event('facts.recorded', { subProblemId: sp.id, round: d.rounds, facts: decided })] : []),
        event('synthesis.completed', { subProblemId: sp.id, synthesis, commitment: result.commitment, disclaimers, advisoryFixes }),
        event('subproblem.completed', { subProblemId: sp.id, rounds: d.rounds, stopReason: d.stopReason, quality }),
        event('usage.updated', await s.usageIncludingPending()),
      ],
      patch: { subProblemProgress: { id: sp.id, value: { stage: 'done', round: d.rounds, maxRounds: d.maxRounds, fraction: 1 } } },
    };
  });
}

/**
 * The decision's own ledger facts (`sp2.d.f1`: fact 1 of sp2's decision). A pricing trial's ledger kept the figures
 * computed for a $99 tier after the vote chose $79, and every later step read both.
 */
export const decisionFacts = (subProblemId: string, facts: Synthesis['facts'] | undefined) => withFactIds(`${subProblemId}.d`, facts);

/**
 * Who voted against the winner, each with why they voted as they did: their rationale's first sentence, not their
 * strong objection, which may be aimed at a third option (a pricing trial's statement quoted an expert's objection to
 * option C as his reservation about the winner); the transcript shows the objection under the vote it came with.
 */
export function dissentersOf(votes: readonly Pick<Vote, 'persona' | 'optionId' | 'rationale'>[], winner: string | null): { name: string; concern: string }[] {
  return votes.filter((x) => x.optionId !== winner).map((x) => ({ name: nameOf(x.persona), concern: firstSentence(x.rationale) }));
}

const firstSentence = (t: string) => /^[\s\S]*?[.!?](?=\s|$)/.exec(t)?.[0] ?? t;
