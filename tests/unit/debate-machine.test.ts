import { describe, expect, it } from 'vitest';
import { contributionCall, openingStatementCall, type ExpertTurnInput, type FacilitatorInput } from '../../src/calls/debate';
import type { Resolution, RoundEndProposal } from '../../src/domain/checkpoints';
import { evaluateRound, type RoundClock } from '../../src/domain/debate/evaluate';
import { apply, next, type DebateAction, type DebateResult } from '../../src/domain/debate/machine';
import { startDebate, type DebateOutcome, type DebateSetup, type DebateState } from '../../src/domain/debate/state';
import { expertTurnDone, facilitatorDone } from '../../src/domain/debate/steps';
import type { Contribution, FacilitatorRound, LedgerFact } from '../../src/domain/model';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../src/domain/settings';

/**
 * The debate's rules driven with hand-made results: no Postgres, Redis,
 * model or embedder. Each action is answered the way the engine would
 * (expert and facilitator answers go through the same result functions the
 * engine's steps use), so what is asserted is what a session would do.
 */

const PANEL = ['technical_architect', 'financial_analyst', 'user_advocate', 'risk_manager'];
const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const S = DEFAULT_ENGINE_SETTINGS;

const setup = (over: Partial<DebateSetup> = {}): DebateSetup => ({
  subProblem: { id: 'sp1', title: 'Pricing', goal: 'Decide the price', context: '(none)', complexity: 5 },
  panel: PANEL,
  maxRounds: 7,
  decidedEarlier: '',
  personSaid: [],
  memory: {},
  lessons: '',
  checkStances: false,
  personAnswersRounds: false,
  budgetUsd: null,
  prices: { smart: { input: 3, output: 15 }, fast: { input: 1, output: 5 } },
  // Raw cosine 0 → 0.1 and 1 → 0.9 on the calibrated scale.
  calibration: { different: 0, same: 1 },
  ...over,
});

interface Script {
  turn?: (code: string, input: ExpertTurnInput) => Partial<Contribution>;
  facilitator?: (round: number, input: FacilitatorInput) => Partial<FacilitatorRound>;
  /** Embeddings of one round's texts; by default every text points somewhere new, so nothing repeats or converges. */
  vectors?: (round: number, texts: string[], fresh: () => number[]) => number[][];
  clock?: (round: number, state: DebateState) => RoundClock;
  steer?: (round: number) => Resolution;
  notices?: Record<string, string>;
  /** The other sub-problems' ledger as it stands when round `round` opens. */
  ledger?: (round: number) => LedgerFact[];
}

const CONTINUE: Resolution = { action: 'continue', by: 'client' };

/** The engine, played by hand: answers each action with what the script says. */
function respond(state: DebateState, a: DebateAction, script: Script, fresh: () => number[], s: EngineSettings): DebateResult {
  const round = state.current?.round ?? 0;
  switch (a.kind) {
    case 'start':
      return { kind: 'started', startedAt: new Date(T0).toISOString() };
    case 'open_round':
      return { kind: 'round_opened', facts: script.ledger?.(round) ?? [] };
    case 'expert_turns':
      return {
        kind: 'turns',
        turns: a.turns.map(({ input }) => {
          const code = input.persona.code;
          const out: Contribution = {
            text: `${code} says something in round ${input.round}.`,
            position: `${code} holds position ${input.round}`,
            agreesWith: [],
            disagreesWith: [],
            confidence: 0.7,
            claims: [],
            researchRequest: null,
            ...script.turn?.(code, input),
          };
          return expertTurnDone(input, out).result;
        }),
      };
    case 'facilitate': {
      const out: FacilitatorRound = {
        summary: `Round ${round} summary.`,
        keyArguments: [`argument of round ${round}`],
        relevance: 8,
        agreement: 0.5,
        sentiment: 'balanced',
        wantsToSpeak: PANEL,
        nextQuestion: `What next after round ${round}?`,
        ...script.facilitator?.(round, a.input),
      };
      return { kind: 'facilitated', facilitator: facilitatorDone(a.input, out).result };
    }
    case 'embed':
      return { kind: 'embedded', vectors: script.vectors ? script.vectors(round, a.texts, fresh) : a.texts.map(() => fresh()) };
    case 'evaluate': {
      const clock = script.clock?.(round, state) ?? { now: new Date(T0 + round * 10_000), spentUsd: 0 };
      return { kind: 'evaluated', end: evaluateRound(state, clock, s).end };
    }
    case 'check_stances':
      return { kind: 'stances', notices: script.notices ?? {} };
    case 'moderate':
      return { kind: 'moderated', text: `The ${a.input.kind} speaks after round ${a.round}.` };
    case 'research':
      return { kind: 'researched', findings: a.requests.map((r) => ({ query: r.input.query, findings: `What is known about ${r.input.query}.` })) };
    case 'ask':
      return { kind: 'steered', resolution: script.steer?.(a.ask.round) ?? CONTINUE };
    case 'finish':
      throw new Error('finish has no result');
  }
}

interface Run {
  actions: DebateAction[];
  results: DebateResult[];
  outcome: DebateOutcome;
  final: DebateState;
}

function run(script: Script = {}, over: Partial<DebateSetup> = {}, s: EngineSettings = S): Run {
  let dim = 0;
  // A new one-hot direction each call: unrelated to everything said before.
  const fresh = () => oneHot(dim++);
  let state = startDebate(setup(over));
  const actions: DebateAction[] = [];
  const results: DebateResult[] = [];
  for (let i = 0; i < 200; i++) {
    const a = next(state, s);
    actions.push(a);
    if (a.kind === 'finish') return { actions, results, outcome: a.outcome, final: state };
    const r = respond(state, a, script, fresh, s);
    results.push(r);
    // Frozen, so a fold that edited the given state (or a result) in place instead of copying it throws here.
    state = apply(deepFreeze(state), deepFreeze(r), s);
  }
  throw new Error('the debate did not finish');
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

const oneHot = (i: number) => Array.from({ length: 256 }, (_, j) => (j === i ? 1 : 0));
const ofKind = <K extends DebateAction['kind']>(actions: DebateAction[], kind: K) => actions.filter((a): a is Extract<DebateAction, { kind: K }> => a.kind === kind);
const turnsOf = (r: Run) => ofKind(r.actions, 'expert_turns');
const speakersOf = (r: Run) => turnsOf(r).map((a) => a.turns.map((t) => t.input.persona.code));
const roundStarted = (a: Extract<DebateAction, { kind: 'open_round' }>) => a.events.find((e) => e.type === 'round.started')!.data as { round: number; phase: string; speakers: string[]; invited: string[] };

describe('the debate machine: who speaks and what they see', () => {
  it('opens with a start step, then an opening round where everyone speaks their opening statement', () => {
    const r = run({}, { maxRounds: 3 });
    expect(r.actions[0]).toMatchObject({ kind: 'start', key: 'sp1/start', progress: { stage: 'debate', round: 0, maxRounds: 3, fraction: 0 } });
    expect(r.actions[0]!.kind === 'start' && r.actions[0].events).toEqual([
      { type: 'subproblem.started', data: { subProblemId: 'sp1', title: 'Pricing', goal: 'Decide the price', maxRounds: 3, panel: PANEL, complexity: 5 } },
    ]);
    expect(r.actions[1]).toMatchObject({ kind: 'open_round', key: 'sp1/r1/start' });
    const opening = turnsOf(r)[0]!;
    expect(opening.turns.map((t) => t.key)).toEqual(PANEL.map((c) => `sp1/r1/${c}`));
    expect(opening.turns.every((t) => t.call === openingStatementCall)).toBe(true);
    expect(opening.turns[0]!.input).toMatchObject({ round: 1, phase: 'opening', previous: null, others: [], question: null });
    // The opening speaker reads the record's opening page alone.
    expect(opening.turns[0]!.input.record).toEqual([expect.stringContaining('## Board record: sub-problem sp1: Pricing')]);
    expect(turnsOf(r)[1]!.turns.every((t) => t.call === contributionCall)).toBe(true);
  });

  it('later rounds take the least-heard of those the facilitator polled, capped per round, and nobody opens twice in a row', () => {
    // Only two ask to speak after round 1; after round 2, everyone does.
    const r = run({ facilitator: (round) => (round === 1 ? { wantsToSpeak: ['user_advocate', 'risk_manager', 'nobody_here'] } : {}) }, { maxRounds: 4 });
    const [r1, r2, r3] = speakersOf(r);
    expect(r1).toEqual(PANEL);
    // The last speaker of round 1 (risk_manager) does not open round 2.
    expect(r2).toEqual(['user_advocate', 'risk_manager']);
    // Three per round, the least-heard first (the two who spoke twice come last), and not opened by round 2's last speaker.
    expect(r3).toHaveLength(S.speakersPerRound);
    expect(r3!.slice(0, 2).sort()).toEqual(['financial_analyst', 'technical_architect']);
    expect(r3![0]).not.toBe(r2!.at(-1));
    // What a later speaker sees: their own last position, the others', the discussion so far, the facilitator's question.
    const seen = turnsOf(r)[1]!.turns[0]!.input;
    expect(seen.previous).toBe('user_advocate holds position 1');
    expect(seen.others.map((o) => o.persona)).toEqual(PANEL.filter((c) => c !== 'user_advocate'));
    // The record: the opening page, then round 1 sealed: every turn, then the facilitator's reading.
    expect(seen.record).toHaveLength(3);
    expect(seen.record[1]).toContain('[Maya Okafor (technical_architect)] technical_architect says something in round 1.');
    expect(seen.record[2]).toContain('Next question: What next after round 1?');
    expect(seen.question).toBe('What next after round 1?');
  });

  it('invites a seat that has not spoken yet, with a facilitator message naming them', () => {
    // The opening round seats everyone, so a silent seat only arises in a state where one did not speak: the state is plain data, so the test writes one.
    let state = startDebate(setup({ maxRounds: 5 }));
    const fresh = (() => {
      let d = 0;
      return () => oneHot(d++);
    })();
    while (state.stage !== 'checkpoint') state = apply(state, respond(state, next(state, S), {}, fresh, S), S);
    // At round 1's checkpoint: risk_manager has not spoken and nobody polled them.
    const silent: DebateState = JSON.parse(JSON.stringify(state));
    silent.spoken.risk_manager = 0;
    silent.wantsToSpeak = ['technical_architect', 'financial_analyst', 'user_advocate'];
    silent.lastSpeaker = 'user_advocate';
    const planned = apply(silent, { kind: 'steered', resolution: CONTINUE }, S);
    expect(planned.current).toMatchObject({ round: 2, invited: ['risk_manager'] });
    expect(planned.current!.speakers[0]).toBe('risk_manager');
    const open = next(planned, S);
    expect(open.kind === 'open_round' && open.events).toContainEqual({
      type: 'facilitator.message',
      data: { subProblemId: 'sp1', round: 2, kind: 'invite', text: 'Thomas Berg, we have not heard from you yet: what do you see that the others missed?' },
    });
  });

  it('names the phase of each round: opening, early (2-4), middle (5-7), late (8+)', () => {
    const r = run({}, { maxRounds: 9 });
    const phases = ofKind(r.actions, 'open_round').map((a) => roundStarted(a).phase);
    expect(phases).toEqual(['opening', 'early', 'early', 'early', 'middle', 'middle', 'middle', 'late', 'late']);
    expect(turnsOf(r).map((a) => a.turns[0]!.input.phase)).toEqual(phases);
    expect(r.outcome).toMatchObject({ rounds: 9, stopReason: 'max_rounds' });
  });

  it('a notice from the stance check reaches its expert in the next round they speak, then resolves', () => {
    const notice = 'In an earlier session you concluded otherwise: explain what changed your mind.';
    const r = run(
      { notices: { risk_manager: notice }, facilitator: (round) => (round === 1 ? { wantsToSpeak: ['technical_architect'] } : {}) },
      { checkStances: true, maxRounds: 3 },
    );
    // Asked once, after the opening round, with the positions just taken.
    const checks = ofKind(r.actions, 'check_stances');
    expect(checks).toHaveLength(1);
    expect(Object.keys(checks[0]!.positions)).toEqual(PANEL);
    const [, r2, r3] = turnsOf(r);
    // risk_manager does not speak in round 2 (only two do), so the notice waits for round 3.
    expect(r2!.turns.map((t) => t.input.persona.code)).not.toContain('risk_manager');
    const third = r3!.turns.find((t) => t.input.persona.code === 'risk_manager')!;
    expect(third.input.notice).toBe(notice);
    expect(expertTurnDone(third.input, { text: 'I changed my mind because of the data.', position: 'p', agreesWith: [], disagreesWith: [], confidence: 0.6, claims: [], researchRequest: null }).events[0]).toEqual({
      type: 'memory.contradiction_resolved',
      data: { id: 'sp1:risk_manager', subProblemId: 'sp1', persona: 'risk_manager', round: 3 },
    });
  });
});

describe('the debate machine: what the vote reads of the disagreements', () => {
  it("keeps the round of each expert's latest turn, so a challenge from before the last round is read as such", () => {
    // Round 1: everyone; round 2: only user_advocate and risk_manager. The analyst challenged the architect in round 1 and
    // did not speak again; the architect, whom the challenge named, did not speak after it either; the risk manager did.
    const r = run(
      {
        facilitator: (round) => (round === 1 ? { wantsToSpeak: ['user_advocate', 'risk_manager'] } : {}),
        turn: (code, input) => (code === 'financial_analyst' && input.round === 1 ? { disagreesWith: ['technical_architect', 'risk_manager'] } : {}),
      },
      { maxRounds: 2 },
    );
    expect(speakersOf(r)[1]).toEqual(['user_advocate', 'risk_manager']);
    expect(r.outcome.rounds).toBe(2);
    expect(r.outcome.disagreements.financial_analyst).toEqual(['technical_architect', 'risk_manager']);
    expect(r.outcome.lastTurnRound).toEqual({ technical_architect: 1, financial_analyst: 1, user_advocate: 2, risk_manager: 2 });
  });
});

describe('the debate machine: moderators and research', () => {
  it('a moderator fires at most once per kind: the contrarian against early agreement, the skeptic against unverified claims', () => {
    // Every round agrees early and rests on assumptions: each moderator still speaks once.
    const assumed = () => ({ claims: [{ claim: 'Customers will pay more', basis: 'assumption' as const }] });
    const r = run({ facilitator: () => ({ agreement: 0.95 }), turn: assumed }, { maxRounds: 6 });
    const moderators = ofKind(r.actions, 'moderate');
    expect(moderators.map((m) => [m.key, m.input.kind])).toEqual([
      ['sp1/r1/contrarian', 'contrarian'],
      ['sp1/r3/skeptic', 'skeptic'],
    ]);
    expect(moderators[0]!.input.positions.map((p) => p.persona)).toEqual(PANEL);
    // The next round's experts respond to it.
    expect(turnsOf(r)[1]!.turns[0]!.input.moderator).toEqual({ kind: 'contrarian', text: 'The contrarian speaks after round 1.' });
    expect(turnsOf(r)[2]!.turns[0]!.input.moderator).toBeNull();
    expect(r.outcome.interventions).toEqual([
      { kind: 'contrarian', round: 1 },
      { kind: 'skeptic', round: 3 },
    ]);
  });

  it('a deadlock gets one break from the facilitator, then a vote', () => {
    const s: EngineSettings = { ...S, deadlock: { conflictAbove: 0.8, rounds: 2 } };
    const everyoneDisagrees = (code: string) => ({ disagreesWith: PANEL.filter((c) => c !== code) });
    const r = run({ turn: everyoneDisagrees }, { maxRounds: 7 }, s);
    const moderators = ofKind(r.actions, 'moderate');
    expect(moderators.map((m) => [m.key, m.input.kind])).toEqual([['sp1/r2/deadlock', 'deadlock']]);
    expect(turnsOf(r)[2]!.turns[0]!.input.moderator).toEqual({ kind: 'deadlock', text: 'The deadlock speaks after round 2.' });
    expect(r.outcome).toMatchObject({ rounds: 3, stopReason: 'deadlock', deadlocksResolved: 0, interventions: [{ kind: 'deadlock', round: 2 }] });
    // No checkpoint once the rules stop the debate.
    expect(ofKind(r.actions, 'ask').map((a) => a.ask.round)).toEqual([1, 2]);
  });

  it('a deadlock counts as resolved when the debate after the break stops for another reason', () => {
    const s: EngineSettings = { ...S, deadlock: { conflictAbove: 0.8, rounds: 2 } };
    const r = run({ turn: (code) => ({ disagreesWith: PANEL.filter((c) => c !== code) }) }, { maxRounds: 3 }, s);
    expect(r.outcome).toMatchObject({ rounds: 3, stopReason: 'max_rounds', deadlocksResolved: 1 });
  });

  it('research requests run in parallel steps, capped per sub-problem, and their findings reach the next round', () => {
    const r = run({ turn: (code, input) => ({ researchRequest: `What does ${code} need to know after round ${input.round}?` }) }, { maxRounds: 4 });
    const research = ofKind(r.actions, 'research');
    expect(research).toHaveLength(1);
    expect(research[0]!.requests.map((q) => q.key)).toEqual(['sp1/r1/research1', 'sp1/r1/research2']);
    expect(research[0]!.requests.map((q) => q.input.query)).toEqual([
      'What does technical_architect need to know after round 1?',
      'What does financial_analyst need to know after round 1?',
    ]);
    expect(turnsOf(r)[1]!.turns[0]!.input.research).toEqual([
      { query: 'What does technical_architect need to know after round 1?', findings: 'What is known about What does technical_architect need to know after round 1?.' },
      { query: 'What does financial_analyst need to know after round 1?', findings: 'What is known about What does financial_analyst need to know after round 1?.' },
    ]);
    expect(turnsOf(r)[2]!.turns[0]!.input.research).toEqual([]);
    expect(r.outcome.researchUsed).toBe(S.researchPerSubProblem);
    // Each expert is told what research is left: the cap before it is spent, none after, none in the last round.
    expect(turnsOf(r).map((a) => a.turns[0]!.input.researchLeft)).toEqual([S.researchPerSubProblem, 0, 0, 0]);
    const fresh = run({}, { maxRounds: 3 });
    expect(turnsOf(fresh).map((a) => a.turns[0]!.input.researchLeft)).toEqual([S.researchPerSubProblem, S.researchPerSubProblem, 0]);
  });

  it("tells the experts the person may answer after a round only where a round_end checkpoint follows it: never in the last round, never in an automatic session", () => {
    // Per round, what its speakers were told (all of a round's speakers alike).
    const answers = (personAnswersRounds: boolean) => turnsOf(run({}, { maxRounds: 3, personAnswersRounds })).map((a) => [...new Set(a.turns.map((t) => t.input.personAnswers))]);
    expect(answers(true)).toEqual([[true], [true], [false]]);
    expect(answers(false).flat().every((x) => x === false)).toBe(true);
  });

  it('tells each speaker where it speaks in the round: the order research answers are granted in', () => {
    for (const a of turnsOf(run({}, { maxRounds: 3 }))) expect(a.turns.map((t) => t.input.speaking)).toEqual(a.turns.map((_, n) => ({ at: n + 1, of: a.turns.length })));
  });

  it('declines every research request it does not answer, with the reason: the cap, or the debate ending first', () => {
    const r = run({ turn: (code, input) => ({ researchRequest: `What does ${code} need to know after round ${input.round}?` }) }, { maxRounds: 3 });
    const ends = r.results.filter((x): x is Extract<DebateResult, { kind: 'evaluated' }> => x.kind === 'evaluated').map((x) => x.end);
    const asked = turnsOf(r).reduce((n, a) => n + a.turns.length, 0);
    const answered = ends.reduce((n, e) => n + e.research.length, 0);
    const declined = ends.flatMap((e) => e.declined ?? []);
    expect(answered + declined.length).toBe(asked);
    expect(ends[0]!.declined!.map((d) => d.reason)).toEqual([
      `the ${S.researchPerSubProblem} research answers this sub-problem allows are used`,
      `the ${S.researchPerSubProblem} research answers this sub-problem allows are used`,
    ]);
    expect(ends.at(-1)!.declined!.every((d) => d.reason === 'the debate ended this round, so no later round could use the findings')).toBe(true);
    expect(declined.every((d) => PANEL.includes(d.persona) && d.query.startsWith(`What does ${d.persona}`))).toBe(true);
    // The experts read it too: round 2's record says whose round-1 request was declined and why (a trial's expert saw hers vanish).
    const record = turnsOf(r)[1]!.turns[0]!.input.record.join('\n');
    for (const d of ends[0]!.declined!) expect(record).toContain(`on "${d.query}" was declined: ${d.reason}.`);
  });
});

describe('the debate machine: questions only the person can answer', () => {
  const asking = (round: number) => (code: string, input: ExpertTurnInput) =>
    code === 'user_advocate' && input.round === round ? { questionForPerson: `What is your churn, round ${round}?` } : {};

  it('shows them at the round-end checkpoint and keeps them open whatever the person chose, an intervention included', () => {
    const r = run(
      {
        // Round 3's speakers all ask (who speaks in round 3 follows the speaker rules).
        turn: (code, input) => (input.round === 3 ? { questionForPerson: `What is your churn, round 3?` } : { ...asking(1)(code, input), ...asking(2)(code, input) }),
        steer: (round) => (round === 1 ? { action: 'intervene', message: 'Churn is 3% a month.', by: 'client' } : CONTINUE),
      },
      { maxRounds: 3 },
    );
    const asks = ofKind(r.actions, 'ask').map((a) => a.ask);
    expect(asks.map((a) => a.round)).toEqual([1, 2]);
    expect((asks[0]!.proposal as RoundEndProposal).questions).toEqual([{ persona: 'user_advocate', name: expect.any(String), question: 'What is your churn, round 1?' }]);
    expect(asks[0]!.prompt).toMatch(/a question only you can answer: answer in an intervention/);
    // Round 1's stays open beside the intervention (which may or may not answer it: the final step reads both); round 2's
    // stayed open at a "continue"; round 3's was never shown (the debate stopped).
    expect(turnsOf(r)[1]!.turns[0]!.input.intervention).toBe('Churn is 3% a month.');
    const third = speakersOf(r)[2]!;
    expect(r.outcome.openQuestions.map((q) => [q.round, q.persona, q.question])).toEqual([
      [1, 'user_advocate', 'What is your churn, round 1?'],
      [2, 'user_advocate', 'What is your churn, round 2?'],
      ...third.map((code) => [3, code, 'What is your churn, round 3?']),
    ]);
  });

  it('a round without questions asks nothing extra', () => {
    const r = run({}, { maxRounds: 2 });
    const ask = ofKind(r.actions, 'ask')[0]!.ask;
    expect((ask.proposal as RoundEndProposal).questions).toBeUndefined();
    expect(ask.prompt).not.toMatch(/only you can answer/);
    expect(r.outcome.openQuestions).toEqual([]);
  });
});

describe('the debate machine: the person and the stop', () => {
  it('asks the round_end checkpoint after each round that continues, never after the last', () => {
    const r = run({}, { maxRounds: 3 });
    const asks = ofKind(r.actions, 'ask');
    expect(asks.map((a) => a.ask.id)).toEqual(['sp1.r1', 'sp1.r2']);
    expect(asks[1]!.ask).toMatchObject({
      prompt: 'Round 2/3 of "Pricing" is done. Continue, move to the vote, intervene with your own point, or skip to the final recommendation.',
      subProblemId: 'sp1',
      round: 2,
      proposal: { subProblemId: 'sp1', round: 2, maxRounds: 3, summary: 'Round 2 summary.' },
    });
    // Round 3 hit the cap: straight from its evaluation to the outcome.
    expect(r.actions.slice(-2).map((a) => a.kind)).toEqual(['evaluate', 'finish']);
  });

  it("an intervention reaches the next round's experts and facilitator, once", () => {
    const message = 'What about our cash runway of 14 months?';
    const r = run({ steer: (round) => (round === 1 ? { action: 'intervene', by: 'client', message } : CONTINUE) }, { maxRounds: 3 });
    const [, open2, open3] = ofKind(r.actions, 'open_round');
    expect(open2!.events).toContainEqual({
      type: 'facilitator.message',
      data: { subProblemId: 'sp1', round: 2, kind: 'intervention', text: `The person intervened: "${message}". Experts, respond to this first.` },
    });
    expect(turnsOf(r)[1]!.turns.every((t) => t.input.intervention === message)).toBe(true);
    expect(ofKind(r.actions, 'facilitate')[1]!.input.intervention).toBe(message);
    expect(open3!.events.some((e) => e.type === 'facilitator.message')).toBe(false);
    expect(turnsOf(r)[2]!.turns.every((t) => t.input.intervention === null)).toBe(true);
  });

  it('the person can move the board to the vote, or skip to the final recommendation', () => {
    const toVote = run({ steer: (round) => (round === 2 ? { action: 'skip_to_vote', by: 'client' } : CONTINUE) });
    expect(toVote.outcome).toMatchObject({ rounds: 2, stopReason: 'person', stopDetail: 'The person moved the board to the vote after round 2.', skipToFinal: false });
    const toFinal = run({ steer: () => ({ action: 'skip_to_final', by: 'client' }) });
    expect(toFinal.outcome).toMatchObject({ rounds: 1, stopReason: 'person', skipToFinal: true });
  });

  it('stops on consensus: positions converge, nothing new is said, nobody disagrees', () => {
    const same = oneHot(255);
    // Round 1 everyone somewhere new; from round 2 everyone says the same thing.
    const r = run({ vectors: (round, texts, fresh) => texts.map(() => (round === 1 ? fresh() : same)) });
    expect(r.outcome).toMatchObject({ rounds: 3, stopReason: 'consensus' });
    expect(r.outcome.metrics.map((m) => m.round)).toEqual([1, 2, 3]);
    expect(r.outcome.transcript).toContain('round 3]');
  });

  it('stops at the round cap', () => {
    const r = run({}, { maxRounds: 2 });
    expect(r.outcome).toMatchObject({ rounds: 2, maxRounds: 2, stopReason: 'max_rounds' });
  });

  it('stops when the next round would not fit the budget left after the reserve', () => {
    const r = run({ clock: (round) => ({ now: new Date(T0 + round * 1000), spentUsd: round === 2 ? 0.95 : 0.1 }) }, { budgetUsd: 1 });
    expect(r.outcome).toMatchObject({ rounds: 2, stopReason: 'budget' });
  });

  it('stops at the time limit, measured from the start step', () => {
    const r = run({ clock: (round) => ({ now: new Date(T0 + round * 2 * 60_000), spentUsd: 0 }) });
    // 2 min per round against a 5 min limit: round 3 is at 6 min.
    expect(r.outcome).toMatchObject({ rounds: 3, stopReason: 'time_limit', elapsedMs: 6 * 60_000 });
  });
});

describe('the debate machine: a pure function of its results', () => {
  const script: Script = {
    facilitator: (round) => ({ agreement: round === 1 ? 0.9 : 0.5, wantsToSpeak: round % 2 ? ['risk_manager'] : PANEL }),
    turn: (code, input) => ({ researchRequest: input.round === 2 ? `Question from ${code}?` : null }),
    steer: (round) => (round === 2 ? { action: 'intervene', by: 'client', message: 'Mind the runway.' } : CONTINUE),
  };

  it('the same results give the same actions, and folding the stored results into a fresh state replays to the same state', () => {
    const a = run(script);
    const b = run(script);
    expect(b.actions).toEqual(a.actions);

    // A replay: the stored results folded in again, as the engine does when steps are already committed.
    let state = startDebate(setup());
    for (const [i, result] of a.results.entries()) {
      expect(next(state, S)).toEqual(a.actions[i]);
      state = apply(state, result, S);
    }
    expect(state).toEqual(a.final);
    expect(next(state, S)).toEqual(a.actions.at(-1));
  });

  it('the state is plain data: through JSON and back it asks for the same next thing', () => {
    let state = startDebate(setup());
    const fresh = (() => {
      let d = 0;
      return () => oneHot(d++);
    })();
    for (let i = 0; i < 40 && state.stage !== 'done'; i++) {
      const copy: DebateState = JSON.parse(JSON.stringify(state));
      expect(next(copy, S)).toEqual(next(state, S));
      state = apply(state, respond(state, next(state, S), script, fresh, S), S);
    }
  });

  it('apply leaves the given state untouched and refuses a result the stage does not wait for', () => {
    const state = startDebate(setup());
    const before = JSON.stringify(state);
    const started = apply(state, { kind: 'started', startedAt: new Date(T0).toISOString() }, S);
    expect(JSON.stringify(state)).toBe(before);
    expect(started.stage).toBe('round');
    expect(() => apply(started, { kind: 'turns', turns: [] }, S)).toThrow(/got turns at stage round/);
  });
});

describe('the board record', () => {
  const fact = (id: string, subProblemId: string, text: string): LedgerFact => ({ id, subProblemId, round: 1, text, kind: 'figure', source: 'cfo' });
  const records = (r: Run) => turnsOf(r).map((a) => a.turns[0]!.input.record);

  it("grows by sealed chapters: every round reads the last round's record as its prefix, and the facilitator the same one", () => {
    const r = run({}, { maxRounds: 4 });
    const seen = records(r);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    // A sealed round adds two blocks, its turns and the facilitator's reading, after everything an earlier round read.
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.length).toBe(seen[i - 1]!.length + 2);
      expect(seen[i]!.slice(0, -2)).toEqual(seen[i - 1]);
    }
    // Every expert of a round reads the same record; the facilitator reads it too, then the round's turns as one more
    // block, the very block the sealed chapter opens with (so the next facilitator reads it from the cache).
    for (const a of turnsOf(r)) expect(new Set(a.turns.map((t) => JSON.stringify(t.input.record))).size).toBe(1);
    const facilitated = ofKind(r.actions, 'facilitate');
    facilitated.forEach((a, i) => {
      expect(a.input.record.slice(0, -1)).toEqual(seen[i]);
      expect(a.input.record.at(-1)).toMatch(new RegExp(`^### Round ${i + 1} `));
      if (seen[i + 1]) expect(seen[i + 1]!.slice(0, -1)).toEqual(a.input.record);
    });
    // The vote reads every chapter, the last round's turns and reading included.
    expect(r.outcome.record).toHaveLength(2 * r.outcome.rounds + 1);
    expect(r.outcome.record.at(-2)).toContain(`### Round ${r.outcome.rounds}`);
    expect(r.outcome.record.at(-1)).toContain("Facilitator's summary:");
  });

  it("shows facts other sub-problems established from the next round, once, and never this sub-problem's own", () => {
    const ledger = (round: number) =>
      round === 1 ? [fact('sp2.r1.f1', 'sp2', 'Contractor cost is $95 an hour')] : [fact('sp2.r1.f1', 'sp2', 'Contractor cost is $95 an hour'), fact('sp2.r2.f1', 'sp2', 'Warranty period is 90 days unpaid'), fact('sp1.r1.f1', 'sp1', 'own fact')];
    const r = run({ ledger }, { maxRounds: 3 });
    const [first, second] = records(r);
    expect(first![0]).toContain('[sp2.r1.f1, sp2, figure, cfo] Contractor cost is $95 an hour');
    expect(second!.join('\n').match(/Contractor cost/g)).toHaveLength(1);
    expect(second!.at(-1)).toContain("New in the session's fact ledger from other sub-problems:\n- [sp2.r2.f1, sp2, figure, cfo] Warranty period is 90 days unpaid");
    expect(second!.join('\n')).not.toContain('own fact');
  });

  it("records the facilitator's facts under ids the ledger shares", () => {
    const r = run({ facilitator: (round) => ({ facts: round === 1 ? [{ text: 'Utilisation is 62% over the last two quarters', kind: 'figure', source: 'person' }] : [] }) }, { maxRounds: 3 });
    expect(records(r)[1]!.at(-1)).toContain('Facts recorded:\n- [sp1.r1.f1, figure, person] Utilisation is 62% over the last two quarters');
  });

  it("compacts old rounds to their summaries in long debates, keeping the person's words and the facts whole", () => {
    const s = { ...S, summariseAfterRounds: 2, fullRoundsKept: 1 };
    const steer = (round: number): Resolution => (round === 1 ? { action: 'intervene', message: 'Our utilisation is 62%, not 75%.', by: 'client' } : CONTINUE);
    const r = run({ steer, facilitator: (round) => ({ facts: round === 1 ? [{ text: 'Utilisation is 62%', kind: 'figure', source: 'person' }] : [] }) }, { maxRounds: 6 }, s);
    const last = records(r).at(-1)!;
    const round1 = last[1]!;
    expect(round1).toMatch(/^### Round 1 \(summary; /);
    expect(round1).not.toContain('says something in round 1');
    expect(round1).toContain('Utilisation is 62%');
    expect(round1).toContain('The person intervened after this round: "Our utilisation is 62%, not 75%."');
    expect(last.at(-2)).toContain('says something in round');
    // The facilitator, reading the round under way, compacts exactly what that round's experts did.
    ofKind(r.actions, 'facilitate').forEach((a, i) => expect(a.input.record.slice(0, -1)).toEqual(records(r)[i]));
  });
});

describe('the straw vote after the opening round', () => {
  const unanimous = (reversibility: 'one_way' | 'two_way') => (round: number): Partial<FacilitatorRound> =>
    round === 1 ? { straw: { options: [{ id: 'A', title: 'Raise prices 10%' }], votes: PANEL.map((persona) => ({ persona, optionId: 'A' })), reversibility } } : {};
  const sure = () => ({ confidence: 0.9 });

  it('sends a unanimous, sure two-way door straight to the vote, and says so in a vote.straw event', () => {
    const r = run({ facilitator: unanimous('two_way'), turn: sure }, { maxRounds: 5 });
    expect(r.outcome.rounds).toBe(1);
    expect(r.outcome.stopReason).toBe('straw_consensus');
    expect(r.outcome.straw).toMatchObject({ winner: 'A', unanimous: true, skipsDebate: true });
    const evaluated = ofKind(r.actions, 'evaluate');
    expect(evaluated).toHaveLength(1);
  });

  it('debates a one-way door however unanimous, and every door when the setting says always', () => {
    expect(run({ facilitator: unanimous('one_way'), turn: sure }, { maxRounds: 4 }).outcome.rounds).toBeGreaterThan(1);
    expect(run({ facilitator: unanimous('two_way'), turn: sure }, { maxRounds: 4 }, { ...S, debate: 'always' }).outcome.rounds).toBeGreaterThan(1);
  });
});

describe('a seat the person asked for in words', () => {
  it("tells that expert, and only that one, what the person asked for, and when the board had only the nearest", async () => {
    const { renderCall } = await import('../../src/calls/render');
    const { loadPrompts } = await import('../../src/llm/prompts');
    const want = 'someone who has launched a paid app in the Shopify App Store';
    let state = startDebate(setup({ requested: { [PANEL[1]!]: { want, close: false } } }));
    state = apply(state, { kind: 'started', startedAt: new Date(T0).toISOString() }, S);
    expect(next(state, S).kind).toBe('open_round');
    state = apply(state, { kind: 'round_opened', facts: [] }, S);
    const action = next(state, S);
    if (action.kind !== 'expert_turns') throw new Error(`expected the opening turns, got ${action.kind}`);
    const byCode = new Map(action.turns.map((t) => [t.input.persona.code, t.input] as const));
    expect(byCode.get(PANEL[1]!)!.requested).toEqual({ want, close: false });
    for (const code of PANEL.filter((c) => c !== PANEL[1])) expect(byCode.get(code)?.requested ?? null).toBeNull();
    const render = (input: ExpertTurnInput) => renderCall(openingStatementCall, input, loadPrompts(), { problem: 'p', context: 'c', caseMemory: '', board: '' }).user;
    expect(render(byCode.get(PANEL[1]!)!)).toContain(`The person asked for "${want}"; no one on the board has that experience, and you were added as the nearest.`);
    expect(render(byCode.get(PANEL[0]!)!)).not.toContain('The person asked for');
  });
});
