import type { EngineSettings } from './settings';

export interface NoveltyVerdicts {
  /** Similarity to history above `blockAbove`: asked for something new, or to pass. */
  blocked: string[];
  penalised: string[];
  boosted: string[];
}

/**
 * Seed 003's thresholds on an expert's last contribution, on the calibrated
 * similarity scale (similarity = 1 − novelty): block above 0.80, penalise
 * 0.70-0.80, boost below 0.60.
 */
export function noveltyVerdicts(noveltyByPersona: Record<string, number>, s: EngineSettings): NoveltyVerdicts {
  const t = s.noveltyMemory;
  const out: NoveltyVerdicts = { blocked: [], penalised: [], boosted: [] };
  for (const [persona, novelty] of Object.entries(noveltyByPersona)) {
    const similarity = 1 - novelty;
    if (similarity > t.blockAbove) out.blocked.push(persona);
    else if (similarity > t.penaliseAbove) out.penalised.push(persona);
    else if (similarity < t.boostBelow) out.boosted.push(persona);
  }
  return out;
}

/** Reorders who asked to speak: boosted first, penalised and blocked last, otherwise as polled. */
export function prioritise(wantsToSpeak: string[], v: NoveltyVerdicts): string[] {
  const rank = (p: string) => (v.boosted.includes(p) ? 0 : v.blocked.includes(p) ? 3 : v.penalised.includes(p) ? 2 : 1);
  return [...wantsToSpeak].sort((a, b) => rank(a) - rank(b));
}
