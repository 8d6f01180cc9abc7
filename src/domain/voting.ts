import type { Tally, Vote } from './model';

/** Simple majority (plurality of votes cast); a tie is reported as a tie, never broken silently. */
export function simpleMajority(votes: Vote[], optionIds: string[]): Tally {
  const distribution: Record<string, number> = Object.fromEntries(optionIds.map((id) => [id, 0]));
  for (const v of votes) distribution[v.optionId] = (distribution[v.optionId] ?? 0) + 1;
  const top = Math.max(0, ...Object.values(distribution));
  const leaders = Object.keys(distribution).filter((id) => distribution[id] === top && top > 0);
  const tie = leaders.length > 1 ? leaders : [];
  return {
    mechanism: 'simple_majority',
    why: 'v1 default: every decision is tallied by simple majority',
    distribution,
    winner: leaders.length === 1 ? leaders[0]! : null,
    tie,
    consensus: votes.length ? top / votes.length : 0,
  };
}
