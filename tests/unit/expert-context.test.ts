import { describe, expect, it } from 'vitest';
import {
  RECALLED_MEMORY_INSTRUCTION,
  renderLessons,
  renderRecalledMemory,
  renderSubProblemMemory,
  SUB_PROBLEM_MEMORY_INSTRUCTION,
} from '../../src/memory/expert-context';
import { expertSummarySchema, stanceChanged } from '../../src/memory/summary';
import { clipToTokens, estimateTokens } from '../../src/memory/tokens';

const long = (seed: string, words: number) => Array.from({ length: words }, (_, i) => `${seed}${i}`).join(' ');

describe('tokens', () => {
  it('estimates ≈ chars/4, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });

  it('clips at a word boundary with an ellipsis, and never exceeds', () => {
    expect(clipToTokens('short text', 10)).toBe('short text');
    expect(clipToTokens('alpha beta gamma delta epsilon', 4)).toBe('alpha beta…');
    expect(clipToTokens('x'.repeat(50), 3)).toBe(`${'x'.repeat(11)}…`);
    expect(clipToTokens('anything', 0)).toBe('');
    expect(clipToTokens('anything at all', -5)).toBe('');
    const text = long('word', 500);
    for (let cap = 0; cap < 300; cap++) expect(estimateTokens(clipToTokens(text, cap))).toBeLessThanOrEqual(cap);
  });

  it('does not split a surrogate pair', () => {
    // 2 tokens = 8 UTF-16 units: three emoji (6) and '…', the 4th emoji's high surrogate left out.
    const clipped = clipToTokens('😀'.repeat(20), 2);
    expect(clipped).toBe('😀😀😀…');
    expect(clipped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe('renderSubProblemMemory', () => {
  const summaries = [
    { subProblemId: 'sp1', title: 'CAC target', summary: 'I set CAC below [AMOUNT] on an 18-month LTV.', createdAt: '2025-01-01T10:00:00.000Z' },
    { subProblemId: 'sp3', title: 'Budget split', summary: 'Paid first, SEO later.', createdAt: '2025-01-01T12:00:00.000Z' },
    { subProblemId: 'sp2', title: 'Channel', summary: 'Paid ads fit the payback window.', createdAt: '2025-01-01T11:00:00.000Z' },
  ];

  it('renders the instruction, then the most recent first', () => {
    const { text, used } = renderSubProblemMemory(summaries);
    expect(used).toEqual(['sp3', 'sp2', 'sp1']);
    expect(text).toBe(
      [
        SUB_PROBLEM_MEMORY_INSTRUCTION,
        '- sp3 "Budget split": Paid first, SEO later.',
        '- sp2 "Channel": Paid ads fit the payback window.',
        '- sp1 "CAC target": I set CAC below [AMOUNT] on an 18-month LTV.',
      ].join('\n'),
    );
    expect(text.startsWith('You took part in earlier sub-problems of this session. Build on what you concluded; if your position changes, say so and explain why.')).toBe(true);
  });

  it('is empty without summaries, or when not even the instruction fits', () => {
    expect(renderSubProblemMemory([])).toEqual({ text: '', used: [] });
    expect(renderSubProblemMemory(summaries, 10)).toEqual({ text: '', used: [] });
  });

  it('keeps the newest within a tight budget and reports only what it used', () => {
    const big = summaries.map((s) => ({ ...s, summary: long('w', 60) }));
    const { text, used } = renderSubProblemMemory(big, 110);
    expect(estimateTokens(text)).toBeLessThanOrEqual(110);
    expect(used[0]).toBe('sp3');
    expect(used).not.toContain('sp1');
    for (const id of used) expect(text).toContain(`- ${id} `);
  });

  it('carries a summary as long as its schema allows whole, under the default cap', () => {
    const longest = `${'Paid deposits, not sign-ups, decide it: '.repeat(30)}`.slice(0, 686) + ' if no route.';
    expect(expertSummarySchema.shape.summary.safeParse(longest).success).toBe(true);
    const { text } = renderSubProblemMemory([{ subProblemId: 'sp1', title: 'Which product to build first, and for whom', summary: longest, createdAt: '2025-01-01T10:00:00.000Z' }]);
    expect(text).toContain(longest);
    expect(text).not.toContain('…');
  });

  it('holds the cap for 1,000 long items, at any budget', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({
      subProblemId: `sp${i}`,
      title: long('title', 50),
      summary: long('summary', 2000),
      createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
    }));
    for (const cap of [0, 20, 40, 60, 100, 300, 1000]) {
      const { text, used } = renderSubProblemMemory(many, cap);
      expect(estimateTokens(text), `cap ${cap}`).toBeLessThanOrEqual(cap);
      if (used.length) expect(used[0]).toBe('sp999');
      for (const id of used) expect(text).toContain(`- ${id} `);
    }
  });
});

describe('renderRecalledMemory', () => {
  const items = [
    { id: 'm2', summary: 'For a solo founder, paid ads beat SEO under [FIGURE] months runway.', position: 'Paid first', createdAt: '2024-11-05T09:00:00.000Z', sessionId: 's1', subProblemId: 'sp2' },
    { id: 'm1', summary: 'Law-firm niches pay more but churn less.', position: 'Niche down', createdAt: '2024-12-24T09:00:00.000Z', sessionId: 's2', subProblemId: 'sp1' },
  ];

  it('keeps the given (relevance) order, with dates and the instruction', () => {
    const { text, used } = renderRecalledMemory(items);
    expect(used).toEqual(['m2', 'm1']);
    expect(text).toBe(
      [
        RECALLED_MEMORY_INSTRUCTION,
        '- (2024-11-05) position: Paid first — For a solo founder, paid ads beat SEO under [FIGURE] months runway.',
        '- (2024-12-24) position: Niche down — Law-firm niches pay more but churn less.',
      ].join('\n'),
    );
    expect(text).toMatch(/background/);
    expect(text).toMatch(/explain why/);
  });

  it('is empty without items', () => {
    expect(renderRecalledMemory([])).toEqual({ text: '', used: [] });
  });

  it('holds the cap for 1,000 long items', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({
      id: `m${i}`,
      summary: long('s', 3000),
      position: long('p', 300),
      createdAt: 'not a date '.repeat(100),
      sessionId: `s${i}`,
      subProblemId: 'sp1',
    }));
    for (const cap of [0, 50, 70, 100, 300, 5000]) {
      const { text, used } = renderRecalledMemory(many, cap);
      expect(estimateTokens(text), `cap ${cap}`).toBeLessThanOrEqual(cap);
      expect(used).toEqual(many.slice(0, used.length).map((m) => m.id));
    }
  });
});

describe('renderLessons', () => {
  it('renders lessons and is empty without any', () => {
    expect(renderLessons([])).toBe('');
    expect(renderLessons([{ lesson: 'Price anchors stick.', suggestedFix: 'Test a higher tier first.', applies: 'pricing decisions' }])).toBe(
      'Lessons from earlier sessions (apply where they fit this case):\n- Price anchors stick. Fix: Test a higher tier first. (applies: pricing decisions)',
    );
  });

  it('holds the cap for 1,000 long lessons', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ lesson: long(`l${i}`, 500), suggestedFix: long('f', 500), applies: long('a', 100) }));
    for (const cap of [0, 15, 30, 250, 1000]) expect(estimateTokens(renderLessons(many, cap)), `cap ${cap}`).toBeLessThanOrEqual(cap);
    expect(estimateTokens(renderLessons(many))).toBeLessThanOrEqual(250);
  });
});

describe('expertSummarySchema', () => {
  it('accepts a seed-000 summary and rejects out-of-range values', () => {
    const ok = {
      summary: 'Recommended CAC below [AMOUNT] based on an [FIGURE]-month LTV; flagged cash-flow risk from the SEO lag.',
      position: 'Paid ads first, SEO later',
      confidence: 0.85,
      conditions: ['LTV model verified'],
    };
    expect(expertSummarySchema.parse(ok)).toEqual(ok);
    expect(expertSummarySchema.safeParse({ ...ok, summary: 'too short' }).success).toBe(false);
    expect(expertSummarySchema.safeParse({ ...ok, confidence: 1.2 }).success).toBe(false);
    expect(expertSummarySchema.safeParse({ ...ok, conditions: ['a', 'b', 'c', 'd'] }).success).toBe(false);
    expect(expertSummarySchema.safeParse({ ...ok, position: 'x'.repeat(201) }).success).toBe(false);
  });
});

describe('stanceChanged', () => {
  it('flags low similarity with opposing commit/defer markers', () => {
    expect(stanceChanged('Commit to the law-firm pivot now', 'Defer the pivot until churn data is in', 0.3)).toBe(true);
    expect(stanceChanged('Yes, hire the salesperson', "Don't hire anyone before the plateau is understood", 0.2)).toBe(true);
    expect(stanceChanged('No — keep the monolith', 'Migrate to services this quarter', 0.25)).toBe(true);
    expect(stanceChanged('Invest in paid ads', 'Hold off on paid ads', 0.4)).toBe(true);
  });

  it('flags low similarity with different options', () => {
    expect(stanceChanged('Option A: stay horizontal', 'Option C: agencies only', 0.35)).toBe(true);
    expect(stanceChanged('I back option b', 'Option D is safest', 0.1)).toBe(true);
  });

  it('does not flag similar positions, even with opposing markers', () => {
    expect(stanceChanged('Hire now', "Don't hire before the audit, then hire", 0.7)).toBe(false);
    expect(stanceChanged('Commit to the pivot', 'Defer the pivot', 0.5)).toBe(false); // at the threshold: not below it
    expect(stanceChanged('Commit to the pivot', 'Defer the pivot', 0.55, 0.6)).toBe(true); // a stricter threshold
  });

  it('does not flag dissimilar positions without an opposing marker', () => {
    expect(stanceChanged('Focus on retention metrics', 'Price anchoring matters most', 0.1)).toBe(false);
    expect(stanceChanged('Invest in SEO', 'Launch paid ads', 0.2)).toBe(false); // both commit
    expect(stanceChanged('Defer the raise', 'Avoid new debt', 0.2)).toBe(false); // both hold back
    expect(stanceChanged('Option A with a pilot', 'Option A, phased', 0.2)).toBe(false); // same option
    expect(stanceChanged('Option A', 'Option A or option B', 0.2)).toBe(false); // an option in common
  });

  it('treats "no" inside a sentence as no marker, and a bad similarity as no change', () => {
    expect(stanceChanged('Invest, no more than the budget allows', 'Invest, then expand', 0.2)).toBe(false);
    expect(stanceChanged('Commit', 'Defer', Number.NaN)).toBe(false);
  });
});
