import type { LedgerFact } from '../domain/model';
import { ledgerLines } from '../domain/debate/record';
import { z } from 'zod';
import { calibrationSchema, optionsSchema, voteSchema, type Option, type OptionsOutput, type Persona, type VoteOutput } from '../domain/model';
import { bullets, defineCall, fixed, nameOf } from './call';
import type { SubProblemBrief } from './debate';

export interface OptionsInput {
  subProblem: SubProblemBrief;
  /** The debate as the voters will remember it, rendered. */
  discussion: string;
  /**
   * This sub-problem's facts in the ledger as it stands (a revised figure once, in its last version) and what research
   * answered: the rounds alone had left an atomic naming trial's options without either, though the experts cited both.
   * (The whole board record gave them too, at twice the input: options were then 23% of a session's cost.)
   */
  facts: LedgerFact[];
  research: { query: string; findings: string }[];
  /** Each panel member's latest position. */
  positions: { persona: string; position: string }[];
  /** The straw vote's options after the opening round; [] when there was none. */
  straw: { id: string; title: string }[];
}

/**
 * Options distilled after the debate. The engine re-letters them A, B, C, D in
 * the order given (a stated rule: the vote's schema is built from those ids).
 */
export const optionsCall = defineCall<OptionsInput, OptionsOutput>({
  purpose: 'options',
  role: 'synthesis',
  phase: 'voting',
  tier: 'smart',
  maxTokens: 3200,
  template: 'options',
  output: fixed(optionsSchema),
  vars: (i) => ({
    subProblem: i.subProblem,
    discussion: i.discussion,
    research: i.research.length ? `\nResearch the board asked for (general knowledge, not a live source):\n${i.research.map((r) => `- "${r.query}": ${r.findings}`).join('\n')}\n` : '',
    facts: ledgerLines(i.facts),
    straw: i.straw.length
      ? `\nThe straw vote after the opening round used these options:\n${i.straw.map((o) => `- ${o.id}. ${o.title}`).join('\n')}\nFor each option you give, set \`strawId\` to the straw option it continues (null for one the debate brought up), so the board can see what the debate changed.\n`
      : '',
  }),
  estimate: { input: 3_000, output: 600 },
});

const door = (o: Pick<Option, 'reversibility'>) => `${o.reversibility.replace('_', '-')} door`;

/** An option as a voter weighs it: what it is, its pros and cons, and when it is the best choice. */
const optionBrief = (o: VoteInput['options'][number]) =>
  `${o.id}. ${o.title} (${door(o)}): ${o.description}\n  Pros: ${o.pros.join('; ')}\n  Cons: ${o.cons.join('; ')}\n  Best if: ${o.bestIf}`;

/** A marked disagreement as the voter reads it; one from before the last round says so, and who has spoken since. */
function disagreementLine(d: VoteInput['disagreements'][number]): string {
  const line = `${nameOf(d.persona)} disagrees with ${d.with.map(nameOf).join(' and ')}`;
  if (d.round === undefined) return line;
  const since = d.answeredSince?.length ? `; ${d.answeredSince.map(nameOf).join(' and ')} spoke after it, so weigh the key arguments and the last round's reading above for whether it still stands` : '';
  return `${line} (marked in round ${d.round}, ${nameOf(d.persona)}'s last turn${since})`;
}

export interface VoteInput {
  persona: Persona;
  subProblem: SubProblemBrief;
  /** The facilitator's strongest arguments at the debate's last round. */
  keyArguments: string[];
  /**
   * Whom each panel member challenged in their latest turn (persona codes): the disagreements open at the vote.
   * `round` is that turn's round when it was before the last one, with who of those challenged spoke after it
   * (`answeredSince`): two trials' voters read a round-2 challenge as open though its target had conceded in round 3.
   */
  disagreements: { persona: string; with: string[]; round?: number; answeredSince?: string[] }[];
  /** The facilitator's reading of the last round: the disagreements it saw, marked or not. */
  lastSummary: string | null;
  /** The voter's own latest position; null when they did not speak. */
  position: string | null;
  options: Pick<Option, 'id' | 'title' | 'description' | 'pros' | 'cons' | 'bestIf' | 'reversibility'>[];
  /**
   * This sub-problem's facts in the ledger as it stands: a revised figure in its last version, where the key arguments
   * may still quote the first (three trials' voters noted they voted without the ledger the debate had built).
   */
  facts: LedgerFact[];
}

/**
 * One expert's vote; the option id must be one of the options on the table.
 * The voter sees a digest of the debate (key arguments, open disagreements),
 * not the transcript: enough to weigh the others' case, not only their own.
 */
/**
 * The vote's schema for a set of option ids, made once per set: a board's votes share it, and the gateway keys the
 * JSON schema it sends on the schema object (converting one is most of what a vote's request costs to build).
 */
const voteSchemas = new Map<string, z.ZodType<z.infer<typeof voteSchema>>>();
function voteSchemaFor(ids: string[]) {
  const key = ids.join('\u0000');
  let schema = voteSchemas.get(key);
  if (!schema) voteSchemas.set(key, (schema = voteSchema.extend({ optionId: z.enum(ids as [string, ...string[]]) })));
  return schema;
}

export const voteCall = defineCall<VoteInput, VoteOutput>({
  purpose: 'vote',
  role: 'experts',
  seat: (i) => i.persona.code,
  phase: 'voting',
  tier: 'fast',
  maxTokens: 600,
  template: 'vote',
  output: (i) => voteSchemaFor(i.options.map((o) => o.id)),
  vars: (i) => ({
    persona: i.persona,
    subProblem: i.subProblem,
    keyArguments: bullets(i.keyArguments),
    disagreements: bullets(i.disagreements.filter((d) => d.with.length).map(disagreementLine)),
    lastSummary: i.lastSummary ?? '(none)',
    position: i.position ?? '(did not speak)',
    options: i.options.map(optionBrief),
    facts: ledgerLines(i.facts),
  }),
  estimate: { input: 2_800, output: 150 },
});

export interface CalibrationInput {
  persona: Persona;
  subProblem: SubProblemBrief;
  /** The options' letters and titles, so a vote's letter means something. */
  options: Pick<Option, 'id' | 'title'>[];
  own: { optionId: string; confidence: number; rationale: string };
  /** Every vote of the board, the calibrator's own included (the prompt shows the others). */
  votes: { persona: string; name: string; optionId: string; confidence: number; rationale: string; strongObjection: string | null }[];
}

/**
 * After seeing every vote, an expert reconsiders its confidence (not its
 * choice). It reads the others' reasons and strong objections: asked whether
 * the others saw something it did not, it must be able to see what they saw.
 */
export const calibrationCall = defineCall<CalibrationInput, z.infer<typeof calibrationSchema>>({
  purpose: 'calibration',
  role: 'experts',
  seat: (i) => i.persona.code,
  phase: 'voting',
  tier: 'fast',
  maxTokens: 300,
  template: 'calibration',
  output: fixed(calibrationSchema),
  vars: (i) => ({
    persona: i.persona,
    subProblem: i.subProblem,
    options: i.options.map((o) => `${o.id}. ${o.title}`),
    own: { optionId: i.own.optionId, confidence: i.own.confidence.toFixed(2), rationale: i.own.rationale },
    others: bullets(
      i.votes
        .filter((v) => v.persona !== i.persona.code)
        .map((v) => `${v.name}: ${v.optionId} (confidence ${v.confidence.toFixed(2)}). ${v.rationale}${v.strongObjection ? ` Strong objection: ${v.strongObjection}` : ''}`),
    ),
  }),
  estimate: { input: 2_400, output: 100 },
});
