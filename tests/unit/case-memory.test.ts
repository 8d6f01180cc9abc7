import { describe, expect, it } from 'vitest';
import {
  applyEvents,
  emptyCaseMemory,
  MAX_CONTRADICTIONS,
  MAX_DECISIONS,
  MAX_ENTRIES,
  MAX_INTENTS,
  renderCaseMemory,
  type CaseEvent,
  type CaseMemory,
} from '../../src/memory/case-memory';
import { estimateTokens } from '../../src/memory/tokens';

const NOW = '2025-01-02T03:04:05.000Z';
const ev = (type: string, data: Record<string, unknown>): CaseEvent => ({ type, data });

const problem = ev('problem.stated', {
  statement: 'Should I pivot my project management tool to serve only law firms?',
  clarifications: [{ question: 'What is your runway?', why: 'Sets the risk budget', assumption: 'About 12 months of runway' }],
  assumptions: ['Law firms keep paying 3x', 'Churn stays at 30%'],
  domains: ['strategy'],
  category: 'strategy',
  vague: false,
  safety: { allowed: true, reason: '' },
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
const contribution = (persona: string, positionChanged?: string) =>
  ev('contribution.completed', {
    subProblemId: 'sp1',
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

describe('applyEvents', () => {
  it('starts empty and renders nothing', () => {
    expect(emptyCaseMemory()).toEqual({ entries: [], decisions: [], intents: [], contradictions: [], counters: {} });
    expect(renderCaseMemory(emptyCaseMemory())).toBe('');
  });

  it('records the problem and every assumption as entries, stamped with now', () => {
    const mem = applyEvents(emptyCaseMemory(), [problem], NOW);
    expect(mem.entries.map((e) => e.kind)).toEqual(['problem', 'assumption', 'assumption', 'assumption']);
    expect(mem.entries[0]).toEqual({ at: NOW, kind: 'problem', text: 'Problem: Should I pivot my project management tool to serve only law firms?' });
    expect(mem.entries.map((e) => e.text)).toContain('Assumption: Churn stays at 30%');
    expect(mem.entries.map((e) => e.text)).toContain('Assumption (unanswered question): About 12 months of runway');
  });

  it('uses the event timestamp when it has one (replaying a log is deterministic)', () => {
    const mem = applyEvents(emptyCaseMemory(), [{ ...problem, ts: '2024-12-31T00:00:00.000Z' }], NOW);
    expect(mem.entries.every((e) => e.at === '2024-12-31T00:00:00.000Z')).toBe(true);
  });

  it('summarises clarifications, decomposition, board, votes and the final recommendation', () => {
    const mem = applyEvents(
      emptyCaseMemory(),
      [
        ev('clarification.requested', { questions: [{ id: 'q1', question: 'What is your runway?', why: 'x' }], mode: 'ask' }),
        ev('decomposition.completed', {
          subProblems: [
            { id: 'sp1', title: 'Segment economics' },
            { id: 'sp2', title: 'Migration plan' },
          ],
        }),
        ev('board.assembled', { members: [{ code: 'maya', name: 'Maya Okafor', title: 'CFO' }], panels: {}, picks: {} }),
        ev('vote.completed', {
          subProblemId: 'sp1',
          tally: { mechanism: 'supermajority', winner: 'B', tie: [], consensus: 0.8, deferred: false },
          reversibility: 'one_way',
        }),
        ev('vote.completed', {
          subProblemId: 'sp2',
          tally: { mechanism: 'simple_majority', winner: null, tie: ['A', 'C'], consensus: 0.4, deferred: true },
          reversibility: 'two_way',
        }),
        ev('recommendation.completed', { summary: 'Pivot to law firms in two steps.', confidence: 'medium' }),
      ],
      NOW,
    );
    expect(mem.entries.map((e) => e.text)).toEqual([
      'Asked 1 clarifying question(s): What is your runway?',
      'Decomposed into 2 sub-problem(s): sp1 Segment economics; sp2 Migration plan',
      'Board: Maya Okafor (CFO)',
      'sp1 vote: option B (80% consensus, supermajority)',
      'sp2 vote: tie between A, C (40% consensus, simple_majority, deferred)',
      'Final recommendation (medium confidence): Pivot to law firms in two steps.',
    ]);
  });

  it('counts rounds and adds an entry only when the round stops', () => {
    const mem = applyEvents(emptyCaseMemory(), [round('sp1', 1), round('sp1', 2), round('sp1', 3, true)], NOW);
    expect(mem.counters.rounds).toBe(3);
    expect(mem.entries).toEqual([{ at: NOW, kind: 'round', text: 'sp1 stopped after round 3: consensus — four of five agree' }]);
  });

  it('keeps moderator, research and redirect/deadlock facilitator messages, not summaries or invites', () => {
    const mem = applyEvents(
      emptyCaseMemory(),
      [
        ev('moderator.intervened', { subProblemId: 'sp1', round: 2, moderator: 'contrarian', text: 'What if law firms churn?' }),
        ev('research.completed', { subProblemId: 'sp1', round: 2, query: 'law firm churn', findings: 'Typically low.', source: 'model_knowledge', confidence: 0.6 }),
        ev('facilitator.message', { subProblemId: 'sp1', round: 3, kind: 'summary', text: 'We discussed.' }),
        ev('facilitator.message', { subProblemId: 'sp1', round: 3, kind: 'invite', text: 'Maya?' }),
        ev('facilitator.message', { subProblemId: 'sp1', round: 3, kind: 'redirect', text: 'Back to pricing.' }),
        ev('facilitator.message', { subProblemId: 'sp1', round: 4, kind: 'deadlock', text: 'Two camps.' }),
      ],
      NOW,
    );
    expect(mem.entries.map((e) => e.kind)).toEqual(['moderator', 'research', 'facilitator', 'facilitator']);
    expect(mem.entries[2]!.text).toBe('sp1 facilitator redirect: Back to pricing.');
  });

  it('counts contributions per persona; a position change is an entry', () => {
    const mem = applyEvents(emptyCaseMemory(), [contribution('maya'), contribution('maya'), contribution('tom', ''), contribution('tom', 'now favours deferring')], NOW);
    expect(mem.counters).toEqual({ contributions: 4, 'contributions:maya': 2, 'contributions:tom': 2 });
    expect(mem.entries).toEqual([{ at: NOW, kind: 'position', text: 'TOM changed position: now favours deferring' }]);
  });

  it('turns syntheses into decisions, one per sub-problem, the last ten', () => {
    let mem = applyEvents(emptyCaseMemory(), [synthesis('sp1', 'Pivot to law firms'), synthesis('sp1', 'Pivot to law firms, in two steps', 0.9)], NOW);
    expect(mem.decisions).toEqual([{ subProblemId: 'sp1', text: 'Pivot to law firms, in two steps', confidence: 0.9 }]);
    mem = applyEvents(mem, Array.from({ length: 12 }, (_, i) => synthesis(`sp${i + 2}`, `Decision number ${i + 2}`, 2)), NOW);
    expect(mem.decisions).toHaveLength(MAX_DECISIONS);
    expect(mem.decisions[0]!.subProblemId).toBe('sp4');
    expect(mem.decisions.at(-1)).toEqual({ subProblemId: 'sp13', text: 'Decision number 13', confidence: 1 });
  });

  it('keeps the last five user intents, only from interventions with a message', () => {
    const events = [
      ev('checkpoint.resolved', { checkpointId: 'c0', action: 'continue' }),
      ev('checkpoint.resolved', { checkpointId: 'c0', action: 'intervene' }),
      ...Array.from({ length: 7 }, (_, i) => intervene(`Focus on cash, take ${i + 1}`)),
    ];
    const mem = applyEvents(emptyCaseMemory(), events, NOW);
    expect(mem.intents).toHaveLength(MAX_INTENTS);
    expect(mem.intents.map((i) => i.text)).toEqual([3, 4, 5, 6, 7].map((n) => `Focus on cash, take ${n}`));
    expect(mem.counters.interventions).toBe(7);
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
    events.push(ev('memory.contradiction_resolved', { id: 'c14' }));
    events.push(ev('memory.contradiction', { persona: 'p', previous: 'a', current: 'b', id: 'c15' }));
    const mem = applyEvents(emptyCaseMemory(), events, NOW);
    expect(mem.contradictions).toHaveLength(MAX_CONTRADICTIONS);
    expect(mem.contradictions.some((c) => c.id === 'c14')).toBe(false);
    expect(mem.contradictions.at(-1)!.id).toBe('c15');
  });

  it('ignores unknown event types and malformed data', () => {
    const mem = applyEvents(
      emptyCaseMemory(),
      [ev('usage.updated', { costUsd: 1 }), ev('something.new', {}), ev('synthesis.completed', {}), ev('vote.completed', { tally: 'x' })],
      NOW,
    );
    expect(mem.decisions).toEqual([]);
    expect(mem.entries).toEqual([{ at: NOW, kind: 'vote', text: 'vote: no winner' }]);
  });

  it('does not touch its input', () => {
    const before = applyEvents(emptyCaseMemory(), [problem, synthesis('sp1', 'Pivot now'), intervene('Be careful')], NOW);
    const snapshot = structuredClone(before);
    applyEvents(before, [problem, synthesis('sp1', 'Defer'), intervene('Faster'), ev('memory.contradiction', { id: 'x', persona: 'p' })], NOW);
    expect(before).toEqual(snapshot);
  });

  it('holds every bound after 1,000 mixed events', () => {
    const kinds = [
      () => problem,
      () => round('sp1', 1, true),
      () => contribution('maya', 'changed again'),
      (i: number) => synthesis(`sp${i}`, `Decision ${i} `.repeat(50)),
      (i: number) => intervene(`Intent ${i} `.repeat(100)),
      (i: number) => ev('memory.contradiction', { persona: 'p', previous: 'x'.repeat(2000), current: 'y', id: `c${i}` }),
      (i: number) => ev('research.completed', { subProblemId: 'sp1', round: 1, query: 'q', findings: `F${i} `.repeat(500) }),
    ];
    const events = Array.from({ length: 1000 }, (_, i) => kinds[i % kinds.length]!(i));
    const mem = applyEvents(emptyCaseMemory(), events, NOW);
    expect(mem.entries.length).toBeLessThanOrEqual(MAX_ENTRIES);
    expect(mem.entries).toHaveLength(MAX_ENTRIES);
    expect(mem.decisions).toHaveLength(MAX_DECISIONS);
    expect(mem.intents).toHaveLength(MAX_INTENTS);
    expect(mem.contradictions.length).toBeLessThanOrEqual(MAX_CONTRADICTIONS);
    // Every stored text is clipped, so the memory itself stays small, not only its rendering.
    for (const e of mem.entries) expect(estimateTokens(e.text)).toBeLessThanOrEqual(40);
    for (const i of mem.intents) expect(estimateTokens(i.text)).toBeLessThanOrEqual(50);
    expect(JSON.stringify(mem).length).toBeLessThan(20_000);
    expect(estimateTokens(renderCaseMemory(mem))).toBeLessThanOrEqual(500);
  });

  it('is deterministic', () => {
    const events = [problem, round('sp1', 1, true), synthesis('sp1', 'Pivot'), intervene('Focus on cash'), contribution('maya', 'now cautious')];
    const a = applyEvents(emptyCaseMemory(), events, NOW);
    const b = applyEvents(emptyCaseMemory(), events, NOW);
    expect(a).toEqual(b);
    expect(renderCaseMemory(a)).toBe(renderCaseMemory(b));
    // Folding in two batches gives the same memory as one.
    expect(applyEvents(applyEvents(emptyCaseMemory(), events.slice(0, 2), NOW), events.slice(2), NOW)).toEqual(a);
  });
});

describe('renderCaseMemory', () => {
  const full = (): CaseMemory =>
    applyEvents(
      emptyCaseMemory(),
      [
        problem,
        round('sp1', 4, true),
        synthesis('sp1', 'Pivot to law firms in two steps', 0.82),
        intervene('Keep the agencies as a fallback'),
        ev('memory.contradiction', { persona: 'maya', previous: 'Commit', current: 'Defer', id: 'c1' }),
        contribution('tom', 'now favours a pilot'),
      ],
      NOW,
    );

  it('renders the sections in order, newest first', () => {
    expect(renderCaseMemory(full())).toBe(
      [
        '### Case so far (contradictions 1, contributions 1, interventions 1, rounds 1)',
        'Decisions:',
        '- sp1 (confidence 0.82): Pivot to law firms in two steps',
        'Open contradictions:',
        '- maya: earlier "Commit", now "Defer"',
        'User intents (newest first):',
        '- Keep the agencies as a fallback',
        'Recent (newest first):',
        '- [position] TOM changed position: now favours a pilot',
        '- [round] sp1 stopped after round 4: consensus — four of five agree',
        '- [assumption] Assumption (unanswered question): About 12 months of runway',
        '- [assumption] Assumption: Churn stays at 30%',
        '- [assumption] Assumption: Law firms keep paying 3x',
        '- [problem] Problem: Should I pivot my project management tool to serve only law firms?',
      ].join('\n'),
    );
  });

  it('drops the oldest entries first when the budget is tight', () => {
    const text = renderCaseMemory(full(), 120);
    expect(estimateTokens(text)).toBeLessThanOrEqual(120);
    expect(text).toContain('Pivot to law firms in two steps');
    expect(text).toContain('TOM changed position');
    expect(text).not.toContain('[problem]');
  });

  it('never exceeds the cap, for any size of memory and any budget', () => {
    const huge: CaseMemory = {
      entries: Array.from({ length: 1000 }, (_, i) => ({ at: NOW, kind: 'research', text: `entry ${i} `.repeat(400) })),
      decisions: Array.from({ length: 1000 }, (_, i) => ({ subProblemId: `sp${i}`, text: `decision ${i} `.repeat(400), confidence: 0.5 })),
      intents: Array.from({ length: 1000 }, (_, i) => ({ at: NOW, text: `intent\n${i} `.repeat(400) })),
      contradictions: Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, text: `c ${i} `.repeat(400), between: [], open: true })),
      counters: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`counter${i}`, i + 1])),
    };
    for (const cap of [0, 1, 2, 5, 10, 37, 100, 250, 499, 500, 2000]) {
      const text = renderCaseMemory(huge, cap);
      expect(estimateTokens(text), `cap ${cap}`).toBeLessThanOrEqual(cap);
    }
    expect(estimateTokens(renderCaseMemory(huge))).toBeLessThanOrEqual(500);
    expect(renderCaseMemory(huge)).toBe(renderCaseMemory(huge));
  });

  it('stays under 500 tokens at every step of a long session', () => {
    let mem = emptyCaseMemory();
    for (let i = 0; i < 200; i++) {
      mem = applyEvents(mem, [contribution('maya', `position ${i} `.repeat(30)), synthesis(`sp${i % 15}`, `Recommendation ${i} `.repeat(30)), intervene(`ask ${i}`)], NOW);
      expect(estimateTokens(renderCaseMemory(mem))).toBeLessThanOrEqual(500);
    }
  });
});
