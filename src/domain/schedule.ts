import type { SubProblem } from './model';

/** Round cap for a sub-problem's complexity: 1-3 → 5, 4-6 → 7, 7-10 → 10, never above the hard cap. */
export function roundCap(complexity: number, hardCap = 15): number {
  const cap = complexity <= 3 ? 5 : complexity <= 6 ? 7 : 10;
  return Math.min(cap, hardCap);
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
