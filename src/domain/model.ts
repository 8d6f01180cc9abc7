import { z } from 'zod';

/**
 * The deliberation's artefacts. Each is both what a model must return (the
 * schema is sent as the structured-output contract and validated on return)
 * and what the event log and the session results carry.
 */

export const problemStatementSchema = z.object({
  statement: z.string().min(10).describe('The decision to make, restated clearly in one or two sentences'),
  assumptions: z.array(z.string().min(3)).max(5).describe('Explicit assumptions made in place of unanswered questions'),
  domains: z
    .array(z.enum(['strategy', 'finance', 'market', 'product', 'technical', 'operations', 'risk', 'people', 'legal']))
    .min(1)
    .max(5)
    .describe('Domains of expertise the decision needs'),
});
export type ProblemStatement = z.infer<typeof problemStatementSchema>;

export const subProblemSchema = z.object({
  id: z.string().regex(/^sp[0-9]+$/).describe('sp1, sp2, … in order'),
  title: z.string().min(3).max(120),
  goal: z.string().min(10).describe('What must be decided; a goal, not a list of options'),
  context: z.string().describe('Constraints, resources and facts that bear on it'),
  successCriteria: z.array(z.string()).min(1).max(5),
  dependsOn: z.array(z.string()).describe('Ids of sub-problems whose answer this one needs'),
  complexity: z.number().int().min(1).max(10),
});
export type SubProblem = z.infer<typeof subProblemSchema>;

export const decompositionSchema = z.object({
  subProblems: z.array(subProblemSchema).min(1).max(5),
  rationale: z.string().describe('Why the problem splits this way'),
});
export type Decomposition = z.infer<typeof decompositionSchema>;

export const contributionSchema = z.object({
  text: z.string().min(20).describe('What the expert says, in the first person'),
  position: z.string().min(3).max(200).describe('The stance in one line'),
});
export type Contribution = z.infer<typeof contributionSchema>;

export const optionSchema = z.object({
  id: z.string().regex(/^[A-D]$/),
  title: z.string().min(3).max(120),
  description: z.string().min(10),
  pros: z.array(z.string()).min(1).max(4),
  cons: z.array(z.string()).min(1).max(4),
  bestIf: z.string().min(3),
  reversibility: z.enum(['one_way', 'two_way']),
});
export type Option = z.infer<typeof optionSchema>;

export const optionsSchema = z.object({ options: z.array(optionSchema).min(2).max(4) });

export const voteSchema = z.object({
  optionId: z.string().regex(/^[A-D]$/),
  rationale: z.string().min(20).describe('50-100 words'),
  confidence: z.number().min(0).max(1),
});
export type VoteOutput = z.infer<typeof voteSchema>;
export type Vote = VoteOutput & { persona: string };

export const synthesisSchema = z.object({
  recommendation: z.string().min(10),
  rationale: z.string().min(10),
  dissent: z.array(z.object({ persona: z.string(), concern: z.string() })),
  confidence: z.number().min(0).max(1),
  caveats: z.array(z.string()).max(5),
});
export type Synthesis = z.infer<typeof synthesisSchema>;

export const finalRecommendationSchema = z.object({
  summary: z.string().min(10),
  steps: z.array(z.string().min(3)).min(1).max(8).describe('Sequential implementation steps'),
  tradeoffs: z.array(z.string()).max(5),
  confidence: z.enum(['low', 'medium', 'high']),
});
export type FinalRecommendation = z.infer<typeof finalRecommendationSchema>;

export const personaSchema = z.object({
  code: z.string().regex(/^[a-z_]+$/),
  name: z.string(),
  title: z.string(),
  background: z.string(),
  expertise: z.array(z.string()),
  domains: z.array(z.string()),
  riskTolerance: z.enum(['low', 'medium', 'high']),
  timeHorizon: z.enum(['short', 'medium', 'long']),
  optimism: z.enum(['skeptical', 'balanced', 'optimistic']),
  approach: z.string(),
  typicalConcerns: z.array(z.string()),
});
export type Persona = z.infer<typeof personaSchema>;

export const tallySchema = z.object({
  mechanism: z.enum(['simple_majority']),
  why: z.string(),
  distribution: z.record(z.string(), z.number().int()),
  winner: z.string().nullable(),
  tie: z.array(z.string()),
  consensus: z.number().min(0).max(1),
});
export type Tally = z.infer<typeof tallySchema>;
