import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem, PROBLEMS, sendProblem, toProblem, type Problem } from './problem';

/**
 * Errors Fastify and Node raise before a route runs, as problem+json like
 * every other error: a malformed URL, an over-long path parameter, a request
 * that was too slow or whose headers were too large, a wrong method.
 */

/** Fastify's `frameworkErrors`: a URL it cannot decode (400) or a path parameter over `maxParamLength` (414). */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const problem =
    err.code === 'FST_ERR_BAD_URL'
      ? new HttpProblem('bad-url', 'the URL is not validly percent-encoded', { errors: [{ field: 'url', message: 'is not validly percent-encoded' }] })
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new HttpProblem('uri-too-long', 'a path parameter of the URL is too long', { errors: [{ field: 'url', message: 'has a path parameter that is too long' }] })
        : toProblem(err);
  void sendProblem(reply, req, problem);
}

/** Node's clientError, before there is a request object: the timeouts (408), oversized headers (431), unparseable requests (400). */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [slug, detail] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? (['request-timeout', 'the request (headers and body) was not received in time'] as const)
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? (['headers-too-large', 'the request line and headers are larger than the server accepts'] as const)
        : (['bad-request', 'the request is not valid HTTP'] as const);
  const { status, title } = PROBLEMS[slug];
  const body: Problem = { type: `urn:bo1:problem:${slug}`, title, status, detail };
  const json = JSON.stringify(body);
  this.log.debug({ err }, 'client error');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy(err);
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Answers a known path with a method it does not serve with 405 and `Allow`
 * (Fastify's router would say 404): one extra route per path, for the other
 * methods, so Fastify's own router does the matching. Call after every route
 * is registered; `paths` maps a Fastify path to the methods it serves.
 */
export function registerMethodNotAllowed(app: FastifyInstance, paths: Map<string, Set<string>>): void {
  for (const [url, served] of paths) {
    // Fastify answers HEAD for every GET route.
    const allowed = served.has('GET') ? new Set([...served, 'HEAD']) : served;
    const others = METHODS.filter((m) => !allowed.has(m));
    if (!others.length) continue;
    const allow = METHODS.filter((m) => allowed.has(m)).join(', ');
    const refuse = async (req: FastifyRequest, reply: FastifyReply) =>
      sendProblem(
        reply,
        req,
        new HttpProblem('method-not-allowed', `${req.method} is not served at ${url}; allowed: ${allow}`, { headers: { Allow: allow } }),
      );
    // Answered in the route's onRequest: before its body is parsed, so a wrong method is a 405 whatever it sends.
    app.route({ method: [...others], url, schema: { hide: true }, onRequest: refuse, handler: refuse });
  }
}
