import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyStore } from '../auth/api-keys';
import type { Config } from '../config/config';
import { OPEN_CALLER, type Caller } from './caller';
import { HttpProblem, sendProblem } from './problem';

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

/**
 * Sets `req.caller` for every /v1 request from its `Authorization: Bearer`
 * key. A key that is sent is always checked, so a wrong one is a 401 even
 * when requests without a key are served (open mode). The 401 is sent by a
 * later hook, so that hooks `between` registers (the rate limiter) see
 * refused requests too: guessing keys is limited per client IP.
 */
export function registerAuth(app: FastifyInstance, keys: ApiKeyStore, mode: AuthMode, between?: (app: FastifyInstance) => void): void {
  app.decorateRequest('caller', null as unknown as Caller);
  const refusals = new WeakMap<FastifyRequest, HttpProblem>();
  app.addHook('onRequest', async (req) => {
    if (!isApiUrl(req.url)) return;
    const header = req.headers.authorization;
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
