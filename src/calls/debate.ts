import { contributionSchema, facilitatorRoundSchema, moderatorSchema, researchSchema, type Contribution, type FacilitatorRound, type Persona } from '../domain/model';
import { personaByCode } from '../domain/personas';
import type { DebatePhase } from '../domain/speakers';
import { defineCall, fixed } from './call';

/** The facts about a sub-problem every prompt about it carries. */
export interface SubProblemBrief {
  id: string;
  title: string;
  goal: string;
  context: string;
  complexity: number;
}

const nameOf = (code: string) => personaByCode(code)?.name ?? code;

export interface ExpertTurnInput {
  persona: Persona;
  subProblem: SubProblemBrief;
  /** Decisions of earlier sub-problems this one depends on, rendered; '' for none. */
  decidedEarlier: string;
  /** Persona codes of the panel. */
  panel: string[];
  round: number;
  maxRounds: number;
  phase: DebatePhase;
  /** What memory gives this expert (earlier sub-problems, earlier sessions), rendered; '' for none. */
  memory: string;
  /** The person asked for this seat in words; `close` false when no expert in the pool has that experience. */
  requested?: { want: string; close: boolean } | null;
  /** The board record so far as prompt blocks: the opening page, then each round's turns and reading (src/domain/debate/record.ts). */
  record: string[];
  /** This expert's latest stated position, if any. */
  previous: string | null;
  /** The others' latest positions. */
  others: { persona: string; position: string }[];
  /** What the expert must respond to this round. */
  moderator: { kind: string; text: string } | null;
  research: { query: string; findings: string }[];
  question: string | null;
  redirect: boolean;
  intervention: string | null;
  /** The expert repeated points already made last time. */
  repeated: boolean;
  /** A notice for this expert alone (e.g. explain a change from a remembered position). */
  notice: string | null;
  /**
   * Research answers this sub-problem still allows after this round (0 in the last round: nothing could use them).
   * Two trials' experts learnt of the cap only when a request was declined.
   */
  researchLeft: number;
  /**
   * The person may answer this round's questions before the next round (an interactive session's round_end checkpoint);
   * false in an automatic session and in the last round. Helpers playing the model were not told, in an automatic
   * session, that nobody would answer before the vote.
   */
  personAnswers: boolean;
  /**
   * Where this expert speaks in the round (1-based, of how many): research answers go to a round's requests in speaking
   * order, and the speakers are asked before they can see each other's requests (a trial's last two both asked, both declined).
   */
  speaking: { at: number; of: number };
}

const INSTRUCTIONS: Record<DebatePhase, string> = {
  opening: 'Give your opening statement: your initial position, key concerns and the question you most want answered. The experts speak at once in this round, so nobody has spoken yet: leave `agreesWith` and `disagreesWith` empty, and anticipate where the others on the panel will push back.',
  early: 'Divergent thinking: challenge assumptions, surface options and risks the others missed, and respond to named experts.',
  // Not "or ask for research": the research line below says whether any is left (a relay helper read both, contradicting).
  middle: 'Analysis and evidence: dig into the contentious points and back your claims with evidence.',
  late: 'Convergent thinking: refine your position, concede what you have been persuaded of, and address the remaining objections.',
};

/**
 * What this turn must answer. The intervention, the moderator and the
 * research findings are already in the record's last chapter: the turn points
 * at them rather than printing them twice (a trial counted ~1k tokens of
 * repetition per expert call).
 */
function respondTo(i: ExpertTurnInput): string {
  const lines: string[] = [];
  if (i.intervention) lines.push('The person you are advising intervened after the last round (their words close the record above): respond to it directly before anything else.');
  if (i.redirect) lines.push('The facilitator notes the debate drifted from the goal: bring it back to the goal above.');
  if (i.question) lines.push(`Facilitator's question: ${i.question}`);
  if (i.moderator) lines.push(`A ${i.moderator.kind} moderator intervened after the last round (in the record above): respond to the challenge.`);
  if (i.research.length) lines.push(`Research answered ${i.research.map((r) => `"${r.query}"`).join(' and ')} (general knowledge, in the record above): use the findings where they bear on your position.`);
  if (i.repeated) lines.push('Your last contribution repeated points already made: add something new, or concede briefly.');
  if (i.notice) lines.push(i.notice);
  return lines.length ? `\n${lines.join('\n')}\n` : '';
}

/** "1st", "2nd", "3rd", "11th": English ordinal suffixes by the platform's plural rules. */
const ORDINAL = new Intl.PluralRules('en-US', { type: 'ordinal' });
const SUFFIX: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
const ordinal = (n: number) => `${n}${SUFFIX[ORDINAL.select(n)] ?? 'th'}`;

/**
 * How much research the sub-problem still allows, and whether this speaker's request would get an answer, so an expert
 * spends it on the question that matters most: answers go to the round's requests in speaking order.
 */
function researchLine(left: number, speaking: { at: number; of: number }): string {
  if (left <= 0) return 'No research answers are left for this sub-problem (or no later round could use them): leave `researchRequest` null.';
  const before = speaking.at - 1;
  const unless =
    left > 1 ? `fewer than ${left} of the ${before} speaking before you ask` : before === 1 ? 'the expert speaking before you does not ask' : `none of the ${before} speaking before you asks`;
  const odds = speaking.at <= left ? 'a request of yours will be answered' : `yours is answered only if ${unless} (you cannot see their turns)`;
  return `Research: this sub-problem allows ${left} more answer${left === 1 ? '' : 's'} from general knowledge, given next round, to this round's requests in speaking order. You speak ${ordinal(speaking.at)} of ${speaking.of}: ${odds}. Ask in \`researchRequest\` only for what would change a position.`;
}

/** When a question for the person can be answered, so an expert argues on a stated assumption rather than waits. */
function personLine(answers: boolean): string {
  return answers
    ? 'Questions for the person: they see this round\'s when it ends and may answer before the next round.'
    : 'Questions for the person: nobody answers them before the vote; a question goes on the person\'s list with the recommendation, so argue meanwhile on an assumption you state.';
}

/** What the person asked for when they added this seat; never claim experience the persona does not have. */
function requestedLine(r: { want: string; close: boolean } | null): string {
  if (!r) return '';
  // Matched by words, not by a model: even a close match may miss what the person meant, so the expert is always asked to say so.
  return r.close
    ? `\nThe person asked for "${r.want}" and you were added for it. Bring what of your own experience applies and say plainly where it falls short of that; never claim experience you do not have.\n`
    : `\nThe person asked for "${r.want}"; no one on the board has that experience, and you were added as the nearest. Bring what of your own experience applies and say plainly where it falls short; never claim experience you do not have.\n`;
}

const expertTurnVars = (i: ExpertTurnInput) => ({
  persona: i.persona,
  subProblem: i.subProblem,
  decidedEarlier: i.decidedEarlier,
  panel: i.panel.map((c) => `${nameOf(c)} (${c})`).join(', '),
  round: i.round,
  maxRounds: i.maxRounds,
  phase: i.phase,
  // Every round's speakers are asked at once: a later round's expert sees the rounds before, never this one's other turns.
  instruction: i.round === 1 ? INSTRUCTIONS[i.phase] : `${INSTRUCTIONS[i.phase]} This round's speakers answer at the same time: respond to what the record holds, not to turns of this round you cannot see.`,
  memory: i.memory ? `\n${i.memory}\n` : '',
  requested: requestedLine(i.requested ?? null),
  inputs: respondTo(i),
  research: researchLine(i.researchLeft, i.speaking),
  person: personLine(i.personAnswers),
  record: i.record,
  length: i.round === 1 ? '100-150 words' : '60-120 words',
});

/** An expert's opening statement (round 1: everyone speaks). Fast tier: the parallel bulk of the debate, as the spec's cost plan says. */
export const openingStatementCall = defineCall<ExpertTurnInput, Contribution>({
  purpose: 'opening_statement',
  tool: 'expert_turn',
  role: 'experts',
  seat: (i) => i.persona.code,
  phase: 'debate',
  tier: 'fast',
  maxTokens: 1100,
  template: 'expert_turn',
  output: fixed(contributionSchema),
  vars: expertTurnVars,
  estimate: { input: 2_500, output: 250 },
});

/** An expert's turn in a later round. */
export const contributionCall = defineCall<ExpertTurnInput, Contribution>({
  ...openingStatementCall,
  purpose: 'contribution',
});

export interface FacilitatorInput {
  subProblem: SubProblemBrief;
  round: number;
  maxRounds: number;
  phase: DebatePhase;
  panel: string[];
  /**
   * How many experts the next round calls besides the silent ones it invites (`speakersPerRound`): a trial's
   * facilitator named four and saw three called, with nobody told why.
   */
  perRound: number;
  /** Lessons from earlier sessions, rendered; '' for none. */
  lessons: string;
  /** The board record, this round's turns its last block (the prompt's "This round"; `contributions` is the same turns, typed). */
  record: string[];
  /** The strongest arguments as the facilitator listed them after the previous round: "so far" means this list, updated. */
  keyArguments: string[];
  intervention: string | null;
  contributions: { persona: string; text: string; position: string; agreesWith: string[]; disagreesWith: string[]; researchRequest: string | null; claims?: Contribution['claims']; confidence?: number; questionForPerson?: string | null }[];
}

/** The facilitator's round: summary, key arguments, metrics the stopping rules read, who speaks next, the next question. */
export const facilitatorRoundCall = defineCall<FacilitatorInput, FacilitatorRound>({
  purpose: 'facilitator_round',
  role: 'facilitator',
  phase: 'facilitation',
  tier: 'fast',
  maxTokens: 1700,
  template: 'facilitator_round',
  output: fixed(facilitatorRoundSchema),
  vars: (i) => ({
    record: i.record,
    subProblem: i.subProblem,
    round: i.round,
    maxRounds: i.maxRounds,
    phase: i.phase,
    panel: i.panel.join(', '),
    lessons: i.lessons,
    keyArguments: i.keyArguments.length ? `\nKey arguments so far (your list after the previous round; keep what still stands, add what this round brought):\n${i.keyArguments.map((a) => `- ${a}`).join('\n')}\n` : '',
    intervention: i.intervention ? `\nThe person intervened before this round: "${i.intervention}". Say in your summary how the experts answered it.\n` : '',
    straw:
      i.round === 1
        ? '\nThis was the opening round: also fill `straw`, the straw vote: the distinct positions the opening statements took, as options (A, B, C, D in order, 2-4 unless everyone took the same one), each expert mapped onto the option their opening position supports, and whether this sub-problem’s decision is a one-way door (at least one position commits the person in a way that is costly to undo) or a two-way door.\n'
        : '\nSet `straw` to null (it is for the opening round only).\n',
    lastRound:
      i.round >= i.maxRounds
        ? '\nThis was the last round allowed: the board votes next. Leave `wantsToSpeak` empty and make `nextQuestion` the question the vote must settle.\n'
        : `\nAt most ${i.perRound} of those you name in \`wantsToSpeak\` speak next round, the least heard first (ties in the panel's order above); an expert who has not spoken yet is invited on top.\n`,
  }),
  estimate: { input: 2_000, output: 250 },
});

export interface ModeratorInput {
  kind: 'contrarian' | 'skeptic' | 'optimist' | 'deadlock';
  subProblem: SubProblemBrief;
  positions: { persona: string; position: string }[];
  record: string[];
}

/** One moderator intervention, or the facilitator's deadlock break. */
export const moderatorCall = defineCall<ModeratorInput, { text: string }>({
  purpose: 'moderator',
  role: 'facilitator',
  phase: 'facilitation',
  tier: 'fast',
  maxTokens: 600,
  template: 'moderator',
  output: fixed(moderatorSchema),
  vars: (i) => ({ record: i.record, kind: i.kind, subProblem: i.subProblem, positions: i.positions.map((p) => `- ${nameOf(p.persona)}: ${p.position}`).join('\n') }),
  estimate: { input: 1_500, output: 200 },
  // Each kind steps in once per sub-problem, with a tool of its own, and its static blocks are far under the fast
  // tier's minimum: nothing, in this session or another, reads its prompt again (the bench: 89.9% written, none read).
  cached: false,
});

export interface ResearchInput {
  subProblem: SubProblemBrief;
  query: string;
}

/** The researcher: general knowledge only, labelled as such. */
export const researchCall = defineCall<ResearchInput, { findings: string; confidence: number }>({
  purpose: 'research',
  role: 'facilitator',
  phase: 'research',
  tier: 'fast',
  maxTokens: 600,
  template: 'research',
  output: fixed(researchSchema),
  vars: (i) => ({ subProblem: i.subProblem, query: i.query }),
  estimate: { input: 1_500, output: 400 },
});
