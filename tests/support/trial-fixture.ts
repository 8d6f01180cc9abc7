import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE } from '../../src/calls';
import { PERSONAS } from '../../src/domain/personas';
import { simulate } from '../../src/llm/simulated/simulated-provider';
import { nextCheckpoint, resolve } from './checkpoints';
import type { FakeReply, FakeRequestBody } from './fake-anthropic';
import { forcedTool } from './fake-answers';
import { createSession, waitForStatus } from './stack';

/** A model-relay trial recorded by scripts/record-trial.ts. */
export interface TrialCall {
  n: string;
  tool: string | null;
  system: string;
  messages: { role: string; text: string }[];
  answer: unknown;
}
export interface Trial {
  name: string;
  session: { problem: string; context: string; mode: string; settings: Record<string, unknown> | null; status: string };
  calls: TrialCall[];
  checkpoints: { kind: string; subProblemId: string | null; round: number | null; answer: Record<string, unknown> }[];
  expected: { status: string; decisions: Record<string, { winner: string | null; deferred: boolean; title: string | null }>; recommendation: string | null; /** The final recommendation's disclaimer kinds (recorded since the model says where advice needs a professional). */ disclaimers?: string[] };
  /** The panels the trial's board first proposed, per sub-problem (see `recordedBoard`). */
  board: Record<string, string[]>;
}

export const TRIALS_DIR = new URL('../fixtures/trials/', import.meta.url);

export function loadTrials(): Trial[] {
  const dir = TRIALS_DIR.pathname;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'calls.json')))
    .sort()
    .map((name) => {
      const read = (f: string) => JSON.parse(readFileSync(join(dir, name, f), 'utf8'));
      const calls: TrialCall[] = read('calls.json');
      const events = existsSync(join(dir, name, 'events.json')) ? (read('events.json') as { type: string; data: Record<string, unknown> }[]) : null;
      return { name, session: read('session.json'), calls, checkpoints: read('checkpoints.json'), expected: read('expected.json'), board: recordedBoard(calls, events) };
    });
}

/**
 * The board a trial ran with, from before board selection was a model call:
 * the first `board.assembled` of its event log (the proposal, before any
 * edit at the board checkpoint), else the panels its opening statements name
 * ("Sub-problem sp1: …", "The panel: Name (code), …"), which are the same
 * when nobody edited the board.
 */
function recordedBoard(calls: TrialCall[], events: { type: string; data: Record<string, unknown> }[] | null): Record<string, string[]> {
  const assembled = events?.find((e) => e.type === 'board.assembled');
  if (assembled) return assembled.data.panels as Record<string, string[]>;
  const panels: Record<string, string[]> = {};
  for (const c of calls.filter((x) => toolNow(x.tool) === 'expert_turn')) {
    const text = c.messages.map((m) => m.text).join('\n');
    const id = /Sub-problem (sp\d+):/.exec(text)?.[1];
    const panel = /The panel: (.*)/.exec(text)?.[1];
    if (id && panel && !panels[id]) panels[id] = [...panel.matchAll(/\(([a-z_]+)\)/g)].map((m) => m[1]!);
  }
  return panels;
}

/** The tool a recorded call answers with today: recordings made before the expert turns shared `expert_turn` name their purpose. */
const toolNow = (tool: string | null): string | null => (tool && CATALOGUE[tool]?.tool) ?? tool;

const textOf = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? '').join('\n') : '');
const words = (t: string) => t.toLowerCase().match(/[\p{L}\p{N}$%.]+/gu) ?? [];

/** Dice overlap of two word multisets: 1 for the same text, high for the same prompt with a reordered case memory. */
function similarity(a: Map<string, number>, b: Map<string, number>, sizeA: number, sizeB: number): number {
  let shared = 0;
  for (const [w, n] of a) shared += Math.min(n, b.get(w) ?? 0);
  return (2 * shared) / (sizeA + sizeB || 1);
}

/**
 * Who speaks, on which sub-problem, in which round, as the prompt says it in
 * any of its shapes (the recordings predate the board record): a recording
 * that names another is never the answer, however alike the texts.
 */
function identity(text: string): Record<string, string> {
  const id: Record<string, string> = {};
  // By name: "You are Dr. Elena Voss (code), …", "…, Title" or "… ." depending on the call and its version.
  const persona = PERSONAS.find((p) => text.includes(`You are ${p.name}`))?.code;
  const round = /Round (\d+) of at most/.exec(text)?.[1];
  const sp = /[Ss]ub-problem (sp\d+)\b/.exec(text)?.[1];
  const moderator = /Role: (\w+)|You are the (\w+) moderator/.exec(text);
  if (persona) id.persona = persona;
  if (round) id.round = round;
  if (sp) id.sp = sp;
  if (moderator) id.moderator = (moderator[1] ?? moderator[2])!;
  // Intake runs twice when the person answered: the first statement, then the one written again with the answers.
  if (text.includes('You are the facilitator at intake')) id.intake = text.includes('You wrote this statement before the person answered') ? 'revise' : 'first';
  return id;
}

/**
 * An expert turn's kind, opening or later: the two calls share one tool, and
 * older recordings name the call instead (and their openings may not state
 * the round), so a later turn must never take an opening's recording.
 */
function withTurn(id: Record<string, string>, recordedTool: string | null): Record<string, string> {
  const turn = recordedTool === 'opening_statement' || id.round === '1' ? 'opening' : recordedTool === 'contribution' || id.round ? 'later' : undefined;
  return toolNow(recordedTool) === 'expert_turn' && turn ? { ...id, turn } : id;
}

const sameIdentity = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).every((k) => b[k] === undefined || b[k] === a[k]);

function bag(text: string) {
  const m = new Map<string, number>();
  const ws = words(text);
  for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1);
  return { m, size: ws.length };
}

/**
 * A recorded answer as today's schema wants it. `beyondGeneralGuidance`
 * became required after the early trials were recorded (their synthesis and
 * final answers lack it, and were then read by keyword rules): an answer
 * without it said nothing needs a professional beyond general guidance; the
 * synthesis's `facts` likewise.
 */
function withCurrentFields(tool: string, answer: Record<string, unknown>): Record<string, unknown> {
  const out = { ...answer };
  if ((tool === 'synthesis' || tool === 'final_recommendation') && !('beyondGeneralGuidance' in out)) out.beyondGeneralGuidance = [];
  // The synthesis's own ledger facts came later still: an answer without them recorded none.
  if (tool === 'synthesis' && !('facts' in out)) out.facts = [];
  return out;
}

/**
 * Answers each request with the recorded answer of the most similar recorded
 * request for the same tool, each recording used once. Prompts carry the case
 * memory, whose order follows concurrent commits, so a replayed prompt need
 * not be byte-identical to the recorded one; who speaks, on which
 * sub-problem and in which round still make the right recording the closest.
 *
 * Trials recorded before `board_selection` existed have no answer for it:
 * it is answered with the board the trial ran with, so the replay
 * deliberates with the same experts (the fallback would pick from today's
 * larger pool, and the recorded turns would be given to other people).
 */
export function trialResponder(trial: Trial) {
  const recorded = trial.calls.map((c) => {
    const text = `${c.system}\n${c.messages.map((m) => m.text).join('\n')}`;
    return { ...c, tool: toolNow(c.tool), bag: bag(text), id: withTurn(identity(text), c.tool), used: false };
  });
  const unmatched: string[] = [];
  const filled: string[] = [];
  const responder = (body: FakeRequestBody): FakeReply => {
    const tool = forcedTool(body)?.name ?? null;
    const system = (body.system ?? []).map((b) => b.text).join('\n\n');
    const text = `${system}\n${(body.messages ?? []).map((m) => textOf(m.content)).join('\n')}`;
    const mine = bag(text);
    const who = withTurn(identity(text), tool);
    let best: (typeof recorded)[number] | null = null;
    let score = -1;
    for (const r of recorded) {
      if (r.used || r.tool !== tool || !sameIdentity(who, r.id)) continue;
      const s = similarity(mine.m, r.bag.m, mine.size, r.bag.size);
      if (s > score) [best, score] = [r, s];
    }
    if (!best && tool === 'board_selection' && !trial.calls.some((c) => c.tool === tool)) {
      const panels = Object.entries(trial.board).map(([subProblemId, codes]) => ({ subProblemId, seats: codes.map((code) => ({ code, rationale: 'Seated in the recorded trial.' })) }));
      return { toolInput: { panels }, toolName: tool };
    }
    // Which research requests get an answer follows the engine's routing rules, which changed after the recordings (questions
    // for the person, declined requests); a research call the recording lacks is answered by the simulated board and listed.
    // Trials recorded before the statement was written again after the answers: the revision keeps the recorded statement.
    if (!best && tool === 'problem_statement' && who.intake === 'revise') {
      const first = recorded.find((r) => r.tool === tool && r.id.intake !== 'revise');
      if (first) {
        filled.push(text.slice(-200));
        return { toolInput: { ...(first.answer as Record<string, unknown>), clarifications: [] }, toolName: tool };
      }
    }
    if (!best && tool === 'research') {
      filled.push(text.slice(-200));
      const json = forcedTool(body)!.input_schema;
      return { toolInput: JSON.parse(simulate({ key: `replay:${filled.length}`, purpose: tool, json: { name: tool, description: '', schema: json } })), toolName: tool };
    }
    if (!best) {
      unmatched.push(`${tool}: ${text.slice(-200)}`);
      return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: `no recorded answer left for ${tool}` } } };
    }
    best.used = true;
    return tool ? { toolInput: withCurrentFields(tool, best.answer as Record<string, unknown>), toolName: tool } : { text: String(best.answer) };
  };
  return { responder, unmatched, filled, unused: () => recorded.filter((r) => !r.used).map((r) => `${r.n} ${r.tool}`) };
}

export interface Replayed {
  id: string;
  /** The session's snapshot once it ended. */
  snapshot: Record<string, any>;
  /** Recorded checkpoint answers the replay never asked for (interactive trials). */
  unasked: Trial['checkpoints'];
  /** Checkpoint answers the service did not accept (status and body), in order. */
  refused: string[];
}

/**
 * Runs a trial's session on a service whose model calls reach a fake server
 * answering with `trialResponder`: created as recorded (on the panels it ran
 * with, on an empty memory that nothing of the replay leaks into), every
 * checkpoint of an interactive trial answered with the recorded answer, else
 * `continue`; resolves once the session has ended.
 */
/**
 * A recorded checkpoint answer as a resolve request. Fixtures recorded
 * before scripts/record-trial.ts wrote requests hold a board edit as it was
 * resolved (`wanted`, `subProblems`), which the API refuses: its codes are
 * sent as `add` and its scope as `sub_problems`.
 */
function asRequest(answer: Record<string, unknown>): Record<string, unknown> {
  const board = answer.board as Record<string, unknown> | undefined;
  if (!board || !('wanted' in board || 'subProblems' in board)) return answer;
  return { ...answer, board: { remove: board.remove, add: board.add, ...(board.subProblems ? { sub_problems: board.subProblems } : {}) } };
}

export async function replayTrial(url: string, trial: Trial): Promise<Replayed> {
  const { problem, context, mode, settings } = trial.session;
  const id = await createSession(url, {
    problem,
    context,
    mode,
    // Trials recorded before complex sub-problems got a fourth seat (cofounder-auto's sp3, complexity 8, sat 3) replay on the panels they ran
    // with; a later one says so in its own settings.
    settings: { raiseOneWayPanels: false, ...settings },
    // The trial ran on an empty memory: nothing recalled, and nothing of the replay may leak into other sessions.
    memory: { read: false, contribute: false },
  });
  const unasked = [...trial.checkpoints];
  const refused: string[] = [];
  if (mode === 'interactive') {
    let last: string | null = null;
    for (let cp = await nextCheckpoint(url, id, null, 120_000); cp; cp = await nextCheckpoint(url, id, last, 120_000)) {
      last = cp.id;
      const i = unasked.findIndex((a) => a.kind === cp.kind && a.subProblemId === cp.sub_problem_id && a.round === cp.round);
      const body = i >= 0 ? asRequest(unasked.splice(i, 1)[0]!.answer) : { action: 'continue' };
      const res = await resolve(url, id, cp.id, body);
      if (res.status !== 202) {
        // The checkpoint stays pending: waiting for the next one would only time out.
        refused.push(`${cp.kind}: ${res.status} ${JSON.stringify(res.body)}`);
        return { id, snapshot: await waitForStatus(url, id, ['awaiting_input', 'completed', 'failed', 'cancelled'], 10_000), unasked, refused };
      }
    }
  }
  const snapshot = await waitForStatus(url, id, ['completed', 'failed', 'cancelled'], 180_000);
  return { id, snapshot, unasked: mode === 'interactive' ? unasked : [], refused };
}
