import type { LedgerFact } from '../domain/model';
import { clipToSentence } from './tokens';

/**
 * The per-session case memory (seed 001): a small, structured digest of what
 * has happened in this session, handed to every agent prompt (rendered by
 * case-memory-render.ts) so agents act on the case so far instead of a raw
 * transcript.
 *
 * What the board must never lose has a field of its own that nothing rolls
 * out: the current problem statement and its assumptions, the person's
 * answers and messages, one decision per sub-problem, and per-sub-problem
 * progress. Only the activity log rolls. Every text is kept whole up to a
 * per-item cap stated below and, past it, shortened at a sentence end with a
 * visible marker: a trial showed the board asking the person again for facts
 * that had been cut off mid-sentence.
 *
 * Pure: the reducer folds events (the same ones the log holds) into a new
 * value; the clock is passed in, or taken from an event's own `ts`.
 */

export interface CaseMemoryEntry {
  at: string;
  kind: string;
  text: string;
  /** The sub-problem it belongs to; absent for session-wide activity. */
  subProblemId?: string;
}
export interface CaseDecision {
  subProblemId: string;
  text: string;
  confidence: number;
}
/** Something the person said or asked for: every later prompt carries it. */
export interface CaseIntent {
  at: string;
  kind: 'answer' | 'message' | 'request';
  text: string;
  /** For answers: the clarifying question's id, so an answer is kept once. */
  questionId?: string;
}
export interface CaseContradiction {
  id: string;
  text: string;
  between: string[];
  open: boolean;
}
export interface SubProblemProgress {
  title: string;
  /** The latest round started or completed; 0 before the debate. */
  round: number;
  /** 0 until the sub-problem starts. */
  maxRounds: number;
  contributions: number;
  status: 'pending' | 'running' | 'completed' | 'skipped';
}

export interface CaseMemory {
  /** The latest problem statement, '' until stated. */
  statement: string;
  statementBy: 'board' | 'person';
  /** The latest statement's assumptions, each once (unanswered questions' included by the engine). */
  assumptions: string[];
  /**
   * The intake's clarifying questions nobody answered: the board record lists them beside the assumptions that stand
   * in for them, so an expert does not ask them again (a trial's experts re-asked two of them in later sub-problems).
   */
  unansweredAtIntake: string[];
  /** The person's answers (never rolled) and their last MAX_MESSAGES messages and requests, oldest first. */
  intents: CaseIntent[];
  /** One per sub-problem (a re-synthesis replaces it). */
  decisions: CaseDecision[];
  contradictions: CaseContradiction[];
  /** Progress per sub-problem id: counters of one sub-problem never mix with a parallel one's. */
  subProblems: Record<string, SubProblemProgress>;
  /** The session's fact ledger: what each sub-problem's rounds established, oldest first, at most MAX_FACTS. */
  facts: LedgerFact[];
  /** Rolling activity log, at most MAX_ENTRIES, oldest first. */
  entries: CaseMemoryEntry[];
  /** Session-wide tallies for the snapshot (contributions, contributions:<persona>, contradictions, interventions); not rendered. */
  counters: Record<string, number>;
}

/** Minimal event shape: a log envelope or a draft both fit. */
export interface CaseEvent {
  type: string;
  data: Record<string, unknown>;
  ts?: string;
}

export const MAX_ENTRIES = 20;
/** Bounds only: a session has at most five sub-problems and three clarifying questions. */
export const MAX_DECISIONS = 10;
export const MAX_SUB_PROBLEMS = 10;
export const MAX_ANSWERS = 10;
export const MAX_ASSUMPTIONS = 10;
/** The person's messages and requests beyond this many roll out, oldest first. */
export const MAX_MESSAGES = 10;
/** Not in the seed; needed so the list is bounded too. Closed ones go first. */
export const MAX_CONTRADICTIONS = 10;
/** Five sub-problems of a few rounds, at most five facts a round: the oldest roll out past this. */
export const MAX_FACTS = 60;

/**
 * Per-item caps, in estimated tokens. The person's words get ~2,000
 * characters each: the longest answer or message in the recorded trials is
 * ~1,100 and the API accepts 4,000. Schema-bounded texts (statement 600,
 * assumption 300, recommendation 1,200 characters) fit whole.
 */
export const PERSON_TOKENS = 500;
export const STATEMENT_TOKENS = 300;
export const ASSUMPTION_TOKENS = 100;
export const DECISION_TOKENS = 300;
/** Activity is context, not evidence: its first sentences are enough. */
export const ACTIVITY_TOKENS = 120;
/**
 * Research findings are evidence the voters read here and nowhere else: a trial's voters got only the researcher's
 * opening "From general knowledge only, no live sources." under the activity cap.
 */
export const RESEARCH_TOKENS = 300;
const POSITION_TOKENS = 45;

export function emptyCaseMemory(): CaseMemory {
  return { statement: '', statementBy: 'board', assumptions: [], unansweredAtIntake: [], intents: [], decisions: [], contradictions: [], subProblems: {}, facts: [], entries: [], counters: {} };
}

// Event data is validated when logged, but the reducer must never throw on an
// old or foreign event: read defensively.
const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const clamp01 = (n: number) => Math.min(1, Math.max(0, n));
const pct = (share: number) => `${Math.round(clamp01(share) * 100)}%`;
/** One line (newlines would break the rendered list), shortened only at a sentence end. */
const oneLine = (text: string, tokens: number) => clipToSentence(text.replace(/\s+/g, ' ').trim(), tokens);
const lines = (v: unknown, tokens: number): string[] => list(v).map((x) => oneLine(str(x), tokens)).filter(Boolean);

/**
 * A stored memory of any age as the current shape: sessions that started
 * before a field existed keep working (their missing fields start empty).
 * A memory this module made is already in shape and comes back as it is.
 */
export function normaliseCaseMemory(v: unknown): CaseMemory {
  if (typeof v === 'object' && v !== null && made.has(v)) return v as CaseMemory;
  const m = rec(v);
  const arr = <T>(x: unknown) => (Array.isArray(x) ? (x as T[]) : []);
  return mark({
    statement: str(m.statement),
    statementBy: m.statementBy === 'person' ? 'person' : 'board',
    assumptions: arr<unknown>(m.assumptions).filter((a): a is string => typeof a === 'string'),
    unansweredAtIntake: arr<unknown>(m.unansweredAtIntake).filter((a): a is string => typeof a === 'string'),
    intents: arr<CaseIntent>(m.intents).map((i) => ({ ...i, kind: i.kind ?? 'message' })),
    decisions: arr<CaseDecision>(m.decisions),
    contradictions: arr<CaseContradiction>(m.contradictions),
    subProblems: rec(m.subProblems) as Record<string, SubProblemProgress>,
    facts: arr<LedgerFact>(m.facts),
    // Old memories kept the statement and assumptions as entries: those now have fields of their own.
    entries: arr<CaseMemoryEntry>(m.entries).filter((e) => e.kind !== 'problem' && e.kind !== 'assumption'),
    counters: rec(m.counters) as Record<string, number>,
  });
}

/** Memories made here (normalised, or folded): never edited after they are returned, so they need no second look. */
const made = new WeakSet<object>();
const mark = (m: CaseMemory): CaseMemory => (made.add(m), m);

/**
 * The memory a fold edits: its lists and records copied, their items shared. A fold replaces an item rather than
 * editing it, bar a sub-problem's progress, which `progress` copies the first time a fold touches it.
 */
function copy(mem: CaseMemory): CaseMemory {
  return {
    ...mem,
    assumptions: [...mem.assumptions],
    unansweredAtIntake: [...mem.unansweredAtIntake],
    intents: [...mem.intents],
    decisions: [...mem.decisions],
    contradictions: [...mem.contradictions],
    subProblems: { ...mem.subProblems },
    facts: [...mem.facts],
    entries: [...mem.entries],
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

/** Answers stay (they are few); messages and requests keep the last MAX_MESSAGES. */
function boundIntents(items: CaseIntent[]): CaseIntent[] {
  let extra = items.filter((i) => i.kind !== 'answer').length - MAX_MESSAGES;
  return items.filter((i) => i.kind === 'answer' || extra-- <= 0);
}

/** Each text once, in first-seen order (the model sometimes restates one). */
const unique = (items: string[]) => [...new Map(items.map((a) => [a.toLowerCase(), a])).values()];

/**
 * The sub-problem's progress record, created on first sight (events may come without a decomposition), and copied
 * the first time this fold touches it (`own`: the records this fold made), so the memory folded from keeps its own.
 */
function progress(m: CaseMemory, id: string, own: Set<SubProblemProgress>): SubProblemProgress | undefined {
  if (!id) return undefined;
  const cur = m.subProblems[id];
  if (!cur && Object.keys(m.subProblems).length >= MAX_SUB_PROBLEMS) return undefined;
  if (cur && own.has(cur)) return cur;
  const p: SubProblemProgress = cur ? { ...cur } : { title: '', round: 0, maxRounds: 0, contributions: 0, status: 'pending' };
  own.add(p);
  m.subProblems[id] = p;
  return p;
}

/**
 * Folds events into the memory and returns a new value (the input is not
 * touched). `now` stamps items of events that carry no `ts`. Unknown event
 * types are ignored, so the reducer can run over a whole session log.
 */
export function applyEvents(mem: CaseMemory, events: CaseEvent[], now: string): CaseMemory {
  const m = copy(mem);
  const own = new Set<SubProblemProgress>();
  const bump = (key: string, by = 1) => {
    m.counters[key] = (m.counters[key] ?? 0) + by;
  };

  for (const event of events) {
    const data = rec(event.data);
    const at = typeof event.ts === 'string' && event.ts ? event.ts : now;
    const sp = str(data.subProblemId);
    const entry = (kind: string, text: string, subProblemId = sp, tokens = ACTIVITY_TOKENS) => {
      const t = oneLine(text, tokens);
      if (t) m.entries.push({ at, kind, text: t, ...(subProblemId ? { subProblemId } : {}) });
    };
    const say = (kind: CaseIntent['kind'], text: string) => {
      const t = oneLine(text, PERSON_TOKENS);
      if (t) m.intents.push({ at, kind, text: t });
    };
    const answer = (a: Record<string, unknown>) => {
      const question = oneLine(str(a.question), ASSUMPTION_TOKENS);
      const text = oneLine(str(a.answer), PERSON_TOKENS);
      const questionId = str(a.id) || question;
      if (!text) return;
      const item: CaseIntent = { at, kind: 'answer', text: question ? `Answered "${question}": ${text}` : `Answered: ${text}`, ...(questionId ? { questionId } : {}) };
      // The checkpoint and the statement both carry the answers: the first one seen keeps its place.
      const i = m.intents.findIndex((x) => x.kind === 'answer' && x.questionId === questionId);
      if (i >= 0) m.intents[i] = { ...item, at: m.intents[i]!.at };
      else if (m.intents.filter((x) => x.kind === 'answer').length < MAX_ANSWERS) m.intents.push(item);
    };

    switch (event.type) {
      case 'problem.stated': {
        const statement = oneLine(str(data.statement), STATEMENT_TOKENS);
        if (statement) [m.statement, m.statementBy] = [statement, data.editedBy === 'person' ? 'person' : 'board'];
        const answers = list(data.answers).map(rec);
        for (const a of answers) answer(a);
        // The engine already lists unanswered questions' assumptions first; an answered question's assumption no longer holds.
        const asked = (v: unknown) => str(v).replace(/\s+/g, ' ').toLowerCase();
        const answered = new Set(answers.map((a) => asked(a.question)));
        const stale = new Set(list(data.clarifications).map(rec).filter((c) => answered.has(asked(c.question))).map((c) => oneLine(str(c.assumption), ASSUMPTION_TOKENS).toLowerCase()));
        m.assumptions = unique(lines(data.assumptions, ASSUMPTION_TOKENS)).filter((a) => !stale.has(a.toLowerCase()));
        m.unansweredAtIntake = unique(list(data.clarifications).map((c) => oneLine(str(rec(c).question), ASSUMPTION_TOKENS)).filter((q) => q && !answered.has(asked(q))));
        break;
      }
      case 'decomposition.completed': {
        const subs = list(data.subProblems).map(rec).filter((s) => str(s.id));
        const ids = new Set(subs.map((s) => str(s.id)));
        // A re-decomposition (the person's edit) replaces the set; a sub-problem already under way keeps its record.
        for (const [id, p] of Object.entries(m.subProblems)) if (!ids.has(id) && p.status === 'pending') delete m.subProblems[id];
        for (const s of subs) {
          const p = progress(m, str(s.id), own);
          if (p) p.title = oneLine(str(s.title), ASSUMPTION_TOKENS);
        }
        break;
      }
      case 'board.assembled': {
        const members = list(data.members)
          .map(rec)
          .map((p) => (str(p.title) ? `${str(p.name)} (${str(p.title)})` : str(p.name) || str(p.code)))
          .filter(Boolean);
        // The board as it stands now: a re-assembly (the person's edit) replaces the earlier one.
        m.entries = m.entries.filter((e) => e.kind !== 'board');
        entry('board', `Board: ${members.join(', ')}.`);
        break;
      }
      case 'subproblem.started':
      case 'round.started':
      case 'round.completed': {
        const p = progress(m, sp, own);
        if (p) {
          if (str(data.title)) p.title = oneLine(str(data.title), ASSUMPTION_TOKENS);
          p.maxRounds = num(data.maxRounds) ?? p.maxRounds;
          // The highest round seen, so a replayed event never counts twice.
          p.round = Math.max(p.round, num(data.round) ?? 0);
          if (p.status === 'pending') p.status = 'running';
        }
        // Only a stop is news for later prompts; "continue" happens every round.
        const stop = rec(data.stop);
        if (event.type === 'round.completed' && stop.stop === true) {
          const detail = str(stop.detail);
          entry('round', `Stopped after round ${num(data.round) ?? '?'}: ${str(stop.reason)}${detail ? ` (${detail})` : ''}`);
        }
        break;
      }
      case 'subproblem.completed':
      case 'subproblem.skipped': {
        const p = progress(m, sp, own);
        if (p) {
          p.status = event.type === 'subproblem.completed' ? 'completed' : 'skipped';
          p.round = Math.max(p.round, num(data.rounds) ?? 0);
        }
        break;
      }
      case 'facts.recorded': {
        const round = num(data.round) ?? 0;
        for (const f of list(data.facts).map(rec)) {
          const id = str(f.id);
          const text = oneLine(str(f.text), ASSUMPTION_TOKENS);
          // A re-delivered event (the same ids) is folded once.
          if (!id || !text || m.facts.some((x) => x.id === id)) continue;
          const replaces = list(f.replaces).map(str).filter(Boolean);
          m.facts.push({ id, subProblemId: sp, round, text, kind: (str(f.kind) || 'figure') as LedgerFact['kind'], source: str(f.source), ...(replaces.length && { replaces }) });
        }
        m.facts = keepLast(m.facts, MAX_FACTS);
        break;
      }
      case 'moderator.intervened':
        entry('moderator', `${str(data.moderator) || 'moderator'}: ${str(data.text)}`);
        break;
      case 'research.completed':
        entry('research', `"${str(data.query)}" ${str(data.findings)}`, sp, RESEARCH_TOKENS);
        break;
      case 'facilitator.message': {
        const kind = str(data.kind);
        if (kind === 'redirect' || kind === 'deadlock') entry(`facilitator ${kind}`, str(data.text));
        break;
      }
      case 'vote.completed': {
        const tally = rec(data.tally);
        const winner = str(tally.winner);
        const tie = list(tally.tie).map(str).filter(Boolean);
        const outcome = winner ? `option ${winner}` : tie.length ? `tie between ${tie.join(', ')}` : 'no winner';
        const consensus = num(tally.consensus);
        const parts = [consensus === undefined ? '' : `${pct(consensus)} consensus`, str(tally.mechanism), tally.deferred === true ? 'deferred' : '']
          .filter(Boolean)
          .join(', ');
        entry('vote', `${outcome}${parts ? ` (${parts})` : ''}`);
        break;
      }
      case 'synthesis.completed': {
        const synthesis = rec(data.synthesis);
        const text = oneLine(str(synthesis.recommendation), DECISION_TOKENS);
        if (!text || !sp) break;
        // One decision per sub-problem: a re-synthesis (or a replayed event) replaces, never duplicates.
        m.decisions = m.decisions.filter((d) => d.subProblemId !== sp);
        m.decisions.push({ subProblemId: sp, text, confidence: clamp01(num(synthesis.confidence) ?? 0) });
        break;
      }
      case 'contribution.completed': {
        bump('contributions');
        const p = progress(m, sp, own);
        if (p) p.contributions += 1;
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
        const text = `${persona || 'An expert'}: earlier "${oneLine(str(data.previous), POSITION_TOKENS)}", now "${oneLine(str(data.current), POSITION_TOKENS)}"`;
        const between = [...new Set([persona, ...list(data.between).map(str)].filter(Boolean))];
        // A re-reported id reopens.
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
        // What the person said or chose is their intent: every later prompt sees it, in their words.
        const action = str(data.action);
        const message = str(data.message);
        if (action === 'intervene' && message) {
          bump('interventions');
          say('message', message);
        } else if (action === 'answer') {
          for (const a of list(data.answers)) answer(rec(a));
        } else if (action === 'edit' && str(data.statement)) {
          // The rewrite is the statement from now on (problem.stated follows with it); not repeated as an intent.
          [m.statement, m.statementBy] = [oneLine(str(data.statement), STATEMENT_TOKENS), 'person'];
        } else if (action === 'edit') {
          entry('person', `The person edited the ${str(data.kind).replace('_', '-')}.`, '');
        } else if (action === 'skip_to_vote' || action === 'skip_to_final') {
          say('request', action === 'skip_to_vote' ? 'Asked the board to move to the vote.' : 'Asked to skip to the final recommendation.');
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
    if (m.assumptions.length > MAX_ASSUMPTIONS) m.assumptions = m.assumptions.slice(0, MAX_ASSUMPTIONS);
    if (m.intents.length > MAX_MESSAGES) m.intents = boundIntents(m.intents);
    if (m.contradictions.length > MAX_CONTRADICTIONS) m.contradictions = boundContradictions(m.contradictions);
  }
  return mark(m);
}
