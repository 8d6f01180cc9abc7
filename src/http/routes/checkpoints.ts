import { z } from 'zod';
import { answerCheckpoint, type CheckpointDeps } from '../../app/checkpoints';
import { CHECKPOINT_ACTIONS, checkResolution, type PendingCheckpoint } from '../../domain/checkpoints';
import { domainSchema } from '../../domain/model';
import { PERSONAS } from '../../domain/personas';
import { caseMemoryPolicy } from '../../memory/case-memory-policy';
import { RedisNotifier } from '../../queue/redis';
import type { ApiDeps } from '../deps';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf, replyWith } from '../idempotency';
import { idempotent } from '../../app/idempotent';
import { problemSchema } from '../problem';
import { defineRoute, type RouteDef } from '../route';
import { resolveCheckpointExample, resolvedExample } from '../examples';
import { linksSchema } from '../schemas';
import { linksFor } from '../session-view';

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const resolveBody = z
  .strictObject({
    action: z.enum(CHECKPOINT_ACTIONS).describe('Every checkpoint accepts `continue`; the others depend on its kind (see its `actions`)'),
    answers: z.record(z.string(), z.string().max(4000)).optional().describe('`answer`: answers by question id (`q1`, …); unanswered questions stay assumptions'),
    statement: text(4000).min(10, 'must be at least 10 characters').optional().describe('`edit` of a statement checkpoint: the problem statement to deliberate'),
    sub_problems: z
      .array(
        z.strictObject({
          id: z.string().max(40).optional().describe('Keep an existing id to keep what you do not restate; new ones may use any id'),
          title: text(120).min(3, 'must be at least 3 characters'),
          goal: text(2000).min(10, 'must be at least 10 characters'),
          context: z.string().max(4000).optional(),
          complexity: z.number().int().min(1).max(10).optional(),
          domains: z.array(domainSchema).min(1).max(4).optional(),
          depends_on: z.array(z.string()).max(5).optional(),
          success_criteria: z.array(text(300)).min(1).max(5).optional().describe("How the board will know it decided well; omitted: the proposal's, for a kept id"),
        }),
      )
      .min(1, 'needs at least one sub-problem')
      .max(5, 'at most 5 sub-problems')
      .optional()
      .describe("`edit` of a sub_problems checkpoint: the full new list (edit, merge, add, remove); the proposal's `dependsOn` and `successCriteria` are `depends_on` and `success_criteria` here"),
    board: z
      .strictObject({
        remove: z.array(z.string()).max(5).optional().describe('Persona codes to take off every panel'),
        add: z.array(z.string()).max(5).optional().describe('Persona codes to add (to every panel, or to those of `sub_problems`)'),
        want: z.array(text(200)).max(3).optional().describe('Kinds of expert to add, e.g. "someone who sells to small businesses" (the best match off the board)'),
        sub_problems: z.array(z.string()).min(1).max(5).optional().describe('Sub-problem ids whose panels the additions join; every panel when omitted (removals always apply to every panel)'),
      })
      .optional()
      .describe('`edit` of a board checkpoint'),
    message: text(4000).optional().describe('`intervene`: what the board should respond to in the next round'),
  })
  .meta({ id: 'CheckpointResolution' });

const params = z.object({
  id: z.uuid({ error: 'must be a session id (UUID)' }),
  checkpoint_id: z.string().min(1).max(80),
});

const resolvedSchema = z
  .object({ session_id: z.uuid(), checkpoint_id: z.string(), action: z.string(), status: z.literal('queued'), links: linksSchema })
  .meta({ id: 'CheckpointResolved' });

export function checkpointRoutes(deps: ApiDeps): RouteDef<any, any, any>[] {
  const { store, queue, log } = deps;
  const ops: CheckpointDeps = {
    store,
    enqueue: (id, reason) => queue.enqueue(id, reason),
    notifier: new RedisNotifier(deps.redis),
    caseMemory: caseMemoryPolicy(deps.config.CASE_MEMORY_TOKEN_CAP),
    warn: (msg, extra) => log.warn(extra, msg),
  };

  const resolve = defineRoute({
    method: 'POST',
    path: '/v1/sessions/{id}/checkpoints/{checkpoint_id}/resolve',
    operationId: 'resolveCheckpoint',
    summary: 'Answer the checkpoint an interactive session waits on',
    description:
      'Stores the answer, appends `checkpoint.resolved` and queues the continuation exactly once. The pending checkpoint (id, kind, prompt, allowed actions, expiry, proposal) is in the session snapshot and in its `checkpoint.requested` event. An expired checkpoint has already followed its `on_expiry` policy: answering it is a 409.',
    tags: ['sessions'],
    params,
    body: resolveBody,
    bodyExample: resolveCheckpointExample,
    headers: IDEMPOTENCY_KEY_HEADER,
    responses: {
      202: { description: 'Accepted; the session is queued to continue', schema: resolvedSchema, example: resolvedExample },
      400: { description: 'Invalid body; `errors` names each field', schema: problemSchema },
      404: { description: 'No such session', schema: problemSchema },
      409: { description: 'The checkpoint is not pending: answered already, expired, or the session ended', schema: problemSchema },
      422: { description: 'The action is not allowed at this checkpoint, or its payload does not fit it', schema: problemSchema },
    },
    handler: async ({ params, body, tenant, req, reply }) => {
      const key = idempotencyKeyOf(req);
      const scope = `resolve:${params.id}:${params.checkpoint_id}`;
      const outcome = await idempotent({ store: deps.idempotency, tenant, scope, key, body }, async () => {
        const decide = (pending: PendingCheckpoint) => checkResolution(pending, body, PERSONAS);
        const { session, resolution } = await answerCheckpoint(ops, tenant, params.id, params.checkpoint_id, decide, new Date());
        return {
          status: 202,
          body: { session_id: session.id, checkpoint_id: params.checkpoint_id, action: resolution.action, status: 'queued', links: linksFor(session.id) },
        };
      });
      return replyWith(reply, outcome);
    },
  });

  return [resolve];
}
