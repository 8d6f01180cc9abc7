import type { Tally } from './model';
import type { EngineSettings } from './settings';

/**
 * Vote aggregation with automatic mechanism selection (seed 002, 3.5 and
 * 4.3 "VOTE AGGREGATION"): the stakes of the decision (one-way or two-way
 * door) and how much the experts' calibrated confidence differs decide how
 * votes count. Ties are reported, never broken silently (14.3).
 */

export type Reversibility = 'one_way' | 'two_way';
export type Mechanism = Tally['mechanism'];

/** A calibrated vote: only what aggregation needs, so any richer vote type fits. */
export interface Ballot {
  persona: string;
  optionId: string;
  confidence: number;
}

/**
 * Floating-point slack for threshold and tie comparisons: 0.8 − 0.5 is not
 * exactly 0.3 in binary, and a board must not flip mechanism or break a tie
 * over a rounding error.
 */
const EPS = 1e-9;

const pct = (share: number) => `${Math.round(share * 100)}%`;
const two = (n: number) => n.toFixed(2);
/** Confidence outside [0, 1] (or not a number) would let one vote outweigh the board. */
const clampConfidence = (c: number) => (Number.isFinite(c) ? Math.min(1, Math.max(0, c)) : 0);

/** Population standard deviation of the confidences (to 1e-9); 0 when fewer than two, since one voice has no spread. */
export function confidenceSpread(confidences: number[]): number {
  if (confidences.length < 2) return 0;
  const mean = confidences.reduce((a, c) => a + c, 0) / confidences.length;
  const variance = confidences.reduce((a, c) => a + (c - mean) ** 2, 0) / confidences.length;
  // Equal confidences must read as exactly 0, not 1e-16 of summation noise.
  return Math.round(Math.sqrt(variance) * 1e9) / 1e9;
}

/**
 * Picks the mechanism and explains it in a sentence the user (and the
 * synthesis prompt) reads; the number is named for what it is, a standard
 * deviation, since "spread" reads as a range (trial notes, 0044/0032):
 * irreversible decisions need a supermajority; reversible ones go by simple
 * majority unless the experts' confidence differs enough (spread above
 * `s.confidenceSpreadAbove`) that counting heads would ignore real
 * differences in certainty, in which case votes are weighted by confidence.
 */
export function chooseMechanism(
  reversibility: Reversibility,
  confidences: number[],
  s: EngineSettings,
): { mechanism: Mechanism; why: string } {
  if (reversibility === 'one_way') {
    return {
      mechanism: 'supermajority',
      why:
        // Said of the options, not the choice: a one-way decision is often answered with a two-way step (a trial read
        // "this decision is hard to reverse" above a reversible paid trial).
        `At least one option is hard to reverse (a one-way door), so the board requires a supermajority: ` +
        `at least ${pct(s.supermajority)} of the experts behind one option; short of that, it recommends more analysis or deferring.`,
    };
  }
  const spread = confidenceSpread(confidences.map(clampConfidence));
  if (spread <= s.confidenceSpreadAbove + EPS) {
    return {
      mechanism: 'simple_majority',
      why:
        `This decision is reversible (a two-way door) and the experts' confidence is similar ` +
        `(standard deviation ${two(spread)}, at most ${two(s.confidenceSpreadAbove)}), so the option with the most votes wins.`,
    };
  }
  return {
    mechanism: 'confidence_weighted',
    why:
      `This decision is reversible (a two-way door) but the experts' confidence differs widely ` +
      `(standard deviation ${two(spread)}, above ${two(s.confidenceSpreadAbove)}), so each vote is weighted by the expert's calibrated confidence.`,
  };
}

/**
 * Tallies calibrated votes. `distribution` always holds a count for every
 * option (zeros included) so the user sees the split whatever the mechanism;
 * `weights` holds what decided (counts, or summed confidence). Votes naming
 * an unknown option count in no option's tally but still count as members of
 * the board, so they lower the share behind the leader (a spoiled ballot is
 * not support). Consensus is the share of votes, by count, behind the leading
 * option. A one-way door whose leader falls short of `s.supermajority` is
 * deferred: no winner, so the synthesis recommends more analysis.
 *
 * `oneWay` names the options that are hard to reverse, when the caller knows
 * (else every option of a one-way decision counts as one). The supermajority
 * guards a commitment, so only a one-way option needs it: when the votes, as
 * a two-way decision counts them, lead to a reversible option, it wins as
 * there. A naming trial's decision was one-way only because an option nobody
 * backed cost 30% of the cash: a 2-to-1 vote for its reversible step would
 * have been deferred.
 */
export function aggregate(votes: Ballot[], optionIds: string[], reversibility: Reversibility, s: EngineSettings, oneWay?: readonly string[]): Tally {
  const ids = [...new Set(optionIds)];
  if (reversibility === 'one_way' && oneWay && ids.some((id) => !oneWay.includes(id))) {
    const open = aggregate(votes, ids, 'two_way', s);
    const leaders = open.winner !== null ? [open.winner] : open.tie;
    if (leaders.length && leaders.every((id) => !oneWay.includes(id))) {
      const lead = open.winner ? `the leading option, ${open.winner}, is not` : `the options tied in the lead, ${open.tie.join(' and ')}, are not`;
      return {
        ...open,
        why:
          `At least one option is hard to reverse (${oneWay.filter((id) => ids.includes(id)).join(', ')}), but ${lead}: only a one-way option needs ` +
          `${pct(s.supermajority)} of the experts behind it. ${open.why.replace(/^This decision is reversible \(a two-way door\) (and|but) /, 'Among the votes, ')}`,
      };
    }
  }
  const valid = votes.filter((v) => ids.includes(v.optionId));
  const { mechanism, why } = chooseMechanism(
    reversibility,
    valid.map((v) => v.confidence),
    s,
  );

  const distribution: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
  const weights: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
  for (const v of valid) {
    distribution[v.optionId] = (distribution[v.optionId] ?? 0) + 1;
    const w = mechanism === 'confidence_weighted' ? clampConfidence(v.confidence) : 1;
    weights[v.optionId] = (weights[v.optionId] ?? 0) + w;
  }
  // Summed confidences carry binary noise; round so equal sums compare and display equal.
  for (const id of ids) weights[id] = Math.round((weights[id] ?? 0) * 1e6) / 1e6;

  const top = Math.max(0, ...ids.map((id) => weights[id] ?? 0));
  const leaders = top > 0 ? ids.filter((id) => Math.abs((weights[id] ?? 0) - top) <= EPS) : [];
  const tie = leaders.length > 1 ? leaders : [];
  const leader = leaders.length === 1 ? leaders[0]! : null;

  const total = votes.length;
  const leadCount = leader !== null ? (distribution[leader] ?? 0) : Math.max(0, ...leaders.map((id) => distribution[id] ?? 0));
  const consensus = total ? leadCount / total : 0;

  const deferred = reversibility === 'one_way' && (leader === null || consensus + EPS < s.supermajority);
  const winner = deferred ? null : leader;

  let outcome = '';
  if (!total) outcome = ' No votes were cast.';
  else if (tie.length) outcome = ` The board is evenly split between ${tie.join(' and ')}; the tie is reported, not broken.`;
  if (deferred && leader !== null)
    outcome += ` Only ${pct(consensus)} backed ${leader}, short of ${pct(s.supermajority)}: the board recommends more analysis or deferring.`;
  else if (deferred && total) outcome += ` Without a supermajority the board recommends more analysis or deferring.`;

  return { mechanism, why: why + outcome, distribution, weights, winner, tie, consensus, deferred };
}
