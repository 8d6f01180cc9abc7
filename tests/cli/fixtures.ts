import type { Envelope } from '../../src/domain/events';

export const SESSION = '0b5e55e5-0000-4000-8000-000000000001';

/** A small session log with the shapes the transcript reads: two sub-problems, one debated. */
export function sessionLog(): Envelope[] {
  const data: [string, Record<string, unknown>][] = [
    ['session.created', { problem: 'Should I pivot to law firms?', context: '$12K MRR', provider: 'simulated', mode: 'auto' }],
    ['session.started', { attempt: 1 }],
    ['problem.stated', { statement: 'Decide whether to pivot to law firms.', assumptions: ['Runway is 14 months.'] }],
    [
      'decomposition.completed',
      {
        subProblems: [
          { id: 'sp1', title: 'Market', goal: 'Size the law-firm market' },
          { id: 'sp2', title: 'Pricing', goal: 'Set the price' },
        ],
      },
    ],
    [
      'board.assembled',
      {
        members: [
          { code: 'growth_strategist', name: 'Maria Santos', title: 'Growth Strategist', rationale: 'market' },
          { code: 'financial_analyst', name: 'Daniel Reyes', title: 'Financial Analyst', rationale: 'cash' },
        ],
      },
    ],
    ['subproblem.started', { subProblemId: 'sp1', title: 'Market', goal: 'Size the law-firm market' }],
    ['round.started', { subProblemId: 'sp1', round: 1, maxRounds: 5, phase: 'opening' }],
    ['contribution.completed', { subProblemId: 'sp1', round: 1, persona: 'growth_strategist', name: 'Maria Santos', text: 'Law firms pay more.' }],
    ['contribution.completed', { subProblemId: 'sp1', round: 1, persona: 'financial_analyst', name: 'Daniel Reyes', text: 'Check the runway first.' }],
    ['subproblem.started', { subProblemId: 'sp2', title: 'Pricing', goal: 'Set the price' }],
    ['round.started', { subProblemId: 'sp2', round: 1, maxRounds: 7, phase: 'opening' }],
    ['contribution.completed', { subProblemId: 'sp2', round: 1, persona: 'financial_analyst', name: 'Daniel Reyes', text: 'Price at $200.' }],
    ['contribution.completed', { subProblemId: 'sp1', round: 1, persona: 'growth_strategist', name: 'Maria Santos', text: 'And churn less.' }],
    ['vote.cast', { subProblemId: 'sp1', persona: 'growth_strategist', name: 'Maria Santos', optionId: 'A', confidence: 0.8, rationale: 'Focus wins.' }],
    ['vote.completed', { subProblemId: 'sp1', tally: { winner: 'A', why: 'Simple majority.', distribution: { A: 1 } } }],
    ['checkpoint.requested', { checkpointId: 'cp1', kind: 'next_sub_problem', prompt: 'Continue?', actions: ['continue', 'skip_to_final'] }],
    [
      'recommendation.completed',
      { summary: 'Pilot with three firms.', steps: ['Call ten firms.'], confidence: 'high', disclaimers: [{ kind: 'financial', text: 'Check with an accountant.' }] },
    ],
    ['usage.updated', { costUsd: 0.1234, calls: 12 }],
    ['session.completed', { usage: { costUsd: 0.1234, calls: 12 } }],
  ];
  return data.map(([type, d], i) => ({ seq: i + 1, type, session_id: SESSION, ts: new Date(0).toISOString(), data: d }));
}
