import { describe, expect, it } from 'vitest';
import { aggregate } from '../../src/domain/aggregation';
import { commitmentStatement, commitmentTriggers, qualityReport } from '../../src/domain/commitment';
import type { Tally } from '../../src/domain/model';
import { dissentersOf } from '../../src/app/engine/synthesis';
import { personaByCode } from '../../src/domain/personas';
import { DEFAULT_ENGINE_SETTINGS as S } from '../../src/domain/settings';

const v = (persona: string, optionId: string, confidence = 0.8, strongObjection: string | null = null) => ({ persona, optionId, confidence, strongObjection });
const tallyOf = (votes: ReturnType<typeof v>[], reversibility: 'one_way' | 'two_way' = 'two_way', ids = ['A', 'B', 'C']): Tally =>
  aggregate(votes, ids, reversibility, S);
const triggers = (votes: ReturnType<typeof v>[], reversibility: 'one_way' | 'two_way' = 'two_way', settings = S) =>
  commitmentTriggers({ tally: tallyOf(votes, reversibility), votes, reversibility }, settings);

describe('commitmentTriggers', () => {
  it('is empty for strong consensus on a two-way door', () => {
    expect(triggers([v('a', 'A'), v('b', 'A'), v('c', 'A'), v('d', 'A')])).toEqual([]);
    // One dissenter of four (25%) is below the 30% threshold.
    expect(triggers([v('a', 'A'), v('b', 'A'), v('c', 'A'), v('d', 'B')])).toEqual([]);
  });

  it('fires on dissent at the threshold alone (4 vs 2 = 33%), not just below it', () => {
    const t = triggers([v('a', 'A'), v('b', 'A'), v('c', 'A'), v('d', 'A'), v('e', 'B'), v('f', 'B')]);
    expect(t).toHaveLength(1);
    expect(t[0]).toMatch(/2 of 6 experts \(33%\) did not vote for option A/);
    expect(t[0]).toMatch(/30% dissent threshold/);
    // Exactly at the setting: 3 of 10 = 30% fires.
    const ten = [...'abcdefg'].map((p) => v(p, 'A')).concat([v('h', 'B'), v('i', 'B'), v('j', 'C')]);
    expect(triggers(ten)).toHaveLength(1);
    expect(triggers(ten, 'two_way', { ...S, commitment: { ...S.commitment, dissentShareAtLeast: 0.31 } })).toEqual([]);
  });

  it('fires on low mean confidence alone when someone dissented; a unanimous board never disagrees', () => {
    const t = triggers([v('a', 'A', 0.6), v('b', 'A', 0.6), v('c', 'A', 0.6), v('d', 'B', 0.6)]);
    expect(t).toEqual(["The experts' mean confidence is 0.60, below 0.65."]);
    expect(triggers([v('a', 'A', 0.65), v('b', 'A', 0.65), v('c', 'A', 0.65), v('d', 'B', 0.65)])).toEqual([]);
    expect(triggers([v('a', 'A', 0.3), v('b', 'A', 0.3), v('c', 'A', 0.3, 'Option B burns the runway.')], 'one_way')).toEqual([]);
  });

  it('fires on a one-way door with any dissent alone', () => {
    const votes = [v('a', 'A'), v('b', 'A'), v('c', 'A'), v('d', 'A'), v('e', 'B')];
    expect(triggers(votes, 'two_way')).toEqual([]);
    const t = triggers(votes, 'one_way');
    expect(t).toHaveLength(1);
    expect(t[0]).toMatch(/one-way door and 1 expert dissented \(e\)/);
    expect(triggers([v('a', 'A'), v('b', 'A')], 'one_way')).toEqual([]);
  });

  it("fires on a dissenter's strong objection alone, ignoring blank ones and objections to losing options", () => {
    const t = triggers([v('a', 'A'), v('b', 'A'), v('c', 'A'), v('d', 'B', 0.8, 'Option A burns the runway.')]);
    expect(t).toEqual(['Strong objections were raised: d: Option A burns the runway.']);
    expect(triggers([v('a', 'A'), v('b', 'A'), v('c', 'A'), v('d', 'B', 0.8, '   ')])).toEqual([]);
    // Who voted for the winner objected to another option: that is no dissent.
    expect(triggers([v('a', 'A'), v('b', 'A'), v('c', 'A', 0.8, 'Option B burns the runway.'), v('d', 'B')])).toEqual([]);
  });

  it('with no winner (a tie, a deferral) there is nothing to commit to', () => {
    const votes = [v('a', 'A'), v('b', 'A'), v('c', 'B'), v('d', 'B')];
    expect(tallyOf(votes).winner).toBeNull();
    expect(triggers(votes)).toEqual([]);
    const deferredVotes = [v('a', 'A'), v('b', 'A'), v('c', 'B')];
    expect(tallyOf(deferredVotes, 'one_way').deferred).toBe(true);
    expect(triggers(deferredVotes, 'one_way')).toEqual([]);
  });

  it('lists every trigger that applies, one reason each', () => {
    // Two-way: dissent share, confidence and a dissenter's objection.
    const split = [v('a', 'A', 0.5), v('b', 'A', 0.5), v('c', 'A', 0.5), v('d', 'A', 0.5), v('e', 'B', 0.5, 'Too risky'), v('f', 'B', 0.5)];
    expect(triggers(split)).toHaveLength(3);
    // One-way: a winner needs 75%, so dissent stays under 30%; the door, confidence and the objection fire.
    const door = [v('a', 'A', 0.5), v('b', 'A', 0.5), v('c', 'A', 0.5), v('e', 'B', 0.5, 'Too risky')];
    expect(tallyOf(door, 'one_way').winner).toBe('A');
    expect(triggers(door, 'one_way')).toHaveLength(3);
  });

  it('treats no votes as no consensus', () => {
    expect(triggers([])).toHaveLength(1);
  });
});

describe('commitmentStatement', () => {
  it('uses the spec wording for a triggered commitment', () => {
    const s = commitmentStatement({
      decision: 'Launch the $29 tier',
      dissenters: [
        { name: 'Maria', concern: 'pricing too low for the value delivered' },
        { name: 'Zara', concern: 'pricing too low for the value delivered.' },
      ],
      rationale: 'It tests willingness to pay at the lowest risk.',
      triggered: true,
      confidence: 0.6,
    });
    expect(s).toBe(
      'The board has decided: launch the $29 tier. We acknowledge Maria and Zara had reservations about pricing too low for the value delivered. ' +
        'Despite this dissent, we commit to launch the $29 tier because: it tests willingness to pay at the lowest risk. ' +
        'This decision is final for this sub-problem; the checks and conditions it sets still apply. We disagree and commit.',
    );
  });

  it('keeps each dissenter’s distinct concern and quotes whole-sentence concerns', () => {
    const s = commitmentStatement({
      decision: 'Plan A',
      dissenters: [
        { name: 'Ana', concern: 'churn' },
        { name: 'Ben', concern: 'The market is too small.' },
        { name: 'Cy', concern: 'churn' },
      ],
      rationale: 'Plan A keeps options open',
      triggered: true,
      confidence: 0.7,
    });
    expect(s).toContain('We acknowledge Ana and Cy had reservations about churn, and Ben had reservations ("the market is too small").');
    expect(s).toContain('we commit to Plan A because: Plan A keeps options open.');
    expect(s.endsWith('We disagree and commit.')).toBe(true);
  });

  it('acknowledges uncertainty when triggered without dissenters', () => {
    const s = commitmentStatement({ decision: 'Plan B', dissenters: [], rationale: 'it is cheap to reverse', triggered: true, confidence: 0.55 });
    expect(s).toContain("We acknowledge the board's confidence in this decision is limited (0.55).");
    expect(s).toContain('Despite this uncertainty, we commit to Plan B because: it is cheap to reverse.');
  });

  it('is the one-line recommendation when not triggered, confidence to two decimals', () => {
    expect(commitmentStatement({ decision: 'Plan A', dissenters: [], rationale: 'x', triggered: false, confidence: 0.85 })).toBe(
      'The board recommends Plan A with high confidence (0.85).',
    );
    expect(commitmentStatement({ decision: 'Plan A', dissenters: [], rationale: 'x', triggered: false, confidence: 0.8 })).toMatch(/\(0\.80\)\.$/);
    expect(commitmentStatement({ decision: 'Plan A', dissenters: [], rationale: 'x', triggered: false, confidence: 0.6 })).toMatch(/moderate confidence \(0\.60\)/);
  });
});

describe('qualityReport', () => {
  const base = {
    roundsUsed: 4,
    maxRounds: 7,
    elapsedMs: 95_000,
    stopReason: 'consensus',
    consensus: 0.75,
    meanConfidence: 0.78,
    meanRelevance: 8.26,
    researchUsed: 1,
    interventions: [{ kind: 'contrarian', round: 2 }],
    deadlocksResolved: 0,
    redirects: 1,
    costUsd: 0.42,
  };
  it('keeps every input and derives early stop and drift', () => {
    const q = qualityReport(base);
    expect(q).toMatchObject({ ...base, earlyStop: true, drift: 1.7 });
  });
  it('counts consensus and diminishing returns as early stops, nothing else', () => {
    expect(qualityReport({ ...base, stopReason: 'diminishing_returns' }).earlyStop).toBe(true);
    for (const r of ['max_rounds', 'time_limit', 'budget', 'deadlock']) expect(qualityReport({ ...base, stopReason: r }).earlyStop).toBe(false);
  });
  it('drift is 0 on topic and 10 entirely off topic', () => {
    expect(qualityReport({ ...base, meanRelevance: 10 }).drift).toBe(0);
    expect(qualityReport({ ...base, meanRelevance: 0 }).drift).toBe(10);
  });
});

describe('who dissents, and with what', () => {
  it("quotes each dissenter's reason for their own vote, never a strong objection aimed at a third option", () => {
    // The pricing trial: an expert who preferred B strongly objected to C, and that objection was printed as his reservation about A.
    const votes = [
      { persona: 'pricing_strategist', optionId: 'A', rationale: 'A tests the price with real money. It is reversible.' },
      { persona: 'financial_analyst', optionId: 'B', rationale: 'B brings cash in sooner, which the runway needs. The rest follows.', strongObjection: 'C: a $29 tier now needs 69-104 payers.' },
    ];
    expect(dissentersOf(votes, 'A')).toEqual([{ name: personaByCode('financial_analyst')!.name, concern: 'B brings cash in sooner, which the runway needs.' }]);
    // With no winner (a tie or a deferral) everyone is listed with their reason.
    expect(dissentersOf(votes, null).map((d) => d.concern)).toEqual(['A tests the price with real money.', 'B brings cash in sooner, which the runway needs.']);
  });
});
