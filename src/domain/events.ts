import { z } from 'zod';
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

/** Every event type a session can emit, with the schema of its `data`. */
export const eventDataSchemas = {
  'session.created': z.object({ problem: z.string(), context: z.string(), provider: z.string(), mode: z.string() }),
  'session.started': z.object({ attempt: z.number().int() }),
  'clarification.requested': z.object({
    questions: z.array(z.object({ id: z.string(), question: z.string(), why: z.string() })),
    mode: z.string(),
  }),
  'problem.stated': problemStatementSchema,
  'decomposition.completed': z.object({
    subProblems: z.array(subProblemSchema),
    order: z.array(z.string()),
    rationale: z.string(),
  }),
  'board.assembled': z.object({
    members: z.array(seat.extend({ rationale: z.string() })),
    panels: z.record(z.string(), z.array(z.string())),
  }),
  'subproblem.started': z.object({
    ...subProblemRef,
    index: z.number().int(),
    total: z.number().int(),
    title: z.string(),
    goal: z.string(),
    maxRounds: z.number().int(),
    panel: z.array(z.string()),
  }),
  'round.started': z.object({
    ...subProblemRef,
    round: z.number().int(),
    maxRounds: z.number().int(),
    speakers: z.array(z.string()),
  }),
  'contribution.completed': z.object({
    ...subProblemRef,
    round: z.number().int(),
    persona: z.string(),
    name: z.string(),
    text: z.string(),
    position: z.string(),
    words: z.number().int(),
  }),
  'facilitator.message': z.object({ ...subProblemRef, round: z.number().int(), text: z.string() }),
  'moderator.intervened': z.object({ ...subProblemRef, round: z.number().int(), moderator: z.string(), text: z.string() }),
  'research.completed': z.object({ ...subProblemRef, round: z.number().int(), query: z.string(), findings: z.string() }),
  'round.completed': z.object({
    ...subProblemRef,
    round: z.number().int(),
    metrics: z.object({ novelty: z.number(), convergence: z.number() }),
    stop: z.object({ stop: z.boolean(), reason: z.string() }),
  }),
  'checkpoint.requested': z.object({ checkpointId: z.string(), kind: z.string(), prompt: z.string() }),
  'checkpoint.resolved': z.object({ checkpointId: z.string(), action: z.string() }),
  'options.proposed': z.object({ ...subProblemRef, options: z.array(optionSchema) }),
  'vote.cast': z.object({
    ...subProblemRef,
    persona: z.string(),
    optionId: z.string(),
    rationale: z.string(),
    confidence: z.number(),
  }),
  'votes.calibrated': z.object({
    ...subProblemRef,
    changes: z.array(z.object({ persona: z.string(), before: z.number(), after: z.number() })),
  }),
  'vote.completed': z.object({ ...subProblemRef, tally: tallySchema }),
  'synthesis.completed': z.object({ ...subProblemRef, synthesis: synthesisSchema }),
  'subproblem.completed': z.object({ ...subProblemRef, rounds: z.number().int(), stopReason: z.string() }),
  'expert_memory.injected': z.object({
    ...subProblemRef,
    persona: z.string(),
    fromSubProblems: z.array(z.string()),
  }),
  'recommendation.completed': finalRecommendationSchema,
  'usage.updated': usage,
  'session.completed': z.object({ usage }),
  'session.failed': z.object({
    reason: z.string(),
    kind: z.string(),
    step: z.string().nullable(),
    retryable: z.boolean(),
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

/** Rejects a draft whose data does not match its type's schema: the log never holds a malformed event. */
export function validateEvent(draft: EventDraft): EventDraft {
  const schema = eventDataSchemas[draft.type] as z.ZodType;
  const parsed = schema.safeParse(draft.data);
  if (!parsed.success) {
    throw new Error(`event ${draft.type} is malformed: ${z.prettifyError(parsed.error)}`);
  }
  return draft;
}
