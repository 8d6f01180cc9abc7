import type { z } from 'zod';
import { personaByCode } from '../domain/personas';
import type { Role } from '../domain/models';
import type { Tier } from '../ports/llm';

/** Ledger buckets: where a session's spend went. */
export type Phase =
  | 'intake'
  | 'decomposition'
  | 'board'
  | 'lessons'
  | 'debate'
  | 'facilitation'
  | 'research'
  | 'voting'
  | 'synthesis'
  | 'recommendation'
  | 'expert_memory'
  | 'memory';

/**
 * One model call, declared once. Everything about the call derives from this:
 * the prompt (template rendered from `vars(input)`), the tool schema the model
 * sees and the validation of its answer (`output(input)`), the room it gets
 * (`maxTokens`), the tier, the ledger's phase and purpose, the budget estimate,
 * and the answers of the simulated and scripted providers (which receive the
 * same typed `input` the prompt is rendered from, never a side channel).
 *
 * Rule: whatever `output` accepts, the engine keeps. Where the service keeps
 * less than a model may give, it trims by a rule stated next to the trim and
 * records that it did; it never rejects a valid answer downstream.
 */
export interface ModelCall<I, O> {
  /** What the call is for; the ledger's `purpose` and the simulator's dispatch key. */
  purpose: string;
  /**
   * The tool the model answers with; `purpose` when unset. Calls of one
   * prompt shape and one answer share it: a provider's prompt cache keys on
   * the tools first (tools → system → messages), so one name lets a later
   * round's experts read the prefix the openings wrote.
   */
  tool?: string;
  phase: Phase;
  /** Who speaks: the configuration names models per role (src/domain/models.ts). */
  role: Role;
  /** The seat (persona code) the call speaks for, where one expert speaks: a seat may have its own model. */
  seat?: (input: I) => string;
  tier: Tier;
  /** Room for the answer; a truncated answer is retried once with twice as much. */
  maxTokens: number;
  /** `prompts/<template>.md`; its version is recorded with every call. */
  template: string;
  /** The answer's contract. A function of the input where the input shapes it (a vote's option ids). */
  output: (input: I) => z.ZodType<O>;
  /** Template variables, from the typed input (the session frame — problem, context, case memory — is added by the caller). */
  vars: (input: I) => Record<string, unknown>;
  /** Expected tokens of a typical call, for cost estimates and budgets before anything runs. */
  estimate: { input: number; output: number };
  /**
   * `false` for a call no later call reads the prompt of: its prompt carries no cache breakpoint, since writing a cache
   * entry costs 1.25× the input price. Only where no prefix of it is shared either, across sessions included: a
   * once-per-session call whose static blocks pass the model's minimum (the final recommendation's rules, on the smart
   * tier) reads them from another session's write on a busy deployment, so it keeps its breakpoints.
   */
  cached?: false;
}

export type AnyCall = ModelCall<any, any>;
export type InputOf<C> = C extends ModelCall<infer I, unknown> ? I : never;
export type OutputOf<C> = C extends ModelCall<any, infer O> ? O : never;

export const defineCall = <I, O>(call: ModelCall<I, O>): ModelCall<I, O> => call;

/** The output schema when it does not depend on the input. */
export const fixed =
  <O>(schema: z.ZodType<O>) =>
  (): z.ZodType<O> =>
    schema;

/** A list as prompts show it: one "- item" per line, or a stated placeholder when empty. */
export const bullets = (items: readonly string[], none = '(none)'): string => (items.length ? items.map((x) => `- ${x}`).join('\n') : none);

/** An expert's name for a prompt; a code the catalogue does not know (a model may write one) shows as written. */
export const nameOf = (code: string): string => personaByCode(code)?.name ?? code;

/**
 * The newest whole items whose total length stays within `maxChars`, in their
 * original order, and how many older ones were left out. Items are never cut
 * (a turn clipped mid-way loses its conclusion); the newest is kept even alone
 * over the cap, since a prompt without it would be worse than a long one.
 */
export function newestWithin(items: readonly string[], maxChars: number): { kept: string[]; omitted: number } {
  let total = 0;
  let start = items.length;
  while (start > 0 && (start === items.length || total + items[start - 1]!.length <= maxChars)) total += items[--start]!.length;
  return { kept: items.slice(start), omitted: start };
}
