/** Pure rules of the (first, simple) debate: who speaks, what the round measured, when to stop. */

export interface Turn {
  round: number;
  persona: string;
  text: string;
}

/**
 * Round 1: everyone. Later rounds: up to `perRound` experts, least-spoken
 * first, never opening with whoever spoke last, ties by seat order.
 */
export function selectSpeakers(round: number, panel: string[], history: Turn[], perRound = 3): string[] {
  if (round === 1) return [...panel];
  const spoken = (p: string) => history.filter((t) => t.persona === p).length;
  const last = history.at(-1)?.persona;
  const ranked = [...panel].sort((a, b) => spoken(a) - spoken(b) || panel.indexOf(a) - panel.indexOf(b));
  const picked = ranked.slice(0, Math.min(perRound, panel.length));
  if (picked[0] === last && picked.length > 1) picked.push(picked.shift()!);
  return picked;
}

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? []);

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size && !b.size) return 1;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter += 1;
  return inter / (a.size + b.size - inter);
}

/** Novelty of this round's turns: 1 − the highest overlap of each with any earlier turn, averaged. */
export function novelty(round: Turn[], earlier: Turn[]): number {
  if (!round.length) return 0;
  if (!earlier.length) return 1;
  const past = earlier.map((t) => words(t.text));
  const scores = round.map((t) => 1 - Math.max(...past.map((p) => jaccard(words(t.text), p))));
  return scores.reduce((a, b) => a + b, 0) / scores.length;
}

/** Convergence: mean pairwise overlap of the experts' latest stated positions. */
export function convergence(positions: string[]): number {
  if (positions.length < 2) return 1;
  const sets = positions.map(words);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < sets.length; i++)
    for (let j = i + 1; j < sets.length; j++) {
      sum += jaccard(sets[i]!, sets[j]!);
      n += 1;
    }
  return sum / n;
}

export interface StopInput {
  round: number;
  maxRounds: number;
  novelty: number;
  convergence: number;
  minRounds: number;
}

export function stopDecision(m: StopInput): { stop: boolean; reason: string } {
  if (m.round >= m.maxRounds) return { stop: true, reason: 'max_rounds' };
  if (m.round >= m.minRounds && m.novelty < 0.3) return { stop: true, reason: 'diminishing_returns' };
  if (m.round >= m.minRounds && m.convergence > 0.85) return { stop: true, reason: 'consensus' };
  return { stop: false, reason: 'continue' };
}
