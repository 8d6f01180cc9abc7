/**
 * Turns a model-relay trial into a test fixture: every request the service
 * sent (system, messages, the tool it forced) with the answer the person
 * playing the model wrote, the person's checkpoint answers, and the decisions
 * the session reached. `tests/integration/trial-replay.test.ts` drives the
 * fixture through the real SDK against the fake Anthropic server.
 *
 *   npm run trial:record -- --spool ./relay-spool --api http://127.0.0.1:3000 --session <id> --out tests/fixtures/trials/<name>
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { spool: { type: 'string' }, api: { type: 'string', default: 'http://127.0.0.1:3000' }, session: { type: 'string' }, out: { type: 'string' }, key: { type: 'string' } },
});
if (!values.spool || !values.session || !values.out) {
  console.error('usage: record-trial --spool DIR --session ID --out DIR [--api URL] [--key API_KEY]');
  process.exit(2);
}
const headers: Record<string, string> = values.key ? { authorization: `Bearer ${values.key}` } : {};
const get = async (path: string) => {
  const res = await fetch(`${values.api}${path}`, { headers });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

const textOf = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? '').join('\n') : '');
const calls = readdirSync(values.spool)
  .filter((f) => /^\d+\.req\.json$/.test(f))
  .sort()
  .flatMap((f) => {
    const n = f.slice(0, 4);
    const body = JSON.parse(readFileSync(join(values.spool!, f), 'utf8'));
    // A board call sends the shared tool set: its own tool is the one it forces.
    const tool = body.tool_choice?.name ?? body.tools?.[0]?.name ?? null;
    let answer: unknown;
    try {
      answer = tool ? JSON.parse(readFileSync(join(values.spool!, `${n}.res.json`), 'utf8')) : readFileSync(join(values.spool!, `${n}.res.txt`), 'utf8');
    } catch {
      return []; // never answered (the session ended first)
    }
    const system = (Array.isArray(body.system) ? body.system.map((b: { text: string }) => b.text) : [body.system ?? '']).join('\n\n');
    const messages = (body.messages ?? []).map((m: { role: string; content: unknown }) => ({ role: m.role, text: textOf(m.content) }));
    return [{ n, model: body.model, maxTokens: body.max_tokens, tool, system, messages, answer }];
  });

const snapshot = await get(`/v1/sessions/${values.session}`);
const { items: events } = await get(`/v1/sessions/${values.session}/events?limit=1000`);
const created = events.find((e: { type: string }) => e.type === 'session.created').data;
const resolved = events.filter((e: { type: string; data: { by: string } }) => e.type === 'checkpoint.resolved' && e.data.by === 'client');
const requested = new Map(events.filter((e: { type: string }) => e.type === 'checkpoint.requested').map((e: { data: { checkpointId: string } }) => [e.data.checkpointId, e.data]));
/** The resolve request body that produced a `checkpoint.resolved` event (the event keeps the answers with their questions). */
function requestBody(d: Record<string, any>): Record<string, unknown> {
  return {
    action: d.action,
    ...(d.answers && { answers: Object.fromEntries((d.answers as { id: string; answer: string }[]).map((a) => [a.id, a.answer])) }),
    ...(d.statement && { statement: d.statement }),
    ...(d.subProblems && { sub_problems: d.subProblems }),
    // The resolved edit: wants as the codes they became (a replay needs no matching), its scope as the request names it.
    ...(d.board && { board: { remove: d.board.remove, add: d.board.add, ...(d.board.subProblems && { sub_problems: d.board.subProblems }) } }),
    ...(d.message && { message: d.message }),
  };
}
const checkpoints = resolved.map((e: { data: Record<string, unknown> }) => {
  const req = requested.get(e.data.checkpointId as string) as Record<string, unknown>;
  return { kind: e.data.kind, subProblemId: req?.subProblemId ?? null, round: req?.round ?? null, answer: requestBody(e.data) };
});
const results = snapshot.results ?? {};
const decisions = Object.fromEntries(
  Object.entries((results.subProblemResults ?? {}) as Record<string, { tally: { winner: string | null; deferred: boolean }; options: { options: { id: string; title: string }[] } }>).map(([id, r]) => [
    id,
    { winner: r.tally.winner, deferred: r.tally.deferred, title: r.options.options.find((o) => o.id === r.tally.winner)?.title ?? null },
  ]),
);
mkdirSync(values.out, { recursive: true });
const session = { problem: created.problem, context: created.context, mode: snapshot.mode, settings: snapshot.settings ?? null };
writeFileSync(join(values.out, 'session.json'), `${JSON.stringify({ ...session, status: snapshot.status }, null, 2)}\n`);
writeFileSync(join(values.out, 'calls.json'), `${JSON.stringify(calls, null, 1)}\n`);
writeFileSync(join(values.out, 'checkpoints.json'), `${JSON.stringify(checkpoints, null, 2)}\n`);
writeFileSync(join(values.out, 'expected.json'), `${JSON.stringify({ status: snapshot.status, decisions, recommendation: results.recommendation?.summary ?? null, disclaimers: (results.recommendation?.disclaimers ?? []).map((d: { kind: string }) => d.kind) }, null, 2)}\n`);
console.log(`${calls.length} calls, ${checkpoints.length} checkpoint answers, status ${snapshot.status} → ${values.out}`);
