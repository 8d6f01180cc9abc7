/**
 * The yardstick for SSE fan-out (issue 16): a bare Fastify + @fastify/sse
 * server, no database, no hub, that broadcasts bo1-shaped envelopes to every
 * connected client. Started as its own process by tests/bench/sse-fanout.ts;
 * PORT, SUBSCRIBERS (start once that many are connected); TIMELINE, a JSON
 * file of `{type, data, offsetMs}` (the envelopes bo1 streamed, each at its
 * offset from the first: events of one offset go as one burst, as bo1's batch
 * does), else EVENTS, BURST and EVERY_MS (BURST small events every EVERY_MS).
 */
import fastifySse from '@fastify/sse';
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1000);
const EVENTS = Number(process.env.EVENTS ?? 60);
const BURST = Number(process.env.BURST ?? 5);
const EVERY_MS = Number(process.env.EVERY_MS ?? 1000);
const sessionId = '00000000-0000-4000-8000-000000000000';

const app = Fastify({ logger: false });
await app.register(fastifySse, { heartbeatInterval: 15_000 });
const clients = new Set<{ send(e: Record<string, unknown>): Promise<void> }>();
let seq = 0;

app.get('/stream', { sse: true }, async (_req, reply) => {
  reply.sse.keepAlive();
  await reply.sse.send({ retry: 1000, data: undefined });
  const client = { send: (e: Record<string, unknown>) => reply.sse.send({ id: String(e.seq), event: String(e.type), data: e }) };
  clients.add(client);
  reply.sse.onClose(() => clients.delete(client));
  if (clients.size === SUBSCRIBERS) void broadcast();
});

interface Timed {
  type: string;
  data: Record<string, unknown>;
  offsetMs: number;
}

/** Each envelope of the timeline at its offset, renumbered, to every client; a burst shares one ts, as a batch's events do. */
async function replay(timeline: Timed[]) {
  const t0 = Date.now();
  let ts = '';
  for (const [i, e] of timeline.entries()) {
    const wait = t0 + e.offsetMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (i === 0 || e.offsetMs !== timeline[i - 1]!.offsetMs) ts = new Date().toISOString();
    seq += 1;
    const env = { ...e.data, seq, ts };
    for (const c of clients) void c.send(env).catch(() => {});
  }
}

async function broadcast() {
  if (process.env.TIMELINE) return replay(JSON.parse(readFileSync(process.env.TIMELINE, 'utf8')) as Timed[]);
  while (seq < EVENTS) {
    for (let i = 0; i < BURST && seq < EVENTS; i++) {
      seq += 1;
      const last = seq === EVENTS;
      const e = {
        seq,
        type: last ? 'session.completed' : 'expert.contributed',
        session_id: sessionId,
        ts: new Date().toISOString(),
        data: { persona: 'growth_hacker', round: 1, content: 'A contribution of about the size a simulated expert writes. '.repeat(8) },
      };
      for (const c of clients) void c.send(e).catch(() => {});
    }
    await new Promise((r) => setTimeout(r, EVERY_MS));
  }
}

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write('ready\n');
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
