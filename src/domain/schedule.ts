import type { SubProblem } from './model';
import { bandOf, DEFAULT_ENGINE_SETTINGS, type EngineSettings } from './settings';

/**
 * Round cap for a sub-problem's complexity band (1-3 simple, 4-6 moderate,
 * 7-10 complex; spec defaults 5/7/10), never above the hard cap. The caps
 * come from the engine settings so a deployment can tune them.
 */
export function roundCap(complexity: number, caps: EngineSettings['roundCaps'] = DEFAULT_ENGINE_SETTINGS.roundCaps): number {
  return Math.min(caps[bandOf(complexity)], caps.hard);
}

export interface Schedule {
  /** Sub-problem ids in an order that respects every kept dependency. */
  order: string[];
  /** Dependencies dropped to break cycles or because they named no sub-problem. */
  broken: { from: string; to: string; why: 'cycle' | 'unknown' | 'self' }[];
}

/**
 * Orders sub-problems by their dependencies (Kahn's algorithm, ties in
 * declaration order). A cycle is broken by dropping the dependency of the
 * earliest-declared sub-problem still blocked, and the break is recorded.
 */
export function dependencyOrder(subProblems: Pick<SubProblem, 'id' | 'dependsOn'>[]): Schedule {
  const ids = subProblems.map((s) => s.id);
  const broken: Schedule['broken'] = [];
  const deps = new Map<string, Set<string>>();
  for (const s of subProblems) {
    const kept = new Set<string>();
    for (const d of s.dependsOn) {
      if (d === s.id) broken.push({ from: s.id, to: d, why: 'self' });
      else if (!ids.includes(d)) broken.push({ from: s.id, to: d, why: 'unknown' });
      else kept.add(d);
    }
    deps.set(s.id, kept);
  }
  const order: string[] = [];
  while (order.length < ids.length) {
    const ready = ids.find((id) => !order.includes(id) && [...deps.get(id)!].every((d) => order.includes(d)));
    if (ready) {
      order.push(ready);
      continue;
    }
    const blocked = ids.find((id) => !order.includes(id))!;
    for (const d of deps.get(blocked)!) if (!order.includes(d)) broken.push({ from: blocked, to: d, why: 'cycle' });
    deps.set(blocked, new Set([...deps.get(blocked)!].filter((d) => order.includes(d))));
  }
  return { order, broken };
}
