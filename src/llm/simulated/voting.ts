import { calibrationCall, optionsCall, voteCall, type CalibrationInput, type OptionsInput, type VoteInput } from '../../calls';
import type { Option, OptionsOutput, VoteOutput } from '../../domain/model';
import { answer } from './answer';
import * as B from './bank';
import { hash } from './random';
import { alternatives, clamp, clip, clipWords, compose, fill, firstSentence, focusOf, round2, sentence, ucFirst, type Ctx } from './text';

type Kind = 'bold' | 'pilot' | 'cautious' | 'neutral';

function options(i: OptionsInput, { r }: Ctx): OptionsOutput {
  const sp = i.subProblem;
  const focus = focusOf(sp);
  // The person's own alternatives, when the sub-problem lists them after a colon.
  const alts = alternatives(/:\s*([^:]+)$/.exec(firstSentence(sp.goal))?.[1] ?? /:\s*([^:]+)$/.exec(sp.title)?.[1] ?? '').slice(0, 4);
  const oneWay = B.IRREVERSIBLE.test(`${sp.title} ${sp.goal}`) || sp.complexity >= 8;
  const ids = ['A', 'B', 'C', 'D'];
  let opts: Option[];
  if (alts.length >= 2) {
    const flagged = alts.map((a) => B.IRREVERSIBLE.test(a));
    // A one-way decision whose alternatives name no commitment: every active path (not the status quo) is the hard one.
    if (oneWay && !flagged.some(Boolean)) alts.forEach((a, n) => (flagged[n] = !B.STATUS_QUO.test(a)));
    if (oneWay && !flagged.some(Boolean)) flagged[0] = true;
    const A = B.OPTIONS.alternative;
    opts = alts.map((alt, n) => ({
      id: ids[n]!,
      title: clip(ucFirst(alt), 120),
      description: clip(`${ucFirst(clip(alt, 200))}, as the way to settle ${focus}. ${A.description}`, 600),
      pros: r.shuffle(A.pros).slice(0, r.int(2, 3)),
      cons: r.shuffle(A.cons).slice(0, r.int(2, 3)),
      bestIf: A.bestIf,
      reversibility: flagged[n] ? 'one_way' : 'two_way',
    }));
  } else {
    let kinds = r.shuffle(['bold', 'pilot', 'cautious'] as const).slice(0, r.chance(0.75) ? 3 : 2);
    if (oneWay && !kinds.includes('bold')) kinds = ['bold', ...kinds.slice(1)];
    opts = kinds.map((kind, n) => {
      const a = B.OPTIONS[kind];
      return { id: ids[n]!, title: clip(fill(a.title, { focus }), 120), description: clip(fill(a.description, { focus }), 600), pros: r.shuffle(a.pros).slice(0, r.int(2, 3)), cons: a.cons, bestIf: a.bestIf, reversibility: kind === 'bold' && oneWay ? 'one_way' : 'two_way' };
    });
  }
  const anyOneWay = opts.some((o) => o.reversibility === 'one_way');
  return {
    // The simulation continues the straw options in order: a stated simplification, not a judgement.
    options: opts.map((o, n) => ({ ...o, strawId: i.straw[n]?.id ?? null })),
    decisionReversibility: anyOneWay ? 'one_way' : 'two_way',
    reversibilityWhy: anyOneWay
      ? 'The leading commitment would be hard to undo once made: it ties up money, people or signatures, so it needs broad agreement before anyone acts.'
      : 'Every option can be tried and reversed within weeks at modest cost, so the board can learn by doing and correct course.',
  };
}

/** An option's kind, from its title; an unnamed one-way door is the bold move. */
function kindOf(o: VoteInput['options'][number]): Kind {
  const kind = /^commit\b|go all in/i.test(o.title) ? 'bold' : /\bpilot\b|\btest\b|experiment|\btrial\b/i.test(o.title) ? 'pilot' : /^stage\b|\bstaged\b|defer|\bkeep\b|\bwait\b|\bstay\b/i.test(o.title) ? 'cautious' : 'neutral';
  return kind === 'neutral' && o.reversibility === 'one_way' ? 'bold' : kind;
}
const PREFERENCE: Record<string, Record<Kind, number>> = {
  low: { bold: -1, pilot: 1, cautious: 2, neutral: 0.5 },
  medium: { bold: 0, pilot: 2, cautious: 1, neutral: 0.5 },
  high: { bold: 2, pilot: 1, cautious: -0.5, neutral: 0.5 },
};

/**
 * How the board's votes fall on one decision, the same for every voter (keyed
 * by the seed and the options): a clear majority behind one option, an even
 * split between two (ties on an even board), or each voting their own taste.
 */
function vote(i: VoteInput, { r, seed }: Ctx): VoteOutput {
  const p = i.persona;
  const decision = `${seed}|${i.options.map((o) => `${o.id}:${o.title}`).join('|')}`;
  const roll = hash(`${decision}|votes`) % 100;
  const mode = roll < 35 ? 'split' : roll < 80 ? 'clear' : 'free';
  const scored = i.options.map((o) => {
    const kind = kindOf(o);
    const fit = PREFERENCE[p.riskTolerance]![kind] + (p.optimism === 'optimistic' && kind === 'bold' ? 0.5 : 0) + (p.optimism === 'skeptical' ? (kind === 'cautious' ? 0.5 : kind === 'bold' ? -0.5 : 0) : 0) - (o.reversibility === 'one_way' && p.riskTolerance === 'low' ? 0.5 : 0);
    return { ...o, kind, fit, appeal: hash(`${decision}|${o.id}|appeal`) % 1000, score: fit + r.next() * 1.8 };
  });
  const byAppeal = [...scored].sort((a, b) => b.appeal - a.appeal);
  const byTaste = [...scored].sort((a, b) => b.score - a.score);
  const chosen = mode === 'split' && byAppeal.length >= 2 ? byAppeal[hash(`${decision}|${p.code}|side`) % 2]! : mode === 'clear' && r.chance(0.9) ? byAppeal[0]! : byTaste[0]!;
  const runnerUp = byTaste.find((o) => o !== chosen);
  // A clear majority votes with conviction, a split board less so; some boards differ widely in certainty.
  const u = r.next();
  const wide = hash(`${decision}|spread`) % 100 < 30;
  const confidence = round2(clamp(wide ? 0.4 + u * 0.55 : { clear: 0.74, split: 0.6, free: 0.64 }[mode] + chosen.fit * 0.03 + (u - 0.5) * 0.14, 0.4, 0.95));
  // A strong objection: a cautious expert facing a one-way door they did not choose, or a bold one facing a stall.
  const objectTo =
    scored.find((o) => o !== chosen && o.reversibility === 'one_way' && p.riskTolerance === 'low' && r.chance(0.45)) ??
    scored.find((o) => o !== chosen && o.kind === 'cautious' && p.riskTolerance === 'high' && r.chance(0.3));
  const objection = objectTo && fill(B.VOTE.objections[objectTo.reversibility === 'one_way' ? 'oneWay' : 'stall'], { id: objectTo.id, title: clipWords(objectTo.title.replace(/\s*\([^)]*\)/g, ''), 12) });
  const voice = B.VOICES[p.code] ?? B.VOICES.default!;
  const rationale = compose(
    [
      { text: `I vote for option ${chosen.id}, "${clipWords(chosen.title, 14)}".`, required: true },
      { text: B.VOTE.reasons[chosen.kind], required: true },
      { text: sentence(`It fits how I judge these decisions, through ${voice.lens}`) },
      { text: sentence(`My main worry remains ${p.typicalConcerns[0] ?? B.DEFAULT_CONCERNS[0]}, and this option handles it best`) },
      ...(runnerUp && !objectTo ? [{ text: `Option ${runnerUp.id} was my second choice, and I would not object strongly to it.` }] : []),
      { text: r.pick(B.VOTE.closers) },
    ],
    B.VOTE.closers,
    { min: 50, max: 100, target: r.int(60, 90) },
  );
  return { optionId: chosen.id, rationale: clip(rationale, 1000), confidence, strongObjection: objection ? clip(objection, 400) : null };
}

/** After seeing every vote: the majority keeps or slightly raises its confidence, an outlier lowers it, a tie holds it. */
function calibration(i: CalibrationInput, { r }: Ctx): { confidence: number; reason: string } {
  const votes = i.votes.some((v) => v.persona === i.persona.code) ? i.votes : [...i.votes, { persona: i.persona.code, optionId: i.own.optionId }];
  const counts = new Map<string, number>();
  for (const v of votes) counts.set(v.optionId, (counts.get(v.optionId) ?? 0) + 1);
  const top = Math.max(...counts.values());
  const mine = counts.get(i.own.optionId) ?? 0;
  const where = votes.length < 2 ? 'tied' : mine < top ? 'outlier' : [...counts.values()].filter((n) => n === top).length > 1 ? 'tied' : 'majority';
  const delta = where === 'majority' ? r.int(0, 5) / 100 : where === 'outlier' ? -r.int(5, 15) / 100 : 0;
  return { confidence: round2(clamp(i.own.confidence + delta, 0, 1)), reason: B.VOTE.calibration[where] };
}

export const VOTING = [answer(optionsCall, options), answer(voteCall, vote), answer(calibrationCall, calibration)];
