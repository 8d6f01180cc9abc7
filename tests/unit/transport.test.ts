import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patientFetch } from '../../src/llm/transport';

/** A server that sends its headers only after `delay` ms, as a model relay does while someone writes the answer. */
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const delay = Number(new URL(req.url!, 'http://x').searchParams.get('delay'));
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('late'), delay);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('patientFetch', () => {
  it("waits for headers as long as the SDK's timeout says, not a fixed deadline of its own", async () => {
    const res = await patientFetch(5_000)(`${url}?delay=600`);
    expect(await res.text()).toBe('late');
  });

  it('gives up on headers at that timeout', async () => {
    await expect(patientFetch(200)(`${url}?delay=1500`)).rejects.toThrow();
  });
});
