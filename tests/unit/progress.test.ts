import { describe, expect, it } from 'vitest';
import { progressView } from '../../src/http/session-view';

describe('progressView', () => {
  it('derives percent and a readable line from concurrent sub-problems', () => {
    const p = progressView(
      {
        phase: 'debate',
        total: 3,
        subProblems: {
          sp1: { stage: 'done', round: 4, maxRounds: 5, fraction: 1 },
          sp2: { stage: 'debate', round: 3, maxRounds: 7, fraction: 0.34 },
          sp10: { stage: 'voting', round: 6, maxRounds: 10, fraction: 0.85 },
        },
      },
      'running',
    );
    expect(p.label).toBe('1 of 3 sub-problems decided · sp2 round 3/7 · sp10 voting');
    expect(p.percent).toBe(Math.round(15 + (80 * (1 + 0.34 + 0.85)) / 3));
  });
  it('counts sub-problems not started yet against the total, and says completed at the end', () => {
    expect(progressView({ total: 4, subProblems: { sp1: { stage: 'debate', round: 1, maxRounds: 5, fraction: 0.16 } } }, 'running').percent).toBe(18);
    expect(progressView({ phase: 'recommendation', percent: 98 }, 'completed')).toMatchObject({ percent: 100, label: 'completed' });
    expect(progressView({ phase: 'intake', percent: 5 }, 'running')).toMatchObject({ percent: 5, label: 'intake' });
    expect(progressView({ phase: 'board', percent: 15 }, 'awaiting_input')).toMatchObject({ percent: 15, label: 'waiting for your answer · board' });
  });
});
