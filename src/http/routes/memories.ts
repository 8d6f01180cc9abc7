import { z } from 'zod';
import { provenanceSchema } from '../../domain/events';
import type { ApiDeps } from '../deps';
import { fieldProblem, notFound, problemSchema } from '../problem';
import { AppError, isAppError } from '../../domain/errors';
import { defineRoute, type RouteDef } from '../route';
import { sessionIdParams } from '../schemas';

const memorySchema = z
  .object({
    id: z.string(),
    scope: z.enum(['sub_problem', 'session']).describe('sub_problem: an expert\'s summary inside one session; session: anonymised cross-session memory'),
    persona: z.string(),
    category: z.string(),
    summary: z.string(),
    position: z.string(),
    confidence: z.number(),
    anonymised: z.boolean(),
    supersededBy: z.string().nullable().describe('A newer memory that contradicted this one; both are kept'),
    supersededAt: z.string().nullable(),
    provenance: provenanceSchema,
  })
  .meta({ id: 'Memory' });

const lessonSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    lesson: z.string(),
    triggerConditions: z.string(),
    suggestedFix: z.string(),
    confidence: z.number(),
    tags: z.array(z.string()),
    reinforcements: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Lesson' });

const page = { limit: z.coerce.number().int().min(1).max(100).default(20), cursor: z.string().min(1).optional() };
const idParams = z.object({ id: z.uuid({ error: 'must be a memory id (UUID)' }) });
const problems = { 400: { description: 'Invalid request', schema: problemSchema }, 404: { description: 'Not found', schema: problemSchema } };

type Row = Record<string, any>;
const toMemory = (m: Row) => ({
  id: m.id,
  scope: m.scope,
  persona: m.persona,
  category: m.category,
  summary: m.summary,
  position: m.position,
  confidence: m.confidence,
  anonymised: m.anonymised,
  supersededBy: m.supersededBy ?? null,
  supersededAt: m.supersededAt ?? null,
  provenance: { sessionId: m.sessionId, subProblemId: m.subProblemId, expert: m.persona, date: m.createdAt, model: m.model, promptVersion: m.promptVersion },
});
const toLesson = (l: Row) => ({
  id: l.id,
  type: l.type,
  lesson: l.lesson,
  triggerConditions: l.triggerConditions,
  suggestedFix: l.suggestedFix,
  confidence: l.confidence,
  tags: l.tags,
  reinforcements: l.reinforcements,
  createdAt: l.createdAt,
  updatedAt: l.updatedAt,
});

/** Memory and lessons with provenance; deletion cascades to everything derived. Tenant-scoped in the store. */
export function memoryRoutes(deps: ApiDeps): RouteDef<any, any, any>[] {
  const memory = () => {
    if (!deps.memory) throw new AppError('memory-unavailable', 'this deployment runs without expert memory');
    return deps.memory;
  };
  const badCursor = (err: unknown) => {
    if (isAppError(err, 'invalid-cursor')) throw fieldProblem('query.cursor', err.message);
    throw err;
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/v1/memories',
      operationId: 'listMemories',
      summary: 'Expert memories, newest first, with provenance',
      tags: ['memory'],
      query: z.object({
        persona: z.string().regex(/^[a-z_]+$/).optional(),
        q: z.string().min(1).max(500).optional().describe('Full-text search'),
        scope: z.enum(['sub_problem', 'session']).optional(),
        ...page,
      }),
      responses: { 200: { description: 'One page', schema: z.object({ items: z.array(memorySchema), next_cursor: z.string().nullable() }) }, 400: problems[400] },
      handler: async ({ query, tenant }) => {
        const p = await memory()
          .list(tenant, {
            limit: query.limit,
            ...(query.persona && { persona: query.persona }),
            ...(query.q && { q: query.q }),
            ...(query.scope && { scope: query.scope }),
            ...(query.cursor && { cursor: query.cursor }),
          })
          .catch(badCursor);
        return { items: p.items.map(toMemory), next_cursor: p.nextCursor };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/memories/export',
      operationId: 'exportMemories',
      summary: 'Everything this tenant\'s board remembers: memories and lessons (without embeddings)',
      tags: ['memory'],
      responses: { 200: { description: 'The export', schema: z.object({ memories: z.array(memorySchema), lessons: z.array(lessonSchema) }) } },
      handler: async ({ reply, tenant }) => {
        const all = await memory().exportTenant(tenant);
        reply.header('content-disposition', 'attachment; filename="bo1-memory.json"');
        return { memories: all.memories.map(toMemory), lessons: all.lessons.map(toLesson) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/memories/{id}',
      operationId: 'getMemory',
      summary: 'One memory with provenance',
      tags: ['memory'],
      params: idParams,
      responses: { 200: { description: 'The memory', schema: memorySchema }, ...problems },
      handler: async ({ params, tenant }) => {
        const m = await memory().get(tenant, params.id);
        if (!m) throw notFound(`memory ${params.id}`);
        return toMemory(m);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/memories/{id}',
      operationId: 'deleteMemory',
      summary: 'Forget one memory',
      tags: ['memory'],
      params: idParams,
      responses: { 204: { description: 'Deleted' }, ...problems },
      handler: async ({ params, reply, tenant }) => {
        if (!(await memory().delete(tenant, params.id))) throw notFound(`memory ${params.id}`);
        reply.code(204);
        return null;
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/sessions/{id}/memories',
      operationId: 'deleteSessionMemories',
      summary: 'Forget everything a session contributed, and what was derived from it',
      description: 'Deletes its expert memories and novelty history, its lesson sources, and lessons no other session supports (others lose one reinforcement). The session and its event log stay.',
      tags: ['memory'],
      params: sessionIdParams,
      responses: {
        200: {
          description: 'What was deleted',
          schema: z.object({ memories: z.number().int(), utterances: z.number().int(), lessonsDeleted: z.number().int(), lessonSourcesDeleted: z.number().int() }),
        },
        ...problems,
      },
      handler: async ({ params, tenant }) => {
        const row = await deps.store.get(params.id, tenant);
        if (!row) throw notFound(`session ${params.id}`);
        return memory().deleteSessionContributions(tenant, params.id);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/insights',
      operationId: 'listInsights',
      summary: 'Lessons learned from earlier deliberations, searchable',
      tags: ['memory'],
      query: z.object({ q: z.string().min(1).max(500).optional().describe('Full-text search'), ...page }),
      responses: { 200: { description: 'One page', schema: z.object({ items: z.array(lessonSchema), next_cursor: z.string().nullable() }) }, 400: problems[400] },
      handler: async ({ query, tenant }) => {
        const p = await memory()
          .listLessons(tenant, { limit: query.limit, ...(query.q && { q: query.q }), ...(query.cursor && { cursor: query.cursor }) })
          .catch(badCursor);
        return { items: p.items.map(toLesson), next_cursor: p.nextCursor };
      },
    }),
  ];
}
