import type { Straw } from './model';
import type { EngineSettings } from './settings';

/**
 * The straw vote: what a plain vote of the panel on its opening positions
 * would have chosen (issue "Token economy"; research on multi-agent debate
 * finds a plain majority explains most of debate's measured gains). It costs
 * no call: the facilitator maps each opening position onto an option after
 * round 1, and each expert's confidence is the one their opening gave. The
 * final vote is compared with it, so every result says what debate bought.
 */
export interface StrawVote {
  options: { id: string; title: string }[];
  votes: { persona: string; optionId: string; confidence: number }[];
  distribution: Record<string, number>;
  /** The plurality's option; null on a tie. */
  winner: string | null;
  tie: string[];
  unanimous: boolean;
  reversibility: 'one_way' | 'two_way';
  /** The board went straight to the vote (a two-way door, unanimous and confident, `debate: when_contested`). */
  skipsDebate: boolean;
}

/** Tallies the facilitator's mapping; experts it left out or named twice count once, as their first mapping says. */
export function strawVote(straw: Straw, turns: { persona: string; confidence: number }[], panel: string[], s: Pick<EngineSettings, 'debate' | 'strawConsensusConfidence'>): StrawVote {
  const ids = new Set(straw.options.map((o) => o.id));
  const confidence = new Map(turns.map((t) => [t.persona, t.confidence]));
  const seen = new Set<string>();
  const votes = straw.votes
    .filter((v) => panel.includes(v.persona) && ids.has(v.optionId) && !seen.has(v.persona) && seen.add(v.persona))
    .map((v) => ({ persona: v.persona, optionId: v.optionId, confidence: confidence.get(v.persona) ?? 0 }));
  const distribution = Object.fromEntries(straw.options.map((o) => [o.id, votes.filter((v) => v.optionId === o.id).length]));
  const top = Math.max(0, ...Object.values(distribution));
  const leaders = Object.keys(distribution).filter((id) => top > 0 && distribution[id] === top);
  const unanimous = votes.length === panel.length && leaders.length === 1 && top === panel.length;
  const confident = votes.every((v) => v.confidence >= s.strawConsensusConfidence);
  return {
    options: straw.options,
    votes,
    distribution,
    winner: leaders.length === 1 ? leaders[0]! : null,
    tie: leaders.length > 1 ? leaders : [],
    unanimous,
    reversibility: straw.reversibility,
    skipsDebate: s.debate === 'when_contested' && straw.reversibility === 'two_way' && unanimous && confident,
  };
}

/** What the debate bought: the final winner against the straw winner, and who moved, with the reason their vote gave. */
export interface DebateEffect {
  /** null: no straw vote to compare with. */
  changedOutcome: boolean | null;
  strawWinner: string | null;
  /** The straw option the final winner continues (null: a new option, a tie or a deferral). */
  finalWinnerStraw: string | null;
  positionChanges: { persona: string; from: string; to: string; reason: string }[];
}

export function debateEffect(
  straw: StrawVote | null,
  options: { id: string; title: string; strawId?: string | null | undefined }[],
  votes: { persona: string; optionId: string; rationale: string }[],
  winner: string | null,
): DebateEffect {
  // Without a straw vote, or one that placed nobody, there is nothing to compare with.
  if (!straw || !straw.votes.length) return { changedOutcome: null, strawWinner: null, finalWinnerStraw: null, positionChanges: [] };
  const strawIds = new Set(straw.options.map((o) => o.id));
  const continues = (id: string | null) => {
    const o = options.find((x) => x.id === id);
    return o?.strawId && strawIds.has(o.strawId) ? o.strawId : null;
  };
  const title = (list: { id: string; title: string }[], id: string) => `${id}. ${list.find((o) => o.id === id)?.title ?? ''}`.trim();
  const finalWinnerStraw = continues(winner);
  const positionChanges = votes.flatMap((v) => {
    const before = straw.votes.find((x) => x.persona === v.persona);
    if (!before || continues(v.optionId) === before.optionId) return [];
    return [{ persona: v.persona, from: title(straw.options, before.optionId), to: title(options, v.optionId), reason: v.rationale }];
  });
  return { changedOutcome: straw.winner !== finalWinnerStraw || (winner === null) !== (straw.winner === null), strawWinner: straw.winner, finalWinnerStraw, positionChanges };
}
