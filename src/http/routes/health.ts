import { z } from 'zod';
import { defineRoute, type RouteDef } from '../route';
import type { ApiDeps } from '../deps';
import { runChecks } from '../checks';
import { withTimeout } from '../timeout';

const aliveSchema = z.object({ status: z.literal('ok') });
const readySchema = z.object({
  status: z.enum(['ok', 'fail']),
  checks: z.record(z.string(), z.string()),
  workers: z.number().int().nullable().describe('Workers connected to the queue (null if it could not be counted); informational, readiness does not depend on it'),
});

/**
 * Kubernetes' meanings: /livez says the process runs (restart it if not) and
 * checks no dependency, so an outage never restarts healthy pods; /readyz says
 * this process can serve traffic — Postgres and Redis answer. Workers are
 * counted, not required: the API accepts and serves sessions without one
 * (they wait in the queue), so their absence must not take it out of service.
 */
export function healthRoutes(deps: ApiDeps): RouteDef<any, any, any>[] {
  const alive = { 200: { description: 'Alive', schema: aliveSchema, example: { status: 'ok' } } };
  const livez = defineRoute({
    method: 'GET',
    path: '/livez',
    operationId: 'livez',
    summary: 'Liveness: the process is up (no dependency is checked)',
    tags: ['ops'],
    responses: alive,
    handler: async () => ({ status: 'ok' as const }),
  });
  const healthz = defineRoute({
    method: 'GET',
    path: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness, the older name of /livez',
    tags: ['ops'],
    responses: alive,
    handler: async () => ({ status: 'ok' as const }),
  });

  const readyz = defineRoute({
    method: 'GET',
    path: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness: Postgres and Redis answer',
    tags: ['ops'],
    responses: {
      200: {
        description: 'Ready',
        schema: readySchema,
        example: { status: 'ok', checks: { postgres: 'ok', redis: 'ok' }, workers: 1 },
      },
      503: {
        description: 'Not ready; `checks` says which dependency failed',
        schema: readySchema,
        contentType: 'application/json',
        example: { status: 'fail', checks: { postgres: 'ok', redis: 'fail: timed out after 2000 ms' }, workers: null },
      },
    },
    handler: async ({ reply }) => {
      // Bounded like the checks: with Redis down the count would wait for a reconnect that may never come.
      const [report, workers] = await Promise.all([runChecks(deps.checks), withTimeout(deps.queue.workersCount(), 2000).catch(() => null)]);
      reply.code(report.status === 'ok' ? 200 : 503);
      return { ...report, workers };
    },
  });
  const metrics = defineRoute({
    method: 'GET',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'HTTP requests, queue depth, sessions by status, model calls, tokens and cost by phase and model (from the ledger), open streams, and the process. Queue, session and ledger figures are cluster-wide: aggregate them across processes with max(), not sum().',
    tags: ['ops'],
    responses: {
      200: {
        description: 'Prometheus text exposition format',
        schema: z.string(),
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        example: '# HELP bo1_sessions Sessions by status, all tenants\n# TYPE bo1_sessions gauge\nbo1_sessions{status="completed"} 42\n',
      },
    },
    handler: async ({ reply }) => {
      const { contentType, body } = await deps.metrics.render();
      reply.type(contentType);
      return body;
    },
  });
  return [livez, healthz, readyz, metrics];
}
