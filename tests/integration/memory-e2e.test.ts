import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contributeMemories, extractLessons, type MemoryJobDeps } from '../../src/app/memory-jobs';
import { runSession, type RunnerDeps } from '../../src/app/run-session';
import { DEFAULT_PRICES } from '../../src/config/config';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { selectBoard } from '../../src/domain/board';
import { event } from '../../src/domain/events';
import { DOMAINS, type Persona } from '../../src/domain/model';
import { PERSONAS } from '../../src/domain/personas';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder';
import { ScriptedProvider } from '../../src/llm/fake/scripted-provider';
import { LlmGateway } from '../../src/llm/gateway';
import { loadPrompts } from '../../src/llm/prompts';
import { createSimulatedProvider } from '../../src/llm/simulated/simulated-provider';
import { caseMemoryPolicy } from '../../src/memory/case-memory-policy';
import { MemoryStore } from '../../src/memory/memory-store';
import { testDatabaseUrl } from '../support/env';

let database: Database;
let store: SessionStore;
let memory: MemoryStore;
const embedder = createLocalEmbedder();
const prompts = loadPrompts();
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 6);
  store = new SessionStore(database);
  memory = new MemoryStore(database.db);
});
afterAll(async () => database?.close());

const gateway = (provider: ScriptedProvider) =>
  new LlmGateway(provider, { models: { fast: 'claude-haiku-5-5', smart: 'claude-sonnet-5-5' }, prices: DEFAULT_PRICES });

function deps(provider: ScriptedProvider): RunnerDeps {
  return {
    store,
    gateway: gateway(provider),
    notifier: { publish: async () => {} },
    prompts,
    embedder,
    memory,
    memoryDefaults: { recallLimit: 5, halfLifeDays: 90, tokenCap: 300 },
    caseMemory: caseMemoryPolicy(500),
  };
}

const jobDeps = (provider: ScriptedProvider): MemoryJobDeps => ({ store, memory, gateway: gateway(provider), embedder, prompts, notifier: { publish: async () => {} } });

async function newSession(tenantId: string, problem: string, context: string, options: Record<string, unknown> = {}, seed?: string): Promise<string> {
  const id = randomUUID();
  await store.create(
    { id, tenantId, problem, context, options, provider: 'fake', seed: seed ?? `mem-${id.slice(0, 8)}` },
    event('session.created', { problem, context, provider: 'fake', mode: 'auto' }),
  );
  return id;
}

const sim = () => new ScriptedProvider(createSimulatedProvider({ latencyMs: 0, jitter: 0 }));

/** The scripted sub-problems' text: the board policy (and the simulated board's proposal) reads it. */
const partText = (i: number) => `Part ${i + 1} of the decision\nDecide part ${i + 1} of how to grow the business\nScripted for the memory test.`;

/**
 * Domains for three sequential sub-problems whose panels, as the real board
 * policy picks them, give seed 000's pattern: one expert on all three, one on
 * 1 and 2, one on 1 and 3, one only on 1.
 */
function seed000Domains() {
  const combos: string[][] = [];
  for (const a of DOMAINS) {
    combos.push([a]);
    for (const b of DOMAINS) if (a < b) combos.push([a, b]);
  }
  const panel = (domains: string[], size: number, i: number) => selectBoard(PERSONAS as Persona[], domains, size, partText(i)).map((s) => s.code);
  for (const d1 of combos) {
    const p1 = panel(d1, 5, 0);
    for (const d2 of combos) {
      const p2 = panel(d2, 3, 1);
      for (const d3 of combos) {
        const p3 = panel(d3, 3, 2);
        const all = p1.find((c) => p2.includes(c) && p3.includes(c));
        const oneTwo = p1.find((c) => p2.includes(c) && !p3.includes(c));
        const oneThree = p1.find((c) => p3.includes(c) && !p2.includes(c));
        const onlyOne = p1.find((c) => !p2.includes(c) && !p3.includes(c));
        if (all && oneTwo && oneThree && onlyOne) return { domains: [d1, d2, d3], all, oneTwo, oneThree, onlyOne };
      }
    }
  }
  throw new Error('no domain combination gives the seed 000 pattern');
}

describe('expert memory across sub-problems (seed 000), with a scripted board', () => {
  it('injects each expert\'s earlier summaries only where they sit again, and stores summaries per sub-problem', async () => {
    const pattern = seed000Domains();
    const sub = (i: number, complexity: number) => ({
      id: `sp${i + 1}`,
      title: `Part ${i + 1} of the decision`,
      goal: `Decide part ${i + 1} of how to grow the business`,
      context: 'Scripted for the memory test.',
      successCriteria: ['A clear call'],
      dependsOn: i ? [`sp${i}`] : [],
      complexity,
      domains: pattern.domains[i],
    });
    const provider = sim().when((r) => r.purpose === 'decompose', {
      text: JSON.stringify({ subProblems: [sub(0, 8), sub(1, 2), sub(2, 2)], atomic: false, rationale: 'Three sequential parts.' }),
    });
    const id = await newSession('seed000', 'How should I grow my consulting business over the next year?', 'Solo consultant, steady clients.');
    expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('completed');

    const events = await store.events(id, 0, 10_000);
    const panels = events.find((e) => e.type === 'board.assembled')!.data.panels as Record<string, string[]>;
    expect(panels.sp1).toEqual(expect.arrayContaining([pattern.all, pattern.oneTwo, pattern.oneThree, pattern.onlyOne]));
    const injected = events.filter((e) => e.type === 'expert_memory.injected').map((e) => e.data as { subProblemId: string; persona: string; fromSubProblems: string[] });
    const got = (persona: string) => injected.filter((x) => x.persona === persona).map((x) => [x.subProblemId, x.fromSubProblems]);
    expect(got(pattern.all)).toEqual([
      ['sp2', ['sp1']],
      ['sp3', ['sp2', 'sp1']],
    ]);
    expect(got(pattern.oneTwo)).toEqual([['sp2', ['sp1']]]);
    expect(got(pattern.oneThree)).toEqual([['sp3', ['sp1']]]);
    expect(got(pattern.onlyOne)).toEqual([]);

    // The summary went into the expert's prompt on the later sub-problem.
    const prompts = provider.requests.filter((r) => r.key.includes(`sp3/r1/${pattern.all}`));
    expect(prompts[0]!.messages[0]!.content).toMatch(/earlier sub-problems of this session/);

    // One stored summary per expert per sub-problem they spoke in; its cost is phase expert_memory, a small share
    // (this scripted session's short debates make it larger than usual: the bench reports the typical share).
    const rows = await memory.summariesFor('seed000', id, pattern.all);
    expect(rows.map((r) => r.subProblemId).sort()).toEqual(['sp1', 'sp2', 'sp3']);
    const usage = await store.usage(id);
    expect(usage.byPhase.expert_memory!.calls).toBe(panels.sp1!.length + panels.sp2!.length + panels.sp3!.length);
    expect(usage.byPhase.expert_memory!.costUsd / usage.costUsd).toBeLessThan(0.08);
    // The case memory followed the session and is bounded.
    const row = (await store.get(id))!;
    expect((row.caseMemory as { decisions: unknown[] }).decisions).toHaveLength(3);
  });
});

describe('memory across sessions', () => {
  const planted = { person: 'Jane Whitaker', email: 'jane.whitaker@acmeflow.io', company: 'AcmeFlow Inc', amount: '$48,500' };
  const problem = `Should I pivot AcmeFlow Inc to serve only law firms? My co-founder ${planted.person} (${planted.email}) thinks we should.`;
  const context = `${planted.company} has ${planted.amount} in the bank, 100 customers, law firms pay 3x more.`;

  it('the next session recalls the first one\'s memories and lessons with provenance; another tenant sees nothing; no PII is stored', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    // Fixed seeds: a simulated lesson's confidence is drawn from the seed, and one under 0.5 is (by design) never recalled.
    const first = await newSession(tenant, problem, context, {}, 'mem-across-first');
    expect(await runSession(deps(sim()), first, { finalAttempt: true })).toBe('completed');
    const contributed = await contributeMemories(jobDeps(sim()), first);
    expect(contributed.memories).toBeGreaterThan(0);
    expect(await extractLessons(jobDeps(sim()), first)).toBeGreaterThan(0);

    const stored = await memory.exportTenant(tenant);
    expect(stored.lessons.some((l) => l.confidence >= 0.5)).toBe(true);
    const cross = stored.memories.filter((m) => m.scope === 'session');
    expect(cross.length).toBe(contributed.memories);
    const text = JSON.stringify([cross, stored.lessons]);
    for (const value of [planted.person, 'Whitaker', planted.email, 'AcmeFlow', '48,500']) expect(text).not.toContain(value);
    for (const m of cross) expect(m).toMatchObject({ anonymised: true, sessionId: first });

    // The first session's log now ends with what its memory jobs did.
    const annex = (await store.events(first, 0, 10_000)).slice(-2).map((e) => e.type);
    expect(annex).toEqual(['memory.contributed', 'lessons.extracted']);

    const second = await newSession(tenant, 'Should I focus my project management tool on law firms or agencies?', 'Law firms pay more; agencies grow faster.', {}, 'mem-across-second');
    expect(await runSession(deps(sim()), second, { finalAttempt: true })).toBe('completed');
    const events = await store.events(second, 0, 10_000);
    const recalled = events.find((e) => e.type === 'memory.recalled');
    expect(recalled).toBeDefined();
    const items = (recalled!.data as { items: { provenance: { sessionId: string; subProblemId: string; expert: string; date: string } }[] }).items;
    for (const item of items) {
      expect(item.provenance.sessionId).toBe(first);
      expect(item.provenance.subProblemId).toMatch(/^sp\d+$/);
      expect(item.provenance.date).toMatch(/^\d{4}-/);
    }
    expect(events.some((e) => e.type === 'lessons.applied')).toBe(true);

    // Tenant B, same problem: recalls nothing.
    const other = await newSession(`${tenant}-b`, 'Should I focus my project management tool on law firms or agencies?', 'Law firms pay more; agencies grow faster.');
    expect(await runSession(deps(sim()), other, { finalAttempt: true })).toBe('completed');
    const otherEvents = await store.events(other, 0, 10_000);
    expect(otherEvents.some((e) => e.type === 'memory.recalled' || e.type === 'lessons.applied')).toBe(false);

    // The per-session switches: no read, no contribution.
    const quiet = await newSession(tenant, 'Should I focus on law firms?', 'Law firms pay more.', { memory: { read: false, contribute: false } });
    expect(await runSession(deps(sim()), quiet, { finalAttempt: true })).toBe('completed');
    expect((await store.events(quiet, 0, 10_000)).some((e) => e.type === 'memory.recalled')).toBe(false);
    expect((await contributeMemories(jobDeps(sim()), quiet)).memories).toBe(0);

    // Deleting the first session's contributions leaves nothing derived behind.
    await memory.deleteSessionContributions(tenant, first);
    const after = await memory.exportTenant(tenant);
    expect(after.memories.filter((m) => m.sessionId === first)).toEqual([]);
    const sources = await database.pool.query('select count(*)::int as n from lesson_sources where session_id = $1', [first]);
    expect(sources.rows[0].n).toBe(0);
    const utterances = await database.pool.query('select count(*)::int as n from utterances where session_id = $1', [first]);
    expect(utterances.rows[0].n).toBe(0);
  });

  it('the same lesson twice reinforces it instead of duplicating it', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const ids = [];
    // Two sessions that deliberate identically (same seed, recall off) teach the same lessons.
    for (let i = 0; i < 2; i++) {
      const id = await newSession(tenant, 'Should I raise my SaaS prices from $29 to $49?', '300 customers, churn 5%.', { memory: { read: false } }, 'same-lessons');
      expect(await runSession(deps(sim()), id, { finalAttempt: true })).toBe('completed');
      await extractLessons(jobDeps(sim()), id);
      ids.push(id);
    }
    const { lessons } = await memory.exportTenant(tenant);
    expect(lessons.length).toBeGreaterThan(0);
    expect(lessons.every((l) => l.reinforcements === 2)).toBe(true);
    const last = (await store.events(ids[1]!, 0, 10_000)).at(-1)!;
    expect(last.type).toBe('lessons.extracted');
    expect((last.data.lessons as { outcome: string }[]).every((l) => l.outcome === 'reinforced')).toBe(true);
  });
});

describe('the stance ledger', () => {
  it('a new memory that contradicts a remembered one supersedes it, and both are kept', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    // Every expert ends this session holding back.
    const provider = sim().when((r) => r.purpose === 'expert_summary', {
      text: JSON.stringify({ summary: 'Defer the law-firm pivot: do not commit before a paid pilot proves retention above 80 percent.', position: 'Defer the pivot; do not commit yet', confidence: 0.7, conditions: ['pilot proves retention'] }),
    });
    const id = await newSession(tenant, 'Should I pivot my project management tool to serve only law firms?', 'Law firms pay 3x; churn is 30%.', { memory: { read: false } });
    expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('completed');
    const row = (await store.get(id))!;
    const category = (row.results as { problemStatement: { category: string } }).problemStatement.category;
    const expert = (row.results as { board: { code: string }[] }).board[0]!.code;
    // What this expert concluded in an earlier session: commit.
    const earlier = await newSession(tenant, 'Earlier session', '');
    const oldId = randomUUID();
    const oldPosition = 'Commit to the law-firm pivot now';
    const [vector] = await embedder.embed([`Commit fully to the law-firm pivot now; law firms pay three times more. ${oldPosition}`]);
    await memory.insertMemories(tenant, [
      { id: oldId, scope: 'session', sessionId: earlier, subProblemId: 'sp1', persona: expert, category, summary: 'Commit fully to the law-firm pivot now; law firms pay three times more.', position: oldPosition, confidence: 0.8, anonymised: true, model: 'm', promptVersion: 'p', embedding: vector!, embeddingProvider: embedder.name },
    ]);
    const out = await contributeMemories(jobDeps(provider), id);
    expect(out.superseded).toBeGreaterThan(0);
    const history = await memory.history(tenant, expert);
    const old = history.find((m) => m.id === oldId)!;
    expect(old.supersededBy).toEqual(expect.any(String));
    expect(old.supersededAt).toEqual(expect.any(String));
    const replacement = history.find((m) => m.id === old.supersededBy)!;
    expect(replacement.position).toMatch(/Defer/);
  });

  it('an expert whose opening contradicts what they concluded before is told to explain; once they have spoken again, the contradiction is addressed', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const problem = 'Should I pivot my project management tool to serve only law firms?';
    const context = 'Law firms pay 3x; churn is 30%.';
    // Everyone speaks every round, so whoever is told to explain speaks again in round 2.
    const options = { memory: { contribute: false }, settings: { speakersPerRound: 6 } };
    const probe = await newSession(tenant, problem, context, { ...options, memory: { read: false, contribute: false } }, 'stance-ledger');
    expect(await runSession(deps(sim()), probe, { finalAttempt: true })).toBe('completed');
    const results = (await store.get(probe))!.results as { problemStatement: { category: string }; board: { code: string }[] };
    const oldPosition = 'Commit to the law-firm pivot now';
    const summary = 'Commit fully to the law-firm pivot now; law firms pay three times more.';
    const [vector] = await embedder.embed([`${summary} ${oldPosition}`]);
    await memory.insertMemories(
      tenant,
      results.board.map((m) => ({
        id: randomUUID(), scope: 'session' as const, sessionId: probe, subProblemId: 'sp1', persona: m.code, category: results.problemStatement.category,
        summary, position: oldPosition, confidence: 0.8, anonymised: true, model: 'm', promptVersion: 'p', embedding: vector!, embeddingProvider: embedder.name,
      })),
    );

    // Same seed, same board; this time every opening holds back.
    const inner = createSimulatedProvider({ latencyMs: 0, jitter: 0 });
    const provider = new ScriptedProvider(inner).when(
      (r) => r.purpose === 'opening_statement',
      async (req) => {
        const base = await inner.generate(req);
        return { ...base, text: JSON.stringify({ ...JSON.parse(base.text), position: 'Defer the pivot; do not commit before a paid pilot proves retention' }) };
      },
    );
    const id = await newSession(tenant, problem, context, options, 'stance-ledger');
    expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('completed');
    const events = await store.events(id, 0, 10_000);
    const raised = events.filter((e) => e.type === 'memory.contradiction');
    expect(raised.length).toBeGreaterThan(0);
    for (const c of raised) {
      const { id: cid, subProblemId, persona } = c.data as { id: string; subProblemId: string; persona: string };
      const spokeAgain = events.find((e) => e.seq > c.seq && e.type === 'contribution.completed' && e.data.subProblemId === subProblemId && e.data.persona === persona);
      const resolved = events.find((e) => e.type === 'memory.contradiction_resolved' && e.data.id === cid);
      // Addressed exactly when the expert spoke after being told, in that very turn's commit.
      expect(!!resolved).toBe(!!spokeAgain);
      if (resolved) expect(resolved.seq).toBe(spokeAgain!.seq - 1);
    }
    const caseMemory = (await store.get(id))!.caseMemory as { contradictions: { id: string; open: boolean }[] };
    const resolvedIds = new Set(events.filter((e) => e.type === 'memory.contradiction_resolved').map((e) => e.data.id));
    expect(resolvedIds.size).toBeGreaterThan(0);
    for (const c of caseMemory.contradictions) expect(c.open).toBe(!resolvedIds.has(c.id));
  });
});

describe('memory jobs run again', () => {
  it('after a crash before they reported: the same rows, written once, and one report each', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const id = await newSession(tenant, 'Should I raise my SaaS prices from $29 to $49?', '300 customers, churn 5%.', {}, 'jobs-rerun');
    expect(await runSession(deps(sim()), id, { finalAttempt: true })).toBe('completed');
    // The first runs crash at their very last step, after writing their rows.
    let crashes = 2;
    const crashing = Object.create(store, {
      annex: { value: async (...args: Parameters<SessionStore['annex']>) => (crashes-- > 0 ? Promise.reject(new Error('worker died')) : store.annex(...args)) },
    }) as SessionStore;
    const faulty = { ...jobDeps(sim()), store: crashing };
    await expect(contributeMemories(faulty, id)).rejects.toThrow('worker died');
    await expect(extractLessons(faulty, id)).rejects.toThrow('worker died');
    const afterCrash = await memory.exportTenant(tenant);
    expect(afterCrash.memories.filter((m) => m.scope === 'session').length).toBeGreaterThan(0);
    expect(afterCrash.lessons.length).toBeGreaterThan(0);

    // The re-runs (a queue retry, or the reconciler) write the same ids: nothing doubles; each job reports once.
    await contributeMemories(faulty, id);
    await extractLessons(faulty, id);
    const rerun = await memory.exportTenant(tenant);
    expect(rerun.memories.map((m) => m.id).sort()).toEqual(afterCrash.memories.map((m) => m.id).sort());
    expect(rerun.lessons.map((l) => [l.id, l.reinforcements])).toEqual(afterCrash.lessons.map((l) => [l.id, l.reinforcements]));
    // A third run finds both reports and does nothing.
    expect(await contributeMemories(jobDeps(sim()), id)).toEqual({ memories: 0, superseded: 0, dropped: 0 });
    expect(await extractLessons(jobDeps(sim()), id)).toBe(0);
    const types = (await store.events(id, 0, 10_000)).map((e) => e.type);
    expect(types.filter((t) => t === 'memory.contributed')).toHaveLength(1);
    expect(types.filter((t) => t === 'lessons.extracted')).toHaveLength(1);
  });
});
