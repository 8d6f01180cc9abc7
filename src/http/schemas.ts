import { z } from 'zod';
import { usageSchema } from '../domain/events';
import { modelsSchema } from '../domain/models';
import { engineSettingsSchema } from '../domain/settings';
import { CHECKPOINT_ACTIONS, CHECKPOINT_KINDS, checkpointSettingsSchema } from '../domain/checkpoints';

/** The largest event seq: `session_events.seq` is a Postgres integer, so larger cursors are refused as invalid, not sent to the database. */
export const SEQ_MAX = 2 ** 31 - 1;
const seqCursor = () => z.coerce.number().int().min(0).max(SEQ_MAX, 'must be an event seq (at most 2147483647)');

export const STATUSES = ['queued', 'running', 'awaiting_input', 'completed', 'failed', 'cancelled'] as const;

export const createSessionBody = (maxChars: number) =>
  z.strictObject({
    problem: z
      .string({ error: 'is required and must be a string' })
      .trim()
      .min(1, 'must not be empty')
      .max(maxChars, `must be at most ${maxChars} characters`)
      .describe('The decision to deliberate, in natural language'),
    context: z
      .string()
      .trim()
      .max(maxChars, `must be at most ${maxChars} characters`)
      .default('')
      .describe('Resources, constraints, success criteria: anything the board should know'),
    seed: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .optional()
      .describe('Seed for the simulated provider: the same seed and problem give the same deliberation'),
    mode: z
      .enum(['auto', 'interactive'])
      .default('auto')
      .describe('auto: no pauses, clarifications become recorded assumptions. interactive: the session stops at each enabled checkpoint (status awaiting_input) until it is resolved'),
    checkpoints: checkpointSettingsSchema.optional().describe('Interactive mode only: which checkpoints are on (all by default) and what happens when one expires'),
    budget_usd: z
      .number()
      .positive()
      .max(10_000)
      .optional()
      .describe('Spending cap: the board moves to voting when the next round would exceed it; refused up front (422) if even the cheapest session cannot fit'),
    memory: z
      .strictObject({
        read: z.boolean().default(true).describe('Recall experts\' memories and lessons from earlier sessions'),
        contribute: z.boolean().default(true).describe('Let this session add to them when it ends'),
      })
      .optional()
      .describe('Per-session memory switches (both on by default)'),
    settings: engineSettingsSchema
      .partial()
      .extend({
        models: modelsSchema
          .optional()
          .describe("This session's models per role and seat, over the deployment's MODELS: e.g. {\"experts\": \"anthropic:claude-haiku-5-5\", \"personas\": {\"financial_analyst\": \"openai:gpt-4.1-mini\"}}; each model must be priced and its provider configured (422 otherwise)"),
      })
      .strict()
      .optional()
      .describe('Deliberation settings for this session (round caps, thresholds, panel sizes, models), merged over the deployment\'s'),
  }).superRefine((b, ctx) => {
    if (b.checkpoints && b.mode !== 'interactive') {
      ctx.addIssue({ code: 'custom', path: ['checkpoints'], message: 'only applies with mode "interactive"' });
    }
  });

export const sessionIdParams = z.object({ id: z.uuid({ error: 'must be a session id (UUID)' }) });

export const linksSchema = z.object({ self: z.string(), stream: z.string(), events: z.string() });

export const createdSchema = z
  .object({ id: z.uuid(), status: z.enum(STATUSES), links: linksSchema })
  .meta({ id: 'SessionCreated' });

export const snapshotSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(STATUSES),
    phase: z.string(),
    provider: z.string().describe('Which LLM provider runs this session; "simulated" means no real model is called'),
    simulated: z.boolean(),
    mode: z.string(),
    settings: z.record(z.string(), z.unknown()).describe("The session's own deliberation settings, as given at create (merged over the deployment's when it runs)"),
    models: z
      .object({
        roles: z.record(z.string(), z.object({ fast: z.array(z.string()), smart: z.array(z.string()) })).describe('Per role (intake, experts, facilitator, synthesis, memory) and tier: the models that answer, first choice first, later ones when it is down'),
        seats: z.record(z.string(), z.object({ fast: z.array(z.string()), smart: z.array(z.string()) })).describe("Per seat on the board (once assembled): the models that answer for that expert"),
      })
      .describe('Which model speaks for each role and seat (provider:model, or a bare id on the session\'s provider); a `model.fallback` event says when a later one answered'),
    problem: z.string(),
    context: z.string(),
    progress: z.record(z.string(), z.unknown()),
    usage: usageSchema,
    results: z.record(z.string(), z.unknown()).nullable(),
    error: z.record(z.string(), z.unknown()).nullable(),
    checkpoint: z
      .object({
        id: z.string(),
        kind: z.enum(CHECKPOINT_KINDS),
        prompt: z.string(),
        actions: z.array(z.enum(CHECKPOINT_ACTIONS)).describe('What POST …/resolve accepts here; `continue` always'),
        requested_at: z.string(),
        expires_at: z.string(),
        on_expiry: z.enum(['continue', 'cancel']),
        sub_problem_id: z.string().nullable(),
        round: z.number().int().nullable(),
        proposal: z.record(z.string(), z.unknown()).describe('What is proposed: questions, statement, sub-problems, board, round summary, or the next sub-problem'),
        resolve: z.string().describe('Where to POST the answer'),
      })
      .nullable()
      .describe('The checkpoint the session waits on while `awaiting_input`; null otherwise')
      .meta({ id: 'Checkpoint' }),
    case_memory: z
      .record(z.string(), z.unknown())
      .describe(
        "The bounded case memory every prompt receives (rendered as \"### Case so far\"): the statement and its assumptions, the person's answers and messages, decisions and progress per sub-problem, contradictions, recent activity",
      ),
    last_seq: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    started_at: z.string().nullable(),
    ended_at: z.string().nullable(),
    links: linksSchema,
  })
  .meta({ id: 'SessionSnapshot' });

export const sessionSummarySchema = snapshotSchema
  .pick({ id: true, status: true, phase: true, provider: true, problem: true, created_at: true, updated_at: true, links: true })
  .meta({ id: 'SessionSummary' });

export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1-100'),
  cursor: z.string().min(1).optional().describe('`next_cursor` from the previous page'),
  status: z.enum(STATUSES).optional(),
});

export const listSchema = z.object({ items: z.array(sessionSummarySchema), next_cursor: z.string().nullable() });

export const eventsQuery = z.object({
  after: seqCursor().default(0).describe('Return events with seq greater than this'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const streamQuery = z.object({
  after: seqCursor()
    .optional()
    .describe('Replay events after this seq; the Last-Event-ID header takes precedence when both are sent'),
});
