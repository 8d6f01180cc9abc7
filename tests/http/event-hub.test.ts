import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { event, type Envelope } from '../../src/domain/events';
import { EventHub } from '../../src/http/event-hub';
import { openRedis, RedisNotifier } from '../../src/queue/redis';
import { testDatabaseUrl, testRedisUrl } from '../support/env';

let database: Database;
let store: SessionStore;
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 4);
  store = new SessionStore(database);
});
afterAll(async () => database?.close());

const problem = 'Should I open a second office in Lisbon?';

describe('the event hub with subscribers joining a live session', () => {
  it('gives every late subscriber every event after its cursor exactly once, in order, even when it joins during a read', async () => {
    const id = randomUUID();
    await store.create(
      { id, tenantId: `hub-${id.slice(0, 8)}`, problem, context: '', options: { mode: 'auto' }, provider: 'simulated', seed: 'hub' },
      event('session.created', { problem, context: '', provider: 'simulated', mode: 'auto' }),
    );
    const subscriber = openRedis(testRedisUrl(), 'bo1-test-hub-sub');
    const publisher = openRedis(testRedisUrl(), 'bo1-test-hub-pub');
    const notifier = new RedisNotifier(publisher);
    // The fault: every read is slow, so subscribers keep joining while one is in flight.
    const slowRead = async (sessionId: string, after: number, limit: number) => {
      await sleep(15);
      return store.events(sessionId, after, limit);
    };
    const hub = new EventHub(slowRead, subscriber, 50);
    const total = 120;
    const received: { after: number; seqs: number[]; done: Promise<void> }[] = [];
    const join = (after: number) => {
      const got: number[] = [];
      let finish!: () => void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      const sub = hub.subscribe(id, after, (events: Envelope[]) => {
        for (const e of events) {
          got.push(e.seq);
          if (e.type === 'session.cancelled') {
            sub.close();
            finish();
          }
        }
      });
      received.push({ after, seqs: got, done });
    };
    try {
      join(0);
      for (let n = 2; n <= total; n++) {
        const terminal = n === total;
        await store.commit(id, null, {
          events: [terminal ? event('session.cancelled', { reason: 'test over' }) : event('session.started', { attempt: n })],
          ...(terminal && { patch: { status: 'cancelled', phase: 'cancelled', ended: true } }),
        });
        await notifier.publish(id, n);
        // Dozens of late joiners, each from some point already in the log (0 = from the start).
        if (n % 3 === 0) join(n % 2 === 0 ? 0 : Math.floor(n / 2));
        await sleep(2);
      }
      await Promise.race([Promise.all(received.map((r) => r.done)), sleep(20_000).then(() => Promise.reject(new Error('subscribers did not finish')))]);
      expect(received.length).toBeGreaterThanOrEqual(40);
      for (const r of received) {
        expect(r.seqs, `subscriber after ${r.after}`).toEqual(Array.from({ length: total - r.after }, (_, i) => r.after + i + 1));
      }
    } finally {
      hub.close();
      subscriber.disconnect();
      publisher.disconnect();
    }
  });
});
