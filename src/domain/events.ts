import { z } from 'zod';
import { kept } from './kept';
import { CHECKPOINT_ACTIONS, CHECKPOINT_KINDS } from './checkpoints';
import {
  finalRecommendationSchema,
  optionSchema,
  problemStatementSchema,
  subProblemSchema,
  synthesisSchema,
  tallySchema,
} from './model';

const usage = z.object({
  calls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  costUsd: z.number(),
  byPhase: z.record(z.string(), z.object({ calls: z.number().int(), costUsd: z.number() })),
});
export const usageSchema = usage;
export type Usage = z.infer<typeof usage>;

const seat = z.object({ code: z.string(), name: z.string(), title: z.string() });
const subProblemRef = { subProblemId: z.string() };

const disclaimer = z.object({
  kind: z.string().describe('legal, medical, financial, safety or irreversible'),
  text: z.string().describe("The standard advisory sentence of its kind, with the specific acts when the model named them"),
  acts: z
    .array(z.string())
    .optional()
    .describe('What acting on the advice involves that needs a professional, in the words the text quotes (the model\'s `beyondGeneralGuidance`); absent for a keyword or one-way-door disclaimer'),
});
/** Where a remembered item came from: the memory API and `memory.recalled` show the same. */
export const provenanceSchema = z.object({
  sessionId: z.string(),
  subProblemId: z.string(),
  expert: z.string(),
  date: z.string(),
  model: z.string(),
  promptVersion: z.string(),
});
const metrics = z.object({
  round: z.number().int(),
  novelty: z.number().describe('Mean novelty of the round against all earlier contributions (1 − max decayed similarity)'),
  noveltyByPersona: z.record(z.string(), z.number()),
  convergence: z.number().describe('Mean pairwise similarity of the experts\' latest positions, 0-1'),
  conflict: z.number().describe('Share of disagreement among the experts\' references to each other, 0-1'),
  relevance: z.number().describe('Relevance to the sub-problem goal, 0-10 (under the drift threshold the facilitator redirects)'),
  entropy: z.number().describe('Spread of positions over clusters, 0 (one view) to 1 (all different)'),
  repetition: z.number().describe('Share of contributions below the novelty threshold'),
  marginalUtility: z.number(),
  agreement: z.number(),
});
const stop = z.object({
  stop: z.boolean(),
  reason: z.enum(['continue', 'consensus', 'diminishing_returns', 'deadlock', 'max_rounds', 'time_limit', 'budget', 'person', 'straw_consensus']),
  action: z.enum(['continue', 'vote', 'break_deadlock']),
  detail: z.string(),
});
const quality = z.object({
  roundsUsed: z.number().int(),
  maxRounds: z.number().int(),
  elapsedMs: z.number(),
  stopReason: z.string(),
  earlyStop: z.boolean(),
  consensus: z.number(),
  meanConfidence: z.number(),
  meanRelevance: z.number(),
  drift: z.number(),
  researchUsed: z.number().int(),
  interventions: z.array(z.object({ kind: z.string(), round: z.number().int() })),
  deadlocksResolved: z.number().int(),
  redirects: z.number().int(),
  costUsd: z.number(),
});
const vote = z.object({
  persona: z.string(),
  optionId: z.string(),
  rationale: z.string(),
  confidence: z.number(),
  strongObjection: z.string().nullable(),
});
const estimate = z.object({ minimumUsd: z.number(), expectedUsd: z.number(), maximumUsd: z.number() });

/** Every event type a session can emit, with the schema of its `data`. */
export const eventDataSchemas = {
  'session.created': z.object({ problem: z.string(), context: z.string(), provider: z.string(), mode: z.string() }),
  'session.started': z.object({ attempt: z.number().int() }),
  'guardrail.refused': z.object({ category: z.string(), reason: z.string(), by: z.enum(['screen', 'model']) }),
  'guardrail.cleared': z
    .object({ category: z.string(), reason: z.string(), modelReason: z.string() })
    .describe('The intake screen flagged the request (category, reason) and the model, asked to confirm, judged it lawful (modelReason): HARM_SCREEN_FLAG=confirm'),
  'clarification.requested': z.object({
    questions: z.array(z.object({ id: z.string(), question: z.string(), why: z.string() })),
    mode: z.string(),
  }),
  'problem.stated': kept(problemStatementSchema).extend({
    answers: z.array(z.object({ id: z.string(), question: z.string(), answer: z.string() })).optional().describe('Clarifying questions the person answered'),
    editedBy: z.literal('person').optional().describe('Set when the person rewrote the statement at a checkpoint'),
  }),
  'decomposition.completed': z.object({
    subProblems: z.array(kept(subProblemSchema).extend({ meta: z.object({ groups: z.array(z.string()) }).optional(), highLevel: z.boolean().optional() })),
    order: z.array(z.string()),
    rationale: z.string(),
    broken: z.array(z.object({ from: z.string(), to: z.string(), why: z.string() })).describe('Dependencies dropped, e.g. to break a cycle'),
    grouped: z.array(z.object({ id: z.string(), members: z.array(z.string()) })).describe('Meta-problems formed when more than five were proposed'),
    flags: z.object({ atomic: z.boolean(), vague: z.boolean(), grouped: z.boolean() }),
  }),
  'cost.estimated': estimate.extend({ perSubProblem: z.array(estimate), budgetUsd: z.number().nullable() }),
  'board.assembled': z.object({
    members: z.array(seat.extend({ rationale: z.string(), subProblems: z.array(z.string()) })),
    panels: z.record(z.string(), z.array(z.string())).describe('Persona codes per sub-problem'),
    picks: z
      .record(z.string(), z.array(z.object({ code: z.string(), rationale: z.string(), by: z.enum(['model', 'policy', 'person']) })))
      .describe('Each seat per sub-problem, why, and who chose it: the model, the policy (a gap, a trim or a rule), or the person'),
    selection: z
      .object({
        by: z.enum(['model', 'fallback', 'person']).describe('model: its proposal held to the rules; fallback: the call failed, chosen by domain fit and diversity; person: the review edit'),
        notes: z.array(z.string()).describe('Every change the policy made to the proposal (trims, fills, swaps, dropped codes, one-way seats), or what an edit did'),
        failure: z.string().optional().describe('Why the board selection call failed, when it did'),
      })
      .describe('How this board was chosen'),
  }),
  'subproblem.started': z.object({
    ...subProblemRef,
    title: z.string(),
    goal: z.string(),
    maxRounds: z.number().int(),
    panel: z.array(z.string()),
    complexity: z.number().int(),
  }),
  'round.started': z.object({
    ...subProblemRef,
    round: z.number().int(),
    maxRounds: z.number().int(),
    phase: z.enum(['opening', 'early', 'middle', 'late']),
    speakers: z.array(z.string()),
    invited: z.array(z.string()).describe('Silent experts the facilitator invited to speak'),
  }),
  'contribution.completed': z.object({
    ...subProblemRef,
    round: z.number().int(),
    persona: z.string(),
    name: z.string(),
    text: z.string(),
    position: z.string(),
    words: z.number().int(),
    agreesWith: z.array(z.string()),
    disagreesWith: z.array(z.string()),
    confidence: z.number(),
    researchRequest: z.string().nullable(),
    questionForPerson: z.string().nullable().optional().describe('A question only the person can answer'),
  }),
  'facilitator.message': z.object({
    ...subProblemRef,
    round: z.number().int(),
    kind: z.enum(['summary', 'redirect', 'invite', 'deadlock', 'intervention']),
    text: z.string(),
  }),
  'facts.recorded': z
    .object({
      ...subProblemRef,
      round: z.number().int(),
      facts: z.array(z.object({ id: z.string(), text: z.string(), kind: z.string(), source: z.string(), replaces: z.array(z.string()).optional() })),
    })
    .describe("Entries of the session's fact ledger the facilitator recorded after a round: every other sub-problem's experts see them from their next round, and the final recommendation reconciles them"),
  'vote.straw': z
    .object({
      ...subProblemRef,
      options: z.array(z.object({ id: z.string(), title: z.string() })),
      votes: z.array(z.object({ persona: z.string(), name: z.string(), optionId: z.string(), confidence: z.number() })),
      distribution: z.record(z.string(), z.number().int()),
      winner: z.string().nullable(),
      tie: z.array(z.string()),
      unanimous: z.boolean(),
      reversibility: z.enum(['one_way', 'two_way']),
      skipsDebate: z.boolean().describe('A unanimous, confident straw vote on a two-way door sends the board straight to the vote'),
    })
    .describe('After the opening round: what a plain vote of the panel on its opening positions would choose, with each expert\'s confidence'),
  'moderator.intervened': z.object({ ...subProblemRef, round: z.number().int(), moderator: z.string(), text: z.string() }),
  'research.declined': z.object({
    ...subProblemRef,
    round: z.number().int(),
    persona: z.string(),
    query: z.string(),
    reason: z.string(),
  }),
  'research.completed': z.object({
    ...subProblemRef,
    round: z.number().int(),
    query: z.string(),
    findings: z.string(),
    source: z.literal('model_knowledge').describe('v1 research is the model\'s general knowledge, not a live source'),
    confidence: z.number(),
  }),
  'round.completed': z.object({ ...subProblemRef, round: z.number().int(), metrics, stop }),
  'checkpoint.requested': z.object({
    checkpointId: z.string(),
    kind: z.enum(CHECKPOINT_KINDS),
    prompt: z.string(),
    actions: z.array(z.enum(CHECKPOINT_ACTIONS)),
    expiresAt: z.string(),
    onExpiry: z.enum(['continue', 'cancel']),
    subProblemId: z.string().optional(),
    round: z.number().int().optional(),
    proposal: z.record(z.string(), z.unknown()).describe('What the person is shown: questions, statement, sub-problems, board, round summary or next sub-problem'),
  }),
  'checkpoint.resolved': z.object({
    checkpointId: z.string(),
    kind: z.enum(CHECKPOINT_KINDS),
    action: z.enum([...CHECKPOINT_ACTIONS, 'cancel']),
    by: z.enum(['client', 'expiry']),
    answers: z.array(z.object({ id: z.string(), question: z.string(), answer: z.string() })).optional(),
    statement: z.string().optional(),
    subProblems: z
      .array(
        z.object({
          id: z.string().optional(),
          title: z.string(),
          goal: z.string(),
          context: z.string().optional(),
          complexity: z.number().optional(),
          domains: z.array(z.string()).optional(),
          depends_on: z.array(z.string()).optional(),
        }),
      )
      .optional(),
    board: z
      .object({
        remove: z.array(z.string()),
        add: z.array(z.string()),
        wanted: z
          .array(z.object({ want: z.string(), code: z.string(), name: z.string(), title: z.string(), close: z.boolean().optional().describe('false: no expert in the pool has that experience; this is the nearest') }))
          .optional()
          .describe('What each wanted kind of expert resolved to'),
        subProblems: z.array(z.string()).optional().describe('The sub-problems whose panels the additions joined; all when absent'),
      })
      .optional(),
    message: z.string().optional(),
  }),
  'options.proposed': z.object({
    ...subProblemRef,
    options: z.array(kept(optionSchema)),
    decisionReversibility: z.enum(['one_way', 'two_way']),
    reversibilityWhy: z.string(),
  }),
  'vote.cast': vote.extend({ ...subProblemRef, name: z.string() }),
  'votes.calibrated': z.object({
    ...subProblemRef,
    /** Set when no one was asked: every voter chose the same option, so there was nothing to calibrate against. */
    skipped: z.literal('unanimous').optional(),
    changes: z.array(z.object({ persona: z.string(), before: z.number(), after: z.number() })),
  }),
  'vote.completed': z.object({
    ...subProblemRef,
    tally: tallySchema,
    reversibility: z.enum(['one_way', 'two_way']),
    debateEffect: z
      .object({
        changedOutcome: z.boolean().nullable(),
        strawWinner: z.string().nullable(),
        finalWinnerStraw: z.string().nullable(),
        positionChanges: z.array(z.object({ persona: z.string(), from: z.string(), to: z.string(), reason: z.string() })),
      })
      .optional()
      .describe('The vote against the straw vote after the opening round: whether the debate changed the outcome, and who moved and why'),
  }),
  'synthesis.completed': z.object({
    ...subProblemRef,
    synthesis: kept(synthesisSchema),
    commitment: z.object({ triggered: z.boolean(), triggers: z.array(z.string()), statement: z.string() }),
    disclaimers: z.array(disclaimer),
    advisoryFixes: z.array(z.string()).describe('Directive phrases found in the output and rewritten as advice'),
  }),
  'subproblem.skipped': z.object({ ...subProblemRef, title: z.string(), reason: z.string() }),
  'subproblem.completed': z.object({ ...subProblemRef, rounds: z.number().int(), stopReason: z.string(), quality }),
  'expert_memory.injected': z.object({
    ...subProblemRef,
    persona: z.string(),
    fromSubProblems: z.array(z.string()),
  }),
  'memory.recalled': z.object({
    items: z.array(
      z.object({
        id: z.string(),
        persona: z.string(),
        summary: z.string(),
        position: z.string(),
        score: z.number(),
        provenance: provenanceSchema,
      }),
    ),
  }),
  'memory.contradiction': z.object({
    id: z.string(),
    subProblemId: z.string(),
    persona: z.string(),
    previous: z.string(),
    current: z.string(),
    memoryId: z.string(),
    sourceSessionId: z.string(),
  }),
  'memory.contradiction_resolved': z
    .object({ id: z.string(), subProblemId: z.string(), persona: z.string(), round: z.number().int() })
    .describe('The expert has spoken since being told to explain the change: the contradiction is addressed in the case memory'),
  'lessons.applied': z.object({
    query: z.string(),
    lessons: z.array(z.object({ id: z.string(), lesson: z.string(), applies: z.string(), confidence: z.number(), reinforcements: z.number().int() })),
    ranking: z.enum(['model', 'fallback']),
  }),
  'lessons.extracted': z.object({
    lessons: z.array(z.object({ id: z.string(), lesson: z.string(), type: z.string(), confidence: z.number(), outcome: z.enum(['new', 'reinforced']) })),
  }),
  'memory.contributed': z.object({
    memories: z.number().int(),
    superseded: z.number().int(),
    dropped: z.number().int().describe('Summaries not stored because personal data survived anonymisation'),
  }),
  'recommendation.completed': kept(finalRecommendationSchema).extend({
    disclaimers: z.array(disclaimer),
    advisoryFixes: z.array(z.string()),
    openQuestions: z
      .array(z.object({ subProblemId: z.string(), persona: z.string(), name: z.string(), question: z.string() }))
      .optional()
      .describe('Questions only the person can answer, left open: the recommendation depends on them'),
  }),
  'model.fallback': z
    .object({
      purpose: z.string().describe('The call (src/calls) that moved on'),
      role: z.string().nullable().describe('intake, experts, facilitator, synthesis or memory'),
      seat: z.string().nullable().describe("The persona's code, for a call one expert makes"),
      from: z.string().describe('The model that did not answer (provider:model, or a bare id on the session\'s provider)'),
      to: z.string().describe('The next model of the chain, which was asked instead'),
      reason: z.string().describe('The failure that moved the call on (overloaded, server, network, rate_limited), or circuit_open when the model was skipped after repeated failures'),
      detail: z.string(),
    })
    .describe('A later model of a fallback chain was asked because an earlier one was down; the ledger has a row per model tried'),
  'usage.updated': usage,
  'session.completed': z.object({ usage }),
  'session.failed': z.object({
    reason: z.string().describe('What happened, in plain words'),
    kind: z.string().describe('refused, internal, or the model error kind (invalid_output, truncated, overloaded, …)'),
    step: z.string().nullable().describe('The step that failed, when one did'),
    retryable: z.boolean(),
    detail: z.string().optional().describe('The error as raised, for operators'),
  }),
  'session.cancelled': z.object({ reason: z.string() }),
} as const;

export type EventType = keyof typeof eventDataSchemas;
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;
export const EVENT_TYPES = Object.keys(eventDataSchemas) as EventType[];
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['session.completed', 'session.failed', 'session.cancelled']);

/** An event before the log numbers it. */
export type EventDraft = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

export function event<T extends EventType>(type: T, data: EventData<T>): EventDraft {
  return { type, data } as EventDraft;
}

/** What the log holds and the client sees: the SSE `data:` and the JSON pages. */
export const envelopeSchema = z.object({
  seq: z.number().int().min(1),
  type: z.string(),
  session_id: z.uuid(),
  ts: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/** An event the engine built does not match its schema: a defect, deterministic, so a retry would replay it. */
export class MalformedEventError extends Error {
  override name = 'MalformedEventError';
}

/**
 * Rejects a draft whose data does not match its type's schema: the log never holds a malformed event. A draft that
 * passed is not parsed again (the run checks its step's events, then the store does): drafts are made by `event()`
 * and passed on, never edited, and the check is keyed by the draft and its data together.
 */
export function validateEvent(draft: EventDraft): EventDraft {
  if (checked.has(draft) && checked.get(draft) === draft.data) return draft;
  const schema = eventDataSchemas[draft.type] as z.ZodType;
  const parsed = schema.safeParse(draft.data);
  if (!parsed.success) {
    throw new MalformedEventError(`event ${draft.type} is malformed: ${z.prettifyError(parsed.error)}`);
  }
  checked.set(draft, draft.data);
  return draft;
}

const checked = new WeakMap<EventDraft, unknown>();
