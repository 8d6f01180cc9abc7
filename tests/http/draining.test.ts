import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerDraining } from '../../src/http/draining';

/** Two requests on one kept-alive connection; the second is written once the server has begun to close. */
async function secondRequestWhileClosing(second: string): Promise<string> {
  const app = Fastify({ return503OnClosing: false });
  registerDraining(app, 250);
  app.get('/slow', async () => {
    await sleep(400);
    return { ok: true };
  });
  app.get('/fast', async () => ({ ok: true }));
  const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  const socket = connect(Number(url.port), '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write('GET /slow HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
  await sleep(50);
  const closing = app.close();
  await sleep(20);
  socket.write(second);
  await Promise.race([closed, sleep(3000)]);
  socket.destroy();
  await closing;
  return text;
}

describe('a request that reaches a closing API process', () => {
  it('is a 503 problem with Retry-After, not a plain-JSON 503', async () => {
    const text = await secondRequestWhileClosing('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    const second = text.slice(text.indexOf('HTTP/1.1', 10));
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toMatch(/content-type: application\/problem\+json/i);
    expect(second).toMatch(/retry-after: 1/i);
    expect(second).toContain('urn:bo1:problem:shutting-down');
  });

  it('is, for an event stream, a 200 with the closing event and a retry hint, so EventSource reconnects instead of giving up', async () => {
    const text = await secondRequestWhileClosing('GET /fast HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
    const second = text.slice(text.indexOf('HTTP/1.1', 10));
    expect(second).toMatch(/^HTTP\/1\.1 200/);
    expect(second).toMatch(/content-type: text\/event-stream/i);
    expect(second).toContain('retry: 250');
    expect(second).toContain('event: stream.closing');
  });
});
