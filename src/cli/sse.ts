import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One dispatched Server-Sent Event. `id` is this event's own `id:` field, if it had one. */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/**
 * The WHATWG event-stream rules, by `eventsource-parser`: feed it decoded
 * text in whatever chunks the network delivers; it returns the events each
 * chunk completed. Comment lines (`: heartbeat`) are counted, not dispatched.
 * (The client does its own reconnecting, with Last-Event-ID and gap filling,
 * so it needs a parser rather than an EventSource.)
 */
export class SseParser {
  /** Comment lines seen so far (heartbeats). */
  comments = 0;
  private completed: SseMessage[] = [];
  private readonly parser: EventSourceParser = createParser({
    onEvent: (e) => this.completed.push({ event: e.event ?? 'message', data: e.data, ...(e.id !== undefined && { id: e.id }) }),
    onComment: () => {
      this.comments += 1;
    },
  });

  push(chunk: string): SseMessage[] {
    this.parser.feed(chunk);
    const out = this.completed;
    this.completed = [];
    return out;
  }
}
