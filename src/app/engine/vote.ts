import { debateEffect } from '../../domain/straw';
import { calibrationCall, optionsCall, voteCall } from '../../calls/voting';
import { aggregate } from '../../domain/aggregation';
import { event } from '../../domain/events';
import type { OptionsOutput, SubProblem, Tally, Vote } from '../../domain/model';
import { brief, nameOf, persona, subProblemFacts, type Engine } from './context';
import type { DebateOutcome } from './debate';
import { leadFirst } from './lead-first';

export interface VoteOutcome {
  options: OptionsOutput;
  votes: Vote[];
  tally: Tally;
}

/**
 * Options distilled after the debate (never before, to avoid anchoring),
 * votes in parallel, a calibration round where everyone sees all votes, and
 * an aggregation mechanism chosen by reversibility and confidence spread.
 *
 * Calibration runs only on a split vote. Its question is whether the others
 * saw something you did not; on a unanimous vote they chose what you chose,
 * no confidence can change the winner, and the trials' calibrations there
 * moved confidences by a few hundredths (README, "Which calls earn their
 * cost"). Skipping it saves one call per voter.
 */
export async function vote(e: Engine, sp: SubProblem, panel: string[], d: DebateOutcome): Promise<VoteOutcome> {
  const spBrief = brief(sp);
  const key = (k: string) => `${sp.id}/${k}`;
  // Nothing is recorded between the options and the votes: both read the ledger as the debate left it.
  const facts = subProblemFacts(e, sp.id);
  const options = await e.run.step(key('options'), async (s) => {
    const out = await s.call(optionsCall, {
      subProblem: spBrief,
      discussion: d.transcript,
      facts,
      research: d.research,
      positions: Object.entries(d.positions).map(([persona, position]) => ({ persona, position })),
      straw: d.straw?.options ?? [],
    });
    // Ids in order, whatever the model numbered them: the vote schema is built from them.
    const options = { ...out, options: out.options.map((o, i) => ({ ...o, id: 'ABCD'[i]! })) };
    return {
      result: options,
      events: [event('options.proposed', { subProblemId: sp.id, ...options })],
      patch: { subProblemProgress: { id: sp.id, value: { stage: 'voting', round: d.rounds, maxRounds: d.maxRounds, fraction: 0.85 } } },
    };
  });
  const ids = options.options.map((o) => o.id) as [string, ...string[]];
  // Disagreements among the panel only: a model may name an expert who is not on it, or itself.
  const disagreements = panel.map((code) => {
    const withWhom = (d.disagreements[code] ?? []).filter((c) => c !== code && panel.includes(c));
    const round = d.lastTurnRound[code];
    if (round === undefined || round >= d.rounds) return { persona: code, with: withWhom };
    return { persona: code, with: withWhom, round, answeredSince: withWhom.filter((c) => (d.lastTurnRound[c] ?? 0) > round) };
  });

  // Every voter reads the same debate, ledger and options before their own seat (prompts/vote.md): the first voter's
  // answer begins before the others are asked, so they read that prefix from the cache (lead-first.ts).
  const votes: Vote[] = await leadFirst(panel, (code, begun) =>
    e.run.step(key(`vote/${code}`), async (s) => {
      const p = persona(code);
      const out = await s.call(
        voteCall,
        {
          persona: p,
          subProblem: spBrief,
          keyArguments: d.keyArguments,
          disagreements,
          lastSummary: d.lastSummary,
          position: d.positions[code] ?? null,
          options: options.options,
          facts,
        },
        begun,
      );
      const v: Vote = { persona: code, ...out };
      return { result: v, events: [event('vote.cast', { subProblemId: sp.id, ...v, name: p.name })] };
    }),
  );

  const board = votes.map((v) => ({
    persona: v.persona,
    name: nameOf(v.persona),
    optionId: v.optionId,
    confidence: v.confidence,
    rationale: v.rationale,
    strongObjection: v.strongObjection,
  }));
  const titles = options.options.map((o) => ({ id: o.id, title: o.title }));
  const unanimous = votes.every((v) => v.optionId === votes[0]?.optionId);
  const calibrate = (v: Vote) =>
    e.run.step(key(`calibrate/${v.persona}`), async (s) => {
      const p = persona(v.persona);
      const out = await s.call(calibrationCall, {
        persona: p,
        subProblem: spBrief,
        options: titles,
        own: { optionId: v.optionId, confidence: v.confidence, rationale: v.rationale },
        votes: board,
      });
      return { result: { ...v, initialConfidence: v.confidence, confidence: out.confidence, calibrationReason: out.reason } };
    });
  const calibrated: Vote[] = unanimous ? votes : await Promise.all(votes.map((v) => calibrate(v)));

  const tally = await e.run.step(key('tally'), () => {
    const t = aggregate(calibrated, ids, options.decisionReversibility, e.settings, options.options.filter((o) => o.reversibility === 'one_way').map((o) => o.id));
    return {
      result: t,
      events: [
        event('votes.calibrated', {
          subProblemId: sp.id,
          ...(unanimous && { skipped: 'unanimous' as const }),
          changes: (unanimous ? [] : calibrated).map((v) => ({ persona: v.persona, before: v.initialConfidence ?? v.confidence, after: v.confidence })),
        }),
        event('vote.completed', { subProblemId: sp.id, tally: t, reversibility: options.decisionReversibility, debateEffect: debateEffect(d.straw, options.options, calibrated, t.winner) }),
      ],
    };
  });
  return { options, votes: calibrated, tally };
}
