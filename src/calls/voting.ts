import { z } from 'zod';
import { calibrationSchema, optionsSchema, voteSchema, type Option, type OptionsOutput, type Persona, type VoteOutput } from '../domain/model';
import { defineCall, fixed } from './call';
import type { SubProblemBrief } from './debate';

export interface OptionsInput {
  subProblem: SubProblemBrief;
  /** The debate as the voters will remember it, rendered. */
  discussion: string;
  /** Each panel member's latest position. */
  positions: { persona: string; position: string }[];
}

/**
 * Options distilled after the debate. The engine re-letters them A, B, C, D in
 * the order given (a stated rule: the vote's schema is built from those ids).
 */
export const optionsCall = defineCall<OptionsInput, OptionsOutput>({
  purpose: 'options',
  role: 'synthesis',
  phase: 'voting',
  tier: 'smart',
  maxTokens: 3200,
  template: 'options',
  output: fixed(optionsSchema),
  vars: (i) => ({ subProblem: i.subProblem, discussion: i.discussion }),
  estimate: { input: 3_000, output: 600 },
});

const door = (o: Pick<Option, 'reversibility'>) => `${o.reversibility.replace('_', '-')} door`;

export interface VoteInput {
  persona: Persona;
  subProblem: SubProblemBrief;
  position: string | null;
  options: Pick<Option, 'id' | 'title' | 'description' | 'reversibility'>[];
}

/** One expert's vote; the option id must be one of the options on the table. */
export const voteCall = defineCall<VoteInput, VoteOutput>({
  purpose: 'vote',
  role: 'experts',
  seat: (i) => i.persona.code,
  phase: 'voting',
  tier: 'fast',
  maxTokens: 600,
  template: 'vote',
  output: (i) => voteSchema.extend({ optionId: z.enum(i.options.map((o) => o.id) as [string, ...string[]]) }),
  vars: (i) => ({
    persona: i.persona,
    subProblem: i.subProblem,
    position: i.position ?? '(did not speak)',
    options: i.options.map((o) => `${o.id}. ${o.title} (${door(o)}): ${o.description}`),
  }),
  estimate: { input: 1_500, output: 150 },
});

export interface CalibrationInput {
  persona: Persona;
  subProblem: SubProblemBrief;
  own: { optionId: string; confidence: number };
  votes: { persona: string; name: string; optionId: string; confidence: number }[];
}

/** After seeing every vote, an expert reconsiders its confidence (not its choice). */
export const calibrationCall = defineCall<CalibrationInput, z.infer<typeof calibrationSchema>>({
  purpose: 'calibration',
  role: 'experts',
  seat: (i) => i.persona.code,
  phase: 'voting',
  tier: 'fast',
  maxTokens: 300,
  template: 'calibration',
  output: fixed(calibrationSchema),
  vars: (i) => ({
    persona: i.persona,
    subProblem: i.subProblem,
    own: { optionId: i.own.optionId, confidence: i.own.confidence.toFixed(2) },
    votes: i.votes.map((v) => `${v.name}: ${v.optionId} (confidence ${v.confidence.toFixed(2)})`),
  }),
  estimate: { input: 1_500, output: 100 },
});
