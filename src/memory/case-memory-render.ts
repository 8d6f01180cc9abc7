import type { BoardView } from '../app/session-run';
import type { CaseMemory, SubProblemProgress } from './case-memory';
import { charBudget } from './tokens';

/**
 * The case memory as the Markdown block every prompt carries ("### Case so
 * far"). Oldest first, like the session itself. Deterministic and stable for
 * an unchanged memory, so it can sit in a cached prompt prefix; the parts that
 * change least come first for the same reason. Where commit order is
 * arbitrary (sub-problems running in parallel), items are ordered by
 * sub-problem id instead.
 *
 * Hard cap: never estimates above maxTokens. Over budget, whole items are
 * left out, never cut, and each section says how many: the oldest activity
 * first, then contradictions, sub-problem progress, assumptions, decisions,
 * and only as a last resort the person's oldest words. The statement always
 * stays; when not even it fits, the block is ''.
 */

/** In render order; `drop` is the order in which sections give up items when over budget (lower first). */
const SECTIONS = {
  statement: { title: '', drop: Infinity },
  // A trial's board kept working on assumptions the person had corrected in their answers: the title says which wins.
  assumptions: {
    title: 'Assumptions the board made at intake (where what the person told the board says otherwise, the person is right; where a later fact in the ledger settles one otherwise, the fact stands):',
    drop: 3,
  },
  person: { title: 'What the person told the board (oldest first):', drop: 5 },
  decisions: { title: 'Decisions so far:', drop: 4 },
  subProblems: { title: 'Sub-problems:', drop: 2 },
  contradictions: { title: 'Open contradictions:', drop: 1 },
  activity: { title: 'Activity (oldest first, grouped by sub-problem):', drop: 0 },
} as const;
type Section = keyof typeof SECTIONS;

interface Item {
  section: Section;
  text: string;
  /** Position within its section's drop order: the oldest (smallest) goes first. */
  age: number;
}

/** sp2 before sp10; any other ids in a fixed order too. */
const byId = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

function progressLine(id: string, p: SubProblemProgress): string {
  const parts: string[] = [];
  if (p.round > 0) parts.push(`round ${p.round}${p.maxRounds > 0 ? ` of at most ${p.maxRounds}` : ''}`);
  if (p.contributions > 0) parts.push(`${p.contributions} contribution${p.contributions === 1 ? '' : 's'}`);
  if (p.status === 'completed' || p.status === 'skipped') parts.push(p.status);
  if (!parts.length) parts.push(p.status === 'running' ? 'started' : 'not started');
  return `- ${id}${p.title ? ` ${p.title}` : ''}: ${parts.join(', ')}`;
}

function items(mem: CaseMemory): Item[] {
  const out: Item[] = [];
  const add = (section: Section, texts: string[]) => texts.forEach((text, age) => out.push({ section, text, age }));
  if (mem.statement) add('statement', [`Problem statement${mem.statementBy === 'person' ? ' (as the person rewrote it)' : ''}: ${mem.statement}`]);
  add('assumptions', mem.assumptions.map((a) => `- ${a}`));
  add('person', mem.intents.map((i) => `- ${i.text}`));
  add(
    'decisions',
    [...mem.decisions].sort((a, b) => byId(a.subProblemId, b.subProblemId)).map((d) => `- ${d.subProblemId} (confidence ${d.confidence.toFixed(2)}): ${d.text}`),
  );
  add(
    'subProblems',
    Object.keys(mem.subProblems)
      .sort(byId)
      .map((id) => progressLine(id, mem.subProblems[id]!)),
  );
  add(
    'contradictions',
    mem.contradictions
      .filter((c) => c.open)
      .sort((a, b) => byId(a.id, b.id))
      .map((c) => `- ${c.text}`),
  );
  // Grouped by sub-problem (session-wide first), each group oldest first; the global age decides what goes first.
  const activity = mem.entries.map((e, age) => ({ e, age }));
  activity.sort((a, b) => byId(a.e.subProblemId ?? '', b.e.subProblemId ?? '') || a.age - b.age);
  for (const { e, age } of activity) out.push({ section: 'activity', text: `- [${e.subProblemId ? `${e.subProblemId} ` : ''}${e.kind}] ${e.text}`, age });
  return out;
}

const note = (n: number) => `- (${n} earlier item${n === 1 ? '' : 's'} left out to fit)`;

function layout(kept: Item[], left: Map<Section, number>): string {
  const out = [HEADER];
  for (const section of Object.keys(SECTIONS) as Section[]) {
    const lines = kept.filter((i) => i.section === section).map((i) => i.text);
    const n = left.get(section) ?? 0;
    if (!lines.length && !n) continue;
    if (SECTIONS[section].title) out.push(SECTIONS[section].title);
    // Left-out items are always the oldest, so the note goes where they were.
    if (n) out.push(note(n));
    out.push(...lines);
  }
  return out.join('\n');
}

const HEADER = '### Case so far';

export function renderCaseMemory(mem: CaseMemory, maxTokens = 3000): string {
  const budget = charBudget(maxTokens);
  const all = items(mem);
  if (!all.length || budget === 0) return '';
  // Sizes are kept per section, so leaving items out costs O(1) each, not a re-render (a memory can hold thousands).
  const kept = new Map<Section, { chars: number; count: number; left: number }>();
  for (const section of Object.keys(SECTIONS) as Section[]) kept.set(section, { chars: 0, count: 0, left: 0 });
  for (const i of all) {
    const k = kept.get(i.section)!;
    k.chars += i.text.length + 1;
    k.count += 1;
  }
  const size = (section: Section) => {
    const k = kept.get(section)!;
    if (!k.count && !k.left) return 0;
    const title = SECTIONS[section].title;
    return (title ? title.length + 1 : 0) + (k.left ? note(k.left).length + 1 : 0) + k.chars;
  };
  const sections = Object.keys(SECTIONS) as Section[];
  let length = HEADER.length + sections.reduce((sum, s) => sum + size(s), 0);
  const dropped = new Set<Item>();
  const dropOrder = all
    .filter((i) => SECTIONS[i.section].drop !== Infinity)
    .sort((a, b) => SECTIONS[a.section].drop - SECTIONS[b.section].drop || a.age - b.age);
  for (const item of dropOrder) {
    if (length <= budget) break;
    const k = kept.get(item.section)!;
    length -= size(item.section);
    [k.chars, k.count, k.left] = [k.chars - item.text.length - 1, k.count - 1, k.left + 1];
    length += size(item.section);
    dropped.add(item);
  }
  if (length > budget) return '';
  return layout(
    all.filter((i) => !dropped.has(i)),
    new Map(sections.map((s) => [s, kept.get(s)!.left])),
  );
}

/**
 * What the board record reads from the case: the frame that stays fixed once
 * the deliberation starts (statement, assumptions, the person's answers to
 * the clarifying questions), the fact ledger, and the person's messages.
 * Nothing here is cut to a budget: the record bounds itself.
 */
export function boardView(mem: CaseMemory): BoardView {
  const answers = mem.intents.filter((i) => i.kind === 'answer').map((i) => `- ${i.text}`);
  const frame = [
    ...(mem.statement ? [`Problem statement${mem.statementBy === 'person' ? ' (as the person rewrote it)' : ''}: ${mem.statement}`] : []),
    // A trial's board kept reading an intake assumption ("the plateau is acquisition, not churn") its first sub-problem had
    // found unknown: the frame is fixed once the debate starts, so it says what outranks it.
    ...(mem.assumptions.length
      ? [
          `Assumptions the board made at intake (${answers.length ? "where the person's answers below say otherwise, the answers are right; " : ''}where a later fact in the ledger settles one otherwise, the fact stands):`,
          ...mem.assumptions.map((a) => `- ${a}`),
        ]
      : []),
    ...(mem.unansweredAtIntake.length
      ? ["Asked at intake and not answered (the assumptions above stand in; on the person's list already):", ...mem.unansweredAtIntake.map((q) => `- ${q}`)]
      : []),
    ...(answers.length ? ["The person's answers to the board's questions:", ...answers] : []),
  ].join('\n');
  return { frame, facts: mem.facts, personSaid: mem.intents.filter((i) => i.kind !== 'answer').map((i) => i.text) };
}
