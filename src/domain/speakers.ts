/**
 * Who speaks next (seed 002, 4.2 phase 2): everyone opens; later rounds are
 * opt-in (experts with something material) but the facilitator invites
 * silent experts, prefers the least-heard, and never lets the same expert
 * open twice in a row. Pure so replays pick the same speakers.
 */

export type DebatePhase = 'opening' | 'early' | 'middle' | 'late';

/**
 * The phase of a round within the debate's actual cap: the opening round,
 * then early / middle / late by how far through the allowed rounds it is, and
 * the last allowed round always converges. With a cap of 10 this is the
 * spec's 2-4 early, 5-7 middle, 8+ late; with a cap of 3, round 2 digs in and
 * round 3 converges (a short debate must not end on "divergent thinking").
 */
export function debatePhase(round: number, maxRounds = 10): DebatePhase {
  if (round <= 1) return 'opening';
  if (round >= maxRounds) return 'late';
  const through = (round - 1) / (maxRounds - 1);
  return through <= 0.4 ? 'early' : through <= 0.75 ? 'middle' : 'late';
}

export function selectSpeakers(input: {
  round: number;
  panel: string[];
  spokenCount: Record<string, number>;
  lastSpeaker: string | null;
  wantsToSpeak: string[];
  perRound: number;
}): { speakers: string[]; invited: string[] } {
  const panel = [...new Set(input.panel)];
  if (input.round <= 1) return { speakers: panel, invited: [] };

  const spoken = (p: string) => input.spokenCount[p] ?? 0;
  const byLeastSpoken = (a: string, b: string) => spoken(a) - spoken(b) || panel.indexOf(a) - panel.indexOf(b);
  const invited = panel.filter((p) => spoken(p) === 0);
  const cap = Math.max(1, input.perRound) + invited.length;
  const speakers = [...invited];
  const take = (candidates: string[], limit: number) => {
    for (const p of candidates) if (speakers.length < limit && !speakers.includes(p)) speakers.push(p);
  };

  take([...new Set(input.wantsToSpeak)].filter((p) => panel.includes(p)).sort(byLeastSpoken), cap);
  if (speakers.length < 2) take([...panel].sort(byLeastSpoken), Math.min(cap, Math.max(input.perRound, speakers.length)));

  if (speakers[0] !== undefined && speakers[0] === input.lastSpeaker) {
    if (speakers.length > 1) speakers.push(speakers.shift()!);
    else {
      const other = [...panel].sort(byLeastSpoken).find((p) => p !== input.lastSpeaker);
      if (other !== undefined) speakers[0] = other;
    }
  }
  return { speakers, invited };
}
