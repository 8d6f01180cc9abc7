import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { runChecks, type Check } from '../http/checks';

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

export interface HealthServerOptions {
  host: string;
  port: number;
  /** What /readyz requires. */
  checks: Record<string, Check>;
  /** Prometheus exposition for /metrics. */
  metrics: () => Promise<{ contentType: string; body: string }>;
  log: Logger;
}

/**
 * The worker has no API to probe, so it gets this: /livez (the process runs),
 * /readyz (its dependencies answer and its job loop runs) and /metrics.
 * Plain node:http — three fixed GET routes need no framework.
 */
export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { status: 'method not allowed' });
    if (path === '/livez' || path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      void runChecks(opts.checks).then((report) => send(report.status === 'ok' ? 200 : 503, report));
      return;
    }
    if (path === '/metrics') {
      void opts.metrics().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        (err: Error) => {
          opts.log.warn({ err }, 'metrics collection failed');
          send(500, { status: 'metrics collection failed' });
        },
      );
      return;
    }
    send(404, { status: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  opts.log.info({ url }, 'worker health server up: /livez /readyz /metrics');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
