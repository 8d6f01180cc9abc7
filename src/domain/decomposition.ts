import type { SubProblem } from './model';
import { dependencyOrder, type Schedule } from './schedule';
import type { EngineSettings } from './settings';

/**
 * Normalisation of the decomposer's proposal into what the board deliberates
 * (seed 002, 3.2, 14.4 and 14.8): always 1-5 sub-problems with ids sp1..spN
 * and an acyclic dependency graph, whatever the model returned. Atomic
 * problems become one sub-problem, vague ones one high-level "clarify the
 * direction" sub-problem, and more than five are grouped into 3-5
 * meta-problems that follow shared domains and dependency chains.
 */

/** The spec's top-level limit: more than this many sub-problems overloads the user and the board. */
export const MAX_SUB_PROBLEMS = 5;
/** Fewest meta-problems when grouping: fewer would hide the structure the decomposer found. */
export const MIN_GROUPS = 3;
/** Complexity of the one high-level sub-problem of a vague problem: at least moderate, so the board gets room to narrow it. */
const VAGUE_MIN_COMPLEXITY = 4;
/** Complexity of a sub-problem built from the statement alone (atomic, nothing proposed): a simple decision. */
const ATOMIC_DEFAULT_COMPLEXITY = 3;

type Broken = Schedule['broken'];
type Edge = Pick<SubProblem, 'id' | 'dependsOn'>;

export interface NormalizedDecomposition {
  subProblems: SubProblem[];
  /** Ids in an order that respects every kept dependency. */
  order: string[];
  /**
   * Dependencies dropped because they named no sub-problem, the sub-problem
   * itself, or closed a cycle. Ids are those of the output when it is not
   * grouped; when grouped they are the proposed ids, as listed in each
   * meta-problem's `meta.groups`.
   */
  broken: Broken;
  /** Each meta-problem and the proposed ids it groups (empty when not grouped). */
  grouped: { id: string; members: string[] }[];
  /** What was applied: one atomic sub-problem, one high-level one for a vague problem, or grouping into meta-problems. */
  flags: { atomic: boolean; vague: boolean; grouped: boolean };
}

const truncate = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const unique = <T>(xs: T[]) => [...new Set(xs)];
const stripEnd = (text: string) => text.trim().replace(/[.;:!\s]+$/u, '');

/** The schema's fields only (no stale `meta`/`highLevel`), with lengths and ranges the schema allows. */
function sanitize(p: SubProblem): SubProblem {
  const complexity = Number.isFinite(p.complexity) ? Math.min(10, Math.max(1, Math.round(p.complexity))) : 5;
  const domains = unique(p.domains).slice(0, 4);
  const criteria = p.successCriteria.map((c) => c.trim()).filter(Boolean);
  return {
    id: p.id,
    title: truncate(p.title.trim(), 120),
    goal: p.goal,
    context: p.context,
    successCriteria: criteria.length ? unique(criteria).slice(0, 5) : ['A clear, justified decision'],
    dependsOn: [...p.dependsOn],
    complexity,
    domains: domains.length ? domains : ['strategy'],
  };
}

/** Domains most shared among sub-problems first (ties by first appearance), at most four. */
function rankDomains(sps: SubProblem[]): SubProblem['domains'] {
  const count = new Map<SubProblem['domains'][number], number>();
  for (const sp of sps) for (const d of sp.domains) count.set(d, (count.get(d) ?? 0) + 1);
  const ranked = [...count.keys()].sort((a, b) => count.get(b)! - count.get(a)!);
  return ranked.length ? ranked.slice(0, 4) : ['strategy'];
}

function fromStatement(raw: { problem: string; statement: string }): SubProblem {
  const statement = raw.statement.trim() || raw.problem.trim();
  return {
    id: 'sp1',
    title: truncate(stripEnd(statement) || 'The decision', 120),
    goal: `Decide: ${statement}`,
    context: raw.problem,
    successCriteria: ['A clear decision the user can act on, with its main trade-offs'],
    dependsOn: [],
    complexity: ATOMIC_DEFAULT_COMPLEXITY,
    domains: ['strategy'],
  };
}

/** Spec 14.8 (4): one high-level sub-problem; the debate surfaces the vagueness and may recommend refining the problem first. */
function highLevel(raw: { problem: string; statement: string }, proposals: SubProblem[]): SubProblem {
  const statement = raw.statement.trim() || raw.problem.trim();
  return {
    id: 'sp1',
    title: truncate(`Clarify the direction: ${stripEnd(statement)}`, 120),
    goal: `Clarify which direction is worth pursuing, and what success would mean, for: ${statement}`,
    context: `The problem as stated is too broad to split into concrete decisions; the board may recommend refining it first. Original problem: ${raw.problem}`,
    successCriteria: [
      'A narrower, concrete problem statement the user can act on',
      'The two or three directions worth exploring, with what each would take',
      'The information still missing before a decision',
    ],
    dependsOn: [],
    complexity: Math.max(VAGUE_MIN_COMPLEXITY, ...proposals.map((p) => p.complexity)),
    domains: proposals.length ? rankDomains(proposals) : ['strategy'],
    highLevel: true,
  };
}

/** Round-robin over the members so each keeps at least one criterion before any keeps a second. */
function mergeCriteria(members: SubProblem[]): string[] {
  const out: string[] = [];
  const longest = Math.max(...members.map((m) => m.successCriteria.length));
  for (let i = 0; i < longest && out.length < 5; i++)
    for (const m of members) {
      const c = m.successCriteria[i];
      if (c !== undefined && !out.includes(c) && out.length < 5) out.push(c);
    }
  return out.length ? out : ['A clear, justified decision on each grouped question'];
}

function metaProblem(id: string, members: SubProblem[], originalIds: string[], dependsOn: string[]): SubProblem {
  if (members.length === 1) return { ...members[0]!, id, dependsOn, meta: { groups: originalIds } };
  return {
    id,
    title: truncate(members.map((m) => stripEnd(m.title)).join(' & '), 120),
    goal: `Resolve these related questions together: ${members.map((m, i) => `(${i + 1}) ${stripEnd(m.goal)}`).join("; ")}.`,
    context: unique(members.map((m) => m.context.trim()).filter(Boolean)).join('\n'),
    successCriteria: mergeCriteria(members),
    dependsOn,
    complexity: Math.max(...members.map((m) => m.complexity)),
    domains: rankDomains(members),
    meta: { groups: originalIds },
  };
}

/**
 * Groups more than five sub-problems into 3-5, greedily merging the pair of
 * groups that best belong together: a direct dependency between them first
 * (a sub-problem joins the group of what it depends on), then overlap of
 * domains, then the smaller result; groups stay balanced (at most ⌈n/3⌉
 * members) while that is possible. A merge that would close a cycle between
 * groups is never made, so the grouped graph stays acyclic.
 */
function groupIndices(n: number, deps: number[][], domains: string[][]): number[][] {
  // About three proposals per meta-problem (12 → 4, as in the spec's example), within 3-5.
  const target = Math.min(MAX_SUB_PROBLEMS, Math.max(MIN_GROUPS, Math.ceil(n / 3)));
  const cap = Math.ceil(n / MIN_GROUPS);
  let groups: number[][] = Array.from({ length: n }, (_, i) => [i]);

  const groupOf = () => {
    const g = new Array<number>(n);
    groups.forEach((members, gi) => members.forEach((m) => (g[m] = gi)));
    return g;
  };
  /** Each group's dependencies on other groups. */
  const groupDeps = (g: number[]) => groups.map((members, gi) => unique(members.flatMap((m) => deps[m]!.map((d) => g[d]!))).filter((x) => x !== gi));
  /** Would merging a and b close a cycle through a third group (a → … → c → … → b, or back)? */
  const closesCycle = (a: number, b: number, gdeps: number[][]) => {
    const reaches = (from: number, to: number) => {
      const seen = new Set<number>();
      const stack = gdeps[from]!.filter((x) => x !== to);
      while (stack.length) {
        const x = stack.pop()!;
        if (x === to) return true;
        if (seen.has(x) || x === from) continue;
        seen.add(x);
        stack.push(...gdeps[x]!);
      }
      return false;
    };
    return reaches(a, b) || reaches(b, a);
  };

  while (groups.length > target) {
    const gdeps = groupDeps(groupOf());
    let best: { a: number; b: number; score: number; size: number } | null = null;
    for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++) {
        const size = groups[a]!.length + groups[b]!.length;
        if (size > cap || closesCycle(a, b, gdeps)) continue;
        const linked = gdeps[a]!.includes(b) || gdeps[b]!.includes(a);
        const da = new Set(groups[a]!.flatMap((m) => domains[m]!));
        const db = new Set(groups[b]!.flatMap((m) => domains[m]!));
        const shared = [...da].filter((d) => db.has(d)).length;
        const overlap = shared / (new Set([...da, ...db]).size || 1);
        const score = (linked ? 2 : 0) + overlap;
        if (!best || score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && size < best.size)) best = { a, b, score, size };
      }
    if (!best) {
      // Nothing fits the balance cap: merge two groups adjacent in dependency order (never closes a cycle), smallest first.
      const order = dependencyOrder(groups.map((_, gi) => ({ id: String(gi), dependsOn: gdeps[gi]!.map(String) }))).order.map(Number);
      for (let k = 0; k + 1 < order.length; k++) {
        const a = Math.min(order[k]!, order[k + 1]!);
        const b = Math.max(order[k]!, order[k + 1]!);
        const size = groups[a]!.length + groups[b]!.length;
        if (!best || size < best.size) best = { a, b, score: 0, size };
      }
    }
    const { a, b } = best!;
    const merged = [...groups[a]!, ...groups[b]!].sort((x, y) => x - y);
    groups = groups.filter((_, gi) => gi !== a && gi !== b).concat([merged]);
  }
  // Meta-problems in the order of their earliest member, as the decomposer proposed them.
  return groups.sort((x, y) => x[0]! - y[0]!);
}

/**
 * Turns the decomposer's proposal into 1-5 deliberable sub-problems. Vague
 * wins over atomic (a vague problem needs its direction clarified before any
 * single decision). Dependencies that name no sub-problem, the sub-problem
 * itself, or close a cycle are dropped by `dependencyOrder` and recorded.
 * `_s` is accepted so callers pass the same settings everywhere; no
 * decomposition limit is configurable yet.
 */
export function normalizeDecomposition(
  raw: { subProblems: SubProblem[]; atomic: boolean; vague: boolean; problem: string; statement: string },
  _s: EngineSettings,
): NormalizedDecomposition {
  const proposals = raw.subProblems.map(sanitize);

  if (raw.vague)
    return { subProblems: [highLevel(raw, proposals)], order: ['sp1'], broken: [], grouped: [], flags: { atomic: false, vague: true, grouped: false } };
  if (raw.atomic || !proposals.length) {
    const only = proposals[0] ? { ...proposals[0], id: 'sp1', dependsOn: [] } : fromStatement(raw);
    return { subProblems: [only], order: ['sp1'], broken: [], grouped: [], flags: { atomic: true, vague: false, grouped: false } };
  }

  // Unique keys for the graph: a repeated proposed id gets a suffix, and references to it mean its first holder.
  const keys: string[] = [];
  const keyOf = new Map<string, string>();
  proposals.forEach((p, i) => {
    const key = keys.includes(p.id) ? `${p.id}#${i + 1}` : p.id;
    keys.push(key);
    if (!keyOf.has(p.id)) keyOf.set(p.id, key);
  });
  const indexOf = new Map(keys.map((k, i) => [k, i]));
  const graph = proposals.map((p, i) => ({ id: keys[i]!, dependsOn: p.dependsOn.map((d) => keyOf.get(d) ?? d) }));
  const { broken: brokenByKey } = dependencyOrder(graph);
  const dropped = new Set(brokenByKey.map((b) => `${b.from}\u0000${b.to}`));
  const kept: number[][] = graph.map((g) => unique(g.dependsOn.filter((d) => !dropped.has(`${g.id}\u0000${d}`)).map((d) => indexOf.get(d)!)));

  if (proposals.length <= MAX_SUB_PROBLEMS) {
    const newId = (i: number) => `sp${i + 1}`;
    const subProblems = proposals.map((p, i) => ({ ...p, id: newId(i), dependsOn: kept[i]!.map(newId) }));
    const broken = brokenByKey.map((b) => ({
      from: newId(indexOf.get(b.from)!),
      to: indexOf.has(b.to) ? newId(indexOf.get(b.to)!) : b.to,
      why: b.why,
    }));
    return { subProblems, order: dependencyOrder(subProblems).order, broken, grouped: [], flags: { atomic: false, vague: false, grouped: false } };
  }

  const proposedId = (key: string) => (indexOf.has(key) ? proposals[indexOf.get(key)!]!.id : key);
  const broken: Broken = brokenByKey.map((b) => ({ from: proposedId(b.from), to: proposedId(b.to), why: b.why }));
  const groups = groupIndices(
    proposals.length,
    kept,
    proposals.map((p) => p.domains),
  );
  const groupOfMember = new Map<number, number>();
  groups.forEach((members, gi) => members.forEach((m) => groupOfMember.set(m, gi)));
  const metaId = (gi: number) => `sp${gi + 1}`;
  let subProblems = groups.map((members, gi) => {
    const deps = unique(members.flatMap((m) => kept[m]!.map((d) => groupOfMember.get(d)!)))
      .filter((x) => x !== gi)
      .sort((x, y) => x - y)
      .map(metaId);
    return metaProblem(
      metaId(gi),
      members.map((m) => proposals[m]!),
      members.map((m) => proposals[m]!.id),
      deps,
    );
  });
  // Grouping never closes a cycle, but should one appear it is broken and recorded like any other.
  const schedule = dependencyOrder(subProblems);
  if (schedule.broken.length) {
    const drop = new Set(schedule.broken.map((b) => `${b.from}\u0000${b.to}`));
    subProblems = subProblems.map((sp) => ({ ...sp, dependsOn: sp.dependsOn.filter((d) => !drop.has(`${sp.id}\u0000${d}`)) }));
    broken.push(...schedule.broken);
  }
  return {
    subProblems,
    order: schedule.order,
    broken,
    grouped: subProblems.map((sp) => ({ id: sp.id, members: sp.meta?.groups ?? [] })),
    flags: { atomic: false, vague: false, grouped: true },
  };
}

/** The dependencies `dependencyOrder` keeps (no unknown, self or cycle-closing ones), on the first of any repeated id. */
function keptGraph(subProblems: Edge[]): { ids: string[]; deps: Map<string, string[]>; order: string[] } {
  const seen = new Set<string>();
  const firsts = subProblems.filter((sp) => (seen.has(sp.id) ? false : (seen.add(sp.id), true)));
  const { order, broken } = dependencyOrder(firsts);
  const dropped = new Set(broken.map((b) => `${b.from}\u0000${b.to}`));
  const deps = new Map(firsts.map((sp) => [sp.id, unique(sp.dependsOn.filter((d) => !dropped.has(`${sp.id}\u0000${d}`)))]));
  return { ids: firsts.map((sp) => sp.id), deps, order };
}

/**
 * Sub-problems by dependency depth: wave 0 needs nothing, wave k needs
 * something from wave k−1. Sub-problems in one wave could run in parallel.
 * Within a wave, declaration order.
 */
export function dependencyWaves(subProblems: Edge[]): string[][] {
  const { ids, deps, order } = keptGraph(subProblems);
  const depth = new Map<string, number>();
  for (const id of order) depth.set(id, Math.max(-1, ...deps.get(id)!.map((d) => depth.get(d)!)) + 1);
  const waves: string[][] = [];
  for (const id of ids) (waves[depth.get(id)!] ??= []).push(id);
  return waves;
}

/**
 * The longest sum of stage costs along any dependency chain: the least
 * total time (or cost) of a run that works on independent sub-problems in
 * parallel. 0 for no sub-problems.
 */
export function criticalPathLength(subProblems: Edge[], stageCost: (id: string) => number): number {
  const { deps, order } = keptGraph(subProblems);
  const finish = new Map<string, number>();
  for (const id of order) finish.set(id, stageCost(id) + Math.max(0, ...deps.get(id)!.map((d) => finish.get(d)!)));
  return Math.max(0, ...finish.values());
}
