import { clipToTokens, charBudget } from './tokens';

/**
 * The per-session case memory (seed 001): a small, structured digest of what
 * has happened in this session, handed to every agent prompt so agents act
 * on the case so far instead of a raw transcript. It is bounded by
 * construction — the reducer drops the oldest items, every text is clipped,
 * and the renderer has a hard token cap — so prompt size never grows with
 * the length of the session.
 *
 * Pure: the reducer folds events (the same ones the log holds) into a new
 * value; the clock is passed in, or taken from an event's own `ts`.
 */

export interface CaseMemoryEntry {
  at: string;
  kind: string;
  text: string;
}
export interface CaseDecision {
  subProblemId: string;
  text: string;
  confidence: number;
}
export interface CaseIntent {
  at: string;
  text: string;
}
export interface CaseContradiction {
  id: string;
  text: string;
  between: string[];
  open: boolean;
}

export interface CaseMemory {
  /** Rolling, at most MAX_ENTRIES, oldest first. */
  entries: CaseMemoryEntry[];
  /** One per sub-problem (a re-synthesis replaces it), the last MAX_DECISIONS. */
  decisions: CaseDecision[];
  /** The last MAX_INTENTS things the user asked for mid-session. */
  intents: CaseIntent[];
  contradictions: CaseContradiction[];
  /** rounds, contributions, contributions:<persona>, contradictions, interventions. */
  counters: Record<string, number>;
}

/** Minimal event shape: a log envelope or a draft both fit. */
export interface CaseEvent {
  type: string;
  data: Record<string, unknown>;
  ts?: string;
}

// Seed 001's limits.
export const MAX_ENTRIES = 20;
export const MAX_DECISIONS = 10;
export const MAX_INTENTS = 5;
/** Not in the seed; needed so the list is bounded too. Closed ones go first. */
export const MAX_CONTRADICTIONS = 10;

// Per-item caps (the seed's "concise, max ~100 chars" summaries, with a little room).
const ENTRY_TOKENS = 40;
const DECISION_TOKENS = 60;
const INTENT_TOKENS = 50;
const CONTRADICTION_TOKENS = 60;

export function emptyCaseMemory(): CaseMemory {
  return { entries: [], decisions: [], intents: [], contradictions: [], counters: {} };
}

// Event data is validated when logged, but the reducer must never throw on an
// old or foreign event: read defensively.
const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).map(str).filter(Boolean);
const clamp01 = (n: number) => Math.min(1, Math.max(0, n));
const pct = (share: number) => `${Math.round(clamp01(share) * 100)}%`;
/** One line, clipped: newlines would break the rendered list. */
const oneLine = (text: string, tokens: number) => clipToTokens(text.replace(/\s+/g, ' ').trim(), tokens);
const spPrefix = (data: Record<string, unknown>) => (str(data.subProblemId) ? `${str(data.subProblemId)} ` : '');

function copy(mem: CaseMemory): CaseMemory {
  return {
    entries: mem.entries.map((e) => ({ ...e })),
    decisions: mem.decisions.map((d) => ({ ...d })),
    intents: mem.intents.map((i) => ({ ...i })),
    contradictions: mem.contradictions.map((c) => ({ ...c, between: [...c.between] })),
    counters: { ...mem.counters },
  };
}

const keepLast = <T>(items: T[], max: number): T[] => (items.length > max ? items.slice(items.length - max) : items);

/** Over the limit, the oldest closed contradiction goes first, then the oldest open one. */
function boundContradictions(items: CaseContradiction[]): CaseContradiction[] {
  const out = [...items];
  while (out.length > MAX_CONTRADICTIONS) {
    const closed = out.findIndex((c) => !c.open);
    out.splice(closed >= 0 ? closed : 0, 1);
  }
  return out;
}

/**
 * Folds events into the memory and returns a new value (the input is not
 * touched). `now` stamps entries of events that carry no `ts`. Unknown event
 * types are ignored, so the reducer can run over a whole session log.
 */
export function applyEvents(mem: CaseMemory, events: CaseEvent[], now: string): CaseMemory {
  const m = copy(mem);
  const bump = (key: string, by = 1) => {
    m.counters[key] = (m.counters[key] ?? 0) + by;
  };

  for (const event of events) {
    const data = rec(event.data);
    const at = typeof event.ts === 'string' && event.ts ? event.ts : now;
    const entry = (kind: string, text: string) => {
      const t = oneLine(text, ENTRY_TOKENS);
      if (t) m.entries.push({ at, kind, text: t });
    };

    switch (event.type) {
      case 'problem.stated': {
        entry('problem', `Problem: ${str(data.statement)}`);
        // The board acts on its assumptions; agents must see them to stay consistent.
        for (const a of strings(data.assumptions)) entry('assumption', `Assumption: ${a}`);
        for (const c of list(data.clarifications)) {
          const a = str(rec(c).assumption);
          if (a) entry('assumption', `Assumption (unanswered question): ${a}`);
        }
        break;
      }
      case 'clarification.requested': {
        const questions = list(data.questions).map((q) => str(rec(q).question)).filter(Boolean);
        entry('clarification', `Asked ${questions.length} clarifying question(s): ${questions.join(' | ')}`);
        break;
      }
      case 'decomposition.completed': {
        const subs = list(data.subProblems).map(rec);
        const titles = subs.map((s) => `${str(s.id)} ${str(s.title)}`.trim()).join('; ');
        entry('decomposition', `Decomposed into ${subs.length} sub-problem(s): ${titles}`);
        break;
      }
      case 'board.assembled': {
        const members = list(data.members)
          .map(rec)
          .map((p) => (str(p.title) ? `${str(p.name)} (${str(p.title)})` : str(p.name) || str(p.code)))
          .filter(Boolean);
        entry('board', `Board: ${members.join(', ')}`);
        break;
      }
      case 'round.completed': {
        bump('rounds');
        // Only a stop is news for later prompts; "continue" happens every round.
        const stop = rec(data.stop);
        if (stop.stop === true) {
          const detail = str(stop.detail);
          entry('round', `${spPrefix(data)}stopped after round ${num(data.round) ?? '?'}: ${str(stop.reason)}${detail ? ` — ${detail}` : ''}`);
        }
        break;
      }
      case 'moderator.intervened':
        entry('moderator', `${spPrefix(data)}${str(data.moderator) || 'moderator'} intervened: ${str(data.text)}`);
        break;
      case 'research.completed':
        entry('research', `${spPrefix(data)}research "${str(data.query)}": ${str(data.findings)}`);
        break;
      case 'facilitator.message': {
        const kind = str(data.kind);
        if (kind === 'redirect' || kind === 'deadlock') entry('facilitator', `${spPrefix(data)}facilitator ${kind}: ${str(data.text)}`);
        break;
      }
      case 'vote.completed': {
        const tally = rec(data.tally);
        const winner = str(tally.winner);
        const tie = strings(tally.tie);
        const outcome = winner ? `option ${winner}` : tie.length ? `tie between ${tie.join(', ')}` : 'no winner';
        const consensus = num(tally.consensus);
        const parts = [consensus === undefined ? '' : `${pct(consensus)} consensus`, str(tally.mechanism), tally.deferred === true ? 'deferred' : '']
          .filter(Boolean)
          .join(', ');
        entry('vote', `${spPrefix(data)}vote: ${outcome}${parts ? ` (${parts})` : ''}`);
        break;
      }
      case 'synthesis.completed': {
        const synthesis = rec(data.synthesis);
        const text = oneLine(str(synthesis.recommendation), DECISION_TOKENS);
        const subProblemId = str(data.subProblemId);
        if (!text || !subProblemId) break;
        // One decision per sub-problem: a re-synthesis (or a replayed event) replaces, never duplicates.
        m.decisions = m.decisions.filter((d) => d.subProblemId !== subProblemId);
        m.decisions.push({ subProblemId, text, confidence: clamp01(num(synthesis.confidence) ?? 0) });
        break;
      }
      case 'contribution.completed': {
        bump('contributions');
        const persona = str(data.persona);
        if (persona) bump(`contributions:${persona}`);
        const changed = str(data.positionChanged);
        if (changed) entry('position', `${str(data.name) || persona || 'An expert'} changed position: ${changed}`);
        break;
      }
      case 'memory.contradiction': {
        const persona = str(data.persona);
        const id = str(data.id) || `contradiction-${(m.counters.contradictions ?? 0) + 1}`;
        bump('contradictions');
        const text = oneLine(`${persona || 'An expert'}: earlier "${str(data.previous)}", now "${str(data.current)}"`, CONTRADICTION_TOKENS);
        const between = [...new Set([persona, ...strings(data.between)].filter(Boolean))];
        // A re-reported id reopens and moves to the end: it is the newest news.
        m.contradictions = m.contradictions.filter((c) => c.id !== id);
        m.contradictions.push({ id, text, between, open: true });
        break;
      }
      case 'memory.contradiction_resolved': {
        const id = str(data.id);
        m.contradictions = m.contradictions.map((c) => (c.id === id ? { ...c, open: false } : c));
        break;
      }
      case 'checkpoint.resolved': {
        // What the person said or chose is their intent: every later prompt sees it.
        const action = str(data.action);
        const message = str(data.message);
        const intent = (text: string) => m.intents.push({ at, text: oneLine(text, INTENT_TOKENS) });
        if (action === 'intervene' && message) {
          bump('interventions');
          intent(message);
        } else if (action === 'answer') {
          for (const a of Array.isArray(data.answers) ? (data.answers as Record<string, unknown>[]) : []) intent(`Answered "${str(a.question)}": ${str(a.answer)}`);
        } else if (action === 'edit' && str(data.statement)) {
          intent(`Rewrote the problem statement: ${str(data.statement)}`);
        } else if (action === 'edit') {
          entry('checkpoint', `The person edited the ${str(data.kind).replace('_', '-')}.`);
        } else if (action === 'skip_to_vote' || action === 'skip_to_final') {
          intent(action === 'skip_to_vote' ? 'Asked the board to move to the vote.' : 'Asked to skip to the final recommendation.');
        }
        break;
      }
      case 'recommendation.completed': {
        const confidence = str(data.confidence);
        entry('recommendation', `Final recommendation${confidence ? ` (${confidence} confidence)` : ''}: ${str(data.summary)}`);
        break;
      }
      default:
        break;
    }
    // Bounds hold after every event, not just at the end, so a huge batch never builds a huge array.
    m.entries = keepLast(m.entries, MAX_ENTRIES);
    m.decisions = keepLast(m.decisions, MAX_DECISIONS);
    m.intents = keepLast(m.intents, MAX_INTENTS);
    m.contradictions = boundContradictions(m.contradictions);
  }
  return m;
}

/**
 * The memory as a compact Markdown block for a prompt, newest first. Hard
 * cap: never estimates above maxTokens. Over budget, the oldest entries go
 * first (decisions, contradictions and the user's intents matter more than
 * activity), then the whole block is clipped. Empty memory renders as ''.
 */
export function renderCaseMemory(mem: CaseMemory, maxTokens = 500): string {
  const budget = charBudget(maxTokens);
  if (budget === 0) return '';
  const decisions = keepLast(mem.decisions, MAX_DECISIONS);
  const open = mem.contradictions.filter((c) => c.open).slice(-MAX_CONTRADICTIONS);
  const intents = keepLast(mem.intents, MAX_INTENTS);
  const entries = keepLast(mem.entries, MAX_ENTRIES);
  const counters = Object.keys(mem.counters)
    .filter((k) => !k.includes(':') && (mem.counters[k] ?? 0) > 0)
    .sort()
    .map((k) => `${k} ${mem.counters[k]}`);
  if (!decisions.length && !open.length && !intents.length && !entries.length && !counters.length) return '';

  const head: string[] = [`### Case so far${counters.length ? ` (${counters.join(', ')})` : ''}`];
  if (decisions.length) {
    head.push('Decisions:');
    for (const d of decisions) head.push(`- ${d.subProblemId} (confidence ${clamp01(d.confidence).toFixed(2)}): ${oneLine(d.text, DECISION_TOKENS)}`);
  }
  if (open.length) {
    head.push('Open contradictions:');
    for (const c of open) head.push(`- ${oneLine(c.text, CONTRADICTION_TOKENS)}`);
  }
  if (intents.length) {
    head.push('User intents (newest first):');
    for (const i of [...intents].reverse()) head.push(`- ${oneLine(i.text, INTENT_TOKENS)}`);
  }

  let text = head.join('\n');
  if (entries.length) {
    const lines: string[] = [];
    let length = text.length + '\nRecent (newest first):'.length;
    // Newest first, so stopping when full drops the oldest.
    for (const e of [...entries].reverse()) {
      const line = `- [${e.kind}] ${oneLine(e.text, ENTRY_TOKENS)}`;
      if (length + 1 + line.length > budget) break;
      lines.push(line);
      length += 1 + line.length;
    }
    if (lines.length) text += `\nRecent (newest first):\n${lines.join('\n')}`;
  }
  return clipToTokens(text, maxTokens);
}
