import { currentFacts, ledgerLine } from '../../src/domain/debate/record';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_TOKENS,
  applyEvents,
  emptyCaseMemory,
  MAX_CONTRADICTIONS,
  MAX_DECISIONS,
  MAX_ENTRIES,
  MAX_MESSAGES,
  normaliseCaseMemory,
  PERSON_TOKENS,
  RESEARCH_TOKENS,
  type CaseEvent,
  type CaseMemory,
} from '../../src/memory/case-memory';
import { boardView, renderCaseMemory } from '../../src/memory/case-memory-render';
import { clipToSentence, estimateTokens, SHORTENED } from '../../src/memory/tokens';

const NOW = '2025-01-02T03:04:05.000Z';
const ev = (type: string, data: Record<string, unknown>): CaseEvent => ({ type, data });
const render = (events: CaseEvent[], cap = 100_000) => renderCaseMemory(applyEvents(emptyCaseMemory(), events, NOW), cap);

const runway = { question: 'What is your runway?', why: 'Sets the risk budget', assumption: 'About 12 months of runway' };
/** As the engine states it: unanswered questions' assumptions are already listed first in `assumptions`. */
const problem = ev('problem.stated', {
  statement: 'Should I pivot my project management tool to serve only law firms?',
  clarifications: [runway],
  assumptions: ['About 12 months of runway', 'Law firms keep paying 3x', 'Churn stays at 30%'],
  domains: ['strategy'],
  category: 'strategy',
  vague: false,
  safety: { allowed: true, reason: '' },
});
const answered = ev('problem.stated', {
  ...problem.data,
  assumptions: ['Law firms keep paying 3x', 'Churn stays at 30%'],
  answers: [{ id: 'q1', question: 'What is your runway?', answer: 'Nine months. We also owe $20K on a loan due in June.' }],
});
const round = (sp: string, n: number, stop = false) =>
  ev('round.completed', {
    subProblemId: sp,
    round: n,
    metrics: {},
    stop: stop
      ? { stop: true, reason: 'consensus', action: 'vote', detail: 'four of five agree' }
      : { stop: false, reason: 'continue', action: 'continue', detail: '' },
  });
const started = (sp: string, n: number, maxRounds = 3) => ev('round.started', { subProblemId: sp, round: n, maxRounds, phase: 'early', speakers: [], invited: [] });
const contribution = (persona: string, positionChanged?: string, sp = 'sp1') =>
  ev('contribution.completed', {
    subProblemId: sp,
    round: 1,
    persona,
    name: persona.toUpperCase(),
    text: 'I think we should…',
    position: 'pivot',
    confidence: 0.7,
    ...(positionChanged === undefined ? {} : { positionChanged }),
  });
const synthesis = (sp: string, recommendation: string, confidence = 0.8) =>
  ev('synthesis.completed', { subProblemId: sp, synthesis: { recommendation, rationale: 'r', dissent: [], confidence, caveats: [] } });
const intervene = (message: string) => ev('checkpoint.resolved', { checkpointId: 'c1', action: 'intervene', message });
const research = (sp: string, n: number) =>
  ev('research.completed', { subProblemId: sp, round: 1, query: `Question ${n}?`, findings: `Finding ${n}.`, source: 'model_knowledge', confidence: 0.6 });
/** Lines that end in an ellipsis: the old renderer's mid-sentence cut. */
const cutLines = (text: string) => text.split('\n').filter((l) => /…$/u.test(l));

describe('clipToSentence', () => {
  it('keeps a text that fits, whole', () => {
    expect(clipToSentence('One. Two.', 10)).toBe('One. Two.');
  });

  it('ends at the last sentence that fits and says it was shortened', () => {
    const text = 'First sentence here. Second one is here too! Third ends with a "quote." Fourth runs on and on and on.';
    const out = clipToSentence(text, 21);
    expect(out).toBe(`First sentence here. Second one is here too! Third ends with a "quote."${SHORTENED}`);
    expect(estimateTokens(out)).toBeLessThanOrEqual(21);
  });

  it('cuts one long sentence at a word, still marked, never with …', () => {
    const out = clipToSentence('word '.repeat(100).trim(), 10);
    expect(out).toMatch(/^word( word)* \[shortened\]$/);
    expect(estimateTokens(out)).toBeLessThanOrEqual(10);
    expect(clipToSentence('word '.repeat(100), 2)).toBe('');
  });

  it('does not split a number or an amount at its decimal point', () => {
    expect(clipToSentence('It costs $1.5K a month and 2.5% churn. Then more text follows here.', 13)).toBe(`It costs $1.5K a month and 2.5% churn.${SHORTENED}`);
  });
});

describe('applyEvents', () => {
  it('starts empty and renders nothing', () => {
    expect(emptyCaseMemory()).toEqual({
      statement: '',
      statementBy: 'board',
      assumptions: [],
      unansweredAtIntake: [],
      intents: [],
      decisions: [],
      contradictions: [],
      subProblems: {},
      facts: [],
      entries: [],
      counters: {},
    });
    expect(renderCaseMemory(emptyCaseMemory())).toBe('');
  });

  it('leaves the memory it folds onto untouched, one event at a time as a run folds its commits', () => {
    const log = JSON.parse(readFileSync(new URL('../fixtures/trials/tech-debt-interactive/events.json', import.meta.url), 'utf8')) as CaseEvent[];
    const freeze = <T>(v: T): T => {
      if (v && typeof v === 'object' && !Object.isFrozen(v)) {
        Object.freeze(v);
        for (const x of Object.values(v)) freeze(x);
      }
      return v;
    };
    let mem = emptyCaseMemory();
    const before: string[] = [];
    const states: CaseMemory[] = [];
    for (const e of log) {
      // Frozen: a fold that edited what it was given (a list, a sub-problem's progress) throws here.
      states.push(freeze(mem));
      before.push(JSON.stringify(mem));
      mem = applyEvents(mem, [e], NOW);
    }
    states.forEach((m, i) => expect(JSON.stringify(m)).toBe(before[i]));
    // One event at a time folds to what the whole log does at once.
    expect(mem).toEqual(applyEvents(emptyCaseMemory(), log, NOW));
  });

  it('keeps the statement and each assumption once, in fields of their own', () => {
    const mem = applyEvents(emptyCaseMemory(), [problem], NOW);
    expect(mem.statement).toBe('Should I pivot my project management tool to serve only law firms?');
    expect(mem.statementBy).toBe('board');
    // The unanswered question's assumption is in `assumptions` (the engine put it there) and not added again.
    expect(mem.assumptions).toEqual(['About 12 months of runway', 'Law firms keep paying 3x', 'Churn stays at 30%']);
    expect(mem.entries).toEqual([]);
    const text = renderCaseMemory(mem);
    expect(text.match(/About 12 months of runway/g)).toHaveLength(1);
    expect(text).not.toMatch(/unanswered/);
  });

  it('shows an answered question as the person answer, not as an assumption', () => {
    const answer = ev('checkpoint.resolved', { checkpointId: 'clarification', kind: 'clarification', action: 'answer', answers: answered.data.answers });
    // The answer arrives twice (checkpoint, then statement); an event that still lists the answered assumption is corrected.
    const stale = ev('problem.stated', { ...answered.data, assumptions: ['About 12 months of runway', ...(answered.data.assumptions as string[])] });
    const mem = applyEvents(emptyCaseMemory(), [answer, stale], NOW);
    expect(mem.intents).toEqual([{ at: NOW, kind: 'answer', questionId: 'q1', text: 'Answered "What is your runway?": Nine months. We also owe $20K on a loan due in June.' }]);
    expect(mem.assumptions).toEqual(['Law firms keep paying 3x', 'Churn stays at 30%']);
    expect(renderCaseMemory(mem)).not.toContain('12 months');
  });

  it('keeps the person rewrite as the statement, not as an extra intent', () => {
    const rewrite = 'Should I pivot to law firms within six months, keeping agencies as a fallback?';
    const mem = applyEvents(
      emptyCaseMemory(),
      [problem, ev('checkpoint.resolved', { checkpointId: 'statement', kind: 'statement', action: 'edit', statement: rewrite }), ev('problem.stated', { ...problem.data, statement: rewrite, editedBy: 'person' })],
      NOW,
    );
    expect([mem.statement, mem.statementBy]).toEqual([rewrite, 'person']);
    expect(mem.intents).toEqual([]);
    expect(renderCaseMemory(mem)).toContain(`Problem statement (as the person rewrote it): ${rewrite}`);
  });

  it('keeps the person words whole up to the cap, and past it ends at a sentence and says so', () => {
    const whole = `The quote is $95/hr for 320-400 hours. ${'She is available from January at 25 hours a week. '.repeat(20).trim()}`;
    expect(estimateTokens(whole)).toBeLessThan(PERSON_TOKENS);
    const long = 'This sentence is about the cash position of the business. '.repeat(60).trim();
    const mem = applyEvents(emptyCaseMemory(), [intervene(whole), intervene(long)], NOW);
    expect(mem.intents[0]!.text).toBe(whole);
    expect(mem.intents[1]!.text.endsWith(`business.${SHORTENED}`)).toBe(true);
    expect(estimateTokens(mem.intents[1]!.text)).toBeLessThanOrEqual(PERSON_TOKENS);
    expect(mem.counters.interventions).toBe(2);
  });

  it('keeps every answer and the last MAX_MESSAGES messages, oldest first', () => {
    const answers = ev('checkpoint.resolved', { action: 'answer', answers: [1, 2, 3].map((n) => ({ id: `q${n}`, question: `Q${n}?`, answer: `A${n}.` })) });
    const messages = Array.from({ length: MAX_MESSAGES + 3 }, (_, i) => intervene(`Message ${i + 1}.`));
    const mem = applyEvents(emptyCaseMemory(), [answers, ...messages, ev('checkpoint.resolved', { action: 'skip_to_vote' })], NOW);
    const texts = mem.intents.map((i) => i.text);
    expect(texts.slice(0, 3)).toEqual(['Answered "Q1?": A1.', 'Answered "Q2?": A2.', 'Answered "Q3?": A3.']);
    expect(texts.slice(3)).toEqual([...Array.from({ length: MAX_MESSAGES - 1 }, (_, i) => `Message ${i + 5}.`), 'Asked the board to move to the vote.']);
  });

  it('counts per sub-problem, so parallel sub-problems never mix', () => {
    const events = [
      ev('decomposition.completed', { subProblems: [{ id: 'sp1', title: 'Price' }, { id: 'sp2', title: 'Channel' }, { id: 'sp3', title: 'Hiring' }] }),
      ev('subproblem.started', { subProblemId: 'sp1', title: 'Price', maxRounds: 3 }),
      ev('subproblem.started', { subProblemId: 'sp2', title: 'Channel', maxRounds: 4 }),
    ];
    for (const n of [1, 2, 3]) {
      events.push(started('sp1', n), contribution('maya', undefined, 'sp1'), contribution('tom', undefined, 'sp1'), contribution('ana', undefined, 'sp1'), round('sp1', n, n === 3));
      if (n === 1) events.push(started('sp2', 1, 4), contribution('maya', undefined, 'sp2'), round('sp2', 1));
    }
    events.push(ev('subproblem.completed', { subProblemId: 'sp1', rounds: 3, stopReason: 'consensus' }));
    const mem = applyEvents(emptyCaseMemory(), events, NOW);
    expect(mem.subProblems).toEqual({
      sp1: { title: 'Price', round: 3, maxRounds: 3, contributions: 9, status: 'completed' },
      sp2: { title: 'Channel', round: 1, maxRounds: 4, contributions: 1, status: 'running' },
      sp3: { title: 'Hiring', round: 0, maxRounds: 0, contributions: 0, status: 'pending' },
    });
    const text = renderCaseMemory(mem);
    expect(text).toContain(['Sub-problems:', '- sp1 Price: round 3 of at most 3, 9 contributions, completed', '- sp2 Channel: round 1 of at most 4, 1 contribution', '- sp3 Hiring: not started'].join('\n'));
    // No session-wide counter that mixes them.
    expect(text).not.toMatch(/rounds \d|contributions \d/);
    expect(text.split('\n')[0]).toBe('### Case so far');
  });

  it('keeps only the latest board and records the activity that is news', () => {
    const board = (name: string) => ev('board.assembled', { members: [{ code: 'x', name, title: 'CFO' }], panels: {}, picks: {} });
    const mem = applyEvents(
      emptyCaseMemory(),
      [
        board('Maya Okafor'),
        ev('checkpoint.resolved', { checkpointId: 'board', kind: 'board', action: 'edit', board: { add: ['legal'], remove: [] } }),
        board('Hannah Whitfield'),
        ev('moderator.intervened', { subProblemId: 'sp1', round: 2, moderator: 'contrarian', text: 'What if law firms churn?' }),
        research('sp1', 1),
        ev('facilitator.message', { subProblemId: 'sp1', round: 3, kind: 'summary', text: 'We discussed.' }),
        ev('facilitator.message', { subProblemId: 'sp1', round: 3, kind: 'redirect', text: 'Back to pricing.' }),
        round('sp1', 1),
        round('sp1', 3, true),
        ev('vote.completed', { subProblemId: 'sp1', tally: { mechanism: 'supermajority', winner: 'B', tie: [], consensus: 0.8, deferred: false } }),
        ev('vote.completed', { subProblemId: 'sp2', tally: { mechanism: 'simple_majority', winner: null, tie: ['A', 'C'], consensus: 0.4, deferred: true } }),
        contribution('tom', 'now favours deferring'),
        ev('recommendation.completed', { summary: 'Pivot to law firms in two steps.', confidence: 'medium' }),
      ],
      NOW,
    );
    expect(mem.entries.map((e) => `${e.subProblemId ?? '-'} ${e.kind}: ${e.text}`)).toEqual([
      '- person: The person edited the board.',
      '- board: Board: Hannah Whitfield (CFO).',
      'sp1 moderator: contrarian: What if law firms churn?',
      'sp1 research: "Question 1?" Finding 1.',
      'sp1 facilitator redirect: Back to pricing.',
      'sp1 round: Stopped after round 3: consensus (four of five agree)',
      'sp1 vote: option B (80% consensus, supermajority)',
      'sp2 vote: tie between A, C (40% consensus, simple_majority, deferred)',
      'sp1 position: TOM changed position: now favours deferring',
      '- recommendation: Final recommendation (medium confidence): Pivot to law firms in two steps.',
    ]);
  });

  it('turns syntheses into decisions, one per sub-problem, in full', () => {
    const long = 'We recommend option B, in this order. '.repeat(30).trim();
    expect(long.length).toBeLessThanOrEqual(1200);
    let mem = applyEvents(emptyCaseMemory(), [synthesis('sp1', 'Pivot to law firms'), synthesis('sp1', long, 0.9)], NOW);
    expect(mem.decisions).toEqual([{ subProblemId: 'sp1', text: long, confidence: 0.9 }]);
    mem = applyEvents(mem, Array.from({ length: 12 }, (_, i) => synthesis(`sp${i + 2}`, `Decision number ${i + 2}.`, 2)), NOW);
    expect(mem.decisions).toHaveLength(MAX_DECISIONS);
    expect(mem.decisions.at(-1)).toEqual({ subProblemId: 'sp13', text: 'Decision number 13.', confidence: 1 });
  });

  it('opens and closes contradictions; a re-reported id reopens', () => {
    const opened = ev('memory.contradiction', { persona: 'maya', previous: 'Commit to the pivot', current: 'Defer the pivot', id: 'c1' });
    let mem = applyEvents(emptyCaseMemory(), [opened], NOW);
    expect(mem.contradictions).toEqual([{ id: 'c1', text: 'maya: earlier "Commit to the pivot", now "Defer the pivot"', between: ['maya'], open: true }]);
    expect(renderCaseMemory(mem)).toContain('Open contradictions:\n- maya: earlier "Commit to the pivot", now "Defer the pivot"');
    mem = applyEvents(mem, [ev('memory.contradiction_resolved', { id: 'c1' })], NOW);
    expect(mem.contradictions[0]!.open).toBe(false);
    expect(renderCaseMemory(mem)).not.toContain('Open contradictions');
    mem = applyEvents(mem, [opened], NOW);
    expect(mem.contradictions).toHaveLength(1);
    expect(mem.contradictions[0]!.open).toBe(true);
  });

  it('bounds contradictions, dropping closed ones first', () => {
    const events: CaseEvent[] = [];
    for (let i = 0; i < 15; i++) events.push(ev('memory.contradiction', { persona: 'p', previous: 'a', current: 'b', id: `c${i}` }));
    events.push(ev('memory.contradiction_resolved', { id: 'c14' }), ev('memory.contradiction', { persona: 'p', previous: 'a', current: 'b', id: 'c15' }));
    const mem = applyEvents(emptyCaseMemory(), events, NOW);
    expect(mem.contradictions).toHaveLength(MAX_CONTRADICTIONS);
    expect(mem.contradictions.some((c) => c.id === 'c14')).toBe(false);
    expect(mem.contradictions.at(-1)!.id).toBe('c15');
  });

  it('ignores unknown event types and malformed data', () => {
    const mem = applyEvents(
      emptyCaseMemory(),
      [ev('usage.updated', { costUsd: 1 }), ev('something.new', {}), ev('synthesis.completed', {}), ev('vote.completed', { tally: 'x' }), ev('problem.stated', { assumptions: 'x' })],
      NOW,
    );
    expect(mem.decisions).toEqual([]);
    expect(mem.entries).toEqual([{ at: NOW, kind: 'vote', text: 'no winner' }]);
  });

  it('does not touch its input', () => {
    const before = applyEvents(emptyCaseMemory(), [problem, started('sp1', 1), synthesis('sp1', 'Pivot now'), intervene('Be careful')], NOW);
    const snapshot = structuredClone(before);
    applyEvents(before, [answered, started('sp1', 2), contribution('x'), synthesis('sp1', 'Defer'), intervene('Faster'), ev('memory.contradiction', { id: 'x', persona: 'p' })], NOW);
    expect(before).toEqual(snapshot);
  });

  it('keeps a research finding past its source label: voters read the findings here', () => {
    const findings =
      'From general knowledge only, no live sources. Surveys of B2B software buyers commonly report that a majority would rather see a price before talking to sales, that many drop vendors who hide it until a call, and that the effect is strongest for mid-market deals where the buyer must justify a budget line to a finance team before any vendor conversation, though the share varies widely by deal size, by industry, by the seniority of the person answering and by how the question is asked, so a figure for logistics analytics buyers in particular should come from your own lost-deal notes and interviews rather than from these general surveys.';
    const mem = applyEvents(emptyCaseMemory(), [problem, ev('research.completed', { subProblemId: 'sp1', round: 1, query: 'Do buyers resent hidden prices?', findings })], NOW);
    const entry = mem.entries.find((e) => e.kind === 'research')!;
    expect(estimateTokens(findings)).toBeGreaterThan(ACTIVITY_TOKENS);
    expect(entry.text).toContain('would rather see a price before talking to sales');
  });

  it('holds every bound after 1,000 mixed events, and never loses the statement', () => {
    const kinds = [
      () => round('sp1', 1, true),
      () => contribution('maya', 'changed again'),
      (i: number) => synthesis(`sp${i}`, `Decision ${i}. `.repeat(200)),
      (i: number) => intervene(`Intent ${i}. `.repeat(500)),
      (i: number) => ev('memory.contradiction', { persona: 'p', previous: 'x'.repeat(2000), current: 'y', id: `c${i}` }),
      (i: number) => ev('research.completed', { subProblemId: `sp${i}`, round: i, query: 'q', findings: `F${i}. `.repeat(500) }),
    ];
    const events = [problem, ...Array.from({ length: 1000 }, (_, i) => kinds[i % kinds.length]!(i))];
    const mem = applyEvents(emptyCaseMemory(), events, NOW);
    expect(mem.statement).toBe(problem.data.statement);
    expect(mem.entries).toHaveLength(MAX_ENTRIES);
    expect(mem.decisions).toHaveLength(MAX_DECISIONS);
    expect(mem.intents).toHaveLength(MAX_MESSAGES);
    expect(Object.keys(mem.subProblems).length).toBeLessThanOrEqual(10);
    expect(mem.contradictions.length).toBeLessThanOrEqual(MAX_CONTRADICTIONS);
    for (const e of mem.entries) expect(estimateTokens(e.text)).toBeLessThanOrEqual(e.kind === 'research' ? RESEARCH_TOKENS : ACTIVITY_TOKENS);
    for (const i of mem.intents) expect(estimateTokens(i.text)).toBeLessThanOrEqual(PERSON_TOKENS);
    expect(JSON.stringify(mem).length).toBeLessThan(60_000);
    const text = renderCaseMemory(mem);
    expect(estimateTokens(text)).toBeLessThanOrEqual(3000);
    expect(text).toContain(`Problem statement: ${problem.data.statement}`);
  });

  it('is deterministic, and folding in batches gives the same memory', () => {
    const events = [problem, round('sp1', 1, true), synthesis('sp1', 'Pivot'), intervene('Focus on cash'), contribution('maya', 'now cautious')];
    const a = applyEvents(emptyCaseMemory(), events, NOW);
    expect(applyEvents(emptyCaseMemory(), events, NOW)).toEqual(a);
    expect(applyEvents(applyEvents(emptyCaseMemory(), events.slice(0, 2), NOW), events.slice(2), NOW)).toEqual(a);
    expect(renderCaseMemory(a)).toBe(renderCaseMemory(structuredClone(a)));
  });

  it('reads a memory stored in the old shape', () => {
    const old = {
      entries: [
        { at: NOW, kind: 'problem', text: 'Problem: old' },
        { at: NOW, kind: 'assumption', text: 'Assumption: old' },
        { at: NOW, kind: 'vote', text: 'sp1 vote: option B' },
      ],
      decisions: [{ subProblemId: 'sp1', text: 'Do B', confidence: 0.5 }],
      intents: [{ at: NOW, text: 'Think about churn' }],
      contradictions: [],
      counters: { rounds: 3 },
    };
    const mem = normaliseCaseMemory(old);
    expect(mem.entries).toEqual([{ at: NOW, kind: 'vote', text: 'sp1 vote: option B' }]);
    expect(mem.intents).toEqual([{ at: NOW, kind: 'message', text: 'Think about churn' }]);
    expect(applyEvents(mem, [problem], NOW).statement).toBe(problem.data.statement);
    expect(normaliseCaseMemory({})).toEqual(emptyCaseMemory());
    expect(normaliseCaseMemory(null)).toEqual(emptyCaseMemory());
  });
});

describe('renderCaseMemory', () => {
  const session = (): CaseEvent[] => [
    answered,
    ev('decomposition.completed', { subProblems: [{ id: 'sp1', title: 'Segment' }] }),
    started('sp1', 1, 4),
    contribution('tom', 'now favours a pilot'),
    intervene('Keep the agencies as a fallback.'),
    research('sp1', 1),
    round('sp1', 4, true),
    synthesis('sp1', 'Pivot to law firms in two steps.', 0.82),
    ev('memory.contradiction', { persona: 'maya', previous: 'Commit', current: 'Defer', id: 'c1' }),
  ];

  it('renders the sections oldest first, the person words and the statement in full', () => {
    expect(render(session())).toBe(
      [
        '### Case so far',
        'Problem statement: Should I pivot my project management tool to serve only law firms?',
        'Assumptions the board made at intake (where what the person told the board says otherwise, the person is right; where a later fact in the ledger settles one otherwise, the fact stands):',
        '- Law firms keep paying 3x',
        '- Churn stays at 30%',
        'What the person told the board (oldest first):',
        '- Answered "What is your runway?": Nine months. We also owe $20K on a loan due in June.',
        '- Keep the agencies as a fallback.',
        'Decisions so far:',
        '- sp1 (confidence 0.82): Pivot to law firms in two steps.',
        'Sub-problems:',
        '- sp1 Segment: round 4 of at most 4, 1 contribution',
        'Open contradictions:',
        '- maya: earlier "Commit", now "Defer"',
        'Activity (oldest first, grouped by sub-problem):',
        '- [sp1 position] TOM changed position: now favours a pilot',
        '- [sp1 research] "Question 1?" Finding 1.',
        '- [sp1 round] Stopped after round 4: consensus (four of five agree)',
      ].join('\n'),
    );
  });

  it('over budget, leaves out the oldest activity first and says so, never the person words, statement or decisions', () => {
    const events = [...session(), ...Array.from({ length: 12 }, (_, i) => research('sp1', i + 2))];
    const full = render(events);
    const cap = estimateTokens(full) - 30;
    const text = render(events, cap);
    expect(estimateTokens(text)).toBeLessThanOrEqual(cap);
    for (const kept of ['Nine months. We also owe $20K on a loan due in June.', 'Keep the agencies as a fallback.', 'Pivot to law firms in two steps.', 'Should I pivot', 'Question 13?']) expect(text).toContain(kept);
    expect(text).not.toContain('TOM changed position');
    expect(text).toMatch(/Activity \(oldest first, grouped by sub-problem\):\n- \(\d+ earlier items left out to fit\)\n/);
  });

  it('orders concurrent sub-problems by id, not by commit order', () => {
    const sp1 = [started('sp1', 1), contribution('maya', 'moved', 'sp1'), research('sp1', 1), synthesis('sp1', 'Do A.')];
    const sp2 = [started('sp2', 1), contribution('tom', 'moved', 'sp2'), research('sp2', 2), synthesis('sp2', 'Do B.')];
    const interleaved = sp1.flatMap((e, i) => [sp2[i]!, e]);
    expect(render(interleaved)).toBe(render([...sp1, ...sp2]));
    expect(render(interleaved).indexOf('- sp1 (confidence')).toBeLessThan(render(interleaved).indexOf('- sp2 (confidence'));
  });

  it('is stable for an unchanged memory', () => {
    const mem = applyEvents(emptyCaseMemory(), session(), NOW);
    expect(renderCaseMemory(mem, 200)).toBe(renderCaseMemory(mem, 200));
    expect(renderCaseMemory(applyEvents(mem, [ev('usage.updated', { costUsd: 1 })], NOW))).toBe(renderCaseMemory(mem));
  });

  it('never exceeds the cap, for any size of memory and any budget', () => {
    const huge: CaseMemory = {
      statement: 'S'.repeat(1200),
      statementBy: 'board',
      assumptions: Array.from({ length: 100 }, (_, i) => `assumption ${i} `.repeat(40)),
      unansweredAtIntake: Array.from({ length: 3 }, (_, i) => `question ${i} `.repeat(40)),
      entries: Array.from({ length: 1000 }, (_, i) => ({ at: NOW, kind: 'research', text: `entry ${i} `.repeat(400), subProblemId: `sp${i % 7}` })),
      decisions: Array.from({ length: 1000 }, (_, i) => ({ subProblemId: `sp${i}`, text: `decision ${i} `.repeat(400), confidence: 0.5 })),
      intents: Array.from({ length: 1000 }, (_, i) => ({ at: NOW, kind: 'message' as const, text: `intent ${i} `.repeat(400) })),
      contradictions: Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, text: `c ${i} `.repeat(400), between: [], open: true })),
      subProblems: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`sp${i}`, { title: 't', round: 1, maxRounds: 3, contributions: 2, status: 'running' as const }])),
      facts: Array.from({ length: 1000 }, (_, i) => ({ id: `sp1.r1.f${i}`, subProblemId: 'sp1', round: 1, text: `fact ${i} `.repeat(40), kind: 'figure' as const, source: 'cfo' })),
      counters: {},
    };
    for (const cap of [0, 1, 2, 5, 10, 37, 100, 250, 499, 500, 2000, 3000, 10_000]) {
      const text = renderCaseMemory(huge, cap);
      expect(estimateTokens(text), `cap ${cap}`).toBeLessThanOrEqual(cap);
      if (text) expect(text).toContain('S'.repeat(1200));
    }
    expect(renderCaseMemory(huge, 3000)).toBe(renderCaseMemory(huge, 3000));
  });
});

describe('the interactive tech-debt trial, replayed into the case memory', () => {
  interface Envelope extends CaseEvent {
    seq: number;
    ts: string;
  }
  const log = JSON.parse(readFileSync(new URL('../fixtures/trials/tech-debt-interactive/events.json', import.meta.url), 'utf8')) as Envelope[];
  const resolved = log.filter((e) => e.type === 'checkpoint.resolved').map((e) => e.data);
  const answers = resolved.flatMap((d) => (d.action === 'answer' ? (d.answers as { answer: string }[]).map((a) => a.answer) : []));
  const interventions = resolved.filter((d) => d.action === 'intervene').map((d) => String(d.message));
  const stated = log.filter((e) => e.type === 'problem.stated').at(-1)!.data;
  /** Every prompt's memory: the state after each committed event, as the session saw it. */
  const states = log.map((_, i) => applyEvents(emptyCaseMemory(), log.slice(0, i + 1), NOW));
  const last = renderCaseMemory(states.at(-1)!);

  it('has what the test is about', () => {
    expect(answers).toHaveLength(3);
    expect(interventions).toHaveLength(3);
  });

  it('carries every answer and intervention in full, and the person rewrite as the statement', () => {
    for (const words of [...answers, ...interventions]) expect(last).toContain(words.replace(/\s+/g, ' ').trim());
    expect(last).toContain(`Problem statement (as the person rewrote it): ${String(stated.statement)}`);
  });

  it('lists no assumption twice and none of an answered question', () => {
    for (const state of states) {
      const text = renderCaseMemory(state);
      const bullets = text.split('\n').filter((l) => l.startsWith('- '));
      expect(new Set(bullets).size, text).toBe(bullets.length);
      for (const c of stated.clarifications as { assumption: string }[]) if (state.intents.length) expect(text).not.toContain(c.assumption);
    }
    for (const a of stated.assumptions as string[]) expect(last.split(a)).toHaveLength(2);
  });

  it('cuts no line mid-sentence, and keeps every decision whole', () => {
    for (const state of states) expect(cutLines(renderCaseMemory(state))).toEqual([]);
    for (const s of log.filter((e) => e.type === 'synthesis.completed')) expect(last).toContain(String((s.data.synthesis as { recommendation: string }).recommendation));
  });

  it('counts per sub-problem: a facilitator on sp1 round 3 reads sp1 round 3', () => {
    const sp1Round3 = log.findIndex((e) => e.type === 'round.completed' && e.data.subProblemId === 'sp1' && e.data.round === 3);
    expect(renderCaseMemory(states[sp1Round3]!)).toContain('- sp1 Minimum stabilization and security baseline: round 3 of at most 3, 11 contributions\n');
    expect(last).toContain(
      [
        'Sub-problems:',
        '- sp1 Minimum stabilization and security baseline: round 3 of at most 3, 11 contributions, completed',
        '- sp2 Sequencing features against debt paydown: round 3 of at most 3, 10 contributions, completed',
        '- sp3 Whether and how to use a contractor: round 3 of at most 3, 11 contributions, completed',
      ].join('\n'),
    );
  });

  it('fits the default cap at every step, oldest first', () => {
    for (const state of states) expect(estimateTokens(renderCaseMemory(state))).toBeLessThanOrEqual(3000);
    const at = (s: string) => last.indexOf(s);
    expect(at(answers[0]!.slice(0, 40))).toBeLessThan(at(interventions[0]!.slice(0, 40)));
    expect(at(interventions[0]!.slice(0, 40))).toBeLessThan(at(interventions[2]!.slice(0, 40)));
  });
});

describe('the fact ledger', () => {
  const facts = (subProblemId: string, round: number, ...texts: string[]) =>
    ev('facts.recorded', { subProblemId, round, facts: texts.map((text, i) => ({ id: `${subProblemId}.r${round}.f${i + 1}`, text, kind: 'figure', source: 'cfo' })) });

  it('folds each fact once, in the order established, with where it came from', () => {
    const once = applyEvents(emptyCaseMemory(), [facts('sp1', 1, 'Utilisation is 62%'), facts('sp2', 1, 'Contractor cost is $95/h')], NOW);
    const twice = applyEvents(once, [facts('sp1', 1, 'Utilisation is 62%')], NOW);
    expect(twice.facts).toEqual([
      { id: 'sp1.r1.f1', subProblemId: 'sp1', round: 1, text: 'Utilisation is 62%', kind: 'figure', source: 'cfo' },
      { id: 'sp2.r1.f1', subProblemId: 'sp2', round: 1, text: 'Contractor cost is $95/h', kind: 'figure', source: 'cfo' },
    ]);
    // Prompts get the ledger where they need it whole (the record, the final recommendation), not cut to the case memory's budget.
    expect(renderCaseMemory(twice)).not.toContain('Utilisation is 62%');
    expect(boardView(twice).facts).toHaveLength(2);
  });

  it('keeps a replaced fact out of the ledger as it stands, and names what was replaced on the fact that replaced it', () => {
    const revised = ev('facts.recorded', {
      subProblemId: 'sp2',
      round: 2,
      facts: [{ id: 'sp2.r2.f1', text: 'Utilisation is 71% (the person corrected it)', kind: 'figure', source: 'person', replaces: ['sp1.r1.f1'] }],
    });
    const m = applyEvents(emptyCaseMemory(), [facts('sp1', 1, 'Utilisation is 62%', 'Hiring takes 6 weeks'), revised], NOW);
    expect(m.facts.map((f) => f.id)).toEqual(['sp1.r1.f1', 'sp1.r1.f2', 'sp2.r2.f1']);
    const now = currentFacts(boardView(m).facts);
    expect(now.map((f) => f.id)).toEqual(['sp1.r1.f2', 'sp2.r2.f1']);
    expect(ledgerLine(now[1]!)).toBe('[sp2.r2.f1, sp2, figure, person] Utilisation is 71% (the person corrected it) (replaces sp1.r1.f1)');
  });

  it('gives the board record a frame that later activity does not change', () => {
    const stated = applyEvents(emptyCaseMemory(), [ev('problem.stated', { statement: 'Should we hire a contractor?', assumptions: ['Cash lasts 9 months'], answers: [{ id: 'q1', question: 'Utilisation?', answer: '62%' }] })], NOW);
    const later = applyEvents(stated, [facts('sp1', 1, 'x is 1'), ev('checkpoint.resolved', { kind: 'round_end', resolution: { action: 'intervene', message: 'Keep it cheap.' } })], NOW);
    expect(boardView(stated).frame).toContain('Problem statement: Should we hire a contractor?');
    expect(boardView(stated).frame).toContain('- Answered "Utilisation?": 62%');
    expect(boardView(later).frame).toBe(boardView(stated).frame);
  });

  it("lists the intake's unanswered clarifying questions beside the assumptions that stand in, and not the answered ones", () => {
    // A trial's experts asked again, in later sub-problems, two questions the intake had asked and nobody answered.
    const clarifications = [
      { question: 'Utilisation?', why: 'It sets the price.', assumption: 'About 70%.' },
      { question: 'How many firms ever cancelled?', why: 'It shows churn.', assumption: 'A few a year.' },
    ];
    const stated = applyEvents(
      emptyCaseMemory(),
      [ev('problem.stated', { statement: 'Should we hire a contractor?', clarifications, assumptions: ['A few a year.', 'Cash lasts 9 months'], answers: [{ id: 'q1', question: 'Utilisation?', answer: '62%' }] })],
      NOW,
    );
    expect(stated.unansweredAtIntake).toEqual(['How many firms ever cancelled?']);
    expect(boardView(stated).frame).toContain("Asked at intake and not answered (the assumptions above stand in; on the person's list already):\n- How many firms ever cancelled?");
    // A memory stored before the field existed reads as having none.
    const { unansweredAtIntake: _gone, ...old } = stated;
    expect(normaliseCaseMemory(JSON.parse(JSON.stringify(old))).unansweredAtIntake).toEqual([]);
  });
});
