import { expertSummaryCall, finalRecommendationCall, synthesisCall, type ExpertSummaryInput, type FinalInput, type SynthesisInput } from '../../calls';
import type { FinalRecommendation, Synthesis } from '../../domain/model';
import type { ExpertSummary } from '../../memory/summary';
import { answer } from './answer';
import * as B from './bank';
import { clamp, clip, clipWords, compose, fill, firstSentence, focusOf, joinAnd, lcFirst, mean, nameOf, noStop, round2, sentence, ucFirst, type Ctx } from './text';

/** The voter's reason: the first sentence of the rationale that is not "I vote for …". */
const reasonOf = (rationale: string) => clip((rationale.match(/[^.!?]+[.!?]+/g) ?? []).map((x) => x.trim()).find((x) => !/^I vote\b/i.test(x)) ?? 'they saw a better fit in another option.', 200);

function synthesis(i: SynthesisInput, { r }: Ctx): Synthesis {
  const { tally, votes } = i;
  const titleOf = (id: string) => i.options.find((o) => o.id === id)?.title ?? `option ${id}`;
  const leading = tally.winner ?? tally.tie[0] ?? Object.entries(tally.distribution).sort((a, b) => b[1] - a[1])[0]?.[0];
  const backers = leading ? (tally.distribution[leading] ?? 0) : 0;
  const how = B.SYNTHESIS.mechanisms[tally.mechanism] ? ` The votes were tallied by ${B.SYNTHESIS.mechanisms[tally.mechanism]}.` : '';
  const win = i.options.find((o) => o.id === (tally.winner ?? leading));
  let recommendation: string;
  let rationale: string;
  if (tally.deferred) {
    const lead = leading ? ` Option ${leading}, "${titleOf(leading)}", led with ${backers} of ${votes.length} votes, short of the broad agreement a one-way decision needs.` : '';
    recommendation = `We recommend deferring the commitment until ${r.pick(B.SYNTHESIS.deferUntil)}, and doing more analysis before anything irreversible.${lead}`;
    rationale = `This is a hard-to-reverse decision and the board did not reach the supermajority it requires, so committing now would override substantial dissent.${how}`;
  } else if (tally.winner) {
    recommendation = `We recommend option ${tally.winner}, "${titleOf(tally.winner)}", backed by ${backers} of ${votes.length} board members.`;
    const pro = win?.pros[0];
    rationale = [`The board judged option ${tally.winner} the best fit for the goal.`, pro ? sentence(`Its strongest argument is: ${lcFirst(pro)}`) : '', win ? sentence(`It is the right call especially if ${lcFirst(noStop(win.bestIf))}`) : ''].filter(Boolean).join(' ') + how;
  } else if (tally.tie.length > 1) {
    recommendation = `The board is evenly split between ${tally.tie.map((id) => `option ${id}, "${titleOf(id)}"`).join(' and ')}; we recommend treating both as viable and letting a quick, cheap test decide between them.`;
    rationale = `Votes divided equally, so neither option has a clear mandate; the arguments on each side were of similar strength.${how}`;
  } else {
    recommendation = 'We recommend a small, reversible first step and a review once there is evidence.';
    rationale = 'No clear vote was available, so the board defaults to the option that keeps choices open.';
  }
  const inMajority = (id: string) => (tally.deferred ? id === leading : tally.winner ? id === tally.winner : tally.tie.includes(id));
  const dissent = votes
    .filter((v) => !inMajority(v.optionId))
    .slice(0, 5)
    .map((v) => ({ persona: v.persona, concern: clip(`${nameOf(v.persona)} preferred option ${v.optionId} ("${clipWords(titleOf(v.optionId), 12)}"): ${reasonOf(v.rationale)}`, 400) }));
  const con = win?.cons[0];
  const caveats = [
    ...(tally.deferred ? ['Deferring has its own cost: set a date by which the board revisits this, so the delay does not become a decision by default.'] : []),
    ...(con ? [sentence(`Watch for this risk: ${lcFirst(con)}`)] : []),
    ...(!tally.deferred && win?.reversibility === 'one_way' ? ['This is a one-way door: confirm the key assumption before committing money or signatures.'] : []),
    ...(tally.tie.length || (votes.length && dissent.length * 2 >= votes.length) ? ['The split vote means new evidence could easily change this decision.'] : []),
    ...r.shuffle(B.SYNTHESIS.caveats),
  ];
  return {
    recommendation: clip(recommendation, 1200),
    rationale: clip(rationale, 1500),
    dissent,
    confidence: round2(clamp(mean(votes.map((v) => v.confidence), 0.6) * tally.consensus * (tally.deferred ? 0.8 : 1), 0, 1)),
    caveats: caveats.slice(0, tally.deferred ? 3 : r.int(1, 3)),
    // What the chosen option commits to; a deferral or a tie commits to nothing yet (the plan as a whole speaks for the situation).
    beyondGeneralGuidance: tally.winner && win ? guidanceIn(`${i.subProblem.title}\n${win.title}\n${win.description}`) : [],
    // The decision as the rest of the board will use it; the simulated board settles no earlier fact.
    facts: tally.winner && win ? [{ text: clip(`Decided: ${win.title}`, 300), kind: 'decision' as const, source: 'facilitator', replaces: [] }] : [],
  };
}

/**
 * Where acting on the advice needs a professional (see `B.GUIDANCE`): what the
 * decision commits to, and what the situation puts at stake; [] for ordinary
 * business choices.
 */
function guidanceIn(decision: string, situation = ''): NonNullable<Synthesis['beyondGeneralGuidance']> {
  return B.GUIDANCE.filter((g) => g.when.test(decision) || (g.situation && g.when.test(situation)))
    .slice(0, 4)
    .map((g) => ({ kind: g.kind, what: g.what }));
}

/** A synthesis's decision as a short clause: the chosen option's title, the tie to break, or the deferral. */
function decisionOf(recommendation: string): string {
  const titles = [...recommendation.matchAll(/"([^"]+)"/g)].map((m) => lcFirst(m[1]!));
  if (/^we recommend deferring/i.test(recommendation)) return `defer ${titles[0] ? `"${titles[0]}"` : 'the commitment'} until ${/until ([^,.]+)/i.exec(recommendation)?.[1] ?? 'more analysis is done'}`;
  if (/evenly split/i.test(recommendation) && titles.length > 1) return `run a quick test to choose between ${titles.join(' and ')}`;
  return titles[0] ?? noStop(firstSentence(recommendation)).replace(/^we recommend\s+/i, '');
}

/** Where a decision points: a deferral, a commitment, a test, or neither. */
function directionOf(s: FinalInput['syntheses'][number]): 'deferred' | 'commit' | 'test' | 'other' {
  const core = decisionOf(s.recommendation);
  if (s.deferred || /^defer\b/.test(core)) return 'deferred';
  if (/\bpilot\b|\btest\b|experiment|\btrial\b|\bstage\b|gradual|reversible first step/i.test(core)) return 'test';
  return /^commit\b|go all in|\bhire\b|co-?founder|rewrite|migrate|\bpivot\b|\binvest/i.test(core) ? 'commit' : 'other';
}

function finalRecommendation(i: FinalInput, { r }: Ctx): FinalRecommendation {
  const dirs = i.syntheses.map((s) => ({ id: s.subProblemId, dir: directionOf(s) }));
  const deferred = dirs.filter((d) => d.dir === 'deferred');
  const confidence = mean(i.syntheses.map((s) => s.confidence), 0.3);
  const level = confidence >= 0.65 && !deferred.length ? 'high' : confidence >= 0.4 ? 'medium' : 'low';
  // Conflicts: a deferred part holds back what depends on it; a commitment next to a test waits for the test.
  const conflicts = deferred.map((d) => ({ between: [d.id, ...dirs.filter((x) => x.id !== d.id).map((x) => x.id).slice(0, 2)], resolution: fill(B.SYNTHESIS.conflicts.deferred, { id: d.id }) }));
  const commit = dirs.find((x) => x.dir === 'commit');
  const test = dirs.find((x) => x.dir === 'test');
  if (commit && test) conflicts.push({ between: [commit.id, test.id], resolution: fill(B.SYNTHESIS.conflicts.direction, { commit: commit.id, test: test.id }) });

  const cores = i.syntheses.map((s) => decisionOf(s.recommendation)).filter(Boolean).slice(0, 4);
  const open = i.open.length ? ` Left open, because you skipped them: ${joinAnd(i.open.map((o) => `${o.subProblemId} (${o.title})`))}.` : '';
  const summary = cores.length
    ? `Taken together, the board's ${cores.length === 1 ? 'decision points' : `${cores.length} decisions point`} to one plan: ${cores.map((x, n) => (n ? `then ${x}` : x)).join('; ')}. Overall confidence is ${level}, so we recommend treating this as a plan to test and revisit rather than a final verdict.${conflicts.length ? ' Where the parts pull in different directions, the reversible steps come first.' : ''}`
    : 'We recommend a small, reversible first step and a review once there is evidence; the board reached no firm decisions.';
  const steps = cores.map((x) => sentence(clip(ucFirst(x), 300)));
  const count = clamp(steps.length + r.int(1, 2), 3, 6);
  for (const s of B.SYNTHESIS.steps) if (steps.length < count) steps.push(s);
  // The few open questions that matter, repeats merged (the same words from two experts count once).
  const asked = [...new Map(i.openQuestions.map((q) => [q.question.toLowerCase(), q] as const)).values()];
  const questionsForYou = asked.slice(0, 3).map((q) => ({ question: clip(q.question, 300), changes: clip(`The ${q.subProblemId} decision rests on it: a different answer reopens that step of the plan.`, 300) }));
  // Only what the plan as a whole involves that no sub-problem flagged already.
  const flagged = new Set(i.syntheses.flatMap((s) => (s.beyondGeneralGuidance ?? []).map((g) => g.what)));
  const beyondGeneralGuidance = guidanceIn(summary, i.statement).filter((g) => !flagged.has(g.what));
  return { summary: clip(summary + open, 1500), conflicts: conflicts.slice(0, 5), steps: steps.slice(0, 6), tradeoffs: r.shuffle(B.SYNTHESIS.tradeoffs).slice(0, r.int(1, 2)), confidence: level, questionsForYou, beyondGeneralGuidance };
}

/** The clause of the latest turn that holds a figure (money, a share, a duration, a count), without its leading connective. */
function keyNumber(turns: string[]): string | undefined {
  const re = /\$\s?\d|\b\d[\d,.]*\s?(?:%|x\b|k\b|months?\b|weeks?\b|days?\b|hours?\b|years?\b|customers\b|users\b|developers\b|people\b)/;
  for (const turn of [...turns].reverse()) {
    const clause = turn.split(/[.!?;,:]+(?:\s|$)|\s[-–—]\s/).find((x) => re.test(x));
    if (clause) return noStop(clipWords(clause.trim().replace(/^(?:with|at|given|because|since|as|so|and|but)\s+/i, ''), 10));
  }
  return undefined;
}

function expertSummary(i: ExpertSummaryInput, { r }: Ctx): ExpertSummary {
  const focus = focusOf(i.subProblem);
  const risk = i.persona.riskTolerance;
  const last = i.contributions.at(-1);
  const position = clip(i.position.trim().length >= 3 ? i.position.trim() : last ? noStop(firstSentence(last)) : 'Take a reversible first step and review it', 200);
  const confidence = round2(clamp(i.confidence, 0, 1));
  const level = confidence >= 0.75 ? 'high' : confidence >= 0.5 ? 'moderate' : 'low';
  const conditions = r.shuffle(B.SUMMARY.conditions[risk]).slice(0, r.int(1, 2)).map((x) => fill(x, { focus }));
  const figure = keyNumber(i.contributions);
  const summary = compose(
    [
      { text: `On ${focus}, my position: ${lcFirst(noStop(clipWords(position, 16)))}.`, required: true },
      ...(figure ? [{ text: `The key number: ${lcFirst(figure)}.`, required: true }] : []),
      { text: `My confidence is ${level} (${Math.round(confidence * 100)}%).`, required: true },
      { text: `This holds only if ${joinAnd(conditions)}.`, required: true },
      { text: B.SUMMARY.closers[risk] },
    ],
    r.shuffle(B.SUMMARY.padding),
    { min: 42, max: 75, target: 60 },
  );
  return { summary: clip(summary, 700), position, confidence, conditions };
}

export const SYNTHESIS = [answer(synthesisCall, synthesis), answer(finalRecommendationCall, finalRecommendation), answer(expertSummaryCall, expertSummary)];
