import { describe, expect, it } from 'vitest';
import { selectBoard } from '../../src/domain/board';
import { PERSONAS } from '../../src/domain/personas';
import { dependencyOrder, roundCap } from '../../src/domain/schedule';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/domain/settings';

describe('roundCap', () => {
  it('maps complexity to the spec caps and never exceeds the hard cap', () => {
    expect([1, 3, 4, 6, 7, 10].map((c) => roundCap(c))).toEqual([5, 5, 7, 7, 10, 10]);
    expect(roundCap(10, { ...DEFAULT_ENGINE_SETTINGS.roundCaps, hard: 8 })).toBe(8);
    expect(roundCap(2, { simple: 4, moderate: 6, complex: 9, hard: 15 })).toBe(4);
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

