import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyStore } from '../auth/api-keys';
import type { Config } from '../config/config';
import { OPEN_CALLER, type Caller } from './caller';
import { HttpProblem, sendProblem } from './problem';
import { STREAM_TOKEN_PARAM, type StreamTokens } from './stream-tokens';

export type AuthMode = Config['AUTH_MODE'];

/** The API surface behind auth and rate limits; health, docs and the OpenAPI document stay open. */
export const isApiUrl = (url: string): boolean => /^\/v1(?:[/?]|$)/.test(url);

/** Open mode: whether a request without a key is served, as the `default` tenant. Counts keys only under `auto`. */
export async function servesWithoutKey(mode: AuthMode, activeKeys: () => Promise<number>): Promise<boolean> {
  if (mode === 'auto') return (await activeKeys()) === 0;
  return mode === 'open';
}

const unauthorized = (detail: string) =>
  new HttpProblem('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="bo1"' } });

/** The one route a stream token opens (Fastify's pattern of GET /v1/sessions/{id}/stream). */
export const STREAM_ROUTE = '/v1/sessions/:id/stream';

/**
 * Sets `req.caller` for every /v1 request from its `Authorization: Bearer`
 * key. A key that is sent is always checked, so a wrong one is a 401 even
 * when requests without a key are served (open mode). The 401 is sent by a
 * later hook, so that hooks `between` registers (the rate limiter) see
 * refused requests too: guessing keys is limited per client IP.
 *
 * Without the header, a `stream_token` (minted by POST …/stream-token) proves
 * the caller of that one session's stream, and of nothing else: it is checked
 * like a key (a bad one is a 401 in open mode too) and refused elsewhere.
 */
export function registerAuth(
  app: FastifyInstance,
  keys: ApiKeyStore,
  mode: AuthMode,
  between?: (app: FastifyInstance) => void,
  tokens?: StreamTokens,
): void {
  app.decorateRequest('caller', null as unknown as Caller);
  const refusals = new WeakMap<FastifyRequest, HttpProblem>();
  app.addHook('onRequest', async (req) => {
    if (!isApiUrl(req.url)) return;
    const header = req.headers.authorization;
    const streamToken = (req.query as Record<string, unknown> | undefined)?.[STREAM_TOKEN_PARAM];
    if (header === undefined && streamToken !== undefined && tokens) {
      if (req.method !== 'GET' || req.routeOptions.url !== STREAM_ROUTE) {
        return void refusals.set(req, unauthorized('a stream token is accepted by GET /v1/sessions/{id}/stream only; send `Authorization: Bearer <key>`'));
      }
      const sessionId = (req.params as { id?: string }).id ?? '';
      const caller = typeof streamToken === 'string' ? await tokens.verify(streamToken, sessionId) : null;
      if (!caller) return void refusals.set(req, unauthorized('the stream token is unknown, expired or for another session: mint a new one'));
      req.caller = caller;
      return;
    }
    if (header === undefined) {
      if (await servesWithoutKey(mode, () => keys.activeCount())) req.caller = OPEN_CALLER;
      else refusals.set(req, unauthorized('this API needs a key: send `Authorization: Bearer <key>`'));
      return;
    }
    const token = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (!token) return void refusals.set(req, unauthorized('the Authorization header must be `Bearer <key>`'));
    const caller = await keys.verify(token);
    if (!caller) return void refusals.set(req, unauthorized('the API key is unknown or revoked'));
    req.caller = caller;
  });
  between?.(app);
  app.addHook('onRequest', async (req, reply) => {
    const refused = refusals.get(req);
    if (refused) return sendProblem(reply, req, refused);
  });
}
