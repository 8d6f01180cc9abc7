import { unansweredClarifications } from '../../src/app/engine/final';
import { earlierDecisions } from '../../src/app/deliberate';
import { decisionFacts } from '../../src/app/engine/synthesis';
import { currentFacts } from '../../src/domain/debate/record';
import { describe, expect, it } from 'vitest';
import {
  calibrationCall,
  contributionCall,
  expertSummaryCall,
  facilitatorRoundCall,
  finalRecommendationCall,
  moderatorCall,
  optionsCall,
  newestWithin,
  SUMMARY_TURNS_MAX_CHARS,
  synthesisCall,
  voteCall,
  type CalibrationInput,
  type ExpertSummaryInput,
  type FacilitatorInput,
  type FinalInput,
  type SubProblemBrief,
  type VoteInput,
} from '../../src/calls';
import { renderCall } from '../../src/calls/render';
import type { ModelCall } from '../../src/calls/call';
import { aggregate } from '../../src/domain/aggregation';
import type { Option, Vote } from '../../src/domain/model';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/domain/settings';
import { personaByCode } from '../../src/domain/personas';
import { loadPrompts } from '../../src/llm/prompts';
import { applyEvents, emptyCaseMemory } from '../../src/memory/case-memory';
import { renderCaseMemory } from '../../src/memory/case-memory-render';

/**
 * What each step after the debate sees: the calls' templates rendered from
 * typed inputs, the way the engine renders them, and read as the model reads
 * them (system sections, then the user part).
 */
const templates = loadPrompts();
const frame = { problem: 'Should I hire a part-time salesperson?', context: '$8K MRR, solo founder.', caseMemory: '' };
const prompt = <I>(call: ModelCall<I, unknown>, input: I, caseMemory = '') => {
  const p = renderCall(call, input, templates, { ...frame, caseMemory });
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
    lastSummary: 'Daniel still holds the cap at $6K against Sofia’s $9K; nobody marked it, both said so in words.',
    position: 'Cap the bet at $6K and keep a $21K cash floor.',
    options,
    facts: currentFacts([
      { id: 'sp2.r1.f1', subProblemId: 'sp2', round: 1, text: 'The cap is $9K', kind: 'figure' as const, source: 'growth_strategist' },
      { id: 'sp2.r3.f1', subProblemId: 'sp2', round: 3, text: 'The cap is $6K with a $21K cash floor', kind: 'decision' as const, source: 'facilitator', replaces: ['sp2.r1.f1'] },
    ]),
  };
  const text = prompt(voteCall, input);

  it("sees its sub-problem's ledger as it stands, a revised figure in its last version only", () => {
    expect(text).toContain("This sub-problem's facts in the session's ledger, as it stands");
    expect(text).toContain('The cap is $6K with a $21K cash floor (replaces sp2.r1.f1)');
    expect(text).not.toContain('The cap is $9K');
    expect(prompt(voteCall, { ...input, facts: [] })).toMatch(/the ledger's is current\):\n\(none\)/);
  });

  it("sees the facilitator's key arguments and who disagreed with whom", () => {
    expect(text).toContain('- Equity is the costliest currency a bootstrapped founder has.');
    expect(text).toContain('- Legal fees of $1,500-3,000 come out of the same $6K cap.');
    expect(text).toContain(`${analyst.name} disagrees with ${personaByCode('growth_strategist')!.name}`);
    // An expert who challenged nobody adds no line.
    expect(text).not.toContain(`${personaByCode('risk_manager')!.name} disagrees`);
  });

  it('reads a disagreement marked before the last round as such, with who of those it challenged spoke after it', () => {
    // Two trials: a round-2 challenge read as open at the vote, though its target had conceded in round 3.
    const stale = prompt(voteCall, { ...input, disagreements: [{ persona: 'performance_marketer', with: ['financial_analyst', 'growth_strategist'], round: 2, answeredSince: ['financial_analyst'] }] });
    const dana = personaByCode('performance_marketer')!.name;
    expect(stale).toContain(
      `${dana} disagrees with ${analyst.name} and ${personaByCode('growth_strategist')!.name} (marked in round 2, ${dana}'s last turn; ${analyst.name} spoke after it, so weigh the key arguments and the last round's reading above for whether it still stands)`,
    );
    // Marked in the last round: read as it stands.
    expect(text).toMatch(new RegExp(`${analyst.name} disagrees with ${personaByCode('growth_strategist')!.name}$`, 'm'));
  });

  it("sees the facilitator's reading of the last round, so a disagreement stated only in words reaches the voters", () => {
    expect(text).toContain("The facilitator's reading of the last round:\nDaniel still holds the cap at $6K against Sofia’s $9K");
    expect(prompt(voteCall, { ...input, lastSummary: null })).toContain("The facilitator's reading of the last round:\n(none)");
  });

  it('sees its own latest position and each option with pros, cons and best-if', () => {
    expect(text).toContain('Your latest position: Cap the bet at $6K and keep a $21K cash floor.');
    expect(text).toContain('A. Capped growth budget (two-way door): At most $1,500 a month and $6K in total.');
    expect(text).toContain('Pros: Bounded downside');
    expect(text).toContain('Cons: Burns half the profit');
    expect(text).toContain('Best if: the founder has more than six months of runway');
    expect(text).toContain('B. Hire a salesperson now (one-way door)');
  });

  it("puts what every voter reads in the system blocks and the voter's seat last, so a sub-problem's votes share one prefix", () => {
    const of = (code: string) => renderCall(voteCall, { ...input, persona: personaByCode(code)!, position: `${code} holds` }, templates, { ...frame, caseMemory: 'Case so far.' });
    const [a, b] = [of('financial_analyst'), of('risk_manager')];
    expect(a.system).toEqual(b.system);
    expect(a.system.join('\n')).toContain('Options:\n- A. Capped growth budget');
    expect(a.system.join('\n')).not.toContain(`You are ${analyst.name}`);
    expect(a.user).toMatch(new RegExp(`^You are ${analyst.name}, ${analyst.title}`));
    expect(a.user).toContain(`Background: ${analyst.background}`);
    expect(a.user).toContain('Your latest position: financial_analyst holds');
    expect(a.cacheAfter).toEqual([0, 1, 2]);
  });

  it('says so when the debate left no key arguments or open disagreements, and when the voter did not speak', () => {
    const quiet = prompt(voteCall, { ...input, keyArguments: [], disagreements: [], position: null });
    expect(quiet).toMatch(/key arguments:\n\(none\)/);
    expect(quiet).toMatch(/marked at their latest turn:\n\(none\)/);
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

describe('the options', () => {
  const facts = [
    { id: 'sp1.r1.f1', subProblemId: 'sp1', round: 1, text: 'foobar.com costs $18,000 from a broker', kind: 'figure' as const, source: 'person' },
    { id: 'sp1.r2.f1', subProblemId: 'sp1', round: 2, text: 'foobar.com at $18,000 is 30% of the ~$60,000 cash', kind: 'figure' as const, source: 'facilitator', replaces: ['sp1.r1.f1'] },
  ];
  const research = [{ query: 'How common is launching a dev tool on .dev or .io?', findings: 'Common: fly.io, bun.sh, railway.app.' }];
  const text = prompt(optionsCall, { subProblem: sp, discussion: 'Round 1: …', positions: [], straw: [], facts: currentFacts(facts), research });

  it("sees its sub-problem's ledger as it stands and what research answered, beside the debate", () => {
    // An atomic naming trial's options saw the rounds alone: neither the ledger nor the research the experts cited.
    expect(text).toContain("This sub-problem's facts in the session's ledger, as it stands");
    expect(text).toContain('foobar.com at $18,000 is 30% of the ~$60,000 cash');
    expect(text).not.toContain('costs $18,000 from a broker');
    expect(text).toContain('"How common is launching a dev tool on .dev or .io?": Common: fly.io, bun.sh, railway.app.');
    expect(prompt(optionsCall, { subProblem: sp, discussion: '', positions: [], straw: [], facts: [], research: [] })).toMatch(/figures as they stand\):\n\(none\)/);
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
  const facts = [
    { id: 'sp2.r2.f1', subProblemId: 'sp2', round: 2, text: 'At $99 a month, 12 payers bring $1,188 MRR', kind: 'figure' as const, source: 'financial_analyst' },
    { id: 'sp2.r3.f1', subProblemId: 'sp2', round: 3, text: 'Cash floor $21K', kind: 'constraint' as const, source: 'person' },
  ];
  const text = prompt(synthesisCall, { subProblem: sp, options, votes, tally, facts });

  it("sees its sub-problem's ledger with ids, and is asked to record what the decision settles, replacing what it makes stale", () => {
    // A pricing trial's ledger kept the figures computed for a $99 tier after the vote chose $79.
    expect(text).toContain("This sub-problem's facts in the session's ledger, as it stands:\n- [sp2.r2.f1, sp2, figure, financial_analyst] At $99 a month, 12 payers bring $1,188 MRR\n- [sp2.r3.f1, sp2, constraint, person] Cash floor $21K");
    expect(text).toMatch(/In `facts`, record what the decision settles[^\n]*name that fact's id in `replaces`/);
    expect(prompt(synthesisCall, { subProblem: sp, options, votes, tally, facts: [] })).toContain("as it stands:\n(none)");
  });

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

describe('the final recommendation', () => {
  const input: FinalInput = {
    facts: [{ id: 'sp2.r1.f1', subProblemId: 'sp2', round: 1, text: 'Growth budget capped at $6K total', kind: 'constraint', source: 'financial_analyst' }],
    statement: 'How should a solo founder at $8K MRR reach $20K MRR while keeping control?',
    syntheses: [
      {
        subProblemId: 'sp2',
        title: 'Cash and risk budget',
        winner: { id: 'A', title: 'Capped growth budget' },
        tie: [],
        deferred: false,
        recommendation: 'A capped budget: at most $1,500 a month and $6K in total, above a $21K cash floor.',
        rationale: 'Two of three experts judged the downside of an uncapped bet too large for a $5K/month income.',
        confidence: 0.6,
        dissent: [{ persona: 'growth_strategist', concern: '$6K buys too few weeks to read a sales signal.' }],
        caveats: ['Below the $21K cash floor, the trial pauses automatically.'],
      },
      {
        subProblemId: 'sp3',
        title: 'Structure of the deal',
        winner: null,
        tie: [
          { id: 'A', title: 'Paid trial first' },
          { id: 'B', title: 'Phantom equity now' },
        ],
        deferred: false,
        recommendation: 'The board is split between a paid trial and phantom equity.',
        rationale: 'Both keep control; they differ in what the founder gives up first.',
        confidence: 0.5,
        dissent: [],
        caveats: ['Legal fees of $1,500-3,000 inside the $6K cap shorten the trial to 10-12 weeks.'],
      },
      {
        subProblemId: 'sp4',
        title: 'Co-founder equity',
        winner: null,
        tie: [],
        deferred: true,
        recommendation: 'We recommend deferring any equity grant until the trial has run.',
        rationale: 'A one-way door without a supermajority.',
        confidence: 0.4,
        dissent: [],
        caveats: [],
      },
    ],
    open: [{ subProblemId: 'sp5', title: 'Product-led growth' }],
    openQuestions: [{ subProblemId: 'sp2', name: 'Thomas Berg', question: 'How much cash is in the bank today?' }],
    unansweredClarifications: [{ question: 'What does a typical customer pay a month?', assumption: 'About $200 a month, from $8K MRR over roughly 40 customers.' }],
  };
  const text = prompt(finalRecommendationCall, input);

  it("sees the intake's unanswered clarifying questions with the assumption each left, beside the experts' questions", () => {
    // A trial's plan rested on an assumed price per customer whose intake question never reached "questions for you".
    expect(text).toContain(
      'Clarifying questions asked at intake that nobody answered, each with the assumption the board went on with:\n- What does a typical customer pay a month? (assumed: About $200 a month, from $8K MRR over roughly 40 customers.)',
    );
    expect(text).toContain('- sp2, Thomas Berg: How much cash is in the bank today?');
    expect(prompt(finalRecommendationCall, { ...input, unansweredClarifications: [] })).not.toContain('Clarifying questions asked at intake');
  });

  it('leaves out the clarifying questions the person answered at the checkpoint (q1, q2… in the order asked)', () => {
    const clarifications = ['price', 'churn', 'runway'].map((w) => ({ question: `What is your ${w}?`, why: 'It changes the plan.', assumption: `A typical ${w}.` }));
    const statement = { statement: 'Grow to $20K MRR?', clarifications, assumptions: [], domains: ['finance' as const], category: 'growth' as const, vague: false, safety: { allowed: true, reason: '' } };
    expect(unansweredClarifications(statement).map((q) => q.question)).toEqual(['What is your price?', 'What is your churn?', 'What is your runway?']);
    expect(unansweredClarifications({ ...statement, answers: [{ id: 'q2' }] })).toEqual([
      { question: 'What is your price?', assumption: 'A typical price.' },
      { question: 'What is your runway?', assumption: 'A typical runway.' },
    ]);
  });

  it('shows the fact ledger whole, with ids, however long the case so far', () => {
    const text = prompt(finalRecommendationCall, input);
    expect(text).toContain('The fact ledger (every fact the sub-problems recorded, oldest first):\n- [sp2.r1.f1, sp2, constraint, financial_analyst] Growth budget capped at $6K total');
  });

  it("sees each sub-problem's vote outcome: the winning option, a tie, or a deferral", () => {
    expect(text).toContain('sp2 (Cash and risk budget): the board chose option A, "Capped growth budget".');
    expect(text).toContain('sp3 (Structure of the deal): tied between option A, "Paid trial first" and option B, "Phantom equity now": no option was chosen.');
    expect(text).toContain('sp4 (Co-founder equity): deferred: a one-way door without the supermajority, so no option was chosen.');
    expect(text).toContain('sp5 (Product-led growth): not deliberated');
  });

  it("sees each sub-problem's rationale, dissent and caveats, so figures across sub-problems can be reconciled", () => {
    expect(text).toContain('Rationale: Two of three experts judged the downside of an uncapped bet too large for a $5K/month income.');
    expect(text).toContain(`- ${personaByCode('growth_strategist')!.name}: $6K buys too few weeks to read a sales signal.`);
    expect(text).toContain('- Below the $21K cash floor, the trial pauses automatically.');
    expect(text).toContain('- Legal fees of $1,500-3,000 inside the $6K cap shorten the trial to 10-12 weeks.');
    expect(text).toContain('Recommendation (confidence 0.60): A capped budget');
    expect(text).toMatch(/sp4 [^\n]*\n(?:.*\n){2}  Dissent: none\n  Caveats: none/);
  });

  it('is asked to reconcile conflicting figures and conditions in `conflicts`, and to answer the question the person asked at a checkpoint', () => {
    expect(text).toMatch(/different figures or conditions for the same thing[^\n]*reconcile them in `conflicts`/);
    const memory = renderCaseMemory(
      applyEvents(emptyCaseMemory(), [{ type: 'checkpoint.resolved', data: { action: 'intervene', message: 'Is $30K realistic, or should I reset the goal?' } }], '2026-11-22T13:00:00.000Z'),
    );
    const asked = prompt(finalRecommendationCall, input, memory);
    expect(asked).toContain('Is $30K realistic, or should I reset the goal?');
    // The instruction points where the case memory puts the person's words.
    expect(memory).toContain('What the person told the board');
    expect(asked).toMatch(/direct question at a checkpoint \(their words are under "What the person told the board" in the case so far\), answer it/);
  });
});

describe("an expert's summary", () => {
  const input = (contributions: string[]): ExpertSummaryInput => ({
    persona: analyst,
    subProblem: sp,
    contributions,
    vote: { optionId: 'A', confidence: 0.7, rationale: 'A cap keeps the downside known.' },
    position: 'Cap the bet at $6K.',
    confidence: 0.7,
  });

  it('sees every turn, the opening statement included, in order', () => {
    const turns = ['Opening: a $3K salary eats 60% of the profit.', 'Round 2: a $21K cash floor.', 'Round 3: cap the bet at $6K.'];
    const text = prompt(expertSummaryCall, input(turns));
    expect(text).toContain('Your turns in the debate, oldest first:\n- Turn 1: Opening: a $3K salary eats 60% of the profit.\n- Turn 2: Round 2: a $21K cash floor.\n- Turn 3: Round 3: cap the bet at $6K.');
    expect(text).not.toMatch(/left out/);
  });

  it('over the stated cap, drops whole turns, oldest first, and says how many', () => {
    // Five turns of 1,400 characters: 7,000 in all, over the 6,000 cap by one turn.
    const turns = [1, 2, 3, 4, 5].map((n) => `Turn text ${n} `.padEnd(1_400, 'x'));
    const text = prompt(expertSummaryCall, input(turns));
    expect(text).toContain('oldest first (your first turn of 5 left out for length):');
    expect(text).not.toContain('Turn text 1 ');
    for (const n of [2, 3, 4, 5]) expect(text).toContain(`- Turn ${n}: Turn text ${n} ${'x'.repeat(10)}`);
    expect(text).toContain(turns[1]); // whole, never clipped
    const long = prompt(expertSummaryCall, input([...turns, ...turns.slice(0, 3)]));
    expect(long).toContain('oldest first (your first 4 turns of 8 left out for length):\n- Turn 5: ');
  });
});

describe('newestWithin', () => {
  it('keeps the newest whole items within the cap, in order, and counts the rest', () => {
    expect(newestWithin(['aaaa', 'bb', 'cc'], 4)).toEqual({ kept: ['bb', 'cc'], omitted: 1 });
    expect(newestWithin(['aaaa', 'bb', 'cc'], 8)).toEqual({ kept: ['aaaa', 'bb', 'cc'], omitted: 0 });
    // Contiguous: an older short item does not jump over a longer one that did not fit.
    expect(newestWithin(['a', 'bbbbb', 'cc'], 4)).toEqual({ kept: ['cc'], omitted: 2 });
    // The newest is kept even alone over the cap.
    expect(newestWithin(['a', 'bbbbbb'], 4)).toEqual({ kept: ['bbbbbb'], omitted: 1 });
    expect(newestWithin([], 4)).toEqual({ kept: [], omitted: 0 });
  });
  it('holds a typical debate whole: six turns of 1,000 characters', () => {
    expect(newestWithin(Array.from({ length: 6 }, () => 'x'.repeat(1_000)), SUMMARY_TURNS_MAX_CHARS).omitted).toBe(0);
  });
});

describe("a later sub-problem's record", () => {
  it('opens with the decisions it depends on and, once each, the questions they left open for the person', () => {
    const q = (persona: string, question: string) => ({ persona, question, round: 1 });
    const deps = [
      { subProblemId: 'sp1', synthesis: { recommendation: 'Run a 30-day test first.' }, openQuestions: [q('financial_analyst', 'How many months of runway do you have?'), q('sales_leader', 'What would the candidate accept?')] },
      { subProblemId: 'sp2', synthesis: { recommendation: 'Hire part-time on a low base.' }, openQuestions: [q('turnaround_cfo', 'How many months of runway do you have? ')] },
    ] as unknown as Parameters<typeof earlierDecisions>[0];
    const text = earlierDecisions(deps);
    expect(text).toBe(
      [
        'Decided earlier by the board:',
        '- sp1: Run a 30-day test first.',
        '- sp2: Hire part-time on a low base.',
        // A "how" after a "not now": said plainly, and worked as the plan for when the decision is revisited.
        'Where a decision above rules out what this sub-problem was framed on (it asks how to do what the board decided not to do now), say so plainly, and work it as the plan for when that decision is revisited: what would have to change first, and how to proceed then.',
        "Questions those sub-problems put to the person (on the person's list already; open unless what the person told the board answers them):",
        `- How many months of runway do you have? (${personaByCode('financial_analyst')!.name})`,
        `- What would the candidate accept? (${personaByCode('sales_leader')!.name})`,
        '',
      ].join('\n'),
    );
    expect(earlierDecisions([])).toBe('');
    expect(earlierDecisions([{ ...deps[0]!, openQuestions: [] }])).not.toContain('Questions');
  });
});

describe("the decision's own ledger facts", () => {
  it('get ids of their own and, once folded, take the place of the facts they settle', () => {
    const decided = decisionFacts('sp1', [{ text: 'Lead price $79 a month ($790 a year), 1,000 responses', kind: 'decision', source: 'facilitator', replaces: ['sp1.r2.f1'] }]);
    expect(decided.map((f) => f.id)).toEqual(['sp1.d.f1']);
    const memory = applyEvents(
      emptyCaseMemory(),
      [
        { type: 'facts.recorded', data: { subProblemId: 'sp1', round: 2, facts: [{ id: 'sp1.r2.f1', text: 'At $99 a month, 12 payers bring $1,188 MRR', kind: 'figure', source: 'financial_analyst' }] } },
        { type: 'facts.recorded', data: { subProblemId: 'sp1', round: 3, facts: decided } },
      ],
      '2026-11-26T23:00:00.000Z',
    );
    expect(currentFacts(memory.facts).map((f) => f.id)).toEqual(['sp1.d.f1']);
    expect(decisionFacts('sp2', undefined)).toEqual([]);
  });
});

describe("an expert's turn", () => {
  const turn = (researchLeft: number, personAnswers = false, speaking = { at: 1, of: 3 }) =>
    renderCall(
      contributionCall,
      { persona: analyst, subProblem: sp, decidedEarlier: '', panel: ['financial_analyst'], round: 2, maxRounds: 3, phase: 'middle', memory: '', record: ['## Board record'], previous: null, others: [], moderator: null, research: [], question: null, redirect: false, intervention: null, repeated: false, notice: null, researchLeft, personAnswers, speaking },
      templates,
      { ...frame, caseMemory: '' },
    ).user;

  it('says how many research answers the sub-problem still allows, or that none are left (two trials learnt of the cap only when declined)', () => {
    expect(turn(2)).toContain('Research: this sub-problem allows 2 more answers from general knowledge, given next round');
    expect(turn(1)).toContain('allows 1 more answer from');
    expect(turn(0)).toContain('No research answers are left for this sub-problem');
    // The middle phase's instruction used to say "or ask for research" beside "none are left".
    expect(turn(0)).not.toMatch(/ask for research/i);
  });

  it("says where the expert speaks and whether its request would be answered (a round's speakers cannot see each other's requests)", () => {
    expect(turn(2, false, { at: 2, of: 4 })).toContain('You speak 2nd of 4: a request of yours will be answered.');
    expect(turn(2, false, { at: 3, of: 4 })).toContain('You speak 3rd of 4: yours is answered only if fewer than 2 of the 2 speaking before you ask (you cannot see their turns).');
    expect(turn(1, false, { at: 4, of: 4 })).toContain('You speak 4th of 4: yours is answered only if none of the 3 speaking before you asks');
    expect(turn(1, false, { at: 2, of: 3 })).toContain('You speak 2nd of 3: yours is answered only if the expert speaking before you does not ask');
    expect(turn(0, false, { at: 1, of: 4 })).not.toContain('You speak');
  });

  it('says whether the person can answer a question before the vote (helpers in automatic sessions were not told nobody would)', () => {
    expect(turn(1, true)).toContain("Questions for the person: they see this round's when it ends and may answer before the next round.");
    expect(turn(1, false)).toContain('Questions for the person: nobody answers them before the vote');
    expect(turn(1, false)).toContain('argue meanwhile on an assumption you state');
  });
});

describe('calls nothing later reads the prompt of', () => {
  it('carry no cache breakpoint (a write costs 1.25× and would never be read); the others mark their shared blocks', () => {
    expect(moderatorCall.cached).toBe(false);
    // Once per session, but its static rules pass the smart tier's minimum: another session reads them.
    expect(finalRecommendationCall.cached).toBeUndefined();
    const moderated = renderCall(moderatorCall, { kind: 'skeptic', subProblem: sp, record: ['## Board record: sp2', '### Round 1 (early phase)'], positions: [] }, templates, { ...frame, caseMemory: '' });
    expect(moderated.system.length).toBeGreaterThan(2);
    expect(moderated.cacheAfter).toEqual([]);
    const facilitated = renderCall(facilitatorRoundCall, { subProblem: sp, round: 1, maxRounds: 3, phase: 'early', panel: [], perRound: 3, lessons: '', record: ['## Board record: sp2', '### Round 1 (early phase)'], keyArguments: [], intervention: null, contributions: [] }, templates, { ...frame, caseMemory: '' });
    expect(facilitated.cacheAfter!.length).toBeGreaterThan(0);
  });
});

describe("the facilitator's round", () => {
  const input = (round: number): FacilitatorInput => ({
    subProblem: { id: 'sp1', title: 'Hiring', goal: 'Decide whether to hire a part-time salesperson.' } as SubProblemBrief,
    round,
    maxRounds: 3,
    phase: round >= 3 ? 'late' : 'early',
    panel: ['financial_analyst', 'sales_leader', 'growth_strategist', 'customer_researcher'],
    perRound: 3,
    lessons: '',
    record: [],
    keyArguments: [],
    intervention: null,
    contributions: [],
  });

  it("reads the round that ended as the record's last chapter, not again in its message", () => {
    const turns = '### Round 2 (early phase)\n[Daniel Reyes (financial_analyst)] Cap it at $6K.';
    const p = renderCall(facilitatorRoundCall, { ...input(2), record: ['## Board record: sub-problem sp1', turns] }, templates, { ...frame, caseMemory: '' });
    expect(p.system.at(-1)).toBe(turns);
    expect(p.user).toContain('its turns are the record\'s last chapter, "Round 2"');
    expect(p.user).not.toContain('Cap it at $6K');
  });

  it('says how many of those it names speak next, and which go first; the last round asks for nobody', () => {
    expect(prompt(facilitatorRoundCall, input(2))).toContain("At most 3 of those you name in `wantsToSpeak` speak next round, the least heard first (ties in the panel's order above)");
    const last = prompt(facilitatorRoundCall, input(3));
    expect(last).not.toContain('speak next round');
    expect(last).toContain('Leave `wantsToSpeak` empty');
  });
});
