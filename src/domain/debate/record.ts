import type { Fact, LedgerFact } from '../model';
import { nameOf } from '../personas';
import type { EngineSettings } from '../settings';
import type { DebatePhase } from '../speakers';
import type { DebateSetup, DebateState, RoundInProgress } from './state';

/**
 * The board record of one sub-problem: what every call about it reads first
 * (experts, facilitator, moderators, researcher, voters), oldest first, as a
 * list of chapters. A chapter is sealed when the next round opens and never
 * changes after, so a later call's record starts with every block an earlier
 * call sent: the shared, growing prefix a provider's prompt cache serves
 * (issue "Token economy"), and one account of the debate for every role
 * (issue "A deliberation a founder would pay for").
 *
 * Long debates stay bounded: past `summariseAfterRounds` sealed rounds, all
 * but the last `fullRoundsKept` read as their summaries. A chapter compacted once stays compacted, so the
 * prefix changes only where a round ages out. What the person said, the
 * facts and research findings survive compaction whole.
 */

export interface ChapterTurn {
  persona: string;
  text: string;
  position: string;
  claims: { claim: string; basis: string }[];
  questionForPerson: string | null;
  researchRequest?: string | null;
}

export interface Chapter {
  /** 0: the sub-problem's opening page; n: round n and what followed it. */
  round: number;
  phase: DebatePhase | null;
  turns: ChapterTurn[];
  facilitator: { summary: string; keyArguments: string[]; facts: (Fact & { id: string })[]; nextQuestion: string } | null;
  moderator: { kind: string; text: string } | null;
  research: { query: string; findings: string }[];
  /**
   * Research asked for in this round and declined, with why: the event log had them, the record did not, so a
   * trial's expert saw her request vanish (absent from chapters sealed before it existed).
   */
  declined?: { persona: string; query: string; reason: string }[];
  /** What the person said at the round's checkpoint. */
  intervention: string | null;
  /** Facts other sub-problems established, new when the next round opened (the session's fact ledger). */
  siblingFacts: LedgerFact[];
  /** The round under way, its turns alone (`turnsChapter`): not sealed, so not counted for compaction. */
  open?: true;
}

export const openingChapter = (): Chapter => ({ round: 0, phase: null, turns: [], facilitator: null, moderator: null, research: [], intervention: null, siblingFacts: [] });

/** A finished round as its chapter: the turns, the facilitator's reading, and what the next round responds to. */
export function sealRound(r: RoundInProgress): Chapter {
  const f = r.facilitator;
  return {
    round: r.round,
    phase: r.phase,
    turns: r.turns.map((t) => ({
      persona: t.persona,
      text: t.text,
      position: t.position,
      claims: t.claims,
      questionForPerson: t.questionForPerson ?? null,
      researchRequest: t.researchRequest?.trim() || null,
    })),
    facilitator: f
      ? {
          summary: f.summary,
          keyArguments: f.keyArguments,
          facts: withFactIds(`r${r.round}`, f.facts),
          nextQuestion: f.nextQuestion,
        }
      : null,
    moderator: r.next.moderator,
    research: r.next.research,
    ...(r.end?.declined?.length && { declined: r.end.declined }),
    intervention: r.next.intervention,
    siblingFacts: [],
  };
}

/**
 * The round under way as a chapter of its turns alone, before the facilitator has read it: the facilitator reads it as
 * the record's last block, the same text the sealed chapter will open with, so the next round's facilitator reads it
 * from the cache rather than it being sent twice (once in this call's message, once written in the next).
 */
export function turnsChapter(r: RoundInProgress): Chapter {
  return { ...sealRound(r), facilitator: null, moderator: null, research: [], declined: [], intervention: null, siblingFacts: [], open: true };
}

/** The chapters as they stand, the round under way included once it has turns (for the vote after the last round). */
export function chaptersOf(state: DebateState): Chapter[] {
  const r = state.current;
  const open = r && r.turns.length && !state.chapters.some((c) => c.round === r.round) ? [sealRound(r)] : [];
  return [...state.chapters, ...open];
}

const who = (code: string) => `${nameOf(code)} (${code})`;
const list = (title: string, items: string[]) => (items.length ? [title, ...items.map((x) => `- ${x}`)] : []);
const replacing = (f: Fact) => (f.replaces?.length ? ` (replaces ${f.replaces.join(', ')})` : '');
/**
 * Ledger ids for facts in the order given: `<where>.f1`, `.f2`… (`sp2.r1` for a round's, `sp2.d` for a decision's), so
 * the ledger can cite them and a replay yields the same ids.
 */
export const withFactIds = <F extends object>(where: string, facts: readonly F[] | undefined): (F & { id: string })[] =>
  (facts ?? []).map((f, i) => ({ id: `${where}.f${i + 1}`, ...f }));
export const ledgerLine = (f: LedgerFact) => `[${f.id}, ${f.subProblemId}, ${f.kind}${f.source ? `, ${f.source}` : ''}] ${f.text}${replacing(f)}`;
/** A fact list as a prompt lists it: a line each, or "(none)". */
export const ledgerLines = (facts: readonly LedgerFact[]) => (facts.length ? facts.map(ledgerLine) : '(none)');

/**
 * The ledger as it stands: a fact a later one replaced is left out, so a
 * revised figure or a settled question is read once, in its last version.
 * What was replaced is named on the fact that replaced it.
 */
export function currentFacts<F extends { id: string; replaces?: string[] | undefined }>(facts: readonly F[]): F[] {
  const replaced = new Set(facts.flatMap((f) => f.replaces ?? []));
  return facts.filter((f) => !replaced.has(f.id));
}

function opening(setup: DebateSetup, c: Chapter): string {
  const sp = setup.subProblem;
  return [
    `## Board record: sub-problem ${sp.id}: ${sp.title}`,
    `Goal: ${sp.goal}`,
    `Context: ${sp.context}`,
    `Panel: ${setup.panel.map(who).join(', ')}`,
    ...(setup.decidedEarlier ? [setup.decidedEarlier.trim()] : []),
    ...list("What the person told the board before this sub-problem (their words):", setup.personSaid.map((m) => `"${m}"`)),
    ...list("Facts other sub-problems established so far (the session's fact ledger):", c.siblingFacts.map(ledgerLine)),
  ].join('\n');
}

const after = (c: Chapter, full: boolean): string[] => [
  ...(c.moderator ? [`Moderator (${c.moderator.kind}): ${full ? c.moderator.text : cut(c.moderator.text, 280)}`] : []),
  ...c.research.map((r) => `Research (general knowledge, not a live source) on "${r.query}": ${r.findings}`),
  ...(c.declined ?? []).map((d) => `Research ${nameOf(d.persona)} asked for on "${d.query}" was declined: ${d.reason}.`),
  ...(c.intervention ? [`The person intervened after this round: "${c.intervention}"`] : []),
  ...list("New in the session's fact ledger from other sub-problems:", c.siblingFacts.map(ledgerLine)),
];

const facts = (c: Chapter, sp: string) => list('Facts recorded:', (c.facilitator?.facts ?? []).map((f) => `[${sp}.${f.id}, ${f.kind}${f.source ? `, ${f.source}` : ''}] ${f.text}${replacing(f)}`));

/** A full round's first block: its heading and turns, which the facilitator reads before it has written the rest. */
function roundTurns(c: Chapter): string {
  const turns = c.turns.map((t) =>
    [
      `[${who(t.persona)}] ${t.text.trim()}`,
      `  Position: ${t.position}`,
      ...(t.claims.length ? [`  Rests on: ${t.claims.map((x) => `${x.claim} (${x.basis})`).join('; ')}`] : []),
      ...(t.questionForPerson ? [`  Asks the person: ${t.questionForPerson}`] : []),
      ...(t.researchRequest ? [`  Asks for research: ${t.researchRequest}`] : []),
    ].join('\n'),
  );
  return [`### Round ${c.round} (${c.phase} phase)`, ...turns].join('\n');
}

/** A full round's second block: the facilitator's reading and what followed the round (empty before the reading). */
function roundReading(c: Chapter, sp: string): string {
  const f = c.facilitator;
  return [
    ...(f ? [`Facilitator's summary: ${f.summary}`, ...list('Key arguments so far:', f.keyArguments), ...facts(c, sp), `Next question: ${f.nextQuestion}`] : []),
    ...after(c, true),
  ].join('\n');
}

const SUMMARY_CHARS = 280;

const cut = (text: string, max: number) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
};

function summaryRound(c: Chapter, sp: string): string {
  const f = c.facilitator;
  return [
    `### Round ${c.round} (summary; ${c.turns.map((t) => nameOf(t.persona)).join(', ')} spoke)`,
    // The summary's first 280 characters, as the discussion always kept; the facts and the person's words follow whole.
    f ? cut(f.summary, SUMMARY_CHARS) : '(no summary recorded)',
    ...facts(c, sp),
    ...after(c, false),
  ].join('\n');
}

/**
 * The record as prompt blocks, oldest first: the opening page, then per round either its summary or two blocks, the
 * turns and then the reading (the facilitator's, with what followed), so a round's turns are one block whether or not
 * the facilitator has read them yet. A block with nothing in it is left out.
 */
export function renderRecord(setup: DebateSetup, chapters: Chapter[], s: Pick<EngineSettings, 'summariseAfterRounds' | 'fullRoundsKept'>): string[] {
  const rounds = chapters.filter((c) => c.round > 0);
  // Counted over sealed rounds: the facilitator, reading the round under way, compacts what the experts did.
  const sealed = rounds.filter((c) => !c.open).length;
  const compactBefore = sealed > s.summariseAfterRounds ? sealed - s.fullRoundsKept : 0;
  const sp = setup.subProblem.id;
  return chapters
    .flatMap((c) =>
      c.round === 0
        ? [once(c, setup, 'opening', () => opening(setup, c))]
        : rounds.indexOf(c) < compactBefore
          ? [once(c, sp, 'summary', () => summaryRound(c, sp))]
          : [once(c, sp, 'turns', () => roundTurns(c)), once(c, sp, 'reading', () => roundReading(c, sp))],
    )
    .filter((block) => block.length > 0);
}

/**
 * A chapter's block, rendered once: every call about the sub-problem renders the whole record, and a chapter never
 * changes once made (the debate machine replaces one rather than editing it). Keyed by the chapter and what else its
 * block reads (the setup, or the sub-problem's id), so the same chapter under another setup renders anew.
 */
const rendered = new WeakMap<Chapter, Map<string, { of: unknown; text: string }>>();
function once(c: Chapter, of: unknown, form: string, render: () => string): string {
  let forms = rendered.get(c);
  if (!forms) rendered.set(c, (forms = new Map()));
  const hit = forms.get(form);
  if (hit && hit.of === of) return hit.text;
  const text = render();
  forms.set(form, { of, text });
  return text;
}
