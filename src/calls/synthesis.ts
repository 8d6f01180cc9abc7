import { ledgerLine, ledgerLines } from '../domain/debate/record';
import type { LedgerFact } from '../domain/model';
import { finalRecommendationSchema, synthesisSchema, type FinalRecommendation, type Option, type Persona, type Synthesis, type Tally, type Vote } from '../domain/model';
import { expertSummarySchema, type ExpertSummary } from '../memory/summary';
import { defineCall, fixed, nameOf, newestWithin } from './call';
import type { SubProblemBrief } from './debate';

export interface SynthesisInput {
  subProblem: SubProblemBrief;
  options: Option[];
  /** Calibrated votes: each with its strong objection, the confidence it was cast with and the reason for any change. */
  votes: Vote[];
  tally: Tally;
  /** This sub-problem's facts in the ledger as it stands: what the decision may settle or make stale. */
  facts: LedgerFact[];
}

const two = (n: number) => n.toFixed(2);

/** How calibration moved a vote's confidence, and why; nothing for a vote that was never calibrated. */
function calibrationOf(v: Vote): string {
  if (v.initialConfidence === undefined) return '';
  if (two(v.initialConfidence) === two(v.confidence)) return ` Calibration: held at ${two(v.confidence)}.`;
  return ` Calibration: ${two(v.initialConfidence)} → ${two(v.confidence)}${v.calibrationReason ? `, because: ${v.calibrationReason}` : '.'}`;
}

/** A vote as the synthesis weighs it: choice, calibrated confidence, reasons, strong objection, calibration change. */
const voteLine = (v: Vote) =>
  `${nameOf(v.persona)}: ${v.optionId} (confidence ${two(v.confidence)}). ${v.rationale}${v.strongObjection ? ` Strong objection: ${v.strongObjection}` : ''}${calibrationOf(v)}`;

/** The tally in sentences: a trial's model read "supermajority — At least one option is hard to reverse…" as run together. */
const tallyText = (t: Tally) =>
  [
    `Mechanism: ${t.mechanism}. ${t.why.replace(/[.\s]*$/, '.')}`,
    `Votes per option: ${Object.entries(t.distribution).map(([id, n]) => `${id} ${n}`).join(', ')}.`,
    ...(t.tie.length ? [`Tie between ${t.tie.join(', ')}.`] : []),
    ...(t.deferred ? ['Deferred: no supermajority for a one-way door.'] : []),
  ].join(' ');

/** The facilitator's synthesis of one sub-problem. */
export const synthesisCall = defineCall<SynthesisInput, Synthesis>({
  purpose: 'synthesis',
  role: 'synthesis',
  phase: 'synthesis',
  tier: 'smart',
  maxTokens: 2600,
  template: 'synthesis',
  output: fixed(synthesisSchema),
  vars: (i) => ({
    subProblem: i.subProblem,
    options: i.options.map((o) => `${o.id}. ${o.title}: ${o.description}`),
    votes: i.votes.map(voteLine),
    tally: tallyText(i.tally),
    facts: ledgerLines(i.facts),
  }),
  estimate: { input: 3_600, output: 700 },
});

type OptionRef = Pick<Option, 'id' | 'title'>;

/** One decided sub-problem as the integrator sees it: what the vote settled and the synthesis in full. */
export interface FinalSubProblem {
  subProblemId: string;
  title: string;
  /** The option the vote chose; null for a tie or a deferral. */
  winner: OptionRef | null;
  /** The options tied at the top when the vote split evenly; [] otherwise. */
  tie: OptionRef[];
  /** A one-way door without a supermajority: no option chosen. */
  deferred: boolean;
  recommendation: string;
  rationale: string;
  confidence: number;
  dissent: Synthesis['dissent'];
  caveats: string[];
  /** What the synthesis said needs a professional; absent when it did not say (answers recorded before the field). */
  beyondGeneralGuidance?: Synthesis['beyondGeneralGuidance'];
}

export interface FinalInput {
  statement: string;
  syntheses: FinalSubProblem[];
  /** Sub-problems the person skipped: named as open, not decided. */
  open: { subProblemId: string; title: string }[];
  /** Questions only the person can answer that nobody answered. */
  openQuestions: { subProblemId: string; name: string; question: string }[];
  /**
   * The intake's clarifying questions nobody answered (every one, in an automatic session), each with the assumption the
   * board went on with: a trial's plan rested on an assumed price per customer whose question never reached "questions for you".
   */
  unansweredClarifications: { question: string; assumption: string }[];
  /** The session's fact ledger, whole: what the reconciliation works from (the case memory's budget must not cut it). */
  facts: LedgerFact[];
}

const optionRef = (o: OptionRef) => `option ${o.id}, "${o.title}"`;

/** What the vote settled, said plainly: a tie or a deferral is not a decision. */
function outcomeOf(s: FinalSubProblem): string {
  if (s.deferred) return 'deferred: a one-way door without the supermajority, so no option was chosen';
  if (s.winner) return `the board chose ${optionRef(s.winner)}`;
  if (s.tie.length) return `tied between ${s.tie.map(optionRef).join(' and ')}: no option was chosen`;
  return 'no option was chosen';
}

/**
 * A sub-problem's decision in full (rationale, dissent, caveats), so the
 * integrator can reconcile the figures and conditions of one sub-problem with
 * another's instead of reading only each recommendation.
 */
const decisionBlock = (s: FinalSubProblem) =>
  [
    `${s.subProblemId} (${s.title}): ${outcomeOf(s)}.`,
    `  Recommendation (confidence ${two(s.confidence)}): ${s.recommendation}`,
    `  Rationale: ${s.rationale}`,
    `  Dissent:${s.dissent.length ? s.dissent.map((d) => `\n    - ${nameOf(d.persona)}: ${d.concern}`).join('') : ' none'}`,
    `  Caveats:${s.caveats.length ? s.caveats.map((c) => `\n    - ${c}`).join('') : ' none'}`,
    ...(s.beyondGeneralGuidance?.length ? [`  Needs a professional:${s.beyondGeneralGuidance.map((g) => `\n    - ${g.kind}: ${g.what}`).join('')}`] : []),
  ].join('\n');

/** The integrated recommendation across sub-problems. */
export const finalRecommendationCall = defineCall<FinalInput, FinalRecommendation>({
  purpose: 'final_recommendation',
  role: 'synthesis',
  phase: 'recommendation',
  tier: 'smart',
  maxTokens: 3500,
  template: 'final_recommendation',
  output: fixed(finalRecommendationSchema),
  vars: (i) => ({
    statement: i.statement,
    decisions: [
      ...i.syntheses.map(decisionBlock),
      ...i.open.map((o) => `${o.subProblemId} (${o.title}): not deliberated; the person skipped it, so it stays open`),
    ],
    facts: i.facts.length ? `\nThe fact ledger (every fact the sub-problems recorded, oldest first):\n${i.facts.map((f) => `- ${ledgerLine(f)}`).join('\n')}\n` : '',
    openQuestions: [
      i.unansweredClarifications.length
        ? `\nClarifying questions asked at intake that nobody answered, each with the assumption the board went on with:\n${i.unansweredClarifications.map((q) => `- ${q.question} (assumed: ${q.assumption})`).join('\n')}\n`
        : '',
      i.openQuestions.length
        ? `\nQuestions the experts asked the person that no checkpoint answer took up, in their words, repeats included (some may be answered since, in what the person told the board: leave those out):\n${i.openQuestions.map((q) => `- ${q.subProblemId}, ${q.name}: ${q.question}`).join('\n')}\n`
        : '',
    ].join(''),
  }),
  estimate: { input: 3_500, output: 800 },
});

export interface ExpertSummaryInput {
  persona: Persona;
  subProblem: SubProblemBrief;
  /** Every turn the expert took, oldest first (the prompt keeps what fits SUMMARY_TURNS_MAX_CHARS). */
  contributions: string[];
  vote: { optionId: string; confidence: number; rationale: string } | null;
  /** Latest stated position, and the vote's confidence (what the simulated board summarises from). */
  position: string;
  confidence: number;
}

/**
 * Total characters of an expert's turns its summary prompt carries: every turn
 * of a typical debate (a turn is at most 1,500 characters, most are under
 * 1,000), about 1,500 tokens. Over it, whole turns are dropped oldest first and
 * the prompt says how many: an opening figure is lost only in a long debate.
 */
export const SUMMARY_TURNS_MAX_CHARS = 6_000;

/** After a sub-problem, each expert who spoke summarises its position for later sub-problems (and, anonymised, later sessions). */
export const expertSummaryCall = defineCall<ExpertSummaryInput, ExpertSummary>({
  purpose: 'expert_summary',
  role: 'experts',
  seat: (i) => i.persona.code,
  phase: 'expert_memory',
  tier: 'fast',
  maxTokens: 500,
  template: 'expert_summary',
  output: fixed(expertSummarySchema),
  vars: (i) => {
    const { kept, omitted } = newestWithin(i.contributions, SUMMARY_TURNS_MAX_CHARS);
    return {
      persona: i.persona,
      subProblem: i.subProblem,
      omitted: omitted ? ` (your first ${omitted === 1 ? 'turn' : `${omitted} turns`} of ${i.contributions.length} left out for length)` : '',
      contributions: kept.map((t, n) => `Turn ${omitted + n + 1}: ${t}`),
        vote: i.vote ? `${i.vote.optionId} (confidence ${two(i.vote.confidence)}): ${i.vote.rationale}` : '(did not vote)',
    };
  },
  estimate: { input: 2_000, output: 120 },
});
