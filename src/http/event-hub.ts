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
      const from = Math.min(...[...this.subs].map((s) => s.cursor));
      const rows = await this.read(this.sessionId, from, PAGE);
      // A subscriber that joined during the read with an older cursor is owed rows this read did not
      // cover (seq <= from): it waits for the next read rather than jumping past them.
      let behind = false;
      for (const sub of this.subs) {
        if (sub.cursor < from) {
          behind = true;
          continue;
        }
        const fresh = rows.filter((r) => r.seq > sub.cursor);
        if (!fresh.length) continue;
        sub.cursor = fresh.at(-1)!.seq;
        sub.deliver(fresh);
      }
      if (rows.length < PAGE && !behind) return;
    }
  }
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
