import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../web/src/events';
import { decisionText, SessionModel } from '../../web/src/session-model';

/** Recorded sessions (model-written, tests/fixtures/trials): what the viewer folds. */
const trial = (name: string): Envelope[] => JSON.parse(readFileSync(new URL(`../fixtures/trials/${name}/events.json`, import.meta.url), 'utf8'));
const fold = (events: Envelope[]) => {
  const m = new SessionModel();
  for (const e of events) m.apply(e);
  return m;
};
const ofType = (events: Envelope[], type: string) => events.filter((e) => e.type === type);

describe("the viewer's session model", () => {
  it('folds a whole automatic session: a panel per sub-problem with its rounds, speakers, metrics, votes, calibration, tally and synthesis', () => {
    const events = trial('cofounder-auto');
    const m = fold(events);
    expect(m.status).toBe('completed');
    expect(m.lastSeq).toBe(events.length);
    expect(m.subProblems.map((s) => s.id)).toEqual(ofType(events, 'decomposition.completed')[0]!.data.order);
    for (const sp of m.subProblems) {
      expect(sp.stage).toBe('done');
      expect(sp.rounds.map((r) => r.round)).toEqual(ofType(events, 'round.started').filter((e) => e.data.subProblemId === sp.id).map((e) => e.data.round));
      expect(sp.rounds.every((r) => r.metrics && r.stop)).toBe(true);
      expect(sp.votes).toHaveLength(ofType(events, 'vote.cast').filter((e) => e.data.subProblemId === sp.id).length);
      expect(sp.tally).toBeDefined();
      expect(sp.synthesis).toBeDefined();
    }
    // Every contribution, research finding and facilitator message sits in its round, once.
    const said = m.subProblems.flatMap((s) => s.rounds.flatMap((r) => r.utterances.map((u) => u.seq)));
    const expected = events.filter((e) => ['contribution.completed', 'research.completed', 'facilitator.message'].includes(e.type)).map((e) => e.seq);
    expect([...said].sort((a, b) => a - b)).toEqual(expected);
    // Speakers by their board names; calibrated confidences on their votes.
    const first = ofType(events, 'contribution.completed')[0]!;
    expect(m.subProblem(first.data.subProblemId)!.rounds[0]!.utterances.find((u) => u.seq === first.seq)!.speaker).toBe(first.data.name);
    const calibration = ofType(events, 'votes.calibrated')[0]!.data;
    const change = calibration.changes[0];
    expect(m.subProblem(calibration.subProblemId)!.votes.find((v) => v.persona === change.persona)!.calibrated).toBe(change.after);
    expect(m.recommendation?.summary).toBe(ofType(events, 'recommendation.completed')[0]!.data.summary);
    // What has no dedicated place is kept, generically: memory injections in their sub-problem, the rest at session level.
    const placedElsewhere = [...m.other, ...m.subProblems.flatMap((s) => s.other)].map((e) => e.type).sort();
    expect(placedElsewhere).toEqual(['expert_memory.injected', 'expert_memory.injected', 'lessons.extracted', 'memory.contributed']);
  });

  it('applies each seq once: a replay or a reconnect overlap changes nothing', () => {
    const events = trial('cofounder-auto');
    const once = fold(events);
    const twice = new SessionModel();
    const applied = [...events.slice(0, 40), ...events.slice(20, 70), ...events, ...events.slice(90)].map((e) => twice.apply(e));
    expect(applied.filter(Boolean)).toHaveLength(events.length);
    expect(twice.seen.size).toBe(events.length);
    expect(JSON.stringify(twice.subProblems)).toBe(JSON.stringify(once.subProblems));
    expect(twice.decisions).toEqual(once.decisions);
  });

  it('tracks the pending checkpoint and every decision of an interactive session', () => {
    const events = trial('tech-debt-interactive');
    const requested = ofType(events, 'checkpoint.requested');
    expect(requested.length).toBeGreaterThan(0);
    const m = new SessionModel();
    for (const e of events) {
      m.apply(e);
      if (e.type === 'checkpoint.requested') {
        expect(m.status).toBe('awaiting_input');
        expect(m.checkpoint).toMatchObject({ checkpointId: e.data.checkpointId, kind: e.data.kind, actions: e.data.actions });
      }
      if (e.type === 'checkpoint.resolved') expect(m.checkpoint).toBeNull();
    }
    expect(m.decisions.map((d) => d.kind)).toEqual(ofType(events, 'checkpoint.resolved').map((e) => e.data.kind));
  });

  it("places a straw vote and the fact ledger in their sub-problem, keeps what the debate changed and unknown event types, and says what the person decided", () => {
    const events = trial('cofounder-auto').slice(0, 10);
    const sp = events.find((e) => e.type === 'subproblem.started')!.data.subProblemId;
    const last = events.at(-1)!.seq;
    const at = (seq: number, type: string, data: Record<string, unknown>): Envelope => ({ seq, type, data, session_id: events[0]!.session_id, ts: events[0]!.ts });
    const round = events.find((e) => e.type === 'round.started')!.data.round;
    const m = fold([
      ...events,
      at(last + 1, 'vote.straw', { subProblemId: sp, votes: [{ persona: 'a', optionId: 'A', confidence: 0.7 }] }),
      at(last + 2, 'something.new', { x: 1 }),
      at(last + 3, 'facts.recorded', { subProblemId: sp, round, facts: [{ id: 'f1', text: 'Churn is 30%', kind: 'figure', source: 'person' }] }),
      at(last + 4, 'vote.completed', { subProblemId: sp, tally: { winner: 'A' }, reversibility: 'two_way', debateEffect: { changedOutcome: false, positionChanges: [] } }),
    ]);
    expect(m.subProblem(sp)!.straw.map((e) => e.seq)).toEqual([last + 1]);
    expect(m.other.map((e) => e.type)).toEqual(['something.new']);
    // The fact ledger's entries are said in their round; the vote keeps what the debate changed.
    expect(m.subProblem(sp)!.rounds.at(-1)!.utterances.at(-1)).toMatchObject({ seq: last + 3, kind: 'facts', text: 'Churn is 30% (figure, person)' });
    expect(m.subProblem(sp)!.debateEffect).toEqual({ changedOutcome: false, positionChanges: [] });
    expect(decisionText({ action: 'intervene', by: 'client', message: 'What about runway?' })).toBe('What about runway?');
    expect(decisionText({ action: 'continue', by: 'expiry' })).toMatch(/Nobody answered in time/);
    expect(decisionText({ action: 'answer', by: 'client', answers: [{ question: 'Budget?', answer: '$40k' }] })).toBe('Budget? — $40k');
  });
});
