import type { SubProblemBrief } from '../../calls/debate';
import type { TierPrices } from '../budget';
import type { Resolution } from '../checkpoints';
import type { RoundMetrics } from '../metrics';
import type { Contribution, FacilitatorRound } from '../model';
import type { Moderator } from '../moderators';
import type { DebatePhase } from '../speakers';
import type { StopDecision, StopReason } from '../stopping';
import type { StrawVote } from '../straw';
import { openingChapter, type Chapter } from './record';

/**
 * The state of one sub-problem's debate: plain data (JSON in, JSON out), so
 * the rules that move it on (machine.ts) are pure functions a test can drive
 * with hand-made results, and a replay that folds the same stored results in
 * reaches the same state.
 */

/** What does not change during the debate: given by the engine when it starts. */
export interface DebateSetup {
  subProblem: SubProblemBrief;
  /** Persona codes of the board for this sub-problem. */
  panel: string[];
  maxRounds: number;
  /** Decisions of earlier sub-problems this one depends on, rendered; '' for none. */
  decidedEarlier: string;
  /** Per expert: what memory contributes to their prompt, rendered. */
  memory: Record<string, string>;
  /** Seats the person asked for in words: what they asked for, and whether the expert is a close match or only the nearest. */
  requested?: Record<string, { want: string; close: boolean }>;
  /** The person's messages to the board before this sub-problem started (interventions elsewhere), oldest first. */
  personSaid: string[];
  /** Lessons from earlier sessions, rendered for the facilitator; '' for none. */
  lessons: string;
  /** Experts remember positions from earlier sessions: after the opening round their stances are checked against them. */
  checkStances: boolean;
  /**
   * The person sees the experts' questions when a round ends and may answer before the next (interactive, with the
   * round_end checkpoint); otherwise nobody answers before the vote, and a question waits for the recommendation.
   */
  personAnswersRounds: boolean;
  /** The session's spending cap, USD; null for none. */
  budgetUsd: number | null;
  prices: TierPrices;
  /** The embedder's calibration, so similarity thresholds mean the same whichever embedder runs. */
  calibration: { different: number; same: number };
}

/** One expert's turn: their answer as the model gave it, and who gave it. */
export interface Turn extends Contribution {
  persona: string;
}

/** The end-of-round evaluation, as its step stores it. */
export interface RoundEnd {
  metrics: RoundMetrics;
  stop: StopDecision;
  moderator: Moderator | null;
  redirect: boolean;
  research: string[];
  /** Research requests not answered, each with why (the cap reached, or the debate ended first). */
  declined?: { persona: string; query: string; reason: string }[];
  /** Questions only the person can answer, raised this round. */
  personQuestions?: PersonQuestion[];
  elapsedMs: number;
}

/** A question an expert put to the person; open until the person answers (an intervention at the round's checkpoint). */
export interface PersonQuestion {
  persona: string;
  question: string;
  round: number;
}

/** Inputs the next round's experts respond to: moderator, research, the facilitator's question, a redirect. */
export interface Carry {
  moderator: { kind: string; text: string } | null;
  research: { query: string; findings: string }[];
  question: string | null;
  redirect: boolean;
  /** Experts whose last contribution repeated what was said before. */
  repeated: string[];
  /** Experts told to explain a change from a remembered position, until they next speak. */
  notices: Record<string, string>;
  /** What the person said at the last round's checkpoint: the next round answers it first. */
  intervention: string | null;
}

export const emptyCarry = (): Carry => ({ moderator: null, research: [], question: null, redirect: false, repeated: [], notices: {}, intervention: null });

/** The round under way: its plan, and the results folded in so far. */
export interface RoundInProgress {
  round: number;
  phase: DebatePhase;
  speakers: string[];
  invited: string[];
  /** What this round's speakers respond to (the last round's carry). */
  inputs: Carry;
  turns: Turn[];
  facilitator: FacilitatorRound | null;
  /** Per turn, the embeddings of its text and of its position. */
  vectors: { text: number[]; position: number[] }[] | null;
  end: RoundEnd | null;
  /** What the next round will respond to, built up as this round ends. */
  next: Carry;
  /** The person's answer at the round_end checkpoint. */
  steer: Resolution | null;
}

/** Where the debate is: the stage names the next thing to do. */
export type Stage = 'start' | 'round' | 'experts' | 'facilitator' | 'embed' | 'evaluate' | 'stances' | 'moderator' | 'research' | 'checkpoint' | 'done';

export interface DebateState {
  setup: DebateSetup;
  stage: Stage;
  /** When the debate started (ISO), for the time limit. */
  startedAt: string | null;
  /** Each round's turns and summary: the material of the "discussion so far". */
  rounds: { round: number; turns: { name: string; text: string }[]; summary: string | null }[];
  /** The board record (record.ts): the opening page, then each sealed round. */
  chapters: Chapter[];
  /** Ledger facts of other sub-problems already in the record. */
  seenFacts: string[];
  /** The straw vote on the opening positions, once the facilitator mapped them. */
  straw: StrawVote | null;
  /** Every earlier contribution's embedding, for novelty. */
  history: { vector: number[]; round: number }[];
  /**
   * Each expert's latest position embedding, in the order they first spoke
   * (persona codes are never integer-like, so an object keeps that order).
   */
  positionVectors: Record<string, number[]>;
  /** Each expert's latest stated position. */
  positions: Record<string, string>;
  turnsByPersona: Record<string, string[]>;
  spoken: Record<string, number>;
  metrics: RoundMetrics[];
  interventions: { kind: string; round: number }[];
  keyArguments: string[];
  wantsToSpeak: string[];
  lastSpeaker: string | null;
  researchUsed: number;
  redirects: number;
  deadlockBreakAttempted: boolean;
  /** Moderators that spoke already: each at most once per sub-problem. */
  used: Moderator[];
  /** Questions for the person nobody answered: the recommendation depends on them. */
  openQuestions: PersonQuestion[];
  /** Whom each expert challenged in their latest turn. */
  disagreements: Record<string, string[]>;
  current: RoundInProgress | null;
}

export interface DebateOutcome {
  rounds: number;
  maxRounds: number;
  stopReason: StopReason;
  stopDetail: string;
  /** The person chose to skip the remaining sub-problems at this debate's last checkpoint. */
  skipToFinal: boolean;
  elapsedMs: number;
  /** Each panel member's latest stated position. */
  positions: Record<string, string>;
  /** What each expert said, in order: the material of their post-debate summary. */
  turnsByPersona: Record<string, string[]>;
  /** The facilitator's strongest arguments at the last round: the voters' digest of the debate. */
  keyArguments: string[];
  /** Whom each expert challenged in their latest turn: the disagreements still open at the vote. */
  disagreements: Record<string, string[]>;
  /** The round of each expert's latest turn: a challenge from an earlier round may have been answered since. */
  lastTurnRound: Record<string, number>;
  /** The facilitator's summary of the last round it summarised (its points and disagreements); null if none. */
  lastSummary: string | null;
  transcript: string;
  /** The board record as the vote reads it: every chapter, the last round's included. */
  record: string[];
  /** What a plain vote on the opening positions would have chosen; null when the facilitator gave none. */
  straw: StrawVote | null;
  metrics: RoundMetrics[];
  researchUsed: number;
  /** What research answered during the debate, oldest first (general knowledge, as the record labels it). */
  research: { query: string; findings: string }[];
  interventions: { kind: string; round: number }[];
  redirects: number;
  deadlocksResolved: number;
  /** Questions only the person can answer that stayed unanswered. */
  openQuestions: PersonQuestion[];
}

export function startDebate(setup: DebateSetup): DebateState {
  return {
    setup,
    stage: 'start',
    startedAt: null,
    rounds: [],
    chapters: [openingChapter()],
    seenFacts: [],
    straw: null,
    history: [],
    positionVectors: {},
    positions: {},
    turnsByPersona: {},
    spoken: Object.fromEntries(setup.panel.map((p) => [p, 0])),
    metrics: [],
    interventions: [],
    keyArguments: [],
    wantsToSpeak: [],
    lastSpeaker: null,
    researchUsed: 0,
    redirects: 0,
    deadlockBreakAttempted: false,
    used: [],
    openQuestions: [],
    disagreements: {},
    current: null,
  };
}

/** The round under way; a defect if asked for before the first round opened. */
export function currentRound(state: DebateState): RoundInProgress {
  if (!state.current) throw new Error(`debate of ${state.setup.subProblem.id}: no round under way at stage ${state.stage}`);
  return state.current;
}
