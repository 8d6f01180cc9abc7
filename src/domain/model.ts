import { z } from 'zod';
import { HARM_CATEGORIES } from './harm-categories';

/**
 * The deliberation's artefacts. Each is both what a model must return (the
 * schema is sent as the structured-output contract and validated on return)
 * and what the event log and the session results carry.
 */

export const DOMAINS = ['strategy', 'finance', 'market', 'product', 'technical', 'operations', 'risk', 'people', 'legal'] as const;
export const domainSchema = z.enum(DOMAINS);
export type Domain = z.infer<typeof domainSchema>;

export const CATEGORIES = ['product', 'pricing', 'growth', 'technical', 'hiring', 'strategy', 'finance', 'operations', 'legal', 'other'] as const;

export const problemStatementSchema = z.object({
  statement: z.string().min(10).max(600).describe('The decision to make, restated clearly in one or two sentences'),
  clarifications: z
    .array(
      z.object({
        question: z.string().min(5).max(300).describe('A question whose answer would change the recommendation'),
        why: z.string().min(3).max(300).describe('Why it blocks'),
        assumption: z.string().min(3).max(300).describe('What the board assumes if nobody answers'),
      }),
    )
    .max(3)
    .describe('Only the questions that block; 0-3'),
  assumptions: z.array(z.string().min(3).max(300)).max(5).describe('Other explicit assumptions'),
  domains: z.array(domainSchema).min(1).max(5).describe('Domains of expertise the decision needs'),
  category: z.enum(CATEGORIES).describe('The kind of decision'),
  vague: z.boolean().describe('True when the problem is too vague to decompose into concrete sub-problems'),
  safety: z
    .object({
      allowed: z.boolean(),
      reason: z.string().max(300),
      // Optional: statements written before v6 of the intake prompt carry none, and an allowed request needs none.
      category: z.enum(HARM_CATEGORIES).optional().describe('When allowed is false: the kind of harm'),
    })
    .describe('allowed=false only for illegal or harmful requests the board must not deliberate'),
});
export type ProblemStatement = z.infer<typeof problemStatementSchema>;

export const subProblemSchema = z.object({
  id: z.string().regex(/^sp[0-9]+$/).describe('sp1, sp2, … in order'),
  title: z.string().min(3).max(120),
  goal: z.string().min(10).max(400).describe('What must be decided; a goal, not a list of options'),
  context: z.string().max(500).describe('Constraints, resources and facts that bear on it'),
  successCriteria: z.array(z.string().max(160)).min(1).max(5),
  dependsOn: z.array(z.string().max(12)).max(7).describe('Ids of sub-problems whose answer this one needs'),
  complexity: z.number().int().min(1).max(10),
  domains: z.array(domainSchema).min(1).max(4).describe('Expertise this sub-problem needs'),
});
export type SubProblem = z.infer<typeof subProblemSchema> & {
  /** Set by the engine: a meta-problem grouping several proposed sub-problems, or the one high-level sub-problem of a vague problem. */
  meta?: { groups: string[] } | undefined;
  highLevel?: boolean | undefined;
};

/** What the model proposes; the engine normalises it to 1-5 sub-problems (grouping more into meta-problems). */
export const decompositionSchema = z.object({
  subProblems: z.array(subProblemSchema).min(1).max(8),
  atomic: z.boolean().describe('True when the decision is already atomic: one sub-problem, the problem itself'),
  rationale: z.string().max(600).describe('Why the problem splits this way'),
});
export type Decomposition = z.infer<typeof decompositionSchema>;

export const contributionSchema = z.object({
  text: z.string().min(20).max(1500).describe('What the expert says, in the first person'),
  position: z.string().min(3).max(200).describe('The stance in one line'),
  agreesWith: z.array(z.string().max(40)).max(5).describe('Persona codes of experts this builds on or agrees with'),
  disagreesWith: z.array(z.string().max(40)).max(5).describe('Persona codes of experts whose position you still reject at this turn, those you challenged before and have not come round to included: the voters see them as the open disagreements'),
  confidence: z.number().min(0).max(1),
  claims: z
    .array(z.object({ claim: z.string().max(300), basis: z.enum(['evidence', 'experience', 'assumption']) }))
    .max(3)
    .describe('Key factual claims and what they rest on'),
  questionForPerson: z
    .string()
    .max(300)
    .nullable()
    .optional()
    .describe('A question only the person you advise can answer (their own figures, history, contracts, constraints), or null'),
  researchRequest: z.string().max(300).nullable().describe('A question general knowledge can answer (typical ranges, benchmarks, how things usually work), or null'),
});
export type Contribution = z.infer<typeof contributionSchema>;

export const optionSchema = z.object({
  id: z.string().regex(/^[A-D]$/),
  title: z.string().min(3).max(120),
  description: z.string().min(10).max(600),
  pros: z.array(z.string().max(200)).min(1).max(4),
  cons: z.array(z.string().max(200)).min(1).max(4),
  bestIf: z.string().min(3).max(300),
  reversibility: z.enum(['one_way', 'two_way']),
  strawId: z.string().regex(/^[A-D]$/).nullable().optional().describe("The straw vote's option this one continues, or null for a new one"),
});
export type Option = z.infer<typeof optionSchema>;

export const optionsSchema = z.object({
  options: z.array(optionSchema).min(2).max(4),
  decisionReversibility: z.enum(['one_way', 'two_way']).describe("Is this sub-problem's decision hard to reverse: would at least one of its options commit the person in a way that is costly to undo?"),
  reversibilityWhy: z.string().min(3).max(400),
});
export type OptionsOutput = z.infer<typeof optionsSchema>;

export const voteSchema = z.object({
  optionId: z.string().regex(/^[A-D]$/),
  rationale: z.string().min(20).max(1000).describe('50-100 words'),
  confidence: z.number().min(0).max(1),
  strongObjection: z.string().max(400).nullable().describe('An option you strongly object to and why, or null'),
});
export type VoteOutput = z.infer<typeof voteSchema>;
/** A vote; after calibration it keeps the confidence it was cast with and the expert's reason for any change. */
export type Vote = VoteOutput & { persona: string; initialConfidence?: number; calibrationReason?: string };

export const calibrationSchema = z.object({
  confidence: z.number().min(0).max(1).describe('Your reconsidered confidence in your vote'),
  reason: z.string().min(3).max(400),
});

/** One entry of the session's fact ledger, as the facilitator records it after a round. */
export const factSchema = z.object({
  text: z.string().min(3).max(300).describe('The fact as the board will use it, with its number and unit where it has one'),
  kind: z.enum(['figure', 'assumption', 'decision', 'constraint']),
  source: z.string().max(40).describe("Who established it: an expert's persona code, 'person' for what the person said, 'research', or 'facilitator' for a figure you derived from the panel's"),
  replaces: z
    .array(z.string().max(24))
    .max(3)
    .optional()
    .describe("Ids of earlier ledger facts this one corrects or replaces (a revised figure, a settled open question), e.g. 'sp1.r2.f1'; [] if none"),
});
export type Fact = z.infer<typeof factSchema>;
/** A fact in the session's ledger: where it was established. */
export interface LedgerFact extends Fact {
  id: string;
  subProblemId: string;
  round: number;
}

/** After the opening round: the positions taken, as options, and where each expert stands. */
export const strawSchema = z.object({
  options: z
    .array(z.object({ id: z.string().regex(/^[A-D]$/), title: z.string().min(3).max(120) }))
    .min(1)
    .max(4)
    .describe('The distinct positions the opening statements took, as options A, B, C, D in order'),
  votes: z.array(z.object({ persona: z.string().max(40), optionId: z.string().regex(/^[A-D]$/) })).max(6).describe("Each expert's opening position as one of those options"),
  reversibility: z.enum(['one_way', 'two_way']).describe("Is this sub-problem's decision hard to reverse: would at least one of its options commit the person in a way that is costly to undo?"),
});
export type Straw = z.infer<typeof strawSchema>;

export const facilitatorRoundSchema = z.object({
  summary: z.string().min(10).max(800).describe('Key points and disagreements of the round, 2-3 sentences'),
  keyArguments: z.array(z.string().max(300)).max(5).describe('The strongest arguments so far'),
  relevance: z.number().min(0).max(10).describe('How relevant the round was to the sub-problem goal'),
  agreement: z.number().min(0).max(1).describe('Share of experts aligned on one position'),
  sentiment: z.enum(['optimistic', 'balanced', 'pessimistic']),
  wantsToSpeak: z.array(z.string().max(40)).max(5).describe('Persona codes with something material to add next round'),
  nextQuestion: z.string().min(5).max(300).describe('The probing question for the next round; after the last round, the question the vote must settle'),
  facts: z
    .array(factSchema)
    .max(5)
    .optional()
    .describe('What this round established that the rest of the board must use (other sub-problems and the final plan): new figures, assumptions, decisions, constraints; [] if none'),
  straw: strawSchema.nullable().optional().describe('After the opening round only: the straw vote on the opening positions; null in later rounds'),
});
export type FacilitatorRound = z.infer<typeof facilitatorRoundSchema>;

export const moderatorSchema = z.object({ text: z.string().min(20).max(1000) });
export const researchSchema = z.object({
  findings: z.string().min(20).max(1200).describe('What general knowledge says, with its limits'),
  confidence: z.number().min(0).max(1),
});

/** The kinds of professional advice a recommendation may point to (seed 002's escalation triggers, less `irreversible`, which the vote decides). */
export const ESCALATION_KINDS = ['legal', 'medical', 'financial', 'safety'] as const;
export type EscalationKind = (typeof ESCALATION_KINDS)[number];

/**
 * Where acting on the advice goes beyond general guidance, in the model's
 * words: the specific act and the professional. Required: a model that left
 * it out (an optional field a growth trial's synthesis skipped) had its
 * silence read by keyword rules, which put "not financial advice" under a
 * marketing budget; now it says [] itself.
 */
export const beyondGeneralGuidanceSchema = z
  .array(
    z.object({
      kind: z.enum(ESCALATION_KINDS),
      what: z
        .string()
        .min(10)
        .max(240)
        .describe('The specific act and the professional, e.g. "have a lawyer review the revenue-share agreement before you sign it"'),
    }),
  )
  .max(4)
  .describe(
    'Only where acting on this advice needs a professional (lawyer, doctor, financial adviser or accountant, safety professional) beyond general guidance: a contract to sign, equity to grant, a loan or personal savings at stake, a health or physical-safety risk; [] when nothing does (ordinary business, product, marketing and budget choices)',
  );
export type BeyondGeneralGuidance = NonNullable<z.infer<typeof beyondGeneralGuidanceSchema>>;

export const synthesisSchema = z.object({
  recommendation: z.string().min(10).max(1200),
  rationale: z.string().min(10).max(1500),
  dissent: z
    .array(z.object({ persona: z.string().max(40), concern: z.string().max(400) }))
    .max(5)
    .describe('Experts who voted for another option or strongly objected to the winning one; [] when none did'),
  confidence: z.number().min(0).max(1),
  caveats: z.array(z.string().max(300)).max(5),
  beyondGeneralGuidance: beyondGeneralGuidanceSchema,
  facts: z
    .array(factSchema)
    .max(4)
    .describe(
      "What the decision settles that the rest of the board must use from now on (the price, cap, date or rule it chose), each naming in `replaces` the facts of this sub-problem's ledger it settles or makes stale; [] when the ledger already says it",
    ),
});
export type Synthesis = z.infer<typeof synthesisSchema>;

export const finalRecommendationSchema = z.object({
  summary: z.string().min(10).max(2000),
  conflicts: z
    .array(z.object({ between: z.array(z.string().max(12)).max(5), resolution: z.string().max(500) }))
    .max(5)
    .describe('Conflicts between sub-problem recommendations and how they resolve'),
  steps: z.array(z.string().min(3).max(300)).min(1).max(8).describe('Sequential implementation steps'),
  tradeoffs: z.array(z.string().max(300)).max(5),
  confidence: z.enum(['low', 'medium', 'high']),
  questionsForYou: z
    .array(z.object({ question: z.string().min(5).max(300), changes: z.string().max(300).describe('What in the plan changes with the answer') }))
    .max(5)
    .optional()
    .describe("The open questions whose answers would change the plan most, those asking the same thing merged; [] when none are open"),
  beyondGeneralGuidance: beyondGeneralGuidanceSchema,
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
  mechanism: z.enum(['simple_majority', 'supermajority', 'confidence_weighted']),
  why: z.string(),
  /** Votes per option, whatever the mechanism. */
  distribution: z.record(z.string(), z.number().int()),
  /** What decided it: vote counts, or summed calibrated confidence for the weighted mechanism. */
  weights: z.record(z.string(), z.number()),
  winner: z.string().nullable(),
  tie: z.array(z.string()),
  /** Share of the board behind the leading option. */
  consensus: z.number().min(0).max(1),
  /** One-way door without a supermajority: the board recommends more analysis or deferring. */
  deferred: z.boolean(),
});
export type Tally = z.infer<typeof tallySchema>;
