import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../../web/src/api';
import type { Envelope } from '../../web/src/events';
import { follow, type Connection } from '../../web/src/follow';
import { createSession, startStack, waitFor, waitForStatus, type Stack } from '../support/stack';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * The viewer's stream follower (web/src/follow.ts), run outside the browser
 * against a service behind a TCP proxy: how it authenticates, reconnects and
 * gives up. (tests/e2e drives the same code in Chromium.)
 */
let stack: Stack;
let proxy: TcpProxy;
let base: string;
let redis: Redis;

beforeAll(async () => {
  stack = await startStack({ SSE_RETRY_MS: '100' });
  const front = await TcpProxy.in(stack.url);
  proxy = front.proxy;
  base = front.url.replace(/\/$/, '');
  redis = new Redis(stack.config.REDIS_URL);
});
afterAll(async () => {
  redis?.disconnect();
  await proxy?.close();
  await stack?.stop();
});

/** An Api that counts the stream tokens it mints. */
class CountingApi extends Api {
  mints = 0;
  override streamToken(id: string) {
    this.mints++;
    return super.streamToken(id);
  }
}

function watch(api: Api, sessionId: string) {
  const events: Envelope[] = [];
  const states: { state: Connection; status?: number | undefined }[] = [];
  let lastSeq = 0;
  const stream = follow({
    api,
    sessionId,
    lastSeq: () => lastSeq,
    onEvent: (e) => {
      events.push(e);
      lastSeq = Math.max(lastSeq, e.seq);
    },
    onConnection: (state, _detail, status) => states.push({ state, status }),
    retryMs: 50,
  });
  return { events, states, stream, lives: () => states.filter((s) => s.state === 'live').length, last: () => states.at(-1)?.state };
}

describe("the viewer's stream follower", () => {
  it('reuses its token across a dropped connection, mints a fresh one when the token is refused, and resumes after the last event without repeats', async () => {
    const id = await createSession(stack.url, { problem: 'Should we pivot to law firms or keep selling to retailers?', mode: 'interactive' });
    await waitForStatus(stack.url, id, ['awaiting_input']);
    const api = new CountingApi(base);
    const w = watch(api, id);
    await waitFor(async () => w.events.some((e) => e.type === 'checkpoint.requested'), 20_000, 'the checkpoint on the stream');

    // A dropped connection: the follower reconnects with the same token.
    await proxy.cut();
    await proxy.restore();
    await waitFor(async () => w.lives() === 2, 20_000, 'a second connection');
    expect(api.mints).toBe(1);

    // The token is refused (as an expired one is): one fresh token, then the stream again.
    for (const key of await redis.keys(`bo1:st:${stack.config.QUEUE_NAME}:*`)) await redis.del(key);
    await proxy.cut();
    await proxy.restore();
    await waitFor(async () => w.lives() === 3, 20_000, 'a third connection');
    expect(api.mints).toBe(2);

    // The rest of the session arrives on the last connection, and the follower stops at its end.
    const cancelled = await fetch(`${stack.url}/v1/sessions/${id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    await waitFor(async () => w.last() === 'ended', 20_000, 'the end of the stream');
    const seqs = w.events.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(w.events.at(-1)!.type).toBe('session.cancelled');
    expect(w.states.map((s) => s.state)).toContain('reconnecting');
  });

  it('gives up at once when the key is refused (the page then asks for one), after a fresh token is refused too, and on a session that does not exist', async () => {
    const id = await createSession(stack.url, { problem: 'Should I raise prices by 20%?' });
    const refused = new CountingApi(base);
    refused.setKey('bo1_notarealkeynotarealkeynotarealkey00');
    const w = watch(refused, id);
    await waitFor(async () => w.last() === 'failed', 10_000, 'the follower to give up');
    expect(w.states.at(-1)).toEqual({ state: 'failed', status: 401 });
    expect(refused.mints).toBe(1);

    // Tokens the stream keeps refusing: one fresh token is tried, then it gives up.
    class RefusedTokens extends CountingApi {
      override async streamToken(sessionId: string) {
        const minted = await super.streamToken(sessionId);
        return { ...minted, stream: minted.stream.replace(/bo1st_[\w-]+/, `bo1st_${'x'.repeat(43)}`) };
      }
    }
    const tokens = new RefusedTokens(base);
    const t = watch(tokens, id);
    await waitFor(async () => t.last() === 'failed', 10_000, 'the follower to give up');
    expect(t.states.at(-1)).toEqual({ state: 'failed', status: 401 });
    expect(tokens.mints).toBe(2);

    const missing = watch(new Api(base), '00000000-0000-4000-8000-000000000000');
    await waitFor(async () => missing.last() === 'failed', 10_000, 'the follower to give up');
    expect(missing.states.at(-1)).toEqual({ state: 'failed', status: 404 });
  });

  it('replays a finished session and stops: nothing is left to wait for', async () => {
    const id = await createSession(stack.url, { problem: 'Should I raise prices by 20%?', seed: 'follow-finished' });
    await waitForStatus(stack.url, id, ['completed']);
    const w = watch(new Api(base), id);
    await waitFor(async () => w.last() === 'ended', 20_000, 'the end of the replay');
    expect(w.events[0]!.seq).toBe(1);
    expect(w.events.some((e) => e.type === 'session.completed')).toBe(true);
    expect(w.lives()).toBe(1);
  });
});
