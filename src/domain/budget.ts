import type { AnyCall } from '../calls/call';
import { boardSelectionCall } from '../calls/board';
import { facilitatorRoundCall, moderatorCall, openingStatementCall, researchCall } from '../calls/debate';
import { problemStatementCall } from '../calls/intake';
import { decomposeCall } from '../calls/planning';
import { finalRecommendationCall, synthesisCall } from '../calls/synthesis';
import { calibrationCall, optionsCall, voteCall } from '../calls/voting';
import { roundCap } from './schedule';
import type { EngineSettings } from './settings';

/**
 * Cost estimates for budgets (seed 002, 4.5.1 "cost thresholds"): what a
 * session is likely to cost before it starts, the cheapest session possible
 * (to refuse a budget that cannot cover it up front), and the cost of one
 * more debate round (to stop before the budget is exceeded). All come from
 * the explicit per-call token assumptions below, priced per tier.
 */

/** List price of a model tier, USD per million tokens. */
export interface PriceTier {
  input: number;
  output: number;
}
export interface TierPrices {
  smart: PriceTier;
  fast: PriceTier;
}

interface CallTokens {
  tier: keyof TierPrices;
  input: number;
  output: number;
}

const tokens = (c: Pick<AnyCall, 'tier' | 'estimate'>): CallTokens => ({ tier: c.tier, input: c.estimate.input, output: c.estimate.output });

/**
 * Tokens per model call, assuming a problem and context of up to
 * TYPICAL_PROBLEM_CHARS: each call's own estimate and tier, from its
 * declaration in the catalogue (src/calls).
 */
export const CALL_TOKENS = {
  intake: tokens(problemStatementCall),
  decompose: tokens(decomposeCall),
  board: tokens(boardSelectionCall),
  final: tokens(finalRecommendationCall),
  /** One expert's turn in round 1; later rounds add transcript, see EXPERT_TURN_GROWTH. */
  expertTurn: tokens(openingStatementCall),
  /** Reads each speaker's turn, see FACILITATOR_PER_SPEAKER. */
  facilitatorRound: tokens(facilitatorRoundCall),
  options: tokens(optionsCall),
  vote: tokens(voteCall),
  calibration: tokens(calibrationCall),
  synthesis: tokens(synthesisCall),
  research: tokens(researchCall),
  moderator: tokens(moderatorCall),
} satisfies Record<string, CallTokens>;

/**
 * Extra input per expert turn for each earlier round it reads (about one
 * round of turns plus the facilitator summary). Bounded because older rounds
 * are summarised, not replayed: growth stops after `maxEarlierRounds`.
 */
export const EXPERT_TURN_GROWTH = { perEarlierRound: 600, maxEarlierRounds: 6 } as const;
/** The facilitator reads every turn of the round. */
export const FACILITATOR_PER_SPEAKER = 300;
/** The facilitator's prompt lists the whole panel (for who wants to speak next). */
export const FACILITATOR_PER_PANELIST = 50;
/** Problem text the assumptions above already include; longer problems add their excess to every call. */
export const TYPICAL_PROBLEM_CHARS = 1_000;
export const CHARS_PER_TOKEN = 4;
/** The cheapest board the spec allows by default, for the minimum session. */
export const MINIMUM_PANEL = 3;
/** Rounds of a typical debate (spec: most value comes from rounds 3-5). */
export const EXPECTED_ROUNDS = 4;

const usd = (call: CallTokens, prices: TierPrices, extraInput = 0) =>
  ((call.input + extraInput) * prices[call.tier].input + call.output * prices[call.tier].output) / 1e6;

function expertTurnUsd(round: number, prices: TierPrices, extra: number): number {
  const earlier = Math.min(Math.max(0, round - 1), EXPERT_TURN_GROWTH.maxEarlierRounds);
  return usd(CALL_TOKENS.expertTurn, prices, extra + earlier * EXPERT_TURN_GROWTH.perEarlierRound);
}

function roundUsd(panelSize: number, speakers: number, round: number, prices: TierPrices, extra: number): number {
  const facilitatorExtra = extra + speakers * FACILITATOR_PER_SPEAKER + panelSize * FACILITATOR_PER_PANELIST;
  return speakers * expertTurnUsd(round, prices, extra) + usd(CALL_TOKENS.facilitatorRound, prices, facilitatorExtra);
}

/**
 * Cost of one debate round: each speaker's turn (input growing with the
 * round, bounded) and the facilitator's summary. Used before a round to
 * check it would not exceed the budget.
 */
export function roundCostUsd(panelSize: number, speakers: number, round: number, prices: TierPrices): number {
  return roundUsd(panelSize, speakers, round, prices, 0);
}

interface SubProblemPlan {
  panelSize: number;
  rounds: number;
  research: number;
  moderators: number;
}

/** `speakersPerRound`: later rounds hear at most this many experts (the opening round hears everyone). */
function subProblemUsd(plan: SubProblemPlan, prices: TierPrices, speakersPerRound: number, extra: number): number {
  const { panelSize, rounds } = plan;
  let total = 0;
  for (let r = 1; r <= rounds; r++) total += roundUsd(panelSize, r === 1 ? panelSize : Math.min(speakersPerRound, panelSize), r, prices, extra);
  total += usd(CALL_TOKENS.options, prices, extra);
  total += panelSize * (usd(CALL_TOKENS.vote, prices, extra) + usd(CALL_TOKENS.calibration, prices, extra));
  total += usd(CALL_TOKENS.synthesis, prices, extra);
  total += plan.research * usd(CALL_TOKENS.research, prices, extra);
  total += plan.moderators * usd(CALL_TOKENS.moderator, prices, extra);
  return total;
}

const sessionFixedUsd = (prices: TierPrices, extra: number) =>
  usd(CALL_TOKENS.intake, prices, extra) + usd(CALL_TOKENS.decompose, prices, extra) + usd(CALL_TOKENS.board, prices, extra) + usd(CALL_TOKENS.final, prices, extra);

/**
 * Session cost range once the sub-problems are known. Minimum: the opening
 * round only, then options, votes, calibration and synthesis. Expected:
 * min(EXPECTED_ROUNDS, cap) rounds, one research request and, from round 3,
 * one moderator intervention. Maximum: every round up to the cap, all
 * research allowed and a moderator in every later round. Each range adds
 * the session's intake, decomposition and final recommendation once.
 */
export function estimateSessionCost(
  input: { subProblems: { complexity: number; panelSize: number }[]; prices: TierPrices },
  s: EngineSettings,
): {
  minimumUsd: number;
  expectedUsd: number;
  maximumUsd: number;
  perSubProblem: { minimumUsd: number; expectedUsd: number; maximumUsd: number }[];
} {
  const { prices } = input;
  const perSubProblem = input.subProblems.map(({ complexity, panelSize }) => {
    const cap = roundCap(complexity, s.roundCaps);
    const expectedRounds = Math.min(EXPECTED_ROUNDS, cap);
    return {
      minimumUsd: subProblemUsd({ panelSize, rounds: 1, research: 0, moderators: 0 }, prices, s.speakersPerRound, 0),
      expectedUsd: subProblemUsd(
        { panelSize, rounds: expectedRounds, research: Math.min(1, s.researchPerSubProblem), moderators: expectedRounds >= 3 ? 1 : 0 },
        prices,
        s.speakersPerRound,
        0,
      ),
      maximumUsd: subProblemUsd({ panelSize, rounds: cap, research: s.researchPerSubProblem, moderators: cap - 1 }, prices, s.speakersPerRound, 0),
    };
  });
  const fixed = sessionFixedUsd(prices, 0);
  const sum = (k: 'minimumUsd' | 'expectedUsd' | 'maximumUsd') => fixed + perSubProblem.reduce((a, p) => a + p[k], 0);
  return { minimumUsd: sum('minimumUsd'), expectedUsd: sum('expectedUsd'), maximumUsd: sum('maximumUsd'), perSubProblem };
}

/**
 * The cheapest session possible: one atomic sub-problem, MINIMUM_PANEL
 * experts, the opening round only. A budget below this cannot finish any
 * session, so it is refused before anything runs. Problem text beyond
 * TYPICAL_PROBLEM_CHARS is added to every call's input.
 */
export function estimateMinimumSessionCostUsd(problemChars: number, prices: TierPrices): number {
  const extra = Math.ceil(Math.max(0, problemChars - TYPICAL_PROBLEM_CHARS) / CHARS_PER_TOKEN);
  // One round only: speakers per later round never comes into it.
  return sessionFixedUsd(prices, extra) + subProblemUsd({ panelSize: MINIMUM_PANEL, rounds: 1, research: 0, moderators: 0 }, prices, MINIMUM_PANEL, extra);
}
