import type { Tally } from './model';
import type { EngineSettings } from './settings';

/**
 * The commitment protocol and quality report of a sub-problem (seed 002,
 * 4.4 and 4.5.6): when the board is split or unsure, the decision is still
 * locked with an explicit "disagree and commit" statement that names the
 * dissent, so it is neither relitigated nor presented as unanimous.
 */

/** Slack for threshold comparisons on shares computed from small integer counts (2/6 vs 0.3…). */
const EPS = 1e-9;

const pct = (share: number) => `${Math.round(share * 100)}%`;
const two = (n: number) => n.toFixed(2);
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "A", "A and B", "A, B and C". */
function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Ordinary sentence-initial words (articles, pronouns, common verbs of
 * option titles) that read wrongly capitalised mid-sentence. Anything else
 * keeps its capital: it may be a name ("Shopify partnership").
 */
const LOWERCASE_STARTS = new Set(
  (
    'the this that these those it its our we they a an too not no lack risk cost costs higher lower losing delaying ' +
    'build launch keep stay hire raise introduce focus pivot ship migrate spend double bring use adopt start stop delay defer run ' +
    'test invest offer add switch move go pursue choose rewrite stick refactor partner target sell price charge create expand hold ' +
    'wait combine split prioritize prioritise remain continue option plan'
  ).split(' '),
);

/** Trims a clause for embedding mid-sentence: no trailing full stop, and no sentence-start capital on an ordinary word. */
function clause(text: string): string {
  const t = text.trim().replace(/[.!?\s]+$/u, '');
  const first = /^[A-Z][a-z]*/u.exec(t)?.[0];
  if (first && first.length > 1 && LOWERCASE_STARTS.has(first.toLowerCase()) && !/^(Option|Plan) [A-Z0-9]\b/u.test(t))
    return t[0]!.toLowerCase() + t.slice(1);
  return t;
}

/** A concern that is a whole clause ("the price is too low") is quoted; a topic ("pricing risk") follows "about". */
const CLAUSE_VERB =
  /\s(?:is|are|was|were|will|would|could|can|may|might|should|must|has|have|had|does|do|did|isn't|aren't|wasn't|won't|wouldn't|can't|cannot|doesn't|don't|didn't|lacks?|needs?|risks?|makes?|takes?|leaves?|ignores?|underestimates?|overestimates?)\s/iu;
function aboutConcern(concern: string): string {
  if (!concern) return ' about this decision';
  return CLAUSE_VERB.test(` ${concern} `) ? ` ("${concern}")` : ` about ${concern}`;
}

export interface CommitmentVote {
  persona: string;
  optionId: string;
  confidence: number;
  strongObjection: string | null;
}

/**
 * Why the board must "disagree and commit", one human-readable reason per
 * trigger of the spec: a dissent share at or above
 * `s.commitment.dissentShareAtLeast`, mean confidence below
 * `s.commitment.meanConfidenceBelow`, a one-way door with any dissent, or a
 * strong objection from a dissenter. Dissent means votes against the winning
 * option: with no winner (a tie, a deferral) there is nothing to commit to,
 * and a unanimous board never disagrees. An objection from an expert who voted
 * for the winner is about a losing option, so it is no dissent either. No
 * votes at all is not consensus, so it is a reason of its own.
 */
export function commitmentTriggers(
  input: { tally: Tally; votes: CommitmentVote[]; reversibility: 'one_way' | 'two_way' },
  s: EngineSettings,
): string[] {
  const { tally, votes, reversibility } = input;
  const n = votes.length;
  if (!n) return ['No votes were cast, so the board has no consensus to commit to.'];
  if (tally.winner === null) return [];
  const dissenters = votes.filter((v) => v.optionId !== tally.winner);
  if (!dissenters.length) return [];
  const dissentShare = dissenters.length / n;

  const reasons: string[] = [];
  if (dissentShare + EPS >= s.commitment.dissentShareAtLeast)
    reasons.push(
      `${dissenters.length} of ${n} experts (${pct(dissentShare)}) did not vote for option ${tally.winner}, ` +
        `at or above the ${pct(s.commitment.dissentShareAtLeast)} dissent threshold.`,
    );
  const mean = votes.reduce((a, v) => a + v.confidence, 0) / n;
  if (mean < s.commitment.meanConfidenceBelow - EPS)
    reasons.push(`The experts' mean confidence is ${two(mean)}, below ${two(s.commitment.meanConfidenceBelow)}.`);
  if (reversibility === 'one_way')
    reasons.push(`This is a one-way door and ${plural(dissenters.length, 'expert', 'experts')} dissented (${dissenters.map((d) => d.persona).join(', ')}).`);
  const objections = dissenters.filter((v) => v.strongObjection !== null && v.strongObjection.trim() !== '');
  if (objections.length)
    reasons.push(`Strong objections were raised: ${objections.map((v) => `${v.persona}: ${clause(v.strongObjection!)}`).join('; ')}.`);
  return reasons;
}

/**
 * The commitment statement in the spec's wording. When triggered, it names
 * who had reservations and about what, then commits; otherwise it is the
 * one-line recommendation. The confidence label follows the number (high
 * from 0.75, moderate from 0.5, low below) so the sentence never claims more
 * certainty than it shows; the spec's example (0.85) reads "high confidence".
 */
export function commitmentStatement(input: {
  decision: string;
  dissenters: { name: string; concern: string }[];
  rationale: string;
  triggered: boolean;
  confidence: number;
}): string {
  const decision = clause(input.decision);
  const c = Number.isFinite(input.confidence) ? Math.min(1, Math.max(0, input.confidence)) : 0;
  if (!input.triggered) {
    const label = c >= 0.75 - EPS ? 'high' : c >= 0.5 - EPS ? 'moderate' : 'low';
    return `The board recommends ${decision} with ${label} confidence (${two(c)}).`;
  }

  // Group dissenters by concern so "A and B had reservations about x" reads as the spec's example.
  const byConcern = new Map<string, string[]>();
  for (const d of input.dissenters) {
    const concern = clause(d.concern);
    const names = byConcern.get(concern) ?? [];
    if (!names.includes(d.name)) names.push(d.name);
    byConcern.set(concern, names);
  }
  const groups = [...byConcern].map(([concern, names]) => `${joinNames(names)} had reservations${aboutConcern(concern)}`);

  let acknowledge: string;
  let despite: string;
  if (groups.length) {
    acknowledge = `We acknowledge ${groups.join(', and ')}.`;
    despite = 'Despite this dissent';
  } else {
    acknowledge = `We acknowledge the board's confidence in this decision is limited (${two(c)}).`;
    despite = 'Despite this uncertainty';
  }
  const rationale = clause(input.rationale);
  return (
    `The board has decided: ${decision}. ${acknowledge} ` +
    // The spec's "because: [rationale]": the colon lets the rationale keep its own capital ("because: Two of three…").
    `${despite}, we commit to ${decision}${rationale ? ` because: ${rationale}` : ''}. ` +
    // Final against relitigating, not against the decision's own review points (a trial read "final" beside "reviewed monthly").
    `This decision is final for this sub-problem; the checks and conditions it sets still apply. We disagree and commit.`
  );
}

export interface QualityReport {
  roundsUsed: number;
  maxRounds: number;
  elapsedMs: number;
  stopReason: string;
  /** The debate stopped before its cap because it converged or stopped adding anything. */
  earlyStop: boolean;
  consensus: number;
  meanConfidence: number;
  meanRelevance: number;
  /** Problem drift, 0 = on topic, 10 = entirely off topic (10 − mean relevance, one decimal). */
  drift: number;
  researchUsed: number;
  interventions: { kind: string; round: number }[];
  deadlocksResolved: number;
  redirects: number;
  costUsd: number;
}

/** Stop reasons that count as an early stop (spec 4.4: "Early stop triggered? (convergence/utility)"). */
const EARLY_STOPS = new Set(['consensus', 'diminishing_returns']);

/** The deliberation quality report of 4.4: efficiency, quality and interventions in one record. */
export function qualityReport(input: {
  roundsUsed: number;
  maxRounds: number;
  elapsedMs: number;
  stopReason: string;
  consensus: number;
  meanConfidence: number;
  meanRelevance: number;
  researchUsed: number;
  interventions: { kind: string; round: number }[];
  deadlocksResolved: number;
  redirects: number;
  costUsd: number;
}): QualityReport {
  const relevance = Number.isFinite(input.meanRelevance) ? Math.min(10, Math.max(0, input.meanRelevance)) : 10;
  return {
    roundsUsed: input.roundsUsed,
    maxRounds: input.maxRounds,
    elapsedMs: input.elapsedMs,
    stopReason: input.stopReason,
    earlyStop: EARLY_STOPS.has(input.stopReason),
    consensus: input.consensus,
    meanConfidence: input.meanConfidence,
    meanRelevance: input.meanRelevance,
    drift: Math.round((10 - relevance) * 10) / 10,
    researchUsed: input.researchUsed,
    interventions: input.interventions.map((i) => ({ ...i })),
    deadlocksResolved: input.deadlocksResolved,
    redirects: input.redirects,
    costUsd: input.costUsd,
  };
}
