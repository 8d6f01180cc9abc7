import { describe, expect, it } from 'vitest';
import { calibrationCall, synthesisCall, voteCall, type CalibrationInput, type SubProblemBrief, type VoteInput } from '../../src/calls';
import { renderCall } from '../../src/calls/render';
import type { ModelCall } from '../../src/calls/call';
import { aggregate } from '../../src/domain/aggregation';
import type { Option, Vote } from '../../src/domain/model';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/domain/settings';
import { personaByCode } from '../../src/domain/personas';
import { loadPrompts } from '../../src/llm/prompts';

/**
 * What each step after the debate sees: the calls' templates rendered from
 * typed inputs, the way the engine renders them, and read as the model reads
 * them (system sections, then the user part).
 */
const templates = loadPrompts();
const frame = { problem: 'Should I hire a part-time salesperson?', context: '$8K MRR, solo founder.', caseMemory: '' };
const prompt = <I>(call: ModelCall<I, unknown>, input: I) => {
  const p = renderCall(call, input, templates, frame);
  return [...p.system, p.user].join('\n\n');
};

const sp: SubProblemBrief = { id: 'sp2', title: 'Cash and risk budget', goal: 'Decide how much cash a growth bet may consume.', context: '(none)', complexity: 5 };
const analyst = personaByCode('financial_analyst')!;
const options: Option[] = [
  {
    id: 'A',
    title: 'Capped growth budget',
    description: 'At most $1,500 a month and $6K in total.',
    pros: ['Bounded downside'],
    cons: ['Slow to show signal'],
    bestIf: 'cash stays above a $21K floor',
    reversibility: 'two_way',
  },
  {
    id: 'B',
    title: 'Hire a salesperson now',
    description: 'A $3K/month base plus commission from week one.',
    pros: ['Fast pipeline'],
    cons: ['Burns half the profit'],
    bestIf: 'the founder has more than six months of runway',
    reversibility: 'one_way',
  },
];

describe('the vote', () => {
  const input: VoteInput = {
    persona: analyst,
    subProblem: sp,
    keyArguments: ['Equity is the costliest currency a bootstrapped founder has.', 'Legal fees of $1,500-3,000 come out of the same $6K cap.'],
    disagreements: [
      { persona: 'financial_analyst', with: ['growth_strategist'] },
      { persona: 'risk_manager', with: [] },
    ],
    position: 'Cap the bet at $6K and keep a $21K cash floor.',
    options,
  };
  const text = prompt(voteCall, input);

  it("sees the facilitator's key arguments and who disagreed with whom", () => {
    expect(text).toContain('- Equity is the costliest currency a bootstrapped founder has.');
    expect(text).toContain('- Legal fees of $1,500-3,000 come out of the same $6K cap.');
    expect(text).toContain(`${analyst.name} disagrees with ${personaByCode('growth_strategist')!.name}`);
    // An expert who challenged nobody adds no line.
    expect(text).not.toContain(`${personaByCode('risk_manager')!.name} disagrees`);
  });

  it('sees its own latest position and each option with pros, cons and best-if', () => {
    expect(text).toContain('Your latest position: Cap the bet at $6K and keep a $21K cash floor.');
    expect(text).toContain('A. Capped growth budget (two-way door): At most $1,500 a month and $6K in total.');
    expect(text).toContain('Pros: Bounded downside');
    expect(text).toContain('Cons: Burns half the profit');
    expect(text).toContain('Best if: the founder has more than six months of runway');
    expect(text).toContain('B. Hire a salesperson now (one-way door)');
  });

  it('says so when the debate left no key arguments or open disagreements, and when the voter did not speak', () => {
    const quiet = prompt(voteCall, { ...input, keyArguments: [], disagreements: [], position: null });
    expect(quiet).toMatch(/key arguments:\n\(none\)/);
    expect(quiet).toMatch(/latest turn\):\n\(none\)/);
    expect(quiet).toContain('Your latest position: (did not speak)');
  });
});

describe('the calibration', () => {
  const vote = (persona: string, optionId: string, confidence: number, rationale: string, strongObjection: string | null = null) => ({
    persona,
    name: personaByCode(persona)!.name,
    optionId,
    confidence,
    rationale,
    strongObjection,
  });
  const input: CalibrationInput = {
    persona: analyst,
    subProblem: sp,
    options,
    own: { optionId: 'A', confidence: 0.7, rationale: 'A cap keeps the downside known.' },
    votes: [
      vote('financial_analyst', 'A', 0.7, 'A cap keeps the downside known.'),
      vote('growth_strategist', 'B', 0.65, 'Every month without a seller costs about $1,400 of new MRR.', 'I strongly object to A: $6K buys too few weeks to read a sales signal.'),
      vote('risk_manager', 'A', 0.6, 'Nothing irreversible before the floor is known.'),
    ],
  };
  const text = prompt(calibrationCall, input);

  it("sees another voter's rationale and strong objection, not only their letter", () => {
    const growth = personaByCode('growth_strategist')!.name;
    expect(text).toContain(`${growth}: B (confidence 0.65). Every month without a seller costs about $1,400 of new MRR.`);
    expect(text).toContain('Strong objection: I strongly object to A: $6K buys too few weeks to read a sales signal.');
    expect(text).toContain('Nothing irreversible before the floor is known.');
  });

  it('sees its own vote with its reason once, and what the letters stand for', () => {
    expect(text).toContain('You voted A with confidence 0.70: A cap keeps the downside known.');
    expect(text.split('A cap keeps the downside known.')).toHaveLength(2);
    expect(text).toContain('A. Capped growth budget');
    expect(text).toContain('B. Hire a salesperson now');
  });
});

describe('the synthesis', () => {
  const votes: Vote[] = [
    { persona: 'financial_analyst', optionId: 'A', rationale: 'A cap keeps the downside known.', confidence: 0.65, initialConfidence: 0.65, calibrationReason: 'Most agree.', strongObjection: null },
    {
      persona: 'growth_strategist',
      optionId: 'B',
      rationale: 'Every month without a seller costs about $1,400 of new MRR.',
      confidence: 0.55,
      initialConfidence: 0.65,
      calibrationReason: 'The $21K cash floor argument is stronger than I allowed.',
      strongObjection: 'I strongly object to A: $6K buys too few weeks to read a sales signal.',
    },
    { persona: 'risk_manager', optionId: 'A', rationale: 'Nothing irreversible before the floor is known.', confidence: 0.55, initialConfidence: 0.55, strongObjection: null },
  ];
  const tally = aggregate(votes, ['A', 'B'], 'two_way', DEFAULT_ENGINE_SETTINGS);
  const text = prompt(synthesisCall, { subProblem: sp, options, votes, tally });

  it("sees the voters' strong objections", () => {
    expect(text).toContain('Strong objection: I strongly object to A: $6K buys too few weeks to read a sales signal.');
  });

  it('sees how calibration moved each confidence, and why', () => {
    expect(text).toContain('Calibration: 0.65 → 0.55, because: The $21K cash floor argument is stronger than I allowed.');
    expect(text).toContain('Calibration: held at 0.65.');
  });

  it('reads the tally as a standard deviation of confidence, not a "spread"', () => {
    expect(text).toContain('standard deviation 0.05, at most 0.15');
    expect(text).not.toMatch(/\(spread /);
  });
});
