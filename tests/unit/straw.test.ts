import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/domain/settings';
import { debateEffect, strawVote } from '../../src/domain/straw';
import type { Straw } from '../../src/domain/model';

const PANEL = ['cfo', 'cto', 'cmo'];
const S = DEFAULT_ENGINE_SETTINGS;
const straw = (votes: [string, string][], reversibility: Straw['reversibility'] = 'two_way'): Straw => ({
  options: [
    { id: 'A', title: 'Hire a contractor' },
    { id: 'B', title: 'Wait a quarter' },
  ],
  votes: votes.map(([persona, optionId]) => ({ persona, optionId })),
  reversibility,
});
const sure = PANEL.map((persona) => ({ persona, confidence: 0.9 }));

describe('the straw vote', () => {
  it('tallies the opening positions and goes straight to the vote only when a two-way door is unanimous and sure', () => {
    const v = strawVote(straw([['cfo', 'A'], ['cto', 'A'], ['cmo', 'A']]), sure, PANEL, S);
    expect(v).toMatchObject({ distribution: { A: 3, B: 0 }, winner: 'A', tie: [], unanimous: true, skipsDebate: true });
    expect(v.votes.map((x) => x.confidence)).toEqual([0.9, 0.9, 0.9]);
    // One expert unsure, a one-way door, or `debate: always`: the board debates.
    expect(strawVote(straw([['cfo', 'A'], ['cto', 'A'], ['cmo', 'A']]), [...sure.slice(0, 2), { persona: 'cmo', confidence: 0.5 }], PANEL, S).skipsDebate).toBe(false);
    expect(strawVote(straw([['cfo', 'A'], ['cto', 'A'], ['cmo', 'A']], 'one_way'), sure, PANEL, S).skipsDebate).toBe(false);
    expect(strawVote(straw([['cfo', 'A'], ['cto', 'A'], ['cmo', 'A']]), sure, PANEL, { ...S, debate: 'always' }).skipsDebate).toBe(false);
  });

  it('is not unanimous when someone is missing, names a tie, and ignores experts off the panel or counted twice', () => {
    expect(strawVote(straw([['cfo', 'A'], ['cto', 'A']]), sure, PANEL, S)).toMatchObject({ winner: 'A', unanimous: false, skipsDebate: false });
    expect(strawVote(straw([['cfo', 'A'], ['cto', 'B']]), sure, PANEL, S)).toMatchObject({ winner: null, tie: ['A', 'B'], unanimous: false });
    const v = strawVote(straw([['cfo', 'A'], ['cfo', 'B'], ['ghost', 'B'], ['cto', 'Z' as 'A']]), sure, PANEL, S);
    expect(v.votes).toEqual([{ persona: 'cfo', optionId: 'A', confidence: 0.9 }]);
  });
});

describe('what the debate bought', () => {
  const before = strawVote(straw([['cfo', 'A'], ['cto', 'A'], ['cmo', 'B']]), sure, PANEL, S);
  const options = [
    { id: 'A', title: 'Wait a quarter, then decide', strawId: 'B' },
    { id: 'B', title: 'Hire a contractor for a 90-day pilot', strawId: 'A' },
    { id: 'C', title: 'Hire full-time now', strawId: null },
  ];
  const votes = (ids: [string, string][]) => ids.map(([persona, optionId]) => ({ persona, optionId, rationale: `${persona} chose ${optionId}` }));

  it('says the outcome held when the winner continues the straw winner, whatever the letters', () => {
    const e = debateEffect(before, options, votes([['cfo', 'B'], ['cto', 'B'], ['cmo', 'A']]), 'B');
    expect(e).toEqual({ changedOutcome: false, strawWinner: 'A', finalWinnerStraw: 'A', positionChanges: [] });
  });

  it('says the outcome changed, and who moved with the reason their vote gave', () => {
    const e = debateEffect(before, options, votes([['cfo', 'A'], ['cto', 'B'], ['cmo', 'A']]), 'A');
    expect(e.changedOutcome).toBe(true);
    expect(e.positionChanges).toEqual([{ persona: 'cfo', from: 'A. Hire a contractor', to: 'A. Wait a quarter, then decide', reason: 'cfo chose A' }]);
    // A new option winning is a change too; no straw vote means nothing to compare.
    expect(debateEffect(before, options, votes([['cfo', 'C'], ['cto', 'C'], ['cmo', 'C']]), 'C').changedOutcome).toBe(true);
    expect(debateEffect(null, options, votes([['cfo', 'C']]), 'C')).toEqual({ changedOutcome: null, strawWinner: null, finalWinnerStraw: null, positionChanges: [] });
    // A straw vote that placed nobody (the facilitator named no panel member) compares with nothing either.
    const empty = strawVote(straw([['ghost', 'A']]), sure, PANEL, S);
    expect(debateEffect(empty, options, votes([['cfo', 'C']]), 'C').changedOutcome).toBeNull();
  });
});
