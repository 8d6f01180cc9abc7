import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { notFound, problemSchema } from '../problem';
import { defineRoute, type RouteDef } from '../route';
import { sessionIdParams } from '../schemas';
import { STREAM_TOKEN_PARAM, type StreamTokens } from '../stream-tokens';

const mintedSchema = z
  .object({
    token: z.string().describe(`Send it as \`?${STREAM_TOKEN_PARAM}=\` to this session's stream, and nowhere else`),
    expires_at: z.string().describe('After this, a new connection with the token is refused (401); an open stream is not cut'),
    expires_in: z.number().int().describe('Seconds until expires_at'),
    stream: z.string().describe('The stream URL with the token, ready for an EventSource'),
  })
  .meta({ id: 'StreamToken' });

export function streamTokenRoute(deps: ApiDeps, tokens: StreamTokens): RouteDef<any, any, any> {
  return defineRoute({
    method: 'POST',
    path: '/v1/sessions/{id}/stream-token',
    operationId: 'createStreamToken',
    summary: "Mint a short-lived token for one session's stream (for browsers)",
    description: [
      'An EventSource cannot send `Authorization`. Call this with your key, then open',
      `\`GET /v1/sessions/{id}/stream?${STREAM_TOKEN_PARAM}=…\` (the \`stream\` link): the token proves the same tenant for that session's stream only,`,
      `for \`expires_in\` seconds (STREAM_TOKEN_TTL_SECONDS); any other route refuses it (401). It may be used for several connections until it expires,`,
      'so an EventSource\'s own reconnects (with Last-Event-ID) work; after that, mint another and resume with `?after=`. Tokens are never logged.',
    ].join(' '),
    tags: ['sessions'],
    params: sessionIdParams,
    responses: {
      200: {
        description: 'A token for this session\'s stream',
        schema: mintedSchema,
        example: {
          token: 'bo1st_Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGUgdG9rZW4',
          expires_at: '2026-11-25T12:05:00.000Z',
          expires_in: 300,
          stream: `/v1/sessions/3b17f0a2-5c1e-4f4e-9a51-2f0c8f1d9e10/stream?${STREAM_TOKEN_PARAM}=bo1st_Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGUgdG9rZW4`,
        },
      },
      400: { description: 'Invalid id', schema: problemSchema },
      404: { description: 'No such session', schema: problemSchema },
      503: { description: 'Tokens cannot be stored right now (Redis is unreachable); retry after `Retry-After`', schema: problemSchema },
    },
    handler: async ({ params, tenant, req, reply }) => {
      const row = await deps.store.get(params.id, tenant);
      if (!row) throw notFound(`session ${params.id}`);
      const { token, expiresAt } = await tokens.mint({ sessionId: row.id, tenantId: tenant, keyId: req.caller?.keyId ?? null });
      // A credential: no cache may keep it.
      reply.header('cache-control', 'no-store');
      return {
        token,
        expires_at: expiresAt.toISOString(),
        expires_in: tokens.ttlSeconds,
        stream: `/v1/sessions/${row.id}/stream?${STREAM_TOKEN_PARAM}=${token}`,
      };
    },
  });
}
