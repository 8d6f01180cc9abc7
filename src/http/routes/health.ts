import { z } from 'zod';
import { defineRoute, type RouteDef } from '../route';
import type { ApiDeps } from '../deps';
import { withTimeout } from '../timeout';

const checkSchema = z.object({ status: z.enum(['ok', 'fail']), checks: z.record(z.string(), z.string()) });

export function healthRoutes(deps: ApiDeps): RouteDef<any, any, any>[] {
  const healthz = defineRoute({
    method: 'GET',
    path: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness: the process is up',
    tags: ['ops'],
    responses: { 200: { description: 'Alive', schema: z.object({ status: z.literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  const readyz = defineRoute({
    method: 'GET',
    path: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness: Postgres and Redis answer and a worker is alive',
    tags: ['ops'],
    responses: {
      200: { description: 'Ready', schema: checkSchema },
      503: { description: 'Not ready; `checks` says which dependency failed', schema: checkSchema, contentType: 'application/json' },
    },
    handler: async ({ reply }) => {
      const results = await Promise.all(
        Object.entries(deps.checks).map(async ([name, check]) => {
          try {
            await withTimeout(check(), 2000);
            return [name, 'ok'] as const;
          } catch (err) {
            return [name, `fail: ${(err as Error).message}`] as const;
          }
        }),
      );
      const ok = results.every(([, r]) => r === 'ok');
      reply.code(ok ? 200 : 503);
      return { status: ok ? 'ok' : 'fail', checks: Object.fromEntries(results) };
    },
  });
  return [healthz, readyz];
}
