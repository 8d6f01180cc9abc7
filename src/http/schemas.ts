import { z } from 'zod';
import { usageSchema } from '../domain/events';
import { engineSettingsSchema } from '../domain/settings';

export const STATUSES = ['queued', 'running', 'awaiting_input', 'completed', 'failed', 'cancelled'] as const;

export const CHECKPOINT_KINDS = ['clarification', 'statement', 'sub_problems', 'board', 'round_end', 'next_sub_problem'] as const;

export const checkpointSettingsSchema = z.strictObject({
  clarification: z.boolean().default(true).describe('Answer the clarifying questions (unanswered ones become recorded assumptions)'),
  statement: z.boolean().default(true).describe('Confirm or edit the problem statement'),
  sub_problems: z.boolean().default(true).describe('Review the sub-problems: edit, merge, add, remove'),
  board: z.boolean().default(true).describe('Review the board: swap, remove, ask for a kind of expert'),
  round_end: z.boolean().default(true).describe('After each debate round: continue, skip to the vote, intervene, skip to the final recommendation'),
  next_sub_problem: z.boolean().default(true).describe('Before the next sub-problem: continue or skip to the final recommendation'),
  expires_in_seconds: z
    .number()
    .int()
    .min(5)
    .max(7 * 24 * 3600)
    .default(24 * 3600)
    .describe('How long a checkpoint waits for an answer'),
  on_expiry: z
    .enum(['continue', 'cancel'])
    .default('continue')
    .describe('What an expired checkpoint does: continue with what is proposed (recorded as resolved by expiry), or cancel the session'),
});
export type CheckpointSettings = z.infer<typeof checkpointSettingsSchema>;

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
      .strict()
      .optional()
      .describe('Deliberation settings for this session (round caps, thresholds, panel sizes), merged over the deployment\'s'),
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
    problem: z.string(),
    context: z.string(),
    progress: z.record(z.string(), z.unknown()),
    usage: usageSchema,
    results: z.record(z.string(), z.unknown()).nullable(),
    error: z.record(z.string(), z.unknown()).nullable(),
    case_memory: z
      .record(z.string(), z.unknown())
      .describe('The bounded case memory every prompt receives: recent entries, decisions, user intents, open contradictions, counters'),
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
  after: z.coerce.number().int().min(0).default(0).describe('Return events with seq greater than this'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const streamQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Replay events after this seq; the Last-Event-ID header takes precedence when both are sent'),
});
