import { describe, expect, it } from 'vitest';
import { EndOfInput, runDialog } from '../../src/cli/checkpoint-dialog';
import { asCheckpoint } from '../../src/cli/checkpoint-view';
import { createStyle } from '../../src/cli/style';
import { ALLOWED_ACTIONS } from '../../src/domain/checkpoints';

const ACTIONS: Record<string, string[]> = ALLOWED_ACTIONS;

/** Runs a dialog on a script of answers; returns the resolution and the conversation as printed. */
async function converse(kind: string, proposal: Record<string, unknown>, script: string[], actions = ACTIONS[kind]!) {
  const lines = [...script];
  let out = '';
  const resolution = await runDialog(asCheckpoint({ checkpointId: 'cp1', kind, prompt: `The ${kind} checkpoint.`, actions, proposal }), {
    ask: async (prompt) => {
      const line = lines.shift();
      out += `${prompt}${line ?? '<EOF>'}\n`;
      return line ?? null;
    },
    say: (text) => void (out += `${text}\n`),
    style: createStyle(false),
    progress: (id) => `Sub-problem ${id.slice(2)} of 3: Pricing`,
  });
  expect(lines, 'every scripted answer is consumed').toEqual([]);
  return { resolution, out };
}

const questions = {
  questions: [
    { id: 'q1', question: 'What is your runway?', why: 'Sets the risk budget.', assumption: 'About a year.' },
    { id: 'q2', question: 'Who decides?', why: 'Sets the horizon.', assumption: 'You alone.' },
  ],
};
const subProblems = {
  subProblems: [
    { id: 'sp1', title: 'Market', goal: 'Size the market', complexity: 4, domains: ['market'], dependsOn: [] },
    { id: 'sp2', title: 'Pricing', goal: 'Set the price', complexity: 6, domains: ['finance'], dependsOn: ['sp1'] },
    { id: 'sp3', title: 'Launch', goal: 'Plan the launch', complexity: 3, domains: ['strategy'], dependsOn: ['sp2'] },
  ],
};
const board = {
  members: [
    { code: 'growth_strategist', name: 'Maria Santos', title: 'Growth Strategist', rationale: 'market', subProblems: ['sp1'] },
    { code: 'financial_analyst', name: 'Daniel Reyes', title: 'Financial Analyst', rationale: 'cash', subProblems: ['sp1'] },
  ],
  panels: { sp1: ['growth_strategist', 'financial_analyst'] },
  available: [{ code: 'legal_advisor', name: 'Hannah Whitfield', title: 'Legal & Compliance Advisor' }],
};

describe('checkpoint dialogs', () => {
  it('clarification: each question in turn, Enter keeps the assumption', async () => {
    const { resolution, out } = await converse('clarification', questions, ['14 months', '']);
    expect(resolution).toEqual({ action: 'answer', answers: { q1: '14 months' } });
    expect(out).toContain('Question 1 of 2: What is your runway?');
    expect(out).toContain('Why it matters: Sets the risk budget.');
    expect(out).toContain('If unanswered, the board assumes: You alone.');
    expect((await converse('clarification', questions, ['', ''])).resolution).toEqual({ action: 'continue' });
  });

  it('statement: Enter confirms, text replaces it', async () => {
    const proposal = { statement: 'Decide X.', assumptions: ['A1'], domains: ['market'] };
    expect((await converse('statement', proposal, [''])).resolution).toEqual({ action: 'continue' });
    const { resolution, out } = await converse('statement', proposal, ['Decide Y within 14 months.']);
    expect(resolution).toEqual({ action: 'edit', statement: 'Decide Y within 14 months.' });
    expect(out).toContain('Decide X.\n  Assumption: A1\n  Domains: market');
  });

  it('sub_problems: remove, merge, add, then send the whole edited list', async () => {
    expect((await converse('sub_problems', subProblems, ['c'])).resolution).toEqual({ action: 'continue' });
    const { resolution, out } = await converse('sub_problems', subProblems, [
      'remove sp9',
      'merge sp1 sp2',
      'add Runway: Decide how much runway to keep',
      'rename sp1',
      'done',
    ]);
    expect(out).toContain('No sub-problem "sp9".');
    expect(out).toContain('1. [sp1] Market / Pricing — Size the market; Set the price (complexity 6)');
    expect(out).toContain('2. [sp3] Launch — Plan the launch (complexity 3; after sp1)');
    expect(out).toContain('3. [new] Runway — Decide how much runway to keep');
    expect(out).toContain('Commands:');
    expect(resolution).toEqual({
      action: 'edit',
      sub_problems: [
        { id: 'sp1', title: 'Market / Pricing', goal: 'Size the market; Set the price', complexity: 6, domains: ['market', 'finance'], depends_on: [] },
        // It depended on the absorbed sp2: now on the merged sp1.
        { id: 'sp3', title: 'Launch', goal: 'Plan the launch', complexity: 3, domains: ['strategy'], depends_on: ['sp1'] },
        { title: 'Runway', goal: 'Decide how much runway to keep', depends_on: [] },
      ],
    });
    const removed = await converse('sub_problems', subProblems, ['remove 2', '']);
    expect(removed.resolution.sub_problems).toEqual([
      expect.objectContaining({ id: 'sp1' }),
      expect.objectContaining({ id: 'sp3', depends_on: [] }),
    ]);
  });

  it('board: remove, add from the available, want a kind of expert', async () => {
    expect((await converse('board', board, [''])).resolution).toEqual({ action: 'continue' });
    const { resolution, out } = await converse('board', board, ['add ceo', 'remove nobody', 'add legal_advisor', 'remove financial_analyst', 'want tax expert', '']);
    expect(out).toContain('1. [growth_strategist] Maria Santos, Growth Strategist');
    expect(out).toContain('Available: legal_advisor (Hannah Whitfield, Legal & Compliance Advisor)');
    expect(out).toContain('"ceo" is not available');
    expect(out).toContain('"nobody" is not on the board.');
    expect(out).toContain('Changes: -financial_analyst, +legal_advisor, want "tax expert"');
    expect(resolution).toEqual({ action: 'edit', board: { remove: ['financial_analyst'], add: ['legal_advisor'], want: ['tax expert'] } });
  });

  it('board: additions can join chosen panels only (only <ids>), and a full panel elsewhere does not block them', async () => {
    const five = ['growth_strategist', 'financial_analyst', 'legal_advisor', 'risk_manager', 'data_scientist'];
    const scoped = {
      members: five.map((code) => ({ code, name: code, title: code, rationale: '-', subProblems: ['sp1'] })),
      panels: { sp1: five, sp2: five.slice(0, 3) },
      available: [{ code: 'sales_leader', name: 'Sam Ortiz', title: 'Head of Sales' }],
    };
    const { resolution, out } = await converse('board', scoped, ['only sp9', 'only sp2', 'want someone who sells to shops', '']);
    expect(out).toContain('"sp9" is not a sub-problem here. Sub-problems: sp1, sp2');
    expect(out).toContain('Changes: want "someone who sells to shops" (additions to sp2 only)');
    expect(resolution).toEqual({ action: 'edit', board: { want: ['someone who sells to shops'], sub_problems: ['sp2'] } });
  });

  it('board: refuses a 6th expert on a panel before sending, and takes the add once a seat is freed', async () => {
    const five = ['growth_strategist', 'financial_analyst', 'legal_advisor', 'risk_manager', 'data_scientist'];
    const full = {
      members: five.map((code) => ({ code, name: code, title: code, rationale: '-', subProblems: ['sp1'] })),
      panels: { sp1: five, sp2: five.slice(0, 3) },
      available: [{ code: 'ceo_advisor', name: 'Ann Lee', title: 'CEO Advisor' }, { code: 'ops_lead', name: 'Bo Kim', title: 'Operations Lead' }],
    };
    const { resolution, out } = await converse('board', full, ['add ceo_advisor', 'want operations', 'remove risk_manager', 'add ceo_advisor', 'want operations', '']);
    expect(out.match(/The panel of sp1 already has 5 experts, the most it can seat: remove one first\./g)).toHaveLength(3);
    expect(out).toContain('Changes: -risk_manager, +ceo_advisor');
    expect(resolution).toEqual({ action: 'edit', board: { remove: ['risk_manager'], add: ['ceo_advisor'] } });
  });

  it('round_end: one line, c / v / f / i with or without the message on it', async () => {
    const proposal = {
      subProblemId: 'sp2',
      round: 3,
      maxRounds: 7,
      summary: 'They disagree on price.',
      positions: [{ persona: 'financial_analyst', name: 'Daniel Reyes', position: 'Price high' }],
    };
    expect((await converse('round_end', proposal, [''])).resolution).toEqual({ action: 'continue' });
    expect((await converse('round_end', proposal, ['v'])).resolution).toEqual({ action: 'skip_to_vote' });
    expect((await converse('round_end', proposal, ['f'])).resolution).toEqual({ action: 'skip_to_final' });
    expect((await converse('round_end', proposal, ['i Please focus on cash runway'])).resolution).toEqual({
      action: 'intervene',
      message: 'Please focus on cash runway',
    });
    const { resolution, out } = await converse('round_end', proposal, ['what?', 'i', 'What about churn?']);
    expect(resolution).toEqual({ action: 'intervene', message: 'What about churn?' });
    expect(out).toContain('Round 3/7 complete.\nSummary: They disagree on price.\nPositions:\n  Daniel Reyes: Price high\n(Sub-problem 2 of 3: Pricing)');
    expect(out).toContain('[c]ontinue, [v]ote now, [i]ntervene, [f]inal > what?\nAnswer c, v, i (or "i <message>") or f.');
    expect(out).toContain('Your message to the board > What about churn?');
  });

  it('an action the checkpoint does not allow is refused and asked again', async () => {
    const { resolution, out } = await converse('round_end', { round: 1, maxRounds: 5 }, ['v', 'c'], ['continue', 'intervene']);
    expect(out).toContain('"skip to vote" is not available at this checkpoint (allowed: continue, intervene)');
    expect(resolution).toEqual({ action: 'continue' });
  });

  it('next_sub_problem: continue or final', async () => {
    const proposal = { next: { id: 'sp2', title: 'Pricing' }, done: 1, total: 3 };
    const { resolution, out } = await converse('next_sub_problem', proposal, ['f']);
    expect(resolution).toEqual({ action: 'skip_to_final' });
    expect(out).toContain('Next: Pricing (1 of 3 sub-problems decided)');
  });

  it('input that ends mid-dialog surfaces as EndOfInput', async () => {
    await expect(converse('clarification', questions, ['14 months'])).rejects.toBeInstanceOf(EndOfInput);
  });
});
