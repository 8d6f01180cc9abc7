import { describe, expect, it } from 'vitest';
import { debateContext } from '../../src/domain/context';
import { moderatorFor, type Moderator } from '../../src/domain/moderators';
import { DEFAULT_ENGINE_SETTINGS as S } from '../../src/domain/settings';
import { debatePhase, selectSpeakers } from '../../src/domain/speakers';

const panel = ['a', 'b', 'c', 'd', 'e'];
const all = (n: number) => Object.fromEntries(panel.map((p) => [p, n]));
const pick = (over: Partial<Parameters<typeof selectSpeakers>[0]> = {}) =>
  selectSpeakers({ round: 3, panel, spokenCount: all(1), lastSpeaker: null, wantsToSpeak: [], perRound: 3, ...over });

describe('debatePhase', () => {
  it("maps rounds to phases on the spec's scale for a cap of 10", () => {
    expect([1, 2, 4, 5, 7, 8, 15].map((r) => debatePhase(r))).toEqual(['opening', 'early', 'early', 'middle', 'middle', 'late', 'late']);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((r) => debatePhase(r, 10))).toEqual(['opening', 'early', 'early', 'early', 'middle', 'middle', 'middle', 'late', 'late', 'late']);
  });

  it('follows the actual cap: the last allowed round always converges', () => {
    expect([1, 2, 3].map((r) => debatePhase(r, 3))).toEqual(['opening', 'middle', 'late']);
    expect([1, 2, 3, 4, 5].map((r) => debatePhase(r, 5))).toEqual(['opening', 'early', 'middle', 'middle', 'late']);
    expect([1, 2].map((r) => debatePhase(r, 2))).toEqual(['opening', 'late']);
    for (const cap of [2, 3, 5, 7, 10, 15]) expect(debatePhase(cap, cap)).toBe('late');
  });
});

describe('selectSpeakers', () => {
  it('round 1: everyone, in panel order, nobody invited', () => {
    expect(selectSpeakers({ round: 1, panel, spokenCount: {}, lastSpeaker: null, wantsToSpeak: ['c'], perRound: 2 })).toEqual({
      speakers: panel,
      invited: [],
    });
  });
  it('invites experts who never spoke, first, beyond perRound', () => {
    const r = pick({ spokenCount: { a: 2, b: 1, c: 1 }, wantsToSpeak: ['a', 'b', 'c'], perRound: 2 });
    expect(r.invited).toEqual(['d', 'e']);
    expect(r.speakers.slice(0, 2)).toEqual(['d', 'e']);
    expect(r.speakers).toEqual(['d', 'e', 'b', 'c']);
  });
  it('takes volunteers least-spoken first, ties by panel order, only panel members, no duplicates', () => {
    const r = pick({ spokenCount: { a: 3, b: 1, c: 2, d: 1, e: 1 }, wantsToSpeak: ['zz', 'c', 'a', 'd', 'b', 'd'] });
    expect(r).toEqual({ speakers: ['b', 'd', 'c'], invited: [] });
  });
  it('fills up to perRound with the least-spoken only when fewer than two volunteered', () => {
    expect(pick({ spokenCount: { a: 1, b: 5, c: 5, d: 2, e: 5 }, wantsToSpeak: ['c'] }).speakers).toEqual(['c', 'a', 'd']);
    expect(pick({ spokenCount: { a: 1, b: 5, c: 5, d: 2, e: 5 }, wantsToSpeak: [] }).speakers).toEqual(['a', 'd', 'b']);
    expect(pick({ wantsToSpeak: ['e', 'd'] }).speakers).toEqual(['d', 'e']);
  });
  it('never opens with whoever spoke last', () => {
    const r = pick({ spokenCount: { a: 1, b: 5, c: 5, d: 5, e: 5 }, wantsToSpeak: ['a', 'b'], lastSpeaker: 'a' });
    expect(r.speakers).toEqual(['b', 'a']);
    const solo = pick({ perRound: 1, spokenCount: { a: 1, b: 5, c: 2, d: 5, e: 5 }, wantsToSpeak: ['a'], lastSpeaker: 'a' });
    expect(solo.speakers).toEqual(['c']);
  });
  it('over many rounds, nobody speaks twice in a row across rounds and never more than perRound + invited', () => {
    const spoken: Record<string, number> = {};
    let last: string | null = null;
    for (let round = 1; round <= 12; round++) {
      const wants = panel.filter((_, i) => (i + round) % 3 !== 0);
      const r = selectSpeakers({ round, panel, spokenCount: { ...spoken }, lastSpeaker: last, wantsToSpeak: wants, perRound: 2 });
      expect(new Set(r.speakers).size).toBe(r.speakers.length);
      if (round > 1) {
        expect(r.speakers.length).toBeLessThanOrEqual(2 + r.invited.length);
        expect(r.speakers[0]).not.toBe(last);
      }
      for (const p of r.speakers) spoken[p] = (spoken[p] ?? 0) + 1;
      last = r.speakers.at(-1) ?? null;
    }
  });
});

describe('moderatorFor', () => {
  const base = { round: 2, agreement: 0.5, unverifiedClaims: 0, deadlocked: false, sentiment: 'balanced' as const, used: [] as Moderator[] };
  it('contrarian on premature agreement, strictly above the threshold and before the round', () => {
    const hi = S.contrarian.agreementAbove + 0.05;
    expect(moderatorFor({ ...base, agreement: hi }, S)).toBe('contrarian');
    expect(moderatorFor({ ...base, agreement: S.contrarian.agreementAbove }, S)).toBeNull();
    expect(moderatorFor({ ...base, agreement: hi, round: S.contrarian.beforeRound }, S)).toBeNull();
  });
  it('skeptic on unverified claims in the middle phase or from round 3 of the early phase', () => {
    expect(moderatorFor({ ...base, round: 2, unverifiedClaims: 2 }, S)).toBeNull();
    expect(moderatorFor({ ...base, round: 3, unverifiedClaims: 2 }, S)).toBe('skeptic');
    expect(moderatorFor({ ...base, round: 6, unverifiedClaims: 1 }, S)).toBe('skeptic');
    expect(moderatorFor({ ...base, round: 6, unverifiedClaims: 0 }, S)).toBeNull();
    expect(moderatorFor({ ...base, round: 9, unverifiedClaims: 3 }, S)).toBeNull();
  });
  it('optimist when late and pessimistic, or on deadlock in any phase', () => {
    expect(moderatorFor({ ...base, round: 8, sentiment: 'pessimistic' }, S)).toBe('optimist');
    expect(moderatorFor({ ...base, round: 6, sentiment: 'pessimistic' }, S)).toBeNull();
    expect(moderatorFor({ ...base, round: 8, sentiment: 'balanced' }, S)).toBeNull();
    expect(moderatorFor({ ...base, round: 2, deadlocked: true }, S)).toBe('optimist');
  });
  it('first matching rule wins; each moderator at most once', () => {
    const everything = { ...base, round: 2, agreement: 0.95, unverifiedClaims: 1, deadlocked: true };
    expect(moderatorFor(everything, S)).toBe('contrarian');
    expect(moderatorFor({ ...everything, round: 3, agreement: 0.5 }, S)).toBe('skeptic');
    expect(moderatorFor({ ...everything, used: ['contrarian'] }, S)).toBe('optimist');
    expect(moderatorFor({ ...everything, round: 3, used: ['skeptic'] }, S)).toBe('optimist');
    expect(moderatorFor({ ...everything, used: ['contrarian', 'skeptic', 'optimist'] }, S)).toBeNull();
  });
});

describe('debateContext', () => {
  const names = ['Ana', 'Ben', 'Cho', 'Dev', 'Eli'];
  const turn = (name: string, r: number) => ({ name, text: `${name} in round ${r}: ${'x'.repeat(600)}` });
  const history = Array.from({ length: 15 }, (_, i) => {
    const r = i + 1;
    const speakers = r === 1 ? names : [names[r % 5]!, names[(r + 1) % 5]!, names[(r + 2) % 5]!];
    return { round: r, turns: speakers.map((n) => turn(n, r)), summary: `Round ${r} summary: ${'s'.repeat(220)}` };
  });
  const keyArgs = Array.from({ length: 5 }, (_, i) => `Argument ${i}: ${'k'.repeat(150)}`);
  const ctx = (n: number) => debateContext(history.slice(0, n), keyArgs, S);

  it('opening placeholder when nothing was said', () => {
    expect(debateContext([], keyArgs, S)).toBe('(you are opening the discussion)');
  });
  it('full transcript up to summariseAfterRounds, without summaries', () => {
    const c = ctx(S.summariseAfterRounds);
    expect(c).toContain('[Ana, round 1] Ana in round 1');
    expect(c).not.toContain('(summary)');
    expect(c).not.toContain('Key arguments so far:');
  });
  it('past it: key arguments first, early rounds summarised, the last rounds in full', () => {
    const c = ctx(15);
    expect(c.startsWith('Key arguments so far:\n- Argument 0')).toBe(true);
    expect(c).toContain(`Round 1 (summary): Round 1 summary`);
    expect(c).not.toContain('[Ana, round 1]');
    const keptFrom = 15 - S.fullRoundsKept + 1;
    expect(c).toContain(`Round ${keptFrom - 1} (summary)`);
    expect(c).not.toContain(`Round ${keptFrom} (summary)`);
    expect(c).toMatch(new RegExp(`\\[\\w+, round ${keptFrom}\\]`));
    expect(c).toMatch(/\[\w+, round 15\]/);
  });
  it('falls back when a summarised round has no summary, and truncates long summaries', () => {
    const h = history.map((r, i) => (i === 0 ? { ...r, summary: null } : i === 1 ? { ...r, summary: 'z'.repeat(5000) } : r));
    const c = debateContext(h, [], S);
    expect(c).toContain('Round 1 (summary): Ana, Ben, Cho, Dev, Eli spoke');
    expect(c.length).toBeLessThan(ctx(15).length + 500);
  });
  it('stays bounded: round 15 is at most twice round 2', () => {
    expect(ctx(15).length).toBeLessThanOrEqual(2 * ctx(2).length);
    for (let n = S.summariseAfterRounds + 1; n <= 15; n++) expect(ctx(n).length).toBeLessThanOrEqual(2 * ctx(2).length);
  });
});
