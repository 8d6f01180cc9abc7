import { subscribe } from './sse';
import { pct } from './percentile';

/**
 * Interactive sessions answered by a client that says `continue` at every
 * checkpoint as soon as it appears on the stream. Measures the answer's
 * round trip (POST → 202) and the time until the continuation's first event:
 * the resolve commit, the queue, a worker taking the lease and replaying
 * every committed step from Postgres, then the next step's commit.
 */
export async function checkpointBench(url: string, sessions: number): Promise<string[]> {
  const accepted: number[] = [];
  const continued: number[] = [];
  const byKind = new Map<string, number[]>();
  for (let i = 0; i < sessions; i++) {
    const res = await fetch(`${url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        problem: 'Should I introduce a $29/month tier or usage-based pricing?',
        context: '500 free users',
        seed: `interactive-${i}`,
        mode: 'interactive',
      }),
    });
    const { id } = (await res.json()) as { id: string };
    await new Promise<void>((done) => {
      let waiting: { at: number; kind: string } | null = null;
      const s = subscribe(
        `${url}/v1/sessions/${id}/stream`,
        (type, data) => {
          const at = performance.now();
          if (waiting && type !== 'checkpoint.resolved') {
            continued.push(at - waiting.at);
            (byKind.get(waiting.kind) ?? byKind.set(waiting.kind, []).get(waiting.kind)!).push(at - waiting.at);
            waiting = null;
          }
          if (type === 'checkpoint.requested') {
            const { checkpointId, kind } = (JSON.parse(data) as { data: { checkpointId: string; kind: string } }).data;
            waiting = { at, kind };
            void fetch(`${url}/v1/sessions/${id}/checkpoints/${checkpointId}/resolve`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"action":"continue"}',
            }).then(async (r) => {
              await r.arrayBuffer();
              accepted.push(performance.now() - at);
            });
          }
          if (type === 'session.completed' || type === 'session.failed') {
            s.close();
            done();
          }
        },
        done,
      );
    });
  }
  const f = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms`;
  return [
    `checkpoint answer (POST resolve → 202) over ${accepted.length} answers in ${sessions} interactive sessions: ${f(accepted)}`,
    `checkpoint → continuation's first event over ${continued.length} answers: ${f(continued)}`,
    ...[...byKind].map(([kind, xs]) => `  at ${kind} (${xs.length}): ${f(xs)}`),
  ];
}
