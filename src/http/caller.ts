/** Who is calling: the tenant every query is scoped to, and the API key that proved it (null in open mode). */
export interface Caller {
  tenantId: string;
  keyId: string | null;
}

/** The caller of a request with no keys configured (open mode): everything belongs to the `default` tenant. */
export const OPEN_CALLER: Caller = { tenantId: 'default', keyId: null };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook before any `/v1` handler runs. */
    caller: Caller;
  }
}
