import { z } from 'zod';
import { selectBoard } from '../domain/board';
import { convergence, novelty, selectSpeakers, stopDecision, type Turn } from '../domain/debate';
import { event } from '../domain/events';
import {
  contributionSchema,
  decompositionSchema,
  finalRecommendationSchema,
  optionsSchema,
  problemStatementSchema,
  synthesisSchema,
  voteSchema,
  type Contribution,
  type Decomposition,
  type FinalRecommendation,
  type Option,
  type Persona,
  type ProblemStatement,
  type SubProblem,
  type Synthesis,
  type Tally,
  type Vote,
} from '../domain/model';
import { PERSONAS, personaByCode } from '../domain/personas';
import { dependencyOrder, roundCap } from '../domain/schedule';
import { simpleMajority } from '../domain/voting';
import type { SessionRow } from '../db/session-store';
import type { RenderedPrompt, Template } from '../llm/prompts';
import { render } from '../llm/prompts';
import type { SessionRun } from './session-run';

/**
 * The first, simple deliberation: every phase of the spec, in order, each
 * model call a memoized step. All decisions are pure functions of earlier
 * step results, so a re-run job replays to the same place.
 */

export interface DeliberationSettings {
  boardSize: number;
  minRounds: number;
  speakersPerRound: number;
}

export const DEFAULT_SETTINGS: DeliberationSettings = { boardSize: 4, minRounds: 2, speakersPerRound: 3 };

interface SubProblemResult {
  options: Option[];
  votes: Vote[];
  tally: Tally;
  synthesis: Synthesis;
  rounds: number;
  stopReason: string;
}

export interface Results {
  problemStatement?: ProblemStatement;
  subProblems?: SubProblem[];
  order?: string[];
  board?: { code: string; name: string; title: string; rationale: string }[];
  subProblemResults: Record<string, SubProblemResult>;
  recommendation?: FinalRecommendation;
}

const wordCount = (t: string) => t.split(/\s+/).filter(Boolean).length;

export async function deliberate(
  run: SessionRun,
  session: SessionRow,
  prompts: Map<string, Template>,
  settings: DeliberationSettings = DEFAULT_SETTINGS,
): Promise<Results> {
  const base = { problem: session.problem, context: session.context || '(none given)' };
  const prompt = (name: string, vars: Record<string, unknown>): RenderedPrompt => {
    const t = prompts.get(name);
    if (!t) throw new Error(`prompt template ${name} is missing from prompts/`);
    return render(t, { ...base, ...vars });
  };
  const results: Results = { subProblemResults: {} };
  const snapshot = () => ({ ...results }) as Record<string, unknown>;

  // 1. Intake: a problem statement, assumptions in place of questions nobody can answer.
  const statement = await run.step('intake', async (s) => {
    const out = await s.llm({
      tier: 'smart',
      phase: 'intake',
      purpose: 'problem_statement',
      prompt: prompt('problem_statement', {}),
      schema: problemStatementSchema,
      maxTokens: 800,
      hints: base,
    });
    return {
      result: out,
      events: [event('problem.stated', out)],
      patch: { phase: 'intake', progress: { phase: 'intake', percent: 5 } },
    };
  });
  results.problemStatement = statement;

  // 2. Decomposition into 1-5 sub-problems, ordered by dependency.
  const decomposition = await run.step('decompose', async (s) => {
    const out: Decomposition = await s.llm({
      tier: 'smart',
      phase: 'decomposition',
      purpose: 'decompose',
      prompt: prompt('decompose', { statement: statement.statement }),
      schema: decompositionSchema,
      maxTokens: 2000,
      hints: { ...base, statement: statement.statement, domains: statement.domains },
    });
    const { order } = dependencyOrder(out.subProblems);
    return {
      result: { ...out, order },
      events: [event('decomposition.completed', { subProblems: out.subProblems, order, rationale: out.rationale })],
      patch: { phase: 'decomposition', progress: { phase: 'decomposition', percent: 10 } },
    };
  });
  results.subProblems = decomposition.subProblems;
  results.order = decomposition.order;

  // 3. The board: chosen from the pool by domain fit and diversity (pure, no model call).
  const board = await run.step('board', () => {
    const seats = selectBoard(PERSONAS as Persona[], statement.domains, settings.boardSize);
    const members = seats.map((seat) => {
      const p = personaByCode(seat.code)!;
      return { code: p.code, name: p.name, title: p.title, rationale: seat.rationale };
    });
    const panels = Object.fromEntries(decomposition.order.map((id) => [id, members.map((m) => m.code)]));
    return {
      result: members,
      events: [event('board.assembled', { members, panels })],
      patch: { phase: 'board', progress: { phase: 'board', percent: 15 } },
    };
  });
  results.board = board;

  // 4. Each sub-problem in dependency order.
  const total = decomposition.order.length;
  for (const [index, id] of decomposition.order.entries()) {
    const sp = decomposition.subProblems.find((x) => x.id === id)!;
    results.subProblemResults[id] = await debateSubProblem(run, sp, index, total, board.map((b) => b.code), prompt, settings, snapshot);
  }

  // 5. Final recommendation across sub-problems.
  const recommendation = await run.step('recommendation', async (s) => {
    const decisions = decomposition.order.map((id) => {
      const r = results.subProblemResults[id]!;
      return `${id}: ${r.synthesis.recommendation} (confidence ${r.synthesis.confidence.toFixed(2)})`;
    });
    const out = await s.llm({
      tier: 'smart',
      phase: 'recommendation',
      purpose: 'final_recommendation',
      prompt: prompt('final_recommendation', { statement: statement.statement, decisions }),
      schema: finalRecommendationSchema,
      maxTokens: 1500,
      hints: { syntheses: decomposition.order.map((id) => results.subProblemResults[id]!.synthesis) },
    });
    results.recommendation = out;
    return {
      result: out,
      events: [event('recommendation.completed', out)],
      patch: { phase: 'recommendation', progress: { phase: 'recommendation', percent: 98 }, results: snapshot() },
    };
  });
  results.recommendation = recommendation;
  return results;
}

type Prompt = (name: string, vars: Record<string, unknown>) => RenderedPrompt;

async function debateSubProblem(
  run: SessionRun,
  sp: SubProblem,
  index: number,
  total: number,
  panel: string[],
  prompt: Prompt,
  settings: DeliberationSettings,
  snapshot: () => Record<string, unknown>,
): Promise<SubProblemResult> {
  const maxRounds = roundCap(sp.complexity);
  const spBrief = { id: sp.id, title: sp.title, goal: sp.goal, context: sp.context };
  const percent = (fraction: number) => Math.round(15 + ((index + fraction) / total) * 80);
  const progress = (phase: string, round: number, fraction: number) => ({
    phase,
    subProblem: { id: sp.id, index: index + 1, total },
    round,
    maxRounds,
    percent: percent(fraction),
  });

  await run.step(`${sp.id}/start`, () => ({
    result: null,
    events: [
      event('subproblem.started', {
        subProblemId: sp.id,
        index: index + 1,
        total,
        title: sp.title,
        goal: sp.goal,
        maxRounds,
        panel,
      }),
    ],
    patch: { phase: 'debate', progress: progress('debate', 0, 0) },
  }));

  const history: Turn[] = [];
  const positions = new Map<string, string>();
  let round = 0;
  let stopReason = 'max_rounds';
  for (;;) {
    round += 1;
    const speakers = selectSpeakers(round, panel, history, settings.speakersPerRound);
    await run.step(`${sp.id}/r${round}/start`, () => ({
      result: null,
      events: [event('round.started', { subProblemId: sp.id, round, maxRounds, speakers })],
      patch: { progress: progress('debate', round, (round - 1) / maxRounds / 2) },
    }));
    const discussion = history.length
      ? history.map((t) => `[${personaByCode(t.persona)?.name ?? t.persona}, round ${t.round}] ${t.text}`).join('\n\n')
      : '(you are opening the discussion)';
    const turns = await Promise.all(
      speakers.map((code) =>
        run.step(`${sp.id}/r${round}/${code}`, async (s) => {
          const persona = personaByCode(code)!;
          const opening = round === 1;
          const out: Contribution = await s.llm({
            tier: 'smart',
            phase: 'debate',
            purpose: opening ? 'opening_statement' : 'contribution',
            prompt: prompt('expert_turn', {
              persona,
              subProblem: spBrief,
              round,
              maxRounds,
              discussion,
              instruction: opening
                ? 'Give your opening statement: your initial position, key concerns and the question you would want answered.'
                : 'Respond to the others: challenge, add new evidence or concede. Do not repeat what has been said.',
              length: opening ? '100-150 words' : '60-120 words',
            }),
            schema: contributionSchema,
            maxTokens: 600,
            hints: {
              persona: { code, name: persona.name, riskTolerance: persona.riskTolerance, optimism: persona.optimism, concerns: persona.typicalConcerns },
              subProblem: spBrief,
              round,
              maxRounds,
              previous: positions.get(code) ?? null,
            },
          });
          return {
            result: { round, persona: code, ...out },
            events: [
              event('contribution.completed', {
                subProblemId: sp.id,
                round,
                persona: code,
                name: persona.name,
                text: out.text,
                position: out.position,
                words: wordCount(out.text),
              }),
            ],
          };
        }),
      ),
    );
    const earlier = [...history];
    for (const t of turns) {
      history.push({ round, persona: t.persona, text: t.text });
      positions.set(t.persona, t.position);
    }
    const decision = await run.step(`${sp.id}/r${round}/end`, () => {
      const metrics = {
        novelty: round4(novelty(turns.map((t) => ({ round, persona: t.persona, text: t.text })), earlier)),
        convergence: round4(convergence([...positions.values()])),
      };
      const stop = stopDecision({ round, maxRounds, ...metrics, minRounds: settings.minRounds });
      return {
        result: stop,
        events: [event('round.completed', { subProblemId: sp.id, round, metrics, stop })],
      };
    });
    if (decision.stop) {
      stopReason = decision.reason;
      break;
    }
  }

  const discussion = history.map((t) => `[${personaByCode(t.persona)?.name ?? t.persona}] ${t.text}`).join('\n\n');
  const options = await run.step(`${sp.id}/options`, async (s) => {
    const out = await s.llm({
      tier: 'smart',
      phase: 'voting',
      purpose: 'options',
      prompt: prompt('options', { subProblem: spBrief, discussion }),
      schema: optionsSchema,
      maxTokens: 2000,
      hints: { subProblem: spBrief, positions: [...positions.entries()].map(([persona, position]) => ({ persona, position })) },
    });
    return {
      result: out.options,
      events: [event('options.proposed', { subProblemId: sp.id, options: out.options })],
      patch: { phase: 'voting', progress: progress('voting', round, 0.6) },
    };
  });
  const optionList = options.map((o) => `${o.id}. ${o.title}: ${o.description}`);

  const votes: Vote[] = await Promise.all(
    panel.map((code) =>
      run.step(`${sp.id}/vote/${code}`, async (s) => {
        const persona = personaByCode(code)!;
        const out = await s.llm({
          tier: 'fast',
          phase: 'voting',
          purpose: 'vote',
          prompt: prompt('vote', { persona, subProblem: spBrief, position: positions.get(code) ?? '(did not speak)', options: optionList }),
          // The option ids are part of the contract: a vote for an option that does not exist is invalid output.
          schema: voteSchema.extend({ optionId: z.enum(options.map((o) => o.id) as [string, ...string[]]) }),
          maxTokens: 500,
          hints: {
            persona: { code, riskTolerance: persona.riskTolerance, optimism: persona.optimism },
            options: options.map((o) => ({ id: o.id, title: o.title, reversibility: o.reversibility })),
          },
        });
        const vote: Vote = { persona: code, ...out };
        return { result: vote, events: [event('vote.cast', { subProblemId: sp.id, ...vote })] };
      }),
    ),
  );

  const tally = await run.step(`${sp.id}/tally`, () => {
    const t = simpleMajority(votes, options.map((o) => o.id));
    return { result: t, events: [event('vote.completed', { subProblemId: sp.id, tally: t })] };
  });

  const synthesis = await run.step(`${sp.id}/synthesis`, async (s) => {
    const out = await s.llm({
      tier: 'smart',
      phase: 'synthesis',
      purpose: 'synthesis',
      prompt: prompt('synthesis', {
        subProblem: spBrief,
        options: optionList,
        votes: votes.map((v) => `${personaByCode(v.persona)?.name ?? v.persona}: ${v.optionId} (confidence ${v.confidence}) ${v.rationale}`),
        tally: JSON.stringify(tally.distribution) + (tally.tie.length ? ` (tie between ${tally.tie.join(', ')})` : ''),
      }),
      schema: synthesisSchema,
      maxTokens: 1500,
      hints: { options, votes, tally },
    });
    const result: SubProblemResult = { options, votes, tally, synthesis: out, rounds: round, stopReason };
    return {
      result: out,
      events: [
        event('synthesis.completed', { subProblemId: sp.id, synthesis: out }),
        event('subproblem.completed', { subProblemId: sp.id, rounds: round, stopReason }),
      ],
      patch: {
        phase: 'synthesis',
        progress: progress('synthesis', round, 1),
        results: { ...snapshot(), subProblemResults: { ...(snapshot().subProblemResults as object), [sp.id]: result } },
      },
    };
  });
  return { options, votes, tally, synthesis, rounds: round, stopReason };
}

const round4 = (n: number) => Math.round(n * 1e4) / 1e4;
