import { describe, expect, it } from 'vitest';
import { selectBoard } from '../../src/domain/board';
import { convergence, novelty, selectSpeakers, stopDecision, type Turn } from '../../src/domain/debate';
import { PERSONAS } from '../../src/domain/personas';
import { dependencyOrder, roundCap } from '../../src/domain/schedule';
import { simpleMajority } from '../../src/domain/voting';

describe('roundCap', () => {
  it('maps complexity to the spec caps and never exceeds the hard cap', () => {
    expect([1, 3, 4, 6, 7, 10].map((c) => roundCap(c))).toEqual([5, 5, 7, 7, 10, 10]);
    expect(roundCap(10, 8)).toBe(8);
  });
});

describe('dependencyOrder', () => {
  it('puts dependencies first, keeping declaration order among independent sub-problems', () => {
    const r = dependencyOrder([
      { id: 'sp1', dependsOn: ['sp3'] },
      { id: 'sp2', dependsOn: [] },
      { id: 'sp3', dependsOn: [] },
    ]);
    expect(r.order).toEqual(['sp2', 'sp3', 'sp1']);
    expect(r.broken).toEqual([]);
  });
  it('breaks a cycle and records the break', () => {
    const r = dependencyOrder([
      { id: 'sp1', dependsOn: ['sp2'] },
      { id: 'sp2', dependsOn: ['sp1'] },
    ]);
    expect(r.order).toHaveLength(2);
    expect(r.broken).toEqual([{ from: 'sp1', to: 'sp2', why: 'cycle' }]);
  });
  it('drops unknown and self dependencies with a reason', () => {
    const r = dependencyOrder([{ id: 'sp1', dependsOn: ['sp1', 'sp9'] }]);
    expect(r.order).toEqual(['sp1']);
    expect(r.broken.map((b) => b.why)).toEqual(['self', 'unknown']);
  });
});

describe('selectBoard', () => {
  it('picks the requested size, covering the needed domains, with a rationale per pick', () => {
    const seats = selectBoard([...PERSONAS], ['finance', 'technical', 'market'], 4);
    expect(seats).toHaveLength(4);
    expect(new Set(seats.map((s) => s.code)).size).toBe(4);
    const domains = new Set(seats.flatMap((s) => PERSONAS.find((p) => p.code === s.code)!.domains));
    for (const d of ['finance', 'technical', 'market']) expect(domains.has(d)).toBe(true);
    for (const s of seats) expect(s.rationale).toMatch(/risk tolerance/);
  });
  it('mixes risk tolerance and outlook', () => {
    const seats = selectBoard([...PERSONAS], ['strategy'], 4).map((s) => PERSONAS.find((p) => p.code === s.code)!);
    expect(new Set(seats.map((p) => p.riskTolerance)).size).toBeGreaterThan(1);
    expect(new Set(seats.map((p) => p.optimism)).size).toBeGreaterThan(1);
  });
  it('is deterministic', () => {
    expect(selectBoard([...PERSONAS], ['people'], 3)).toEqual(selectBoard([...PERSONAS], ['people'], 3));
  });
});

describe('selectSpeakers', () => {
  const panel = ['a', 'b', 'c', 'd'];
  it('lets everyone open', () => expect(selectSpeakers(1, panel, [])).toEqual(panel));
  it('prefers the least-spoken and never repeats the last speaker first', () => {
    const history: Turn[] = [
      ...panel.map((p) => ({ round: 1, persona: p, text: 'x' })),
      { round: 2, persona: 'a', text: 'x' },
      { round: 2, persona: 'b', text: 'x' },
    ];
    const picked = selectSpeakers(3, panel, history, 3);
    expect(picked.slice(0, 2).sort()).toEqual(['c', 'd']);
    expect(picked[0]).not.toBe('b');
  });
});

describe('metrics and stopping', () => {
  const t = (text: string): Turn => ({ round: 1, persona: 'a', text });
  it('novelty is 1 for the first round and falls for repeated arguments', () => {
    expect(novelty([t('pricing strategy matters')], [])).toBe(1);
    const repeated = novelty([t('pricing strategy matters most here')], [t('pricing strategy matters most here')]);
    const fresh = novelty([t('hiring sales talent quickly')], [t('pricing strategy matters most here')]);
    expect(repeated).toBe(0);
    expect(fresh).toBe(1);
  });
  it('convergence grows as positions align', () => {
    expect(convergence(['run a pilot first', 'run a pilot first'])).toBe(1);
    expect(convergence(['commit fully now', 'defer everything later'])).toBeLessThan(0.2);
  });
  it('stops at the cap, on diminishing returns, or on consensus, but not before the minimum', () => {
    const base = { round: 3, maxRounds: 7, novelty: 0.5, convergence: 0.5, minRounds: 2 };
    expect(stopDecision(base)).toEqual({ stop: false, reason: 'continue' });
    expect(stopDecision({ ...base, round: 7 }).reason).toBe('max_rounds');
    expect(stopDecision({ ...base, novelty: 0.1 }).reason).toBe('diminishing_returns');
    expect(stopDecision({ ...base, convergence: 0.9 }).reason).toBe('consensus');
    expect(stopDecision({ ...base, round: 1, novelty: 0.1 }).stop).toBe(false);
  });
});

describe('simpleMajority', () => {
  const v = (persona: string, optionId: string) => ({ persona, optionId, rationale: 'because', confidence: 0.7 });
  it('names the winner and the share behind it', () => {
    const t = simpleMajority([v('a', 'A'), v('b', 'A'), v('c', 'B')], ['A', 'B', 'C']);
    expect(t).toMatchObject({ winner: 'A', tie: [], distribution: { A: 2, B: 1, C: 0 } });
    expect(t.consensus).toBeCloseTo(2 / 3);
  });
  it('reports a tie honestly instead of picking', () => {
    const t = simpleMajority([v('a', 'A'), v('b', 'B')], ['A', 'B']);
    expect(t.winner).toBeNull();
    expect(t.tie).toEqual(['A', 'B']);
  });
});
