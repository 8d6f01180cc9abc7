import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type RunnerDeps } from '../../src/app/run-session';
import { DEFAULT_PRICES } from '../../src/config/config';
import { openDatabase, type Database } from '../../src/db/client';
import { SessionStore } from '../../src/db/session-store';
import { event } from '../../src/domain/events';
import { transcriptEntries } from '../../src/domain/transcript';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder';
import { ScriptedProvider } from '../../src/llm/fake/scripted-provider';
import { LlmGateway } from '../../src/llm/gateway';
import { loadPrompts } from '../../src/llm/prompts';
import { createSimulatedProvider } from '../../src/llm/simulated/simulated-provider';
import { LlmError } from '../../src/ports/llm';
import { testDatabaseUrl } from '../support/env';

/**
 * The board the session deliberates with is the model's proposal, held to the
 * board rules: a scripted `board_selection` answer on top of the simulated
 * board, through the real runner, gateway and store.
 */
let database: Database;
let store: SessionStore;
beforeAll(() => {
  database = openDatabase(testDatabaseUrl(), 4);
  store = new SessionStore(database);
});
afterAll(async () => database?.close());

const deps = (provider: ScriptedProvider): RunnerDeps => ({
  store,
  gateway: new LlmGateway(provider, { models: { fast: 'claude-haiku-5-5', smart: 'claude-sonnet-5-5' }, prices: DEFAULT_PRICES }),
  notifier: { publish: async () => {} },
  prompts: loadPrompts(),
  embedder: createLocalEmbedder(),
});

const sub = (id: string, title: string, goal: string, domains: string[], complexity: number) => ({
  id,
  title,
  goal,
  context: 'Solo technical founder, $15K MRR, $55K cash.',
  successCriteria: ['A clear call'],
  dependsOn: [],
  complexity,
  domains,
});
const decomposition = JSON.stringify({
  subProblems: [
    sub('sp1', 'Stabilise the database', 'Decide the minimum stabilisation and security baseline', ['technical', 'risk'], 5),
    sub('sp2', 'Contractor for the refactor', 'Decide whether to pay a contractor $30K for the refactor', ['finance', 'people'], 8),
  ],
  atomic: false,
  rationale: 'Two parts.',
});

async function session(provider: ScriptedProvider) {
  const id = randomUUID();
  const problem = 'Should I refactor, ship features, or hire a contractor for the refactor?';
  await store.create(
    { id, tenantId: 'board-selection', problem, context: '', options: { settings: { panelSize: { simple: 3, moderate: 3, complex: 3 } } }, provider: 'fake', seed: `board-${id.slice(0, 8)}` },
    event('session.created', { problem, context: '', provider: 'fake', mode: 'auto' }),
  );
  expect(await runSession(deps(provider), id, { finalAttempt: true })).toBe('completed');
  const events = await store.events(id, 0, 10_000);
  const board = events.find((e) => e.type === 'board.assembled')!.data as any;
  return { events, board };
}

const sim = () => new ScriptedProvider(createSimulatedProvider({ latencyMs: 0, jitter: 0 })).when((r) => r.purpose === 'decompose', { text: decomposition });

describe('board selection by the model', () => {
  it("seats the model's panels, trims and drops by the stated rules, raises the one-way panel, and shows why", async () => {
    const proposal = {
      panels: [
        {
          subProblemId: 'sp1',
          seats: [
            { code: 'security_officer', rationale: 'The prospect is blocked on a security questionnaire.' },
            { code: 'fractional_cto', rationale: 'Has bought headroom on one PostgreSQL database before.' },
            { code: 'engineering_manager', rationale: 'Sizes the work in checkable milestones.' },
            { code: 'technical_architect', rationale: 'One too many: trimmed.' },
          ],
        },
        {
          subProblemId: 'sp2',
          seats: [
            { code: 'turnaround_cfo', rationale: 'Weighs $30K against $55K of cash.' },
            { code: 'chief_astrologer', rationale: 'Not in the pool.' },
            { code: 'people_partner', rationale: 'Contractors and the founder’s time are a people question.' },
          ],
        },
      ],
    };
    const provider = sim().when((r) => r.purpose === 'board_selection', { text: JSON.stringify(proposal) });
    const { events, board } = await session(provider);

    const request = provider.requests.find((r) => r.purpose === 'board_selection')!;
    expect(request.model).toBe('claude-haiku-5-5');
    expect(request.messages[0]!.content).toMatch(/sp2: Contractor for the refactor \(complexity 8; domains finance, people; 4 seats\)/);
    expect(request.messages[0]!.content).toMatch(/people_partner — [^,\n]+, People & Hiring Lead:/); // with the name, so rationales name people rather than guess pronouns

    expect(board.selection.by).toBe('model');
    expect(board.panels.sp1).toEqual(['security_officer', 'fractional_cto', 'engineering_manager']);
    expect(board.picks.sp1[0]).toEqual({ code: 'security_officer', rationale: 'The prospect is blocked on a security questionnaire.', by: 'model' });
    // sp2 is complexity 8 on 3-seat panels: raised to 4; the unknown code dropped, the gaps filled by the policy.
    expect(board.panels.sp2.slice(0, 2)).toEqual(['turnaround_cfo', 'people_partner']);
    expect(board.panels.sp2).toHaveLength(4);
    expect(board.picks.sp2.slice(2).every((p: { by: string }) => p.by === 'policy')).toBe(true);
    expect(board.selection.notes).toEqual(
      expect.arrayContaining([
        'sp1: kept the first 3 of 4 proposed seats (the panel has 3); set aside technical_architect',
        'sp2: dropped "chief_astrologer": no such persona in the pool',
        expect.stringMatching(/^sp2: complexity 8 may be a one-way door: 4 seats instead of 3/),
      ]),
    );
    // The panels deliberated as seated: everyone on sp2 voted.
    const voters = events.filter((e) => e.type === 'vote.cast' && e.data.subProblemId === 'sp2').map((e) => e.data.persona);
    expect(voters.sort()).toEqual([...board.panels.sp2].sort());
    // The transcript shows each seat's reason per panel and what the policy changed, in the reader's words (the
    // detailed one as the board wrote it).
    const text = transcriptEntries(events).find((e) => e.kind === 'board')!.text;
    expect(text).toContain('Panel for sub-problem 1:\n- Yusuf Karim: The prospect is blocked on a security questionnaire.');
    expect(text).toContain('- sub-problem 2: dropped "chief_astrologer": no such persona in the pool');
    expect(text).toMatch(/set aside [A-Z][a-z]+ [A-Z]/);
    const detailed = transcriptEntries(events, 'detailed').find((e) => e.kind === 'board')!.text;
    expect(detailed).toContain('Panel for sp1:\n- Yusuf Karim');
    expect(detailed).toContain('set aside technical_architect');
  });

  it('falls back to the deterministic pick when the call fails, and says so', async () => {
    const provider = sim().when((r) => r.purpose === 'board_selection', new LlmError('bad_request', 'no recorded answer for board_selection', false, 400));
    const { board, events } = await session(provider);
    expect(board.selection).toMatchObject({ by: 'fallback', failure: expect.stringContaining('no recorded answer') });
    expect(board.panels.sp1).toHaveLength(3);
    expect(board.panels.sp2).toHaveLength(4);
    expect(Object.values(board.picks).flat().every((p: any) => p.by === 'policy')).toBe(true);
    expect(transcriptEntries(events).find((e) => e.kind === 'board')!.text).toMatch(/Chosen by domain fit and diversity \(the facilitator's proposal was unavailable: no recorded answer/);
  });
});
