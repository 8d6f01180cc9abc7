import fastifySse from '@fastify/sse';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { registerAuth } from './auth';
import { registerCors } from './cors';
import type { ApiDeps } from './deps';
import { buildOpenApi } from './openapi';
import { HttpProblem, sendProblem, toProblem } from './problem';
import { redisCounter, registerRateLimit } from './rate-limit';
import { echoRequestId, requestIdOf } from './request-id';
import { fastifyPath, registerRoute, type RouteDef } from './route';
import { clientErrorHandler, frameworkErrors, registerMethodNotAllowed } from './framework-errors';
import { registerDraining } from './draining';
import { healthRoutes } from './routes/health';
import { personaRoutes } from './routes/personas';
import { memoryRoutes } from './routes/memories';
import { sessionRoutes } from './routes/sessions';
import { checkpointRoutes } from './routes/checkpoints';
import { streamRoute } from './routes/stream';
import { streamTokenRoute } from './routes/stream-token';
import { redactedRequest } from './redact';
import { redisGrantStore, StreamTokens } from './stream-tokens';
import { registerViewer } from './viewer';

export const API_INFO = {
  title: 'bo1 — Board of One',
  version: '1.0.0',
  description:
    'A board of AI experts deliberates your decision: clarify, decompose, debate, vote, synthesise. Every step streams over Server-Sent Events from a durable, resumable event log. Errors are application/problem+json (RFC 9457).',
};

/** Stream tokens in the shared Redis, namespaced like the rate limiter's counters. */
export const streamTokensOf = (deps: ApiDeps) =>
  new StreamTokens(redisGrantStore(deps.redis), deps.config.STREAM_TOKEN_TTL_SECONDS, deps.config.QUEUE_NAME);

export function allRoutes(deps: ApiDeps, tokens: StreamTokens = streamTokensOf(deps)): RouteDef<any, any, any>[] {
  return [
    ...sessionRoutes(deps),
    ...checkpointRoutes(deps),
    streamRoute(deps),
    streamTokenRoute(deps, tokens),
    ...personaRoutes(),
    ...memoryRoutes(deps),
    ...healthRoutes(deps),
  ];
}

/** The OpenAPI document, generated from the same route definitions the server runs. */
export const openApiDocument = (deps: ApiDeps) => buildOpenApi(allRoutes(deps), API_INFO);

export async function buildApp(deps: ApiDeps, opts: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    bodyLimit: config.BODY_LIMIT_BYTES,
    // X-Request-Id in, out and in every log line of the request (`reqId`); a UUID when the caller sends none.
    requestIdHeader: false,
    genReqId: requestIdOf,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: config.CONNECTION_TIMEOUT_MS,
    http: {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: config.HEADERS_TIMEOUT_MS,
      // Node checks the two timeouts above every this often (30 s by default, which would stretch a 10 s limit to 40).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.HEADERS_TIMEOUT_MS / 4))),
    },
    frameworkErrors,
    clientErrorHandler,
    // registerDraining answers requests that arrive while closing.
    return503OnClosing: false,
    ...opts,
    // The request line's URL without a stream token's value (Fastify's serializer, redacted): tokens are never logged.
    loggerInstance: deps.log.child({}, { serializers: { req: redactedRequest } }),
  });
  const tokens = streamTokensOf(deps);
  const routes = allRoutes(deps, tokens);
  const document = buildOpenApi(routes, API_INFO);

  registerDraining(app, config.SSE_RETRY_MS);
  app.setErrorHandler((err, req, reply) => {
    const problem = toProblem(err as Error);
    if (problem.status >= 500) req.log.error({ err }, 'request failed');
    return sendProblem(reply, req, problem);
  });
  app.setNotFoundHandler((req, reply) =>
    sendProblem(reply, req, new HttpProblem('not-found', `no route for ${req.method} ${req.url.split('?')[0]}`)),
  );

  echoRequestId(app);
  deps.metrics.instrument(app);
  await registerCors(app, deps.config.CORS_ORIGINS);
  await app.register(fastifySse, { heartbeatInterval: deps.config.SSE_HEARTBEAT_MS });
  await app.register(fastifySwagger, { mode: 'static', specification: { document: document as never } });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => document);
  // Auth first: the limiter counts per key; then the 401s, which the limiter has counted per IP.
  registerAuth(
    app,
    deps.keys,
    deps.config.AUTH_MODE,
    (inner) =>
      registerRateLimit(inner, redisCounter(deps.redis), {
        limit: deps.config.RATE_LIMIT_PER_MINUTE,
        windowMs: deps.config.RATE_LIMIT_WINDOW_MS,
        namespace: deps.config.QUEUE_NAME,
      }),
    tokens,
  );
  registerViewer(app);
  for (const r of routes) registerRoute(app, r);
  const served = new Map<string, Set<string>>([['/openapi.json', new Set(['GET'])]]);
  for (const r of routes) {
    const url = fastifyPath(r.path);
    served.set(url, (served.get(url) ?? new Set()).add(r.method));
  }
  registerMethodNotAllowed(app, served);
  return app;
}
