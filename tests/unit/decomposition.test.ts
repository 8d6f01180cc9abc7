import { describe, expect, it } from 'vitest';
import { criticalPathLength, dependencyWaves, normalizeDecomposition } from '../../src/domain/decomposition';
import { subProblemSchema, type SubProblem } from '../../src/domain/model';
import { dependencyOrder } from '../../src/domain/schedule';
import { DEFAULT_ENGINE_SETTINGS as S } from '../../src/domain/settings';

type Domain = SubProblem['domains'][number];
const sp = (id: string, dependsOn: string[] = [], domains: Domain[] = ['strategy'], complexity = 5): SubProblem => ({
  id,
  title: `Title ${id}`,
  goal: `Decide the goal of ${id} for the business`,
  context: `Context of ${id}`,
  successCriteria: [`criterion ${id} 1`, `criterion ${id} 2`],
  dependsOn,
  complexity,
  domains,
});
const raw = (subProblems: SubProblem[], flags: { atomic?: boolean; vague?: boolean } = {}) => ({
  subProblems,
  atomic: flags.atomic ?? false,
  vague: flags.vague ?? false,
  problem: 'I have $50K and 12 months. Should I build a SaaS tool or a mobile app?',
  statement: 'Choose which product to build with $50K and 12 months of runway.',
});
/** Every output must be a valid sub-problem with deps only on earlier-ordered ids. */
function expectWellFormed(out: ReturnType<typeof normalizeDecomposition>) {
  expect(out.subProblems.length).toBeGreaterThanOrEqual(1);
  expect(out.subProblems.length).toBeLessThanOrEqual(5);
  expect(out.subProblems.map((s) => s.id)).toEqual(out.subProblems.map((_, i) => `sp${i + 1}`));
  for (const s of out.subProblems) subProblemSchema.parse(s);
  expect([...out.order].sort()).toEqual(out.subProblems.map((s) => s.id).sort());
  for (const s of out.subProblems) for (const d of s.dependsOn) expect(out.order.indexOf(d)).toBeLessThan(out.order.indexOf(s.id));
  expect(dependencyOrder(out.subProblems).broken).toEqual([]);
}

describe('normalizeDecomposition', () => {
  it('keeps 2-5 proposals, renumbering ids and remapping dependencies', () => {
    const out = normalizeDecomposition(raw([sp('sp2'), sp('sp5', ['sp2']), sp('sp7', ['sp5', 'sp2'])]), S);
    expectWellFormed(out);
    expect(out.subProblems.map((s) => [s.id, s.dependsOn, s.title])).toEqual([
      ['sp1', [], 'Title sp2'],
      ['sp2', ['sp1'], 'Title sp5'],
      ['sp3', ['sp2', 'sp1'], 'Title sp7'],
    ]);
    expect(out.order).toEqual(['sp1', 'sp2', 'sp3']);
    expect(out).toMatchObject({ broken: [], grouped: [], flags: { atomic: false, vague: false, grouped: false } });
  });

  it('orders by dependency, not declaration', () => {
    const out = normalizeDecomposition(raw([sp('sp1', ['sp3']), sp('sp2'), sp('sp3')]), S);
    expect(out.order).toEqual(['sp2', 'sp3', 'sp1']);
  });

  it('breaks unknown, self and cyclic dependencies and records them', () => {
    const out = normalizeDecomposition(raw([sp('sp1', ['sp2', 'sp9']), sp('sp2', ['sp1', 'sp2']), sp('sp3', ['sp2'])]), S);
    expectWellFormed(out);
    expect(out.broken).toEqual(
      expect.arrayContaining([
        { from: 'sp1', to: 'sp9', why: 'unknown' },
        { from: 'sp2', to: 'sp2', why: 'self' },
        { from: 'sp1', to: 'sp2', why: 'cycle' },
      ]),
    );
    expect(out.broken).toHaveLength(3);
    expect(out.subProblems.find((s) => s.id === 'sp1')!.dependsOn).toEqual([]);
    expect(out.subProblems.find((s) => s.id === 'sp2')!.dependsOn).toEqual(['sp1']);
  });

  it('names broken dependencies by output id after renumbering, keeping unknown targets as written', () => {
    const out = normalizeDecomposition(raw([sp('sp4'), sp('sp8', ['sp1'])]), S);
    // "sp1" named nothing proposed: it must not silently become the renumbered sp1.
    expect(out.subProblems[1]!.dependsOn).toEqual([]);
    expect(out.broken).toEqual([{ from: 'sp2', to: 'sp1', why: 'unknown' }]);
  });

  it('an atomic problem is exactly one sub-problem without dependencies', () => {
    const out = normalizeDecomposition(raw([sp('sp1', ['sp2']), sp('sp2')], { atomic: true }), S);
    expectWellFormed(out);
    expect(out.subProblems).toHaveLength(1);
    expect(out.subProblems[0]).toMatchObject({ id: 'sp1', title: 'Title sp1', dependsOn: [] });
    expect(out.flags).toEqual({ atomic: true, vague: false, grouped: false });
    expect(out.order).toEqual(['sp1']);
  });

  it('an atomic problem with nothing proposed is built from the statement', () => {
    const out = normalizeDecomposition({ ...raw([], { atomic: true }), statement: 'Should I name my startup FooBar or BarFoo?' }, S);
    expectWellFormed(out);
    expect(out.subProblems[0]!.goal).toContain('FooBar or BarFoo');
    expect(out.flags.atomic).toBe(true);
  });

  it('a vague problem is one high-level sub-problem about clarifying direction', () => {
    const out = normalizeDecomposition(raw([sp('sp1', [], ['market'], 2), sp('sp2', ['sp1'], ['product'], 3)], { vague: true }), S);
    expectWellFormed(out);
    expect(out.subProblems).toHaveLength(1);
    const only = out.subProblems[0]!;
    expect(only.highLevel).toBe(true);
    expect(only.goal).toMatch(/Clarify which direction/);
    expect(only.goal).toContain('Choose which product to build');
    expect(only.complexity).toBeGreaterThanOrEqual(4);
    expect(only.dependsOn).toEqual([]);
    expect(out.flags).toEqual({ atomic: false, vague: true, grouped: false });
    // Vague wins over atomic.
    expect(normalizeDecomposition(raw([sp('sp1')], { vague: true, atomic: true }), S).subProblems[0]!.highLevel).toBe(true);
  });

  describe('more than five proposals', () => {
    // Two dependency chains and a loose end, plus a cycle sp6 <-> sp7.
    const seven = [
      sp('sp1', [], ['market'], 4),
      sp('sp2', ['sp1'], ['market', 'product'], 6),
      sp('sp3', [], ['technical'], 5),
      sp('sp4', ['sp3'], ['technical'], 8),
      sp('sp5', ['sp2'], ['finance'], 3),
      sp('sp6', ['sp7'], ['operations'], 2),
      sp('sp7', ['sp6', 'sp4'], ['operations', 'people'], 7),
    ];
    const out = normalizeDecomposition(raw(seven), S);

    it('groups into 3-5 well-formed meta-problems covering every proposal once', () => {
      expectWellFormed(out);
      expect(out.subProblems.length).toBeGreaterThanOrEqual(3);
      expect(out.subProblems.length).toBeLessThanOrEqual(5);
      expect(out.flags).toEqual({ atomic: false, vague: false, grouped: true });
      const members = out.subProblems.flatMap((s) => s.meta!.groups);
      expect([...members].sort()).toEqual(seven.map((s) => s.id).sort());
      expect(out.grouped).toEqual(out.subProblems.map((s) => ({ id: s.id, members: s.meta!.groups })));
    });

    it('puts a sub-problem with the one it depends on', () => {
      const groupOf = (id: string) => out.subProblems.find((s) => s.meta!.groups.includes(id))!.id;
      expect(groupOf('sp2')).toBe(groupOf('sp1'));
      expect(groupOf('sp4')).toBe(groupOf('sp3'));
      expect(groupOf('sp7')).toBe(groupOf('sp6'));
    });

    it('merges members: max complexity, at most 5 criteria and 4 domains, joined context', () => {
      for (const meta of out.subProblems) {
        const members = seven.filter((s) => meta.meta!.groups.includes(s.id));
        expect(meta.complexity).toBe(Math.max(...members.map((m) => m.complexity)));
        expect(meta.successCriteria.length).toBeLessThanOrEqual(5);
        expect(meta.domains.length).toBeLessThanOrEqual(4);
        for (const m of members) expect(meta.context).toContain(m.context);
        if (members.length > 1) expect(meta.goal).toMatch(/^Resolve these related questions together: \(1\) /);
      }
    });

    it('remaps dependencies to meta ids and records the broken cycle by proposed id', () => {
      expect(out.broken).toEqual([{ from: 'sp6', to: 'sp7', why: 'cycle' }]);
      const groupOf = (id: string) => out.subProblems.find((s) => s.meta!.groups.includes(id))!;
      // sp5 depends on sp2 (market chain); sp7 on sp4 (technical chain).
      const g5 = groupOf('sp5');
      if (g5.id !== groupOf('sp2').id) expect(g5.dependsOn).toContain(groupOf('sp2').id);
      expect(groupOf('sp7').dependsOn).toContain(groupOf('sp4').id);
    });

    it('handles eight independent proposals and a single long chain', () => {
      const eight = Array.from({ length: 8 }, (_, i) => sp(`sp${i + 1}`, [], [(['market', 'finance', 'technical', 'people'] as const)[i % 4]!]));
      const a = normalizeDecomposition(raw(eight), S);
      expectWellFormed(a);
      expect(a.subProblems.length).toBeGreaterThanOrEqual(3);
      const chain = Array.from({ length: 8 }, (_, i) => sp(`sp${i + 1}`, i ? [`sp${i}`] : []));
      const b = normalizeDecomposition(raw(chain), S);
      expectWellFormed(b);
      expect(b.subProblems.length).toBeGreaterThanOrEqual(3);
      expect(b.order).toEqual(b.subProblems.map((s) => s.id));
    });

    it('groups twelve proposals in four domain chains into those four meta-problems (the spec example)', () => {
      const domains = ['market', 'product', 'operations', 'finance'] as const;
      const twelve = Array.from({ length: 12 }, (_, i) => sp(`sp${i + 1}`, i % 3 ? [`sp${i}`] : [], [domains[Math.floor(i / 3)]!]));
      const t = normalizeDecomposition(raw(twelve), S);
      expectWellFormed(t);
      expect(t.grouped.map((g) => g.members)).toEqual([
        ['sp1', 'sp2', 'sp3'],
        ['sp4', 'sp5', 'sp6'],
        ['sp7', 'sp8', 'sp9'],
        ['sp10', 'sp11', 'sp12'],
      ]);
      expect(t.subProblems.map((m) => m.domains)).toEqual(domains.map((d) => [d]));
    });

    it('never creates a cycle between groups', () => {
      // a <- c <- b <- d … shapes that would cycle if grouped naively.
      const tangled = [
        sp('sp1'),
        sp('sp2', ['sp3']),
        sp('sp3', ['sp1']),
        sp('sp4', ['sp2']),
        sp('sp5', ['sp4']),
        sp('sp6', ['sp1', 'sp5']),
        sp('sp7', ['sp6', 'sp3']),
      ];
      const t = normalizeDecomposition(raw(tangled), S);
      expectWellFormed(t);
      expect(t.broken).toEqual([]);
    });

    it('is deterministic', () => {
      expect(normalizeDecomposition(raw(seven), S)).toEqual(out);
    });
  });
});

describe('dependencyWaves', () => {
  it('groups by dependency depth', () => {
    expect(
      dependencyWaves([
        { id: 'sp1', dependsOn: [] },
        { id: 'sp2', dependsOn: ['sp1'] },
        { id: 'sp3', dependsOn: [] },
        { id: 'sp4', dependsOn: ['sp2', 'sp3'] },
        { id: 'sp5', dependsOn: ['sp1'] },
      ]),
    ).toEqual([['sp1', 'sp3'], ['sp2', 'sp5'], ['sp4']]);
  });
  it('ignores unknown deps and survives cycles', () => {
    expect(dependencyWaves([{ id: 'sp1', dependsOn: ['sp9'] }])).toEqual([['sp1']]);
    expect(
      dependencyWaves([
        { id: 'sp1', dependsOn: ['sp2'] },
        { id: 'sp2', dependsOn: ['sp1'] },
      ]),
    ).toEqual([['sp1'], ['sp2']]);
    expect(dependencyWaves([])).toEqual([]);
  });
});

describe('criticalPathLength', () => {
  const graph = [
    { id: 'sp1', dependsOn: [] },
    { id: 'sp2', dependsOn: ['sp1'] },
    { id: 'sp3', dependsOn: [] },
    { id: 'sp4', dependsOn: ['sp2', 'sp3'] },
  ];
  it('is the longest chain sum, not the total', () => {
    const cost: Record<string, number> = { sp1: 2, sp2: 3, sp3: 10, sp4: 1 };
    expect(criticalPathLength(graph, (id) => cost[id]!)).toBe(11);
    expect(criticalPathLength(graph, () => 1)).toBe(3);
  });
  it('is the single stage for independent work and 0 for none', () => {
    expect(criticalPathLength([{ id: 'a', dependsOn: [] }, { id: 'b', dependsOn: [] }], (id) => (id === 'a' ? 4 : 7))).toBe(7);
    expect(criticalPathLength([], () => 1)).toBe(0);
  });
});
