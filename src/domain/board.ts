import type { Persona } from './model';

export interface Seat {
  code: string;
  rationale: string;
}

const spread = (values: string[]) => new Set(values).size;

/**
 * Picks a board: domain fit first, then diversity of risk tolerance, time
 * horizon and outlook. Deterministic for the same inputs; `size` is clamped
 * to the pool.
 */
export function selectBoard(pool: Persona[], domains: string[], size = 4): Seat[] {
  const fit = (p: Persona) => p.domains.filter((d) => domains.includes(d)).length;
  const chosen: Persona[] = [];
  const candidates = [...pool].sort((a, b) => fit(b) - fit(a) || a.code.localeCompare(b.code));
  while (chosen.length < Math.min(size, pool.length)) {
    let best: Persona | undefined;
    let bestScore = -Infinity;
    for (const p of candidates) {
      if (chosen.includes(p)) continue;
      const next = [...chosen, p];
      const diversity =
        spread(next.map((x) => x.riskTolerance)) + spread(next.map((x) => x.timeHorizon)) + spread(next.map((x) => x.optimism));
      const newDomains = p.domains.filter((d) => domains.includes(d) && !chosen.some((c) => c.domains.includes(d))).length;
      const score = fit(p) * 2 + newDomains * 3 + diversity;
      if (score > bestScore) [best, bestScore] = [p, score];
    }
    chosen.push(best!);
  }
  return chosen.map((p) => {
    const matched = p.domains.filter((d) => domains.includes(d));
    const why = matched.length ? `covers ${matched.join(', ')}` : 'adds an outside perspective';
    return {
      code: p.code,
      rationale: `${p.title}: ${why}; ${p.riskTolerance} risk tolerance, ${p.timeHorizon}-term horizon, ${p.optimism} outlook.`,
    };
  });
}
