import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LedgerTotals } from '../db/metrics-store';

/** Where the gauges read from at scrape time; each is optional so a process exposes what it has. */
export interface MetricSources {
  /** Job counts per state of each queue, by queue name. */
  queues?: () => Promise<Record<string, Record<string, number>>>;
  sessions?: () => Promise<{ status: string; count: number }[]>;
  ledger?: () => Promise<LedgerTotals[]>;
  /** Open SSE streams in this process. */
  subscribers?: () => number;
}

export interface Metrics {
  registry: Registry;
  render(): Promise<{ contentType: string; body: string }>;
  /** Counts and times every HTTP request of `app` by method, route template and status. */
  instrument(app: FastifyInstance): void;
}

/**
 * One registry per process (never prom-client's global one: tests build many
 * apps in one process). Queue, session and ledger figures are read when
 * scraped, so every process reports the same cluster-wide values: aggregate
 * them with max(), not sum().
 */
export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'bo1_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'bo1_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (an SSE stream counts until it closes)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });

  if (sources.queues) {
    const read = sources.queues;
    new Gauge({
      name: 'bo1_queue_jobs',
      help: 'Jobs in each BullMQ queue, by state (waiting is the depth)',
      labelNames: ['queue', 'state'] as const,
      registers,
      async collect() {
        this.reset();
        for (const [queue, counts] of Object.entries(await read())) for (const [state, n] of Object.entries(counts)) this.set({ queue, state }, n);
      },
    });
  }
  if (sources.sessions) {
    const read = sources.sessions;
    new Gauge({
      name: 'bo1_sessions',
      help: 'Sessions by status, all tenants',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        this.reset();
        for (const { status, count } of await read()) this.set({ status }, count);
      },
    });
  }
  if (sources.ledger) registerLedger(registry, sources.ledger);
  if (sources.subscribers) {
    const read = sources.subscribers;
    new Gauge({
      name: 'bo1_stream_subscribers',
      help: 'Open SSE streams in this process',
      registers,
      collect() {
        this.set(read());
      },
    });
  }

  return {
    registry,
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    instrument(app) {
      app.addHook('onResponse', async (req, reply) => {
        // The route template, never the raw URL: one series per route, not per session id.
        const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
        requests.inc(labels);
        duration.observe(labels, reply.elapsedTime / 1000);
      });
    },
  };
}

/** The ledger's totals: gauges, because they are read from Postgres rather than counted by this process. */
function registerLedger(registry: Registry, read: () => Promise<LedgerTotals[]>): void {
  const registers = [registry];
  let pending: Promise<LedgerTotals[]> | null = null;
  // The three gauges share one query per scrape.
  const rows = () => (pending ??= read().finally(() => setTimeout(() => (pending = null), 0)));
  const labelNames = ['phase', 'model'] as const;
  new Gauge({
    name: 'bo1_model_calls',
    help: 'Model calls in the cost ledger, by phase and model',
    labelNames,
    registers,
    async collect() {
      this.reset();
      for (const r of await rows()) this.set({ phase: r.phase, model: r.model }, r.calls);
    },
  });
  new Gauge({
    name: 'bo1_model_tokens',
    help: 'Tokens in the cost ledger, by phase, model and kind (input, output, cache_read, cache_write)',
    labelNames: [...labelNames, 'kind'] as const,
    registers,
    async collect() {
      this.reset();
      for (const r of await rows()) {
        const at = { phase: r.phase, model: r.model };
        this.set({ ...at, kind: 'input' }, r.inputTokens);
        this.set({ ...at, kind: 'output' }, r.outputTokens);
        this.set({ ...at, kind: 'cache_read' }, r.cacheReadTokens);
        this.set({ ...at, kind: 'cache_write' }, r.cacheWriteTokens);
      }
    },
  });
  new Gauge({
    name: 'bo1_model_cost_usd',
    help: 'Cost in USD in the cost ledger (list prices), by phase and model',
    labelNames,
    registers,
    async collect() {
      this.reset();
      for (const r of await rows()) this.set({ phase: r.phase, model: r.model }, r.costUsd);
    },
  });
}
