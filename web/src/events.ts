/**
 * The stream's envelope, as the API documents it (openapi.yaml `StreamEvent`):
 * `data` stays loosely typed here because the viewer must also show event
 * types it does not know yet (a newer server's), generically.
 */
export interface Envelope {
  seq: number;
  type: string;
  session_id: string;
  ts: string;
  data: Record<string, any>;
}

export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['session.completed', 'session.failed', 'session.cancelled']);

/** The stream-level notice a draining server sends before it closes (src/http/draining.ts): reconnect. */
export const CLOSING_EVENT = 'stream.closing';
