import { expertSummarySchema } from './summary';
import { charBudget, clipToTokens } from './tokens';

/**
 * What an expert remembers, rendered for its prompt (seed 000): its own
 * summaries of earlier sub-problems of this session, its anonymised memories
 * from earlier sessions, and lessons. Each block has a hard token cap that
 * holds for any amount of input, because retrieval upstream may return more
 * than expected and the persona prompt must not grow with it.
 */

export interface SubProblemSummary {
  subProblemId: string;
  title: string;
  summary: string;
  createdAt: string;
}

export interface RecalledMemory {
  id: string;
  summary: string;
  position: string;
  createdAt: string;
  sessionId: string;
  subProblemId: string;
}

export interface LessonItem {
  lesson: string;
  suggestedFix: string;
  applies: string;
}

export interface RenderedMemory {
  text: string;
  /** Ids of the items that made it into `text`, in order: for the expert_memory.injected event. */
  used: string[];
}

export const SUB_PROBLEM_MEMORY_INSTRUCTION =
  'You took part in earlier sub-problems of this session. Build on what you concluded; if your position changes, say so and explain why.';

export const RECALLED_MEMORY_INSTRUCTION =
  'From your earlier sessions with other users (anonymised). Treat these as background experience, not as facts about this case; ' +
  'if your position here differs from one of them, say so and explain why.';

export const LESSONS_INSTRUCTION = 'Lessons from earlier sessions (apply where they fit this case):';

/** An item is worth including only if this much of it fits; a 3-token stub helps nobody. */
const MIN_ITEM_TOKENS = 12;
/**
 * No single item may take more than this, so one long summary cannot crowd out the rest; but a summary as long as its
 * schema allows, with its sub-problem's title, fits whole (at 120 tokens a trial's 400-character summaries lost their
 * conditions mid-sentence in the next sub-problem).
 */
const MAX_ITEM_TOKENS = Math.ceil(((expertSummarySchema.shape.summary.maxLength ?? 700) + 160) / 4);

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
/** ISO timestamp → its date; anything else as given (clipped) so a bad value cannot blow the budget. */
const day = (iso: string) => (/^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : oneLine(iso).slice(0, 10));

/**
 * Header plus as many items as fit, in the given order. An item that does not
 * fit whole is clipped when at least MIN_ITEM_TOKENS of room is left, and the
 * list stops there (later items are lower priority). No item fits → ''.
 */
function renderList<T>(header: string, items: T[], line: (item: T) => string, id: (item: T) => string, maxTokens: number): RenderedMemory {
  const budget = charBudget(maxTokens);
  if (items.length === 0 || header.length >= budget) return { text: '', used: [] };
  const lines: string[] = [];
  const used: string[] = [];
  let length = header.length;
  for (const item of items) {
    const full = clipToTokens(oneLine(line(item)), MAX_ITEM_TOKENS);
    const room = budget - length - 1; // the newline before the line
    if (full.length <= room) {
      lines.push(full);
    } else {
      const roomTokens = Math.floor(room / 4);
      if (roomTokens < MIN_ITEM_TOKENS) break;
      lines.push(clipToTokens(full, roomTokens));
    }
    used.push(id(item));
    length += 1 + lines[lines.length - 1]!.length;
    if (full.length > room) break;
  }
  if (lines.length === 0) return { text: '', used: [] };
  return { text: [header, ...lines].join('\n'), used };
}

/**
 * The expert's own summaries of earlier sub-problems in this session, most
 * recent first (seed 000 proposes the most recent only; all that fit the
 * budget is better continuity at the same cap).
 */
export function renderSubProblemMemory(summaries: SubProblemSummary[], maxTokens = 300): RenderedMemory {
  // Stable: equal timestamps keep their given order.
  const ordered = summaries
    .map((s, i) => ({ s, i }))
    .sort((a, b) => (a.s.createdAt < b.s.createdAt ? 1 : a.s.createdAt > b.s.createdAt ? -1 : a.i - b.i))
    .map(({ s }) => s);
  return renderList(
    SUB_PROBLEM_MEMORY_INSTRUCTION,
    ordered,
    (s) => `- ${s.subProblemId} "${oneLine(s.title)}": ${s.summary}`,
    (s) => s.subProblemId,
    maxTokens,
  );
}

/** The expert's anonymised memories from earlier sessions, in the given (relevance) order, dated. */
export function renderRecalledMemory(items: RecalledMemory[], maxTokens = 300): RenderedMemory {
  return renderList(
    RECALLED_MEMORY_INSTRUCTION,
    items,
    (m) => `- (${day(m.createdAt)}) position: ${oneLine(m.position)} — ${m.summary}`,
    (m) => m.id,
    maxTokens,
  );
}

/** Lessons as short advice lines; '' when none fit. */
export function renderLessons(lessons: LessonItem[], maxTokens = 250): string {
  return renderList(
    LESSONS_INSTRUCTION,
    lessons,
    (l) => `- ${oneLine(l.lesson)} Fix: ${oneLine(l.suggestedFix)} (applies: ${oneLine(l.applies)})`,
    (l) => l.lesson,
    maxTokens,
  ).text;
}
