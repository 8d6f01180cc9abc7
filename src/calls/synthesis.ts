import { finalRecommendationSchema, synthesisSchema, type FinalRecommendation, type Option, type Persona, type Synthesis, type Tally, type Vote } from '../domain/model';
import { personaByCode } from '../domain/personas';
import { expertSummarySchema, type ExpertSummary } from '../memory/summary';
import { defineCall, fixed } from './call';
import type { SubProblemBrief } from './debate';

const nameOf = (code: string) => personaByCode(code)?.name ?? code;

export interface SynthesisInput {
  subProblem: SubProblemBrief;
  options: Option[];
  votes: Vote[];
  tally: Tally;
}

const tallyText = (t: Tally) =>
  `${t.mechanism} — ${t.why}; distribution ${JSON.stringify(t.distribution)}${t.tie.length ? `; tie between ${t.tie.join(', ')}` : ''}${t.deferred ? '; deferred: no supermajority for a one-way door' : ''}`;

/** The facilitator's synthesis of one sub-problem. */
export const synthesisCall = defineCall<SynthesisInput, Synthesis>({
  purpose: 'synthesis',
  role: 'synthesis',
  phase: 'synthesis',
  tier: 'smart',
  maxTokens: 2000,
  template: 'synthesis',
  output: fixed(synthesisSchema),
  vars: (i) => ({
    subProblem: i.subProblem,
    options: i.options.map((o) => `${o.id}. ${o.title}: ${o.description}`),
    votes: i.votes.map((x) => `${nameOf(x.persona)}: ${x.optionId} (confidence ${x.confidence.toFixed(2)}) ${x.rationale}`),
    tally: tallyText(i.tally),
  }),
  estimate: { input: 3_000, output: 600 },
});

export interface FinalInput {
  statement: string;
  syntheses: { subProblemId: string; title: string; recommendation: string; confidence: number; deferred: boolean }[];
  /** Sub-problems the person skipped: named as open, not decided. */
  open: { subProblemId: string; title: string }[];
}

/** The integrated recommendation across sub-problems. */
export const finalRecommendationCall = defineCall<FinalInput, FinalRecommendation>({
  purpose: 'final_recommendation',
  role: 'synthesis',
  phase: 'recommendation',
  tier: 'smart',
  maxTokens: 2500,
  template: 'final_recommendation',
  output: fixed(finalRecommendationSchema),
  vars: (i) => ({
    statement: i.statement,
    decisions: [
      ...i.syntheses.map((s) => `${s.subProblemId} (${s.title}): ${s.recommendation} (confidence ${s.confidence.toFixed(2)}${s.deferred ? ', deferred' : ''})`),
      ...i.open.map((o) => `${o.subProblemId} (${o.title}): not deliberated; the person skipped it, so it stays open`),
    ],
  }),
  estimate: { input: 1_500, output: 800 },
});

export interface ExpertSummaryInput {
  persona: Persona;
  subProblem: SubProblemBrief;
  /** The expert's turns, in order. */
  contributions: string[];
  vote: { optionId: string; confidence: number; rationale: string } | null;
  /** Latest stated position, and the vote's confidence (what the simulated board summarises from). */
  position: string;
  confidence: number;
}

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
  vars: (i) => ({
    persona: i.persona,
    subProblem: i.subProblem,
    contributions: i.contributions,
    vote: i.vote ? `${i.vote.optionId} (confidence ${i.vote.confidence.toFixed(2)}): ${i.vote.rationale}` : '(did not vote)',
  }),
  estimate: { input: 1_200, output: 120 },
});
