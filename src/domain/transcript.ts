import { actKey, disclaimerAddendum } from './disclaimers';
import type { Envelope } from './events';
import { personaByCode } from './personas';

export type Verbosity = 'concise' | 'standard' | 'detailed';

export interface TranscriptEntry {
  seq: number;
  section: string | null;
  speaker: string | null;
  kind: string;
  text: string;
  /** The sub-problem the entry belongs to: concurrent sub-problems interleave in the log, not in the transcript. */
  subProblemId: string | null;
}

type Data = Record<string, any>;

/**
 * A session's log as people read it (the spec's console conventions: section
 * breaks, speaker labels, progress, votes, the recommendation). Pure: the same
 * log always reads the same. `concise` keeps decisions, `standard` the debate,
 * `detailed` adds metrics, calibration and facilitator notes.
 */
export function transcriptEntries(events: Envelope[], verbosity: Verbosity = 'standard'): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  const names = new Map<string, string>();
  let total = 0;
  /** The disclaimer kinds said so far, with the specific acts each named. */
  const seenDisclaimers = new Map<string, Set<string>>();
  // A resolution belongs where its checkpoint was asked (the resolved event does not repeat the sub-problem).
  const askedIn = new Map<string, string>();
  /** Each sub-problem's straw options by letter, so the vote after the debate can name them by title. */
  const strawTitles = new Map<unknown, Map<string, string>>();
  const subProblemOf = (e: Envelope) => {
    const d = e.data as Data;
    return (d.subProblemId as string | undefined) ?? (e.type === 'checkpoint.resolved' ? askedIn.get(d.checkpointId) : undefined) ?? null;
  };
  const add = (e: Envelope, kind: string, text: string, speaker: string | null = null, section: string | null = null) =>
    out.push({ seq: e.seq, section, speaker, kind, text, subProblemId: subProblemOf(e) });
  // Each disclaimer once, however many sub-problems raised it (the final recommendation repeats them all). A later part that names
  // another specific act of a kind already said adds that act alone.
  const disclaim = (e: Envelope, items: Data[]) => {
    for (const x of items) {
      const acts = (x.acts ?? []) as string[];
      const said = seenDisclaimers.get(x.kind);
      if (!said) {
        seenDisclaimers.set(x.kind, new Set(acts.map(actKey)));
        add({ ...e, data: {} }, 'disclaimer', x.text);
        continue;
      }
      const fresh = acts.filter((a) => !said.has(actKey(a)));
      for (const a of fresh) said.add(actKey(a));
      if (fresh.length) add({ ...e, data: {} }, 'disclaimer', disclaimerAddendum(x.kind, fresh));
    }
  };
  // In an automatic session nobody answers, so an expert asks the same question round after round (a growth trial's reader
  // met one three times): the standard transcript shows a question once per expert and sub-problem, unless it asks more.
  const questionsAsked = new Map<string, Set<string>[]>();
  const askedBefore = (d: Data): boolean => {
    const key = `${d.subProblemId}/${d.persona}`;
    const words = questionWords(String(d.questionForPerson));
    const earlier = questionsAsked.get(key) ?? [];
    questionsAsked.set(key, [...earlier, words]);
    return earlier.some((w) => [...words].every((x) => w.has(x)));
  };
  const debate = verbosity !== 'concise';
  const detailed = verbosity === 'detailed';
  // The ledger's ids are the board's, not the reader's: the standard transcript names a revised fact by its words.
  const factTexts = new Map<string, string>();
  const factLine = (f: Data) => {
    const replaces = (f.replaces ?? []) as string[];
    if (detailed) return `[${f.id}] ${f.text}${replaces.length ? ` (replaces ${replaces.join(', ')})` : ''}`;
    const old = replaces.map((id) => factTexts.get(id)).filter((t): t is string => t !== undefined).map((t) => `“${firstWords(t, 12)}”`);
    return `${plain(f.text)}${replaces.length ? ` (revises ${old.length ? `the earlier ${joinAnd(old)}` : 'an earlier fact'})` : ''}`;
  };
  // The board's own references, as the person reads them: a ledger id by the fact's opening words, "sp2" as
  // "sub-problem 2" (a trial's reader met "the ~16 customers a month in sp1.r2.f1" and "the sp1/sp2 plan"). The
  // detailed transcript keeps them as written.
  const plain = (text: unknown): string =>
    detailed
      ? String(text)
      : String(text)
          .replace(FACT_ID, (id: string) => (factTexts.has(id) ? `“${firstWords(factTexts.get(id)!, 8)}”` : id))
          .replace(SUB_PROBLEM_ID, (_m, n: string) => `sub-problem ${n}`);
  // Where the final recommendation reconciles a sub-problem with another, its section says so: a reader who stops there
  // would otherwise take a decision the plan revised as the last word (a trial's founder would have).
  const laterConflicts = new Map<string, Set<string>>();
  for (const c of (events.findLast((x) => x.type === 'recommendation.completed')?.data as Data | undefined)?.conflicts ?? []) {
    const between = ((c as Data).between ?? []) as string[];
    for (const sp of between) for (const other of between) if (other !== sp) laterConflicts.set(sp, (laterConflicts.get(sp) ?? new Set()).add(other));
  }
  // A vote's confidence after calibration, by sub-problem and persona: the vote line says both, since the dissent below
  // it quotes the later one (a trial read "votes B (confidence 0.55)" over "her confidence fell to 0.45").
  const calibrated = new Map<string, number>();
  for (const e of events) {
    const d = e.data as Data;
    if (e.type === 'votes.calibrated') for (const c of (d.changes ?? []) as Data[]) calibrated.set(`${d.subProblemId}/${c.persona}`, Number(c.after));
  }
  // Who voted for what, and what won, per sub-problem: a synthesis's "dissent" from someone who voted for the winner is a
  // reservation, and is labelled so (a trial read "Dissent: X voted for the rule but…" under a unanimous vote).
  // The session's mode, from its first event: an interactive session may still leave the clarifying questions unanswered.
  let interactive = false;
  const voteOf = new Map<string, string>();
  const winnerOf = new Map<string, string>();
  const confidenceOf = (d: Data) => {
    const after = calibrated.get(`${d.subProblemId}/${d.persona}`);
    const before = Number(d.confidence).toFixed(2);
    return after === undefined || after.toFixed(2) === before ? `confidence ${before}` : `confidence ${before}, ${after.toFixed(2)} after hearing the others`;
  };
  for (const e of events) {
    const d = e.data as Data;
    switch (e.type) {
      case 'session.created':
        interactive = d.mode === 'interactive';
        add(e, 'problem', `${d.problem}${d.context ? `\n\nContext: ${d.context}` : ''}`, null, 'PROBLEM');
        break;
      case 'clarification.requested':
        add(
          e,
          'questions',
          [
            ...(d.questions as Data[]).map((q, i) => `${i + 1}. ${q.question} (${q.why})`),
            // A reader of an automatic session otherwise waits for answers that never come.
            ...(d.mode === 'auto'
              ? [
                  `Nobody answers these ${interactive ? 'in this session (its clarification checkpoint is off)' : 'in an automatic session'}: the board goes on with what it assumes instead, under PROBLEM STATEMENT.`,
                ]
              : []),
          ].join('\n'),
          'FACILITATOR',
          'CLARIFYING QUESTIONS',
        );
        break;
      case 'problem.stated':
        add(e, 'statement', [d.statement, ...(d.assumptions as string[]).map((a) => `Assumption: ${a}`)].join('\n'), 'FACILITATOR', 'PROBLEM STATEMENT');
        break;
      case 'decomposition.completed':
        total = (d.subProblems as unknown[]).length;
        add(e, 'decomposition', (d.subProblems as Data[]).map((s, i) => `${i + 1}. ${s.title} — ${s.goal}`).join('\n'), 'FACILITATOR', 'DECOMPOSITION');
        break;
      case 'board.assembled':
        for (const m of d.members as Data[]) names.set(m.code, m.name);
        add(e, 'board', detailed ? boardText(d, names) : plain(boardText(d, names, true)), 'FACILITATOR', 'THE BOARD');
        break;
      case 'subproblem.started': {
        const index = Number(String(d.subProblemId).slice(2));
        add(e, 'subproblem', `Goal: ${d.goal}`, null, `SUB-PROBLEM ${index} OF ${total || index}: ${String(d.title).toUpperCase()}`);
        break;
      }
      case 'round.started':
        if (debate) add(e, 'round', `Round ${d.round}/${d.maxRounds} (${d.phase})`);
        break;
      case 'contribution.completed': {
        const question = d.questionForPerson && (detailed || !askedBefore(d)) ? `\nQuestion for you: ${d.questionForPerson}` : '';
        if (debate) add(e, 'contribution', `${plain(d.text)}${detailed ? `\n(position: ${d.position})` : ''}${question}`, names.get(d.persona) ?? d.name);
        break;
      }
      case 'research.declined':
        if (debate) add(e, 'research', `Not researched: ${d.query} — ${d.reason}.`, 'RESEARCHER');
        break;
      case 'facilitator.message':
        // The facilitator's relay of an intervention repeats the person's words, shown already as theirs (a trial read each twice).
        if (detailed || (debate && d.kind !== 'summary' && d.kind !== 'intervention')) add(e, 'facilitator', plain(d.text), 'FACILITATOR');
        else if (debate && d.kind === 'summary') {
          // The round's summary repeats the turns above it, but its question is why the next round turns where it does
          // (a trial's reader saw every expert argue "the best case for staying horizontal" with no one having asked).
          const at = String(d.text).lastIndexOf(' Next: ');
          if (at >= 0) add(e, 'facilitator', `Asks the panel next: ${plain(String(d.text).slice(at + ' Next: '.length))}`, 'FACILITATOR');
        }
        break;
      case 'moderator.intervened':
        if (debate) add(e, 'moderator', d.text, `MODERATOR (${String(d.moderator).toUpperCase()})`);
        break;
      case 'research.completed':
        if (debate) add(e, 'research', `${plain(d.query)}\n${plain(d.findings)}`, 'RESEARCHER (model knowledge)');
        break;
      case 'round.completed':
        if (detailed) {
          const m = d.metrics as Data;
          add(e, 'metrics', `novelty ${m.novelty}, convergence ${m.convergence}, conflict ${m.conflict}, relevance ${m.relevance}/10 — ${(d.stop as Data).detail}`);
        }
        break;
      case 'options.proposed':
        add(
          e,
          'options',
          (d.options as Data[])
            .map((o) =>
              [
                `${o.id}. ${plain(o.title)} (${String(o.reversibility).replace('_', '-')} door): ${plain(o.description)}`,
                ...((o.pros ?? []) as string[]).map((p) => `   + ${plain(p)}`),
                ...((o.cons ?? []) as string[]).map((c) => `   − ${plain(c)}`),
                ...(o.bestIf ? [`   Best if: ${plain(o.bestIf)}`] : []),
              ].join('\n'),
            )
            .join('\n'),
          'FACILITATOR',
        );
        break;
      case 'vote.cast':
        voteOf.set(`${d.subProblemId}/${d.persona}`, String(d.optionId));
        // The strong objection too: the synthesis answers it by name, so the reader must be able to find it (a trial could not).
        if (debate) add(e, 'vote', `votes ${d.optionId} (${confidenceOf(d)}): ${plain(d.rationale)}${d.strongObjection ? `\nStrong objection: ${plain(d.strongObjection)}` : ''}`, names.get(d.persona) ?? d.name);
        break;
      case 'votes.calibrated':
        if (detailed && d.skipped) add(e, 'calibration', 'not asked: the vote was unanimous');
        else if (detailed) add(e, 'calibration', (d.changes as Data[]).map((c) => `${names.get(c.persona) ?? c.persona}: ${c.before} → ${c.after}`).join('\n'));
        break;
      case 'vote.completed': {
        const t = d.tally as Data;
        if (t.winner) winnerOf.set(d.subProblemId, String(t.winner));
        const result = t.winner ? `option ${t.winner}` : t.deferred ? 'deferred (no supermajority for a one-way door)' : `a tie between ${joinAnd(t.tie as string[])}`;
        add(e, 'tally', [`Votes: ${voteLine(t.distribution as Record<string, number>)}. ${t.why} Result: ${result}.`, ...effectLines(d.debateEffect as Data | undefined, names, strawTitles.get(d.subProblemId) ?? new Map())].join('\n'), 'FACILITATOR');
        break;
      }
      case 'vote.straw': {
        // By title, not letter: the final options are lettered A-D too, and mean other things (a trial read "moved from A to A").
        const titles = new Map((d.options as Data[]).map((o) => [String(o.id), String(o.title)]));
        strawTitles.set(d.subProblemId, titles);
        const skip = d.skipsDebate ? ' Unanimous and sure on a two-way door: the board goes straight to the vote.' : '';
        const tally = (d.votes as Data[]).length
          ? Object.entries(d.distribution as Record<string, number>).map(([id, n]) => `"${titles.get(id) ?? id}" ${n}`).join(' · ')
          : 'no expert placed on an option';
        if (debate) add(e, 'straw', `Straw vote on the opening positions: ${tally}.${skip}`, 'FACILITATOR');
        break;
      }
      case 'facts.recorded':
        if (debate) add(e, 'facts', bullets('Facts recorded for the whole board', (d.facts as Data[]).map(factLine)).join('\n'), 'FACILITATOR');
        for (const f of d.facts as Data[]) factTexts.set(f.id, f.text);
        break;
      case 'synthesis.completed': {
        const s = d.synthesis as Data;
        const dissent = (s.dissent ?? []) as Data[];
        const winner = winnerOf.get(d.subProblemId);
        const forWinner = (x: Data) => winner !== undefined && voteOf.get(`${d.subProblemId}/${x.persona}`) === winner;
        // A concern that opens with its expert's name is not prefixed with it again (a trial read "Sofia Lindqvist: Sofia Lindqvist wants…").
        const concernLine = (x: Data) => {
          const name = names.get(x.persona) ?? x.persona;
          return String(x.concern).startsWith(name) ? plain(x.concern) : `${name}: ${plain(x.concern)}`;
        };
        const text = [
          plain(s.recommendation),
          ...(s.rationale ? [`Why: ${plain(s.rationale)}`] : []),
          ...bullets('Dissent', dissent.filter((x) => !forWinner(x)).map(concernLine)),
          ...bullets('Reservations of experts who voted for it', dissent.filter(forWinner).map(concernLine)),
          ...bullets('Caveats', ((s.caveats ?? []) as string[]).map(plain)),
          ...(s.confidence !== undefined ? [`Confidence: ${Number(s.confidence).toFixed(2)}`] : []),
          ...(d.commitment?.triggered ? ['', d.commitment.statement] : []),
          ...(laterConflicts.has(d.subProblemId) ? ['', `The final recommendation reconciles this with ${subProblemsNamed([...laterConflicts.get(d.subProblemId)!])} where they conflict (its “Conflicting figures, reconciled”).`] : []),
        ];
        add(e, 'synthesis', text.join('\n'), 'FACILITATOR');
        disclaim(e, (d.disclaimers ?? []) as Data[]);
        break;
      }
      case 'recommendation.completed':
        // The brief first, so the recommendation stays the log's last entry for a JSON reader (the Markdown moves the brief up).
        add(e, 'brief', briefText({ ...d, summary: plain(d.summary) }), null, 'IN BRIEF');
        add(
          e,
          'recommendation',
          [
            plain(d.summary),
            '',
            // With one sub-problem, every conflict is within it: naming it on each line says nothing (a trial's reader noted it).
            ...bullets(
              'Conflicting figures, reconciled',
              ((d.conflicts ?? []) as Data[]).map((c) => `${total === 1 && !detailed ? '' : `${detailed ? joinAnd(c.between as string[]) : subProblemsNamed(c.between as string[])}: `}${plain(c.resolution)}`),
            ),
            ...(d.conflicts?.length ? [''] : []),
            'Steps:',
            ...(d.steps as string[]).map((s, i) => `${i + 1}. ${plain(s)}`),
            '',
            ...bullets('Trade-offs', ((d.tradeoffs ?? []) as string[]).map(plain)),
            ...(d.tradeoffs?.length ? [''] : []),
            ...openQuestionLines(d, detailed),
            `Confidence: ${d.confidence}`,
          ].join('\n'),
          'FACILITATOR',
          'RECOMMENDATION',
        );
        disclaim(e, (d.disclaimers ?? []) as Data[]);
        break;
      case 'checkpoint.requested':
        if (d.subProblemId) askedIn.set(d.checkpointId, d.subProblemId);
        if (debate) add(e, 'checkpoint', `${d.prompt} (${(d.actions as string[]).join(' / ')})`, 'FACILITATOR');
        break;
      case 'checkpoint.resolved':
        add(e, 'decision', resolvedText(d), d.by === 'expiry' ? 'FACILITATOR' : 'YOU');
        break;
      case 'subproblem.skipped':
        add(e, 'skipped', `Not deliberated. ${d.reason}`, 'FACILITATOR', `SUB-PROBLEM ${Number(String(d.subProblemId).slice(2))} OF ${total}: ${String(d.title).toUpperCase()}`);
        break;
      case 'guardrail.refused':
        add(e, 'refused', `Declined: ${d.reason}`, 'FACILITATOR');
        break;
      case 'session.failed':
        add(e, 'failed', String(d.reason), null, 'ENDED');
        break;
      case 'session.cancelled':
        add(e, 'cancelled', `Cancelled: ${d.reason}`, null, 'ENDED');
        break;
    }
  }
  return out;
}

/**
 * The answer first: the Markdown puts this under the person's question, so
 * whoever opens a 60-80 KB transcript reads the decision before the debate
 * (a trial's reader: "the founder needs only the recommendation; reading the
 * whole debate is optional, and the transcript doesn't say so").
 */
function briefText(d: Data): string {
  const parts = ['its steps', ...(d.conflicts?.length ? ['the conflicting figures it reconciles'] : []), ...(d.tradeoffs?.length ? ['trade-offs'] : []), ...(d.questionsForYou?.length || d.openQuestions?.length ? ['the questions for you'] : [])];
  return [
    String(d.summary),
    '',
    `Confidence: ${d.confidence}. The whole recommendation, with ${joinAnd(parts)}, is the last section; what lies between is the board's debate, the record of how it got there.`,
  ].join('\n');
}

/**
 * The board: each panel with why each expert sits on it (a seat's reason is
 * per sub-problem), then how it was chosen: what the policy changed in the
 * model's proposal, or what the person's edit did.
 */
function boardText(d: Data, names: Map<string, string>, byName = false): string {
  const picks = Object.entries((d.picks ?? {}) as Record<string, Data[]>);
  if (!picks.length) return (d.members as Data[]).map((m) => `${m.name}, ${m.rationale}`).join('\n');
  // A rationale that names its expert first (board selection is asked to use names) is not prefixed with the name again.
  const seat = (s: Data) => {
    const name = names.get(s.code) ?? s.code;
    return String(s.rationale).startsWith(name) ? `- ${s.rationale}` : `- ${name}: ${s.rationale}`;
  };
  const panels = picks.flatMap(([id, seats]) => [`Panel for ${id}:`, ...seats.map(seat)]);
  const how: Record<string, string> = {
    model: 'Proposed by the facilitator, held to the board rules.',
    fallback: `Chosen by domain fit and diversity (the facilitator's proposal was unavailable${d.selection?.failure ? `: ${d.selection.failure}` : ''}).`,
    person: 'As you changed it.',
  };
  const by = d.selection?.by as string | undefined;
  // The policy's notes name experts by code ("replaced performance_marketer with fundraising_advisor"); the reader knows names.
  const named = (n: string) => (byName ? n.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (code) => names.get(code) ?? personaByCode(code)?.name ?? code) : n);
  const notes = ((d.selection?.notes ?? []) as string[]).map((n) => `- ${named(n)}`);
  return [...panels, ...(by ? [how[by] ?? ''] : []), ...notes].join('\n');
}

/** The vote against the straw vote: did the debate change the outcome, and who moved. */
function effectLines(effect: Data | undefined, names: Map<string, string>, straw: Map<string, string>): string[] {
  if (!effect || effect.changedOutcome === null || effect.changedOutcome === undefined) return [];
  const favoured = effect.strawWinner ? `favoured "${straw.get(effect.strawWinner) ?? effect.strawWinner}"` : 'was split';
  const head = effect.changedOutcome ? `The debate changed the outcome: the straw vote ${favoured}.` : 'The debate confirmed what the straw vote on the opening positions chose.';
  // A straw position by its title (its letter is "A. title"), a final option by letter and title.
  const strawTitle = (from: string) => `"${String(from).replace(/^[A-D]\.\s*/, '')}"`;
  // The reason is the vote's rationale, printed with the vote just above.
  const moved = ((effect.positionChanges ?? []) as Data[]).map((c) => `- ${names.get(c.persona) ?? c.persona} moved from ${strawTitle(c.from)} in the straw vote to option ${c.to}.`);
  return [head, ...moved];
}

/** What the person chose at a checkpoint, as a line of the conversation. */
function resolvedText(d: Data): string {
  if (d.by === 'expiry') return d.action === 'cancel' ? 'Nobody answered in time: the session is cancelled.' : 'Nobody answered in time: the board continues with what it proposed.';
  switch (d.action) {
    case 'answer':
      return (d.answers as Data[]).map((a) => `${a.question} — ${a.answer}`).join('\n');
    case 'edit':
      if (d.statement) return `Rewrite the statement: ${d.statement}`;
      if (d.subProblems) return `Use these sub-problems: ${(d.subProblems as Data[]).map((x) => x.title).join('; ')}`;
      return `Change the board: ${[
        ...(d.board?.remove ?? []).map((c: string) => `remove ${c}`),
        ...(d.board?.add ?? []).map((c: string) => {
          const w = (d.board?.wanted as Data[] | undefined)?.find((x) => x.code === c);
          return w ? `add ${c} (for "${w.want}": ${w.name}, ${w.title})` : `add ${c}`;
        }),
      ].join(', ')}`;
    case 'intervene':
      return String(d.message);
    case 'skip_to_vote':
      return 'Move to the vote.';
    case 'skip_to_final':
      return 'Skip to the final recommendation.';
    default:
      return 'Continue.';
  }
}

/** Sub-problem ids as their headings number them: "sub-problems 2 and 3". */
const subProblemsNamed = (ids: string[]) => {
  const n = ids.map((id) => id.replace(/^sp/, '')).sort();
  return n.length === 1 ? `sub-problem ${n[0]}` : `sub-problems ${joinAnd(n)}`;
};
/** A fact named by its opening words, when the transcript only needs to point at it. */
const firstWords = (t: string, n: number) => {
  const w = t.split(/\s+/);
  return w.length <= n ? t : `${w.slice(0, n).join(' ')}…`;
};
/** A fact ledger id ("sp1.r2.f3") and a bare sub-problem id ("sp2", "sp2's"), as the board writes them. */
const FACT_ID = /\bsp\d+\.(?:r\d+|d)\.f\d+\b/g;
const SUB_PROBLEM_ID = /\bsp(\d+)\b/g;
const joinAnd = (items: string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`);

/** "A 0 · B 5": every option, in order. */
export const voteLine = (distribution: Record<string, number>) =>
  Object.entries(distribution)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, n]) => `${id} ${n}`)
    .join(' · ');

const ENDING = new Set(['recommendation', 'failed', 'cancelled', 'refused']);

/**
 * Markdown: `=== SECTION ===` breaks, bold speaker labels, one paragraph per
 * entry. Sub-problems that ran concurrently interleave in the log; here each
 * reads under its own heading, in the order they were framed, then the
 * recommendation, the ending, and every disclaimer once. The recommendation's
 * brief goes first, under the problem.
 */
export function transcriptMarkdown(entries: TranscriptEntry[]): string {
  const before: TranscriptEntry[] = [];
  const bySubProblem = new Map<string, TranscriptEntry[]>();
  const after: TranscriptEntry[] = [];
  const notes: TranscriptEntry[] = [];
  const briefs: TranscriptEntry[] = [];
  for (const e of entries) {
    if (e.kind === 'disclaimer') notes.push(e);
    else if (e.kind === 'brief') briefs.push(e);
    else if (e.subProblemId) bySubProblem.set(e.subProblemId, [...(bySubProblem.get(e.subProblemId) ?? []), e]);
    else if (ENDING.has(e.kind) || bySubProblem.size) after.push(e);
    else before.push(e);
  }
  const ordered = [...bySubProblem.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const lines: string[] = [];
  // The plan's summary reads once, under the question; the last section points to it (two trials' readers met the
  // same paragraph twice, word for word). The JSON entries keep it in both, for a reader of either alone.
  const summaries = briefs.map((b) => b.text.slice(0, Math.max(0, b.text.indexOf('\n\nConfidence: '))));
  const write = (e: TranscriptEntry) => {
    const summary = e.kind === 'recommendation' ? summaries.find((x) => x && e.text.startsWith(x)) : undefined;
    if (summary) e = { ...e, text: `The summary is at the top, under IN BRIEF.${e.text.slice(summary.length)}` };
    if (e.section) lines.push('', `## === ${e.section} ===`, '');
    if (e.kind === 'round') lines.push(`### ${e.text}`, '');
    else lines.push(hardBreaks(e.speaker ? `**[${e.speaker}]** ${e.text}` : e.text), '');
  };
  // The answer under the question it answers (the problem is the log's first entry), then the rest in order.
  const problemAt = before.findIndex((e) => e.kind === 'problem') + 1;
  before.splice(problemAt, 0, ...briefs);
  before.forEach(write);
  for (const id of ordered) bySubProblem.get(id)!.forEach(write);
  after.forEach(write);
  if (notes.length) {
    lines.push('', '## === NOTES ===', '');
    for (const n of notes) lines.push(`- ${n.text}`);
  }
  return `${lines.join('\n').trim()}\n`;
}

/**
 * An entry's lines stay lines when the Markdown is rendered: a single newline is a soft break there, which ran a
 * trial's clarifying questions and assumptions together into one paragraph (and an option's "− con" into its
 * "+ pro"). Two trailing spaces make it a hard one; a line that opens a list item ("- ", "1. ") needs none.
 */
const hardBreaks = (text: string) => text.replace(/([^\n])\n(?=(?!- |\d+\. )[^\n])/g, '$1  \n');

const bullets = (title: string, items: string[]) => (items.length ? [`${title}:`, ...items.map((x) => `- ${x}`)] : []);

/**
 * The questions left for the person: the few the final recommendation chose
 * (what changes with each answer), with how many the experts raised in all;
 * every raised question in the detailed transcript. A trial's person got
 * fourteen at the end, several asking the same thing. Older logs have only
 * the raw list, shown as it is.
 */
function openQuestionLines(d: Data, detailed: boolean): string[] {
  const raised = ((d.openQuestions ?? []) as Data[]).map((q) => `${q.question} (${q.name}, ${q.subProblemId})`);
  const chosen = ((d.questionsForYou ?? []) as Data[]).map((q) => `${q.question}${q.changes ? ` — ${q.changes}` : ''}`);
  if (!chosen.length) return raised.length ? [...bullets('Open questions only you can answer (the plan depends on them)', raised), ''] : [];
  const rest = raised.length > chosen.length ? [`(${raised.length} questions were raised in all${detailed ? '' : '; the detailed transcript lists every one'}.)`] : [];
  return [
    ...bullets('Questions for you: the answers would change the plan', chosen),
    ...rest,
    ...(detailed && raised.length ? bullets('Every question the experts raised', raised) : []),
    '',
  ];
}

/** A question's words, for telling a repeated question from a new one. */
const questionWords = (q: string) => new Set(q.toLowerCase().match(/[\p{L}\p{N}$%.]+/gu)?.map((w) => w.replace(/\.$/, '')) ?? []);
