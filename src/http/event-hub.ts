import type { Envelope } from '../domain/events';
import { sessionChannel, type RedisClient } from '../queue/redis';

/** Reads a session's log after a seq; the hub's only view of the event log. */
export type ReadEvents = (sessionId: string, after: number, limit: number) => Promise<Envelope[]>;

export interface Subscription {
  close(): void;
}

interface Subscriber {
  cursor: number;
  deliver(events: Envelope[]): void;
}

const PAGE = 500;

/**
 * One tail per watched session per API process. A wake-up (Redis pub/sub) or
 * the safety poll makes the tail read Postgres once, after the lowest cursor
 * among its subscribers, and hand each subscriber exactly the rows after its
 * own cursor. The log is gapless and committed in seq order, so contiguous
 * delivery needs no buffering, and a lost wake-up only delays. A subscriber
 * is only ever served by a read that started at or below its cursor.
 */
class Tail {
  readonly subs = new Set<Subscriber>();
  private running = false;
  private again = false;

  constructor(
    private readonly sessionId: string,
    private readonly read: ReadEvents,
    private readonly onError: (err: unknown) => void,
  ) {}

  poke(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.drain()
      .catch(this.onError)
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (!this.subs.size) return;
      let from = Infinity;
      for (const s of this.subs) if (s.cursor < from) from = s.cursor;
      const rows = await this.read(this.sessionId, from, PAGE);
      const first = rows[0]?.seq ?? Infinity;
      // A subscriber that joined during the read with an older cursor is owed rows this read did not
      // cover (seq <= from): it waits for the next read rather than jumping past them.
      let behind = false;
      for (const sub of this.subs) {
        if (sub.cursor < from) {
          behind = true;
          continue;
        }
        // The log is gapless, so a subscriber's fresh rows start at a computed index: no per-subscriber scan.
        const start = Math.max(0, sub.cursor + 1 - first);
        if (start >= rows.length) continue;
        sub.cursor = rows[rows.length - 1]!.seq;
        sub.deliver(start ? rows.slice(start) : rows);
      }
      if (rows.length < PAGE && !behind) return;
    }
  }
}

/**
 * An envelope as an SSE frame, built once however many subscribers get it:
 * a tail hands every subscriber the same envelope objects, so with 1,000 of
 * them one JSON.stringify serves all instead of 1,000.
 */
const frames = new WeakMap<Envelope, string>();
export function sseFrame(e: Envelope): string {
  let frame = frames.get(e);
  if (frame === undefined) {
    frame = `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
    frames.set(e, frame);
  }
  return frame;
}

export class EventHub {
  private readonly tails = new Map<string, Tail>();
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly read: ReadEvents,
    private readonly subscriber: RedisClient,
    pollMs: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    subscriber.on('message', (channel: string) => {
      const id = channel.slice(sessionChannel('').length);
      this.tails.get(id)?.poke();
    });
    // Redis pub/sub is best effort: poll as a backstop so a lost wake-up only delays delivery.
    this.poll = setInterval(() => {
      for (const t of this.tails.values()) t.poke();
    }, pollMs);
    this.poll.unref();
  }

  /** Delivers every event after `after`, in order, once, as they are committed, until closed. */
  subscribe(sessionId: string, after: number, deliver: (events: Envelope[]) => void): Subscription {
    let tail = this.tails.get(sessionId);
    if (!tail) {
      tail = new Tail(sessionId, this.read, this.onError);
      this.tails.set(sessionId, tail);
      const created = tail;
      // Read again once subscribed: a commit between the first read and the subscription sent no wake-up we heard.
      this.subscriber.subscribe(sessionChannel(sessionId)).then(() => created.poke(), this.onError);
    }
    const sub: Subscriber = { cursor: after, deliver };
    tail.subs.add(sub);
    tail.poke();
    const owner = tail;
    return {
      close: () => {
        owner.subs.delete(sub);
        if (!owner.subs.size && this.tails.get(sessionId) === owner) {
          this.tails.delete(sessionId);
          this.subscriber.unsubscribe(sessionChannel(sessionId)).catch(this.onError);
        }
      },
    };
  }

  get watchedSessions(): number {
    return this.tails.size;
  }

  close(): void {
    clearInterval(this.poll);
    this.tails.clear();
  }
}
