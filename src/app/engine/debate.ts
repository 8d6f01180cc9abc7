import { roundCostUsd } from '../../domain/budget';
import { debateContext } from '../../domain/context';
import { event, type EventDraft } from '../../domain/events';
import { calibratedSimilarity, roundMetrics, type RoundMetrics } from '../../domain/metrics';
import { contributionCall, facilitatorRoundCall, moderatorCall, openingStatementCall, researchCall } from '../../calls/debate';
import type { FacilitatorRound, SubProblem } from '../../domain/model';
import { moderatorFor, type Moderator } from '../../domain/moderators';
import { roundCap } from '../../domain/schedule';
import { debatePhase, selectSpeakers } from '../../domain/speakers';
import { stopDecision, type StopReason } from '../../domain/stopping';
import { noveltyVerdicts, prioritise } from '../../domain/novelty';
import { brief, nameOf, persona, round4, wordCount, type Engine } from './context';
import type { Prices } from './prices';
import type { RecalledMemory } from '../../ports/memory';
import { checkStances, type ExpertMemory } from './memory';
import { ask } from './checkpoints';

export interface Turn {
  persona: string;
  text: string;
  position: string;
  agreesWith: string[];
  disagreesWith: string[];
  confidence: number;
  claims: { claim: string; basis: 'evidence' | 'experience' | 'assumption' }[];
  researchRequest: string | null;
}

interface RoundEnd {
  metrics: RoundMetrics;
  stop: { stop: boolean; reason: StopReason; action: 'continue' | 'vote' | 'break_deadlock'; detail: string };
  moderator: Moderator | null;
  redirect: boolean;
  research: string[];
  elapsedMs: number;
}

export interface DebateOutcome {
  rounds: number;
  maxRounds: number;
  stopReason: StopReason;
  stopDetail: string;
  elapsedMs: number;
  /** Each panel member's latest stated position. */
  positions: Record<string, string>;
  /** What each expert said, in order: the material of their post-debate summary. */
  turnsByPersona: Record<string, string[]>;
  /** The facilitator's strongest arguments at the last round: the voters' digest of the debate. */
  keyArguments: string[];
  /** Whom each expert challenged in their latest turn: the disagreements still open at the vote. */
  disagreements: Record<string, string[]>;
  transcript: string;
  metrics: RoundMetrics[];
  researchUsed: number;
  interventions: { kind: string; round: number }[];
  redirects: number;
  deadlocksResolved: number;
  /** The person chose to skip the remaining sub-problems at this debate's last checkpoint. */
  skipToFinal: boolean;
}

/** Inputs the next round's experts respond to: moderator, research, the facilitator's question, a redirect. */
interface Carry {
  moderator: { kind: string; text: string } | null;
  research: { query: string; findings: string }[];
  question: string | null;
  redirect: boolean;
  repeated: Set<string>;
  /** Experts told to explain a change from a remembered position, until they next speak. */
  notices: Record<string, string>;
  /** What the person said at the last round's checkpoint: the next round answers it first. */
  intervention: string | null;
}

const emptyCarry = (): Carry => ({ moderator: null, research: [], question: null, redirect: false, repeated: new Set(), notices: {}, intervention: null });

/**
 * The facilitated debate of one sub-problem: an opening round with everyone,
 * then rounds where the facilitator polls who has something material, until
 * an adaptive stopping rule or a hard limit moves the board to a vote.
 */
export interface DebateInputs {
  decidedEarlier: string;
  /** Per expert: what memory contributes to their prompt. */
  memory: Record<string, ExpertMemory>;
  recalled: Record<string, RecalledMemory[]>;
  lessons: string;
}

export async function debate(e: Engine, sp: SubProblem, panel: string[], inputs0: DebateInputs, prices: Prices): Promise<DebateOutcome> {
  const { decidedEarlier } = inputs0;
  const s = e.settings;
  const maxRounds = roundCap(sp.complexity, s.roundCaps);
  const spBrief = brief(sp);
  const key = (k: string) => `${sp.id}/${k}`;
  const similarity = calibratedSimilarity(e.embedder.calibration);

  const { startedAt } = await e.run.step(key('start'), (scope) => ({
    result: { startedAt: scope.now().toISOString() },
    events: [
      event('subproblem.started', {
        subProblemId: sp.id,
        title: sp.title,
        goal: sp.goal,
        maxRounds,
        panel,
        complexity: sp.complexity,
      }),
    ],
    patch: { phase: 'debate', progress: { phase: 'debate' }, subProblemProgress: { id: sp.id, value: { stage: 'debate', round: 0, maxRounds, fraction: 0 } } },
  }));

  const rounds: { round: number; turns: { name: string; text: string }[]; summary: string | null }[] = [];
  const history: { vector: number[]; round: number }[] = [];
  const positionVectors = new Map<string, number[]>();
  const positions: Record<string, string> = {};
  const turnsByPersona: Record<string, string[]> = {};
  const disagreements: Record<string, string[]> = {};
  const spoken: Record<string, number> = Object.fromEntries(panel.map((p) => [p, 0]));
  const metrics: RoundMetrics[] = [];
  const interventions: DebateOutcome['interventions'] = [];
  let keyArguments: string[] = [];
  let wantsToSpeak: string[] = [];
  let lastSpeaker: string | null = null;
  let carry = emptyCarry();
  let researchUsed = 0;
  let redirects = 0;
  let deadlockBreakAttempted = false;
  const used: Moderator[] = [];

  for (let round = 1; ; round++) {
    const phase = debatePhase(round);
    const { speakers, invited } = selectSpeakers({ round, panel, spokenCount: spoken, lastSpeaker, wantsToSpeak, perRound: s.speakersPerRound });
    await e.run.step(key(`r${round}/start`), () => ({
      result: null,
      events: [
        event('round.started', { subProblemId: sp.id, round, maxRounds, phase, speakers, invited }),
        ...(carry.intervention
          ? [event('facilitator.message', { subProblemId: sp.id, round, kind: 'intervention', text: `The person intervened: "${carry.intervention}". Experts, respond to this first.` })]
          : []),
        ...(round > 1 && invited.length
          ? [event('facilitator.message', { subProblemId: sp.id, round, kind: 'invite', text: `${invited.map(nameOf).join(' and ')}, we have not heard from you yet: what do you see that the others missed?` })]
          : []),
      ],
    }));

    const discussion = debateContext(rounds, keyArguments, s);
    const inputs = carry;
    const turns: Turn[] = await Promise.all(
      speakers.map((code) =>
        e.run.step(key(`r${round}/${code}`), async (scope) => {
          const p = persona(code);
          // The fast tier for the parallel bulk of the debate (the spec's cost plan); judgement calls stay smart.
          const out = await scope.call(round === 1 ? openingStatementCall : contributionCall, {
            persona: p,
            subProblem: spBrief,
            decidedEarlier,
            panel,
            round,
            maxRounds,
            phase,
            memory: inputs0.memory[code]?.text ?? '',
            discussion,
            previous: positions[code] ?? null,
            others: Object.entries(positions).filter(([c]) => c !== code).map(([c, position]) => ({ persona: c, position })),
            moderator: inputs.moderator,
            research: inputs.research,
            question: inputs.question,
            redirect: inputs.redirect,
            intervention: inputs.intervention,
            repeated: inputs.repeated.has(code),
            notice: inputs.notices[code] ?? null,
          });
          const turn: Turn = { persona: code, ...out };
          return {
            result: turn,
            events: [
              // Told to explain a change from a remembered position, the expert has now answered: the contradiction is addressed.
              ...(inputs.notices[code] ? [event('memory.contradiction_resolved', { id: `${sp.id}:${code}`, subProblemId: sp.id, persona: code, round })] : []),
              event('contribution.completed', {
                subProblemId: sp.id,
                round,
                persona: code,
                name: p.name,
                text: out.text,
                position: out.position,
                words: wordCount(out.text),
                agreesWith: out.agreesWith,
                disagreesWith: out.disagreesWith,
                confidence: out.confidence,
                researchRequest: out.researchRequest,
              }),
            ],
          };
        }),
      ),
    );

    const facilitator: FacilitatorRound = await e.run.step(key(`r${round}/facilitator`), async (scope) => {
      const out = await scope.call(facilitatorRoundCall, {
        subProblem: spBrief,
        round,
        maxRounds,
        phase,
        panel,
        lessons: inputs0.lessons,
        intervention: inputs.intervention,
        contributions: turns.map((t) => ({ persona: t.persona, text: t.text, position: t.position, agreesWith: t.agreesWith, disagreesWith: t.disagreesWith, researchRequest: t.researchRequest })),
      });
      const wants = out.wantsToSpeak.filter((c) => panel.includes(c));
      const result = { ...out, wantsToSpeak: wants };
      return {
        result,
        events: [event('facilitator.message', { subProblemId: sp.id, round, kind: 'summary', text: `${out.summary} Next: ${out.nextQuestion}` })],
      };
    });

    for (const t of turns) {
      spoken[t.persona] = (spoken[t.persona] ?? 0) + 1;
      positions[t.persona] = t.position;
      (turnsByPersona[t.persona] ??= []).push(t.text);
      disagreements[t.persona] = t.disagreesWith;
    }
    lastSpeaker = turns.at(-1)?.persona ?? lastSpeaker;
    wantsToSpeak = facilitator.wantsToSpeak;
    keyArguments = facilitator.keyArguments;
    rounds.push({ round, turns: turns.map((t) => ({ name: nameOf(t.persona), text: t.text })), summary: facilitator.summary });

    const vectors = await e.embedder.embed(turns.flatMap((t) => [t.text, t.position]));
    const contributions = turns.map((t, i) => ({
      persona: t.persona,
      vector: vectors[2 * i]!,
      positionVector: vectors[2 * i + 1]!,
      agreesWith: t.agreesWith,
      disagreesWith: t.disagreesWith,
    }));
    for (const c of contributions) positionVectors.set(c.persona, c.positionVector);

    const end: RoundEnd = await e.run.step(key(`r${round}/end`), (scope) => {
      const m = roundMetrics(
        {
          round,
          contributions,
          history,
          latestPositions: [...positionVectors.values()],
          relevance: facilitator.relevance,
          agreement: facilitator.agreement,
          panel,
          similarity,
        },
        s,
      );
      const elapsedMs = scope.now().getTime() - Date.parse(startedAt);
      const nextSpeakers = Math.min(panel.length, s.speakersPerRound);
      const stop = stopDecision(
        {
          round,
          maxRounds,
          history: [...metrics, m],
          elapsedMs,
          budgetLeftUsd: e.budgetUsd === null ? null : e.budgetUsd - e.run.spentUsd() - reserveUsd(panel.length, prices),
          nextRoundCostUsd: roundCostUsd(panel.length, nextSpeakers, round + 1, prices),
          allSeatsSpoken: panel.every((c) => (spoken[c] ?? 0) > 0),
          deadlockBreakAttempted,
        },
        s,
      );
      const moderator = stop.stop
        ? null
        : moderatorFor(
            {
              round,
              agreement: facilitator.agreement,
              unverifiedClaims: turns.reduce((n, t) => n + t.claims.filter((c) => c.basis === 'assumption').length, 0),
              deadlocked: stop.action === 'break_deadlock',
              sentiment: facilitator.sentiment,
              used,
            },
            s,
          );
      const redirect = !stop.stop && facilitator.relevance < s.driftRedirectBelow;
      const research = stop.stop
        ? []
        : turns
            .map((t) => t.researchRequest)
            .filter((q): q is string => !!q && q.trim().length > 0)
            .slice(0, Math.max(0, s.researchPerSubProblem - researchUsed));
      const events: EventDraft[] = [event('round.completed', { subProblemId: sp.id, round, metrics: m, stop })];
      if (redirect) {
        events.push(
          event('facilitator.message', {
            subProblemId: sp.id,
            round,
            kind: 'redirect',
            text: `Let us come back to the goal: ${sp.goal} (relevance this round ${facilitator.relevance}/10).`,
          }),
        );
      }
      const memory = e.memory;
      return {
        result: { metrics: m, stop, moderator, redirect, research, elapsedMs },
        events,
        // Novelty memory (seed 003): every contribution and the facilitator's question, embedded, kept for the retention period.
        ...(memory && {
          write: async (tx) => {
            const [question] = await e.embedder.embed([facilitator.nextQuestion]);
            await memory.insertUtterances(
              e.tenantId,
              [
                ...turns.map((t, i) => ({ sessionId: e.run.sessionId, subProblemId: sp.id, round, persona: t.persona, kind: 'contribution' as const, text: t.text, embedding: contributions[i]!.vector, embeddingProvider: e.embedder.name })),
                { sessionId: e.run.sessionId, subProblemId: sp.id, round, persona: null, kind: 'question' as const, text: facilitator.nextQuestion, embedding: question!, embeddingProvider: e.embedder.name },
              ],
              tx,
            );
          },
        }),
        patch: { subProblemProgress: { id: sp.id, value: { stage: 'debate', round, maxRounds, fraction: round4((0.8 * round) / maxRounds) } } },
      };
    });
    metrics.push(end.metrics);
    for (const c of contributions) history.push({ vector: c.vector, round });
    if (end.redirect) redirects += 1;

    const next = emptyCarry();
    next.question = facilitator.nextQuestion;
    for (const [code, text] of Object.entries(carry.notices)) if (!turns.some((t) => t.persona === code)) next.notices[code] = text;
    if (round === 1 && Object.keys(inputs0.recalled).length) Object.assign(next.notices, await checkStances(e, sp, positions, inputs0.recalled));
    next.redirect = end.redirect;
    // Novelty memory: who repeated themselves speaks later and is asked for something new; who brought new material, sooner.
    const verdicts = noveltyVerdicts(end.metrics.noveltyByPersona, s);
    wantsToSpeak = prioritise(wantsToSpeak, verdicts);
    for (const code of verdicts.blocked) next.repeated.add(code);
    for (const [code, n] of Object.entries(end.metrics.noveltyByPersona)) if (n < s.repetitionNoveltyBelow) next.repeated.add(code);

    const moderatorKind = end.stop.action === 'break_deadlock' ? 'deadlock' : end.moderator;
    if (moderatorKind) {
      const text = await e.run.step(key(`r${round}/${moderatorKind}`), async (scope) => {
        const out = await scope.call(moderatorCall, {
          kind: moderatorKind,
          subProblem: spBrief,
          positions: Object.entries(positions).map(([c, position]) => ({ persona: c, position })),
        });
        return {
          result: out.text,
          events: [
            moderatorKind === 'deadlock'
              ? event('facilitator.message', { subProblemId: sp.id, round, kind: 'deadlock', text: out.text })
              : event('moderator.intervened', { subProblemId: sp.id, round, moderator: moderatorKind, text: out.text }),
          ],
        };
      });
      next.moderator = { kind: moderatorKind, text };
      interventions.push({ kind: moderatorKind, round });
      if (moderatorKind === 'deadlock') deadlockBreakAttempted = true;
      else used.push(moderatorKind);
    }

    next.research = await Promise.all(
      end.research.map((query, i) =>
        e.run.step(key(`r${round}/research${i + 1}`), async (scope) => {
          const out = await scope.call(researchCall, { subProblem: spBrief, query });
          return {
            result: { query, findings: out.findings },
            events: [event('research.completed', { subProblemId: sp.id, round, query, findings: out.findings, source: 'model_knowledge', confidence: out.confidence })],
          };
        }),
      ),
    );
    researchUsed += next.research.length;
    carry = next;

    const steer = end.stop.stop
      ? null
      : await ask(e, 'round_end', `${sp.id}.r${round}`, () => ({
          prompt: `Round ${round}/${maxRounds} of "${sp.title}" is done. Continue, move to the vote, intervene with your own point, or skip to the final recommendation.`,
          subProblemId: sp.id,
          round,
          proposal: {
            subProblemId: sp.id,
            round,
            maxRounds,
            summary: facilitator.summary,
            positions: Object.entries(positions).map(([persona, position]) => ({ persona, name: nameOf(persona), position })),
          },
        }));
    if (steer?.action === 'intervene' && steer.message) carry.intervention = steer.message;
    const personStops = steer?.action === 'skip_to_vote' || steer?.action === 'skip_to_final';

    if (end.stop.stop || personStops) {
      // A deadlock counts as resolved when the facilitator's break led to a stop for another reason.
      const deadlocksResolved = deadlockBreakAttempted && end.stop.reason !== 'deadlock' ? 1 : 0;
      return {
        rounds: round,
        maxRounds,
        stopReason: personStops ? 'person' : end.stop.reason,
        stopDetail: personStops ? `The person moved the board to the vote after round ${round}.` : end.stop.detail,
        skipToFinal: steer?.action === 'skip_to_final',
        elapsedMs: end.elapsedMs,
        positions,
        turnsByPersona,
        keyArguments,
        disagreements,
        transcript: debateContext(rounds, keyArguments, s),
        metrics,
        researchUsed,
        interventions,
        redirects,
        deadlocksResolved,
      };
    }
  }
}

/** Money kept back for the vote, calibration and synthesis of a sub-problem when budgeting a further round. */
function reserveUsd(panelSize: number, prices: Prices): number {
  const perMTok = (tier: { input: number; output: number }, input: number, output: number) => (input * tier.input + output * tier.output) / 1e6;
  return perMTok(prices.smart, 3000, 600) * 2 + perMTok(prices.fast, 1500, 200) * panelSize * 2;
}
