import { describe, expect, it } from 'vitest';
import {
  ALLOWED_ACTIONS,
  applyBoardEdit,
  checkResolution,
  subProblemsFromEdit,
  type PendingCheckpoint,
} from '../../src/domain/checkpoints';
import type { SubProblem } from '../../src/domain/model';
import { isAppError } from '../../src/domain/errors';
import { PERSONAS } from '../../src/domain/personas';
import { applyEvents, emptyCaseMemory } from '../../src/memory/case-memory';
import { transcriptEntries } from '../../src/domain/transcript';
import type { Envelope } from '../../src/domain/events';

const cp = (kind: PendingCheckpoint['kind'], proposal: PendingCheckpoint['proposal']): PendingCheckpoint => ({
  id: kind,
  stepKey: `checkpoint/${kind}`,
  kind,
  prompt: '…',
  actions: ALLOWED_ACTIONS[kind],
  requestedAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-02T00:00:00Z',
  onExpiry: 'continue',
  proposal,
});

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (isAppError(err, 'checkpoint-action-invalid')) return err.field;
    throw err;
  }
  return null;
};

const questions = cp('clarification', {
  questions: [
    { id: 'q1', question: 'What is the budget?', why: 'Sets the scale', assumption: 'Small budget' },
    { id: 'q2', question: 'What is the deadline?', why: 'Sets the pace', assumption: 'Six months' },
  ],
});
const board = cp('board', {
  members: [],
  panels: { sp1: ['financial_analyst', 'growth_strategist', 'user_advocate'], sp2: ['financial_analyst', 'risk_manager'] },
  available: [],
});

describe('checking an answer against its checkpoint', () => {
  it('refuses an action the kind does not allow, naming body.action', () => {
    expect(fieldOf(() => checkResolution(questions, { action: 'skip_to_vote' }, PERSONAS))).toBe('body.action');
    expect(fieldOf(() => checkResolution(cp('next_sub_problem', { next: { id: 'sp2', title: 't' }, done: 1, total: 2 }), { action: 'intervene', message: 'x' }, PERSONAS))).toBe(
      'body.action',
    );
  });

  it('keeps the answered questions with their text, and refuses unknown or empty answers', () => {
    const r = checkResolution(questions, { action: 'answer', answers: { q2: ' By March ' } }, PERSONAS);
    expect(r.answers).toEqual([{ id: 'q2', question: 'What is the deadline?', answer: 'By March' }]);
    expect(fieldOf(() => checkResolution(questions, { action: 'answer', answers: { q9: 'x' } }, PERSONAS))).toBe('body.answers.q9');
    expect(fieldOf(() => checkResolution(questions, { action: 'answer', answers: { q1: '  ' } }, PERSONAS))).toBe('body.answers');
  });

  it('needs the payload that fits the kind being edited', () => {
    const statement = cp('statement', { statement: 'x', assumptions: [], domains: [] });
    expect(fieldOf(() => checkResolution(statement, { action: 'edit' }, PERSONAS))).toBe('body.statement');
    expect(fieldOf(() => checkResolution(statement, { action: 'edit', statement: 'A new statement', board: {} }, PERSONAS))).toBe('body.board');
    expect(fieldOf(() => checkResolution(cp('round_end', { subProblemId: 'sp1', round: 1, maxRounds: 5, summary: '', positions: [] }), { action: 'intervene' }, PERSONAS))).toBe(
      'body.message',
    );
  });

  it('refuses sub-problem dependencies outside the list', () => {
    const subs = cp('sub_problems', { subProblems: [] });
    const bad = { action: 'edit' as const, sub_problems: [{ id: 'a', title: 'One', goal: 'Decide one thing', depends_on: ['zz'] }] };
    expect(fieldOf(() => checkResolution(subs, bad, PERSONAS))).toBe('body.sub_problems.0.depends_on');
  });
});

describe('editing the board', () => {
  it('removes from and adds to every panel, resolving a wanted kind to the best persona off the board', () => {
    const { panels, edit } = applyBoardEdit(board.proposal as { panels: Record<string, string[]> }, { remove: ['growth_strategist'], want: ['legal compliance'] }, PERSONAS);
    expect(edit).toEqual({
      remove: ['growth_strategist'],
      add: ['legal_advisor'],
      wanted: [{ want: 'legal compliance', code: 'legal_advisor', name: 'Hannah Whitfield', title: 'Legal & Compliance Advisor', close: true }],
    });
    expect(panels.sp1).toEqual(['financial_analyst', 'user_advocate', 'legal_advisor']);
    expect(panels.sp2).toEqual(['financial_analyst', 'risk_manager', 'legal_advisor']);
  });

  it('refuses codes that are not on the board or not in the pool, and panels left with fewer than two', () => {
    const b = board.proposal as { panels: Record<string, string[]> };
    expect(fieldOf(() => applyBoardEdit(b, { remove: ['data_scientist'] }, PERSONAS))).toBe('body.board.remove.0');
    expect(fieldOf(() => applyBoardEdit(b, { add: ['nobody'] }, PERSONAS))).toBe('body.board.add.0');
    expect(fieldOf(() => applyBoardEdit(b, { want: ['astrologer'] }, PERSONAS))).toBe('body.board.want.0');
    expect(fieldOf(() => applyBoardEdit(b, { remove: ['risk_manager'] }, PERSONAS))).toBe('body.board');
  });

  // The tech-debt trial: the want below was resolved to the behavioural psychologist, whom the same edit removed.
  const trialBoard = {
    panels: {
      sp1: ['data_scientist', 'legal_advisor', 'operations_expert'],
      sp2: ['growth_strategist', 'behavioral_psychologist', 'data_scientist'],
      sp3: ['operations_expert', 'risk_manager', 'user_advocate'],
    },
  };
  const trialWant = 'someone who has scaled a small SaaS on Postgres and managed contractors on legacy code';

  it('never resolves a want to an expert the same edit removes, and matches it against expertise and background', () => {
    const { panels, edit } = applyBoardEdit(trialBoard, { remove: ['behavioral_psychologist'], add: ['technical_architect'], want: [trialWant] }, PERSONAS);
    expect(edit.add).toEqual(['technical_architect', 'fractional_cto']);
    expect(edit.wanted).toEqual([{ want: trialWant, code: 'fractional_cto', name: 'Rosa Delgado', title: 'Fractional CTO', close: true }]);
    expect(Object.values(panels).flat()).not.toContain('behavioral_psychologist');
    // Whatever the pool, a removed expert is never the match: with only her left, the want is refused rather than resolved to her.
    const onlyHer = PERSONAS.filter((p) => p.code === 'behavioral_psychologist' || Object.values(trialBoard.panels).flat().includes(p.code));
    expect(fieldOf(() => applyBoardEdit(trialBoard, { remove: ['behavioral_psychologist'], want: ['motivation and cognitive bias'] }, onlyHer))).toBe('body.board.want.0');
  });

  it('resolves kinds of expert by title first: people and hiring, pricing, security', () => {
    const want = (kind: string) => applyBoardEdit(trialBoard, { want: [kind] }, PERSONAS).edit.wanted![0]!.code;
    expect(want('people and hiring')).toBe('people_partner');
    expect(want('pricing')).toBe('pricing_strategist');
    expect(want('security questionnaire and SOC 2')).toBe('security_officer');
    // The legal advisor already sits on sp1: the next best off the board answers.
    expect(want('legal and compliance')).toBe('security_officer');
  });

  // The pricing trial: "someone who sells software to small service businesses" became an Engineering Manager, on every panel.
  it('reads a want in the words people use for experts, and adds to the panels named in sub_problems only', () => {
    const want = (kind: string) => applyBoardEdit(trialBoard, { want: [kind] }, PERSONAS).edit.wanted![0]!.code;
    expect(want('someone who sells software to small service businesses')).toBe('sales_leader');
    expect(want('an accountant')).toBe('financial_analyst');
    expect(want('someone who has raised money from investors')).toBe('fundraising_advisor');
    // A want the pool has no expert for resolves to the nearest, marked as such: what is left shares only common words.
    const withMarketer = { panels: { ...trialBoard.panels, sp2: [...trialBoard.panels.sp2, 'brand_marketer'] } };
    const podcaster = applyBoardEdit(withMarketer, { want: ['someone who has launched a podcast network'] }, PERSONAS).edit.wanted![0]!;
    expect(podcaster.close).toBe(false);
    // A distinctive word decides over common ones: logistics, not "small SaaS" (the product trial's Fractional CTO).
    const withSales = { panels: { ...trialBoard.panels, sp1: [...trialBoard.panels.sp1, 'sales_leader'] } };
    expect(applyBoardEdit(withSales, { want: ['someone who has actually sold software to small logistics companies and 3PLs'] }, PERSONAS).edit.wanted![0]!.code).toBe('supply_chain_lead');
    expect(applyBoardEdit(trialBoard, { want: ['an accountant'] }, PERSONAS).edit.wanted![0]!.close).toBe(true);
    const { panels, edit } = applyBoardEdit(trialBoard, { want: ['someone who sells software to small service businesses'], sub_problems: ['sp2'] }, PERSONAS);
    expect(panels.sp2).toContain('sales_leader');
    expect([...panels.sp1!, ...panels.sp3!]).not.toContain('sales_leader');
    expect(edit.subProblems).toEqual(['sp2']);
    // Replayed from the resolved edit (codes, scope), the panels come out the same.
    expect(applyBoardEdit(trialBoard, { add: edit.add, sub_problems: edit.subProblems }, PERSONAS).panels).toEqual(panels);
    expect(fieldOf(() => applyBoardEdit(trialBoard, { add: ['sales_leader'], sub_problems: ['sp9'] }, PERSONAS))).toBe('body.board.sub_problems.0');
  });

  // The growth trial asked for "someone who has actually launched and grown a paid app in the Shopify App Store" and got a User
  // Advocate; the SEO trial's paid-ads question had no paid-acquisition specialist to ask.
  it('finds the app marketplace and the paid acquisition specialists, as close matches, in the words people use', () => {
    const withMarketer = { panels: { ...trialBoard.panels, sp2: [...trialBoard.panels.sp2, 'brand_marketer'] } };
    const wanted = (kind: string, board = trialBoard) => applyBoardEdit(board, { want: [kind] }, PERSONAS).edit.wanted![0]!;
    for (const kind of [
      'someone who has grown a paid app in the Shopify App Store',
      'someone who has actually launched and grown a paid app in the Shopify App Store',
      'app store optimisation',
      'an Atlassian marketplace expert',
      'someone who has built a Chrome extension business',
    ]) {
      for (const board of [trialBoard, withMarketer]) expect(wanted(kind, board), kind).toMatchObject({ code: 'app_marketplace_lead', name: 'Lucia Ferraro', close: true });
    }
    for (const kind of ['a paid ads expert', 'paid acquisition', 'performance marketing', 'PPC specialist', 'someone who runs Facebook ads', 'someone with advertising experience']) {
      expect(wanted(kind), kind).toMatchObject({ code: 'performance_marketer', name: 'Dana Kowalski', close: true });
    }
    for (const kind of ['an SEO expert', 'someone who has grown organic search traffic', 'a content marketing and blogging specialist', 'keyword research']) {
      expect(wanted(kind), kind).toMatchObject({ code: 'seo_content_lead', name: 'Jonas Whitaker', close: true });
    }
    // With one of them already seated, the other is not the match for its want: the nearest is said to be only that.
    const seated = { panels: { ...trialBoard.panels, sp2: [...trialBoard.panels.sp2, 'app_marketplace_lead'] } };
    expect(wanted('someone who has grown a paid app in the Shopify App Store', seated).close).toBe(false);
  });

  it('keeps a code both removed and added in one edit removed, and out of the resolved additions', () => {
    const { panels, edit } = applyBoardEdit(trialBoard, { remove: ['behavioral_psychologist'], add: ['technical_architect', 'behavioral_psychologist'] }, PERSONAS);
    expect(edit).toEqual({ remove: ['behavioral_psychologist'], add: ['technical_architect'] });
    expect(panels.sp2).toEqual(['growth_strategist', 'data_scientist', 'technical_architect']);
  });
});

it('a sub-problem list from the person keeps what they did not restate', () => {
  const proposed: SubProblem[] = [
    { id: 'sp1', title: 'Pricing', goal: 'Decide the price', context: 'Competitors charge $50', successCriteria: ['margin'], dependsOn: [], complexity: 7, domains: ['finance'] },
  ];
  const out = subProblemsFromEdit([{ id: 'sp1', title: 'Price level', goal: 'Decide the price level' }, { title: 'Launch', goal: 'Decide when to launch', depends_on: ['sp1'] }], proposed, ['market']);
  expect(out[0]).toMatchObject({ id: 'sp1', title: 'Price level', context: 'Competitors charge $50', complexity: 7, domains: ['finance'] });
  expect(out[1]).toMatchObject({ id: 'new2', dependsOn: ['sp1'], complexity: 5, domains: ['market'], successCriteria: ['Decide when to launch'] });
  // Success criteria the person writes are kept; a kept id without them keeps the proposal's.
  expect(out[0]!.successCriteria).toEqual(['margin']);
  const own = subProblemsFromEdit([{ id: 'sp1', title: 'Price level', goal: 'Decide the price level', success_criteria: ['30% gross margin'] }], proposed, ['market']);
  expect(own[0]!.successCriteria).toEqual(['30% gross margin']);
});

describe('what the person chose, in the case memory and the transcript', () => {
  const env = (seq: number, data: Record<string, unknown>): Envelope => ({ seq, type: 'checkpoint.resolved', session_id: 's', ts: '2026-01-01T00:00:00Z', data });
  const log = [
    env(1, { checkpointId: 'clarification', kind: 'clarification', action: 'answer', by: 'client', answers: [{ id: 'q1', question: 'Budget?', answer: '$10k' }] }),
    env(2, { checkpointId: 'sp1.r1', kind: 'round_end', action: 'intervene', by: 'client', message: 'Think about churn' }),
    env(3, { checkpointId: 'sp1.r2', kind: 'round_end', action: 'continue', by: 'expiry' }),
  ];

  it('answers and interventions become user intents', () => {
    const m = applyEvents(emptyCaseMemory(), log, '2026-01-01T00:00:00Z');
    expect(m.intents.map((i) => i.text)).toEqual(['Answered "Budget?": $10k', 'Think about churn']);
  });

  it('the transcript gives the person a voice, and says when nobody answered', () => {
    const lines = transcriptEntries(log).map((e) => `${e.speaker}: ${e.text}`);
    expect(lines).toEqual(['YOU: Budget? — $10k', 'YOU: Think about churn', 'FACILITATOR: Nobody answered in time: the board continues with what it proposed.']);
  });
});
