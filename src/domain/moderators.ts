import type { EngineSettings } from './settings';
import { debatePhase } from './speakers';

/**
 * Which moderator, if any, speaks after a round (seed 002, 4.5.3). LLM
 * experts are "excessively polite", so disagreement has to be injected:
 * a contrarian against early premature consensus, a skeptic against
 * unverified claims once the debate turns to evidence, an optimist against a
 * pessimistic late debate or a deadlock. Each at most once per sub-problem,
 * so interventions stay events rather than noise.
 */

export type Moderator = 'contrarian' | 'skeptic' | 'optimist';

export function moderatorFor(
  input: {
    round: number;
    agreement: number;
    unverifiedClaims: number;
    deadlocked: boolean;
    sentiment: 'optimistic' | 'balanced' | 'pessimistic';
    used: Moderator[];
  },
  s: EngineSettings,
): Moderator | null {
  const phase = debatePhase(input.round);
  const free = (m: Moderator) => !input.used.includes(m);
  if (free('contrarian') && input.agreement > s.contrarian.agreementAbove && input.round < s.contrarian.beforeRound) return 'contrarian';
  if (free('skeptic') && (phase === 'middle' || (phase === 'early' && input.round >= 3)) && input.unverifiedClaims > 0) return 'skeptic';
  if (free('optimist') && (input.deadlocked || (phase === 'late' && input.sentiment === 'pessimistic'))) return 'optimist';
  return null;
}
