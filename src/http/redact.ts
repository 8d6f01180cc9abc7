/** The query parameter the stream route reads its token from (src/http/stream-tokens.ts). */
export const STREAM_TOKEN_PARAM = 'stream_token';

const TOKEN_IN_QUERY = new RegExp(`([?&]${STREAM_TOKEN_PARAM}=)[^&#]*`, 'g');

/** A URL as it may be logged or echoed: any stream token's value replaced. */
export const redactUrl = (url: string): string => url.replace(TOKEN_IN_QUERY, '$1[redacted]');

interface LoggedRequest {
  method: string;
  url: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's own request serializer (its `incoming request` line), with the URL redacted: the logger's `req`. */
export const redactedRequest = (req: LoggedRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  version: req.headers?.['accept-version'],
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});
