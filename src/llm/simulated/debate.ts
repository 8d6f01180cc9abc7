import {
  contributionCall,
  facilitatorRoundCall,
  moderatorCall,
  openingStatementCall,
  researchCall,
  type ExpertTurnInput,
  type FacilitatorInput,
  type ModeratorInput,
  type ResearchInput,
  type SubProblemBrief,
} from '../../calls';
import type { Contribution, FacilitatorRound, Persona } from '../../domain/model';
import { answer } from './answer';
import * as B from './bank';
import { hash, rng } from './random';
import { alternatives, clamp, clip, clipWords, compose, fill, firstSentence, focusOf, goalClause, joinAnd, lcFirst, nameOf, namesOf, noStop, round2, sentence, ucFirst, wordCount, type Ctx } from './text';

/** How a sub-problem's debate runs: most converge, some polarise into deadlock, some agree too early (groupthink). */
export type DebateMode = 'polarised' | 'groupthink' | 'normal';

export function debateMode(seed: string, subProblemId: string): DebateMode {
  const h = hash(`${seed}|${subProblemId}|mode`) % 100;
  return h < 18 ? 'polarised' : h < 30 ? 'groupthink' : 'normal';
}

/** Rounds (never the opening) in which the discussion wanders off the goal: about one in ten. */
export const driftRound = (seed: string, subProblemId: string, round: number) => round >= 2 && hash(`${seed}|${subProblemId}|r${round}|drift`) % 100 < 10;

const varsOf = (p: Persona, focus: string): Record<string, string> => {
  const v = B.VOICES[p.code] ?? B.VOICES.default!;
  const [concern, concern2] = [...p.typicalConcerns, ...B.DEFAULT_CONCERNS];
  return { ...v, focus, concern: concern!, concern2: concern2! };
};
/** The line debates converge on: the same for every persona on a sub-problem. */
const commonStance = (sp: SubProblemBrief, focus: string) => clip(ucFirst(fill(B.STANCES.common[hash(`${sp.id}|${sp.title}`) % B.STANCES.common.length]!, { focus })), 200);
/** A stance's kind: the shared line, or the first word of the own and camp stances (commit, do [not commit], pilot, stage). */
const kindOf = (position: string, common: string) => (position === common ? 'common' : (/^\w+/.exec(position.toLowerCase())?.[0] ?? 'other'));
const soft = (k: string) => k === 'pilot' || k === 'stage';
/** How two stances relate: the shared pilot line sits near the pilot and the staged view, unless one side holds out. */
function fit(a: string, b: string, firm: boolean): 'same' | 'near' | 'opposed' {
  if (a === b && a in B.STANCE_NAMES) return 'same';
  return (soft(a) && soft(b)) || (!firm && ((a === 'common' && soft(b)) || (b === 'common' && soft(a)))) ? 'near' : 'opposed';
}

/** In a polarised debate the bold commit and the cautious hold; the balanced split by seed. */
function campOf(p: Persona, seed: string, spId: string): 'commit' | 'hold' {
  if (p.riskTolerance === 'high' || (p.riskTolerance === 'medium' && p.optimism === 'optimistic')) return 'commit';
  if (p.riskTolerance === 'low' || p.optimism === 'skeptical') return 'hold';
  return hash(`${seed}|${spId}|${p.code}|camp`) % 2 ? 'commit' : 'hold';
}

/**
 * Where one expert stands this turn and whom they side with. The mode decides
 * the dynamics: normal debates start contested and converge on the shared line;
 * a polarised one splits into two camps that challenge everyone until the
 * facilitator's deadlock proposal; a groupthink one agrees at once until a
 * contrarian shakes it up.
 */
function stand(i: ExpertTurnInput, { r, key, seed }: Ctx, opening: boolean) {
  const p = i.persona;
  const focus = focusOf(i.subProblem);
  const vars = varsOf(p, focus);
  // The same key with the round and attempt removed: stable for one persona across a debate.
  const thread = key.replace(/#\d+$/, '').replace(/\/r\d+(?=\/|$)/, '');
  const round = opening ? 1 : Math.max(2, i.round);
  const maxRounds = Math.max(round, i.maxRounds);
  const mode = debateMode(seed, i.subProblem.id);
  const mod = i.moderator?.kind;
  const common = commonStance(i.subProblem, focus);
  const camp = campOf(p, seed, i.subProblem.id);
  const holdout = rng(`${thread}|holdout`).chance(0.25);
  const others = new Map(i.others.filter((o) => o.persona !== p.code).map((o) => [o.persona, o.position]));
  const peers = (i.panel.length ? i.panel : [...others.keys()]).filter((c) => c !== p.code);

  let stance: 'entrenched' | 'adopted' | 'open' | 'own' | 'broke';
  if (mode === 'polarised') {
    // The deadlock breaks only through the facilitator's proposal, then spreads to those who see others accept it.
    const accepts = !opening && (i.previous === common || (!holdout && (mod === 'deadlock' || [...others.values()].includes(common))));
    stance = accepts ? 'adopted' : 'entrenched';
  } else if (opening) stance = 'own';
  else if (mode === 'groupthink' && mod === 'contrarian' && (p.riskTolerance === 'low' || p.optimism === 'skeptical' || rng(`${thread}|break`).chance(0.5))) stance = 'broke';
  else if (mode === 'groupthink' && (round === 2 || i.previous === common)) stance = 'adopted';
  else {
    const drift = (round - 1) / Math.max(2, maxRounds * 0.6);
    const pull = mod === 'deadlock' || mod === 'optimist' ? 0.25 : 0;
    stance = i.previous === common || (!holdout && r.next() < drift + pull) ? 'adopted' : !holdout && drift >= 0.35 ? 'open' : 'own';
  }
  const own = clip(ucFirst(fill(B.STANCES.own[p.riskTolerance], vars)), 200);
  const position = {
    entrenched: clip(ucFirst(fill(B.STANCES.camp[camp], vars)), 200),
    adopted: common,
    open: clip(`${own}, though open to: ${lcFirst(common)}`, 200),
    own,
    broke: own,
  }[stance];

  // Divergence early, convergence late: the chance to challenge a peer falls as the debate nears its cap.
  const agreesWith: string[] = [];
  const disagreesWith: string[] = [];
  const base = opening ? 0.5 : i.phase === 'late' ? 0.15 : clamp(0.8 - 0.7 * (round / maxRounds), 0.1, 0.7);
  const pDis = clamp(base + (holdout || stance === 'broke' ? 0.25 : 0) - (stance === 'adopted' ? 0.15 : 0), 0.05, 0.95);
  const firm = holdout || stance === 'broke';
  for (const peer of opening && !others.size ? [] : peers) {
    const roll = r.next();
    const theirs = others.get(peer);
    const f = theirs === undefined ? undefined : fit(kindOf(position, common), kindOf(theirs, common), firm);
    if (stance === 'entrenched') disagreesWith.push(peer);
    else if (mode === 'groupthink' && stance === 'adopted' && !mod) agreesWith.push(peer);
    else if (f === 'same') (roll < 0.85 ? agreesWith : []).push(peer);
    else if (f === 'near') (roll < pDis * 0.8 ? disagreesWith : roll > 0.5 ? agreesWith : []).push(peer);
    else if (f === 'opposed') (roll < Math.max(0.3, pDis) ? disagreesWith : []).push(peer);
    else (roll < pDis ? disagreesWith : roll < pDis + (1 - pDis) * 0.6 ? agreesWith : []).push(peer);
  }

  const lean = (p.riskTolerance === 'high' ? 0.06 : p.riskTolerance === 'low' ? -0.03 : 0) + (p.optimism === 'optimistic' ? 0.04 : p.optimism === 'skeptical' ? -0.04 : 0);
  const moved = stance === 'adopted' ? 0.05 + (i.phase === 'late' ? 0.08 : 0) : stance === 'broke' ? -0.05 : 0;
  const confidence = round2(clamp(stance === 'entrenched' ? 0.78 + r.next() * 0.12 : 0.62 + lean + moved + (mod === 'optimist' ? 0.03 : 0) + (r.next() - 0.5) * 0.12, 0.5, 0.9));

  // Claims: cited research first; some boards lean on assumptions (the sceptic's trigger), none under the sceptic's eye or late.
  const assumptionRate = hash(`${seed}|${i.subProblem.id}|claims`) % 100 < 35 || mod === 'skeptic' || i.phase === 'late' ? 0 : 0.35;
  const cited = i.research[0];
  const claims: Contribution['claims'] = cited ? [{ claim: clip(sentence(`Research indicates ${lcFirst(noStop(firstSentence(stripPrefix(cited.findings))))}`), 300), basis: 'evidence' }] : [];
  const count = opening ? r.int(1, 2) : r.int(cited ? 1 : 0, 3);
  for (let n = 0; claims.length < count && n < 6; n++) {
    const roll = r.next();
    const basis = roll < assumptionRate ? 'assumption' : roll < 0.7 ? 'experience' : 'evidence';
    const claim = ucFirst(fill(r.pick(B.CLAIMS[basis]), vars));
    if (!claims.some((x) => x.claim === claim)) claims.push({ claim, basis });
  }
  const topic = `${i.subProblem.title} ${i.subProblem.goal}`;
  const question = fill(B.RESEARCH_QUESTIONS.find(([re]) => re.test(topic))![1], { focus });
  // Drawn first, so a sub-problem with no research left changes no other draw of the turn.
  const researchRequest = !opening && round <= 6 && r.chance(cited ? 0.1 : 0.2) && i.researchLeft > 0 ? clip(question, 300) : null;
  return { vars, thread, round, stance, camp, holdout, common, others, position, agreesWith, disagreesWith, confidence, claims, researchRequest };
}

const stripPrefix = (t: string) => t.replace(/^based on general knowledge \(not a live source\):\s*/i, '');

function openingStatement(i: ExpertTurnInput, c: Ctx): Contribution {
  const t = stand(i, c, true);
  const { r } = c;
  const alts = alternatives(/:\s*([^:]+)$/.exec(firstSentence(i.subProblem.goal))?.[1] ?? '');
  const risk = t.stance === 'entrenched' ? (t.camp === 'commit' ? 'high' : 'low') : i.persona.riskTolerance;
  const text = compose(
    [
      { text: fill(r.pick(B.OPENING.intros), t.vars), required: true },
      { text: B.OPENING.stances[risk], required: true },
      ...(alts.length ? [{ text: fill(B.OPENING.lean, { alt: clipWords(r.pick(alts), 12) }) }] : []),
      { text: fill(B.OPENING.concerns[0]!, t.vars) },
      { text: sentence(`Put simply, we need to ${goalClause(i.subProblem)}`) },
      { text: t.vars.habit! },
      { text: fill(B.OPENING.concerns[1]!, t.vars) },
      { text: B.OPENING.outlooks[i.persona.optimism] },
      { text: `The question I want answered first is ${t.vars.question}.` },
    ],
    r.shuffle(B.OPENING.padding),
    { min: 100, max: 150, target: r.int(112, 140) },
  );
  return { text, position: t.position, agreesWith: t.agreesWith, disagreesWith: t.disagreesWith, confidence: t.confidence, claims: t.claims, researchRequest: null };
}

/** Another expert's stance in a few words: its kind, or a short quote. */
const stanceName = (position: string, common: string) => B.STANCE_NAMES[kindOf(position, common)] ?? `"${clipWords(noStop(position), 10)}"`;

function contribution(i: ExpertTurnInput, c: Ctx): Contribution {
  const t = stand(i, c, false);
  const { r } = c;
  const { vars, stance, round } = t;
  // What this turn must answer, by priority: when it would overflow, the least important goes first.
  const must: { text: string; priority: number }[] = [];
  const add = (text: string, priority: number) => must.push({ text, priority });
  if (i.intervention) add(`Responding to your point, "${clipWords(noStop(i.intervention), 16)}": ${B.LINES.intervention[i.persona.riskTolerance]}`, 11);
  if (i.redirect) add(fill(B.LINES.redirect, { goal: goalClause(i.subProblem) }), 9);
  const mod = i.moderator?.kind;
  if (mod && mod in B.MODERATOR_REPLIES) add(fill(B.MODERATOR_REPLIES[mod === 'deadlock' && stance === 'entrenched' ? 'refuse' : mod]!, { ...vars, common: lcFirst(t.common) }), 8);
  if (i.notice) add('On my earlier position: I have changed it here because this decision differs, and I would rather say so than hide it.', 7);
  if (i.question && (i.question.includes(i.persona.name) || r.chance(0.5))) add(fill(B.LINES.question, vars), 3);
  const against = t.disagreesWith.find((p) => t.others.has(p));
  const withThem = t.agreesWith.find((p) => t.others.has(p));
  if (stance === 'entrenched' && t.disagreesWith.length) add(fill(B.LINES.camp[t.camp], { names: namesOf(t.disagreesWith.slice(0, 2)) }), 6);
  else if (against ?? withThem) {
    const name = (against ?? withThem)!;
    add(fill(r.pick(against ? B.LINES.disagree : B.LINES.agree), { ...vars, name: nameOf(name), stance: stanceName(t.others.get(name)!, t.common) }), 5);
  }
  const cited = i.research[0];
  if (cited) add(fill(B.LINES.research, { query: clipWords(noStop(cited.query), 14), finding: clipWords(noStop(firstSentence(stripPrefix(cited.findings))), 22) }), 7);
  if (driftRound(c.seed, i.subProblem.id, round) && !i.redirect) add(B.LINES.drift, 4);
  if (t.researchRequest) add(fill(B.LINES.researchRequest, { question: t.researchRequest }), 10);
  while (must.reduce((n, x) => n + wordCount(x.text), 0) > 80 && must.length > 1) must.splice(must.indexOf(must.reduce((lo, x) => (x.priority < lo.priority ? x : lo))), 1);
  const required = must.map((x) => x.text);

  // The usual opener only when nothing more pressing leads the turn.
  const lead = required.length ? '' : round >= 4 ? B.LINES.lateLead : i.previous ? fill(B.LINES.responseLead, { previous: lcFirst(noStop(clipWords(i.previous, 22))) }) : '';
  const close = stance === 'adopted' ? fill(r.pick(B.LINES.converge), vars) : stance === 'broke' ? fill(B.LINES.broke, vars) : t.holdout && round >= 3 && stance !== 'entrenched' ? B.LINES.holdout : '';
  const fixed = wordCount(lead) + wordCount(close) + required.reduce((n, s) => n + wordCount(s), 0);
  const target = r.int(75, 105);

  // Novelty decays: from round 4 a growing share comes from a small fixed set per persona (entrenched experts keep finding new ways to say no).
  const share = round <= 3 || stance === 'entrenched' ? 0 : Math.min(1, (round - 3) * 0.3);
  const core: string[] = [];
  for (const s of rng(`${t.thread}|core`).shuffle(B.CORE).map((x) => sentence(ucFirst(fill(x, vars))))) {
    const used = core.reduce((n, x) => n + wordCount(x), 0);
    if (share === 0 || fixed + used + wordCount(s) > 118 || (core.length > 0 && used + wordCount(s) > share * Math.max(12, target - fixed) + 4)) break;
    core.push(s);
  }
  // Each round turns to a new angle, the same for every speaker of that round: two lines early, one in the middle, none late.
  const angle = rng(`${c.seed}|${i.subProblem.id}|angles`).shuffle(B.ANGLES)[round - 2] ?? [];
  const angleLines = r.shuffle(angle).slice(0, round <= 3 ? 2 : round <= 5 ? 1 : 0);
  // Late rounds recycle a few fixed fresh lines (the debate is running dry); those holding their ground do not concede in passing.
  const pool = round >= 6 ? rng(`${t.thread}|fresh`).shuffle(B.FRESH).slice(0, 4) : B.FRESH;
  const fresh = r.shuffle(pool).filter((s) => !((stance === 'entrenched' || (t.holdout && stance === 'own')) && B.CONCESSION.test(s)));
  const text = compose(
    [
      ...[lead, ...required, ...core].filter(Boolean).map((x) => ({ text: x, required: true })),
      ...[...angleLines, ...fresh].map((x) => ({ text: fill(x, vars) })),
      ...(close ? [{ text: close, required: true }] : []),
    ],
    [],
    { min: 60, max: 120, target },
  );
  return { text, position: t.position, agreesWith: t.agreesWith, disagreesWith: t.disagreesWith, confidence: t.confidence, claims: t.claims, researchRequest: t.researchRequest };
}

function facilitatorRound(i: FacilitatorInput, { r, seed }: Ctx): FacilitatorRound {
  const focus = focusOf(i.subProblem);
  const turns = i.contributions;
  // Agreement: the share aligned on one position. Speakers who challenged no one and backed someone are aligned;
  // so are the members of the largest camp (same kind of stance, by its first word) who challenged no one.
  const calm = turns.filter((t) => !t.disagreesWith.length);
  const camps = new Map<string, number>();
  for (const t of calm) camps.set(kindOf(t.position, ''), (camps.get(kindOf(t.position, '')) ?? 0) + 1);
  const largest = Math.max(0, ...camps.values());
  const aligned = Math.max(calm.filter((t) => t.agreesWith.length).length, largest >= 2 ? largest : 0);
  const agreement = turns.length ? round2(aligned / turns.length) : 0.5;
  const drifted = driftRound(seed, i.subProblem.id, i.round);
  const relevance = drifted ? round2(3.5 + r.next() * 2) : round2(7 + r.next() * 2.5);
  const sentiment = (agreement < 0.34 && r.chance(0.6)) || (i.phase === 'late' && r.chance(0.3)) ? 'pessimistic' : agreement >= 0.75 ? 'optimistic' : 'balanced';

  const clashes = turns.flatMap((t) => t.disagreesWith.map((d) => [t.persona, d] as const));
  const askers = turns.filter((t) => t.researchRequest).map((t) => nameOf(t.persona));
  const speakers = joinAnd(turns.map((t) => nameOf(t.persona)));
  const summary = [
    turns.length ? `In round ${i.round} on ${focus}, ${speakers} spoke; ${aligned >= 2 ? `${aligned} of ${turns.length} were aligned on one position` : 'no two of them were aligned yet'}.` : `Round ${i.round} on ${focus} produced no contributions to summarise.`,
    clashes.length ? `The main disagreements: ${joinAnd(clashes.slice(0, 3).map(([a, b]) => `${nameOf(a)} challenged ${nameOf(b)}`))}.` : turns.length ? 'Nobody challenged another expert directly this round.' : '',
    i.intervention && turns.length ? `They took up your point ("${clipWords(noStop(i.intervention), 12)}"): ${speakers} answered it first.` : '',
    drifted ? B.FACILITATOR.drift : askers.length ? `${joinAnd(askers)} asked for research before deciding.` : '',
  ];
  const keyArguments = [...new Map(turns.filter((t) => t.position).map((t) => [t.position, t.persona])).entries()].slice(0, 5).map(([position, persona]) => clip(`${nameOf(persona)}: ${position}`, 300));
  // Who has something to add: the challenged, the challengers, research askers, and anyone not heard this round.
  const pool = i.panel.length ? i.panel : turns.map((t) => t.persona);
  const eager = new Set([...clashes.flat(), ...turns.filter((t) => t.researchRequest).map((t) => t.persona), ...pool.filter((p) => !turns.some((t) => t.persona === p))]);
  const wanting = pool.filter((p) => eager.has(p));
  const nextQuestion = drifted
    ? `Coming back to the goal (${noStop(clipWords(goalClause(i.subProblem), 20))}): which option serves it best, and why?`
    : clashes.length
      ? `${nameOf(clashes[0]![0])} and ${nameOf(clashes[0]![1])}, what single piece of evidence would change your view on ${focus}?`
      : fill(i.phase === 'late' ? B.FACILITATOR.late : r.pick(B.FACILITATOR.questions), { focus });
  // The ledger: claims resting on evidence, at most two a round, as the facilitator would record them.
  const facts = turns
    .flatMap((t) => (t.claims ?? []).filter((c) => c.basis === 'evidence').map((c) => ({ text: clip(c.claim, 300), kind: /\d/.test(c.claim) ? ('figure' as const) : ('constraint' as const), source: t.persona })))
    .slice(0, 2);
  return {
    summary: clip(summary.filter(Boolean).join(' '), 800),
    keyArguments,
    facts,
    relevance,
    agreement,
    sentiment,
    wantsToSpeak: (wanting.length ? wanting : r.shuffle(pool).slice(0, 2)).slice(0, 5),
    nextQuestion: clip(nextQuestion, 300),
    straw: i.round === 1 ? straw(i) : null,
  };
}

/** The opening positions grouped by the stance they lead with (at most four), each expert under theirs. */
function straw(i: FacilitatorInput): NonNullable<FacilitatorRound['straw']> {
  const camps = [...new Map(i.contributions.map((t) => [kindOf(t.position, ''), t.position])).entries()].slice(0, 4);
  const idOf = (position: string) => 'ABCD'[Math.max(0, camps.findIndex(([k]) => k === kindOf(position, '')))]!;
  return {
    options: camps.map(([, position], n) => ({ id: 'ABCD'[n]!, title: clip(ucFirst(position), 120).padEnd(3, '.') })),
    votes: i.contributions.map((t) => ({ persona: t.persona, optionId: idOf(t.position) })),
    reversibility: B.IRREVERSIBLE.test(`${i.subProblem.title} ${i.subProblem.goal}`) || i.subProblem.complexity >= 8 ? 'one_way' : 'two_way',
  };
}

function moderator(i: ModeratorInput, { r }: Ctx): { text: string } {
  const m = B.MODERATORS[i.kind]!;
  const named = i.positions.map((x) => x.persona);
  const vars = { focus: focusOf(i.subProblem), names: named.length ? namesOf(named.slice(0, 3)) : 'the experts' };
  const body = i.kind === 'deadlock' ? [...m.body, r.pick(B.DEADLOCK_WAYS)] : r.shuffle(m.body);
  const parts = [{ text: m.open, required: true }, ...body.map((text, n) => ({ text, required: n < 2 })), { text: m.close, required: true }];
  return { text: compose(parts.map((x) => ({ ...x, text: fill(x.text, vars) })), [m.close], { min: 60, max: 120, target: r.int(70, 100) }) };
}

function research(i: ResearchInput, { r }: Ctx): { findings: string; confidence: number } {
  const topic = `${i.subProblem.title} ${i.subProblem.goal}`;
  const found = (B.RESEARCH.findings.find(([re]) => re.test(i.query)) ?? B.RESEARCH.findings.find(([re]) => re.test(topic)))?.[1] ?? B.RESEARCH.general;
  const findings = compose(
    [
      { text: `${B.RESEARCH.prefix} ${found}`, required: true },
      { text: sentence(`For the question "${noStop(clipWords(i.query, 20))}", this suggests treating any single figure as a range rather than a forecast`), required: true },
      { text: B.RESEARCH.caveat, required: true },
    ],
    [ucFirst(B.RESEARCH.general)],
    { min: 60, max: 120, target: 90 },
  );
  return { findings, confidence: round2(0.4 + r.next() * 0.3) };
}

export const DEBATE = [
  answer(openingStatementCall, openingStatement),
  answer(contributionCall, contribution),
  answer(facilitatorRoundCall, facilitatorRound),
  answer(moderatorCall, moderator),
  answer(researchCall, research),
];
