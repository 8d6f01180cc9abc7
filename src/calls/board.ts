import { z } from 'zod';
import type { BoardProposalAnswer } from '../domain/board';
import { defineCall, fixed } from './call';

export interface BoardSelectionInput {
  subProblems: { id: string; title: string; goal: string; context: string; domains: string[]; complexity: number; seats: number }[];
  /** The pool as the model sees it: a code and a one-line summary each. */
  pool: { code: string; summary: string }[];
}

/**
 * Bounds the answer's room, not the policy: a panel may name more seats than
 * the sub-problem gets, and codes are free text, because the policy trims
 * extra seats and drops unknown codes with a note (src/domain/board.ts)
 * rather than have the answer refused.
 */
export const boardSelectionSchema = z.object({
  panels: z
    .array(
      z.object({
        subProblemId: z.string().max(12),
        seats: z
          .array(
            z.object({
              code: z.string().max(40).describe('A persona code from the pool'),
              rationale: z.string().min(3).max(200).describe('Why this expert on this sub-problem, in one sentence the person reads'),
            }),
          )
          .min(1)
          .max(8)
          .describe('Best first; as many as the sub-problem has seats'),
      }),
    )
    .min(1)
    .max(5)
    .describe('One panel per sub-problem'),
}) satisfies z.ZodType<BoardProposalAnswer>;

/**
 * Board selection: the model matches each sub-problem to experts by what it
 * is about, not only by its domain tags (a staffing question needs the
 * people lead, a security questionnaire the security lead). Fast tier: it is
 * matching short needs to one-line summaries, once per session, on the path
 * to the first debate round, and the policy enforces size, coverage and
 * diversity afterwards; if the call fails the deterministic pick stands in.
 */
export const boardSelectionCall = defineCall<BoardSelectionInput, BoardProposalAnswer>({
  purpose: 'board_selection',
  phase: 'board',
  // Framing the deliberation, like the statement and the decomposition.
  role: 'intake',
  tier: 'fast',
  maxTokens: 3200,
  template: 'board_selection',
  output: fixed(boardSelectionSchema),
  vars: (i) => ({
    subProblems: i.subProblems
      .map((sp) => `${sp.id}: ${sp.title} (complexity ${sp.complexity}; domains ${sp.domains.join(', ')}; ${sp.seats} seats)\nGoal: ${sp.goal}\nContext: ${sp.context || '(none)'}`)
      .join('\n\n'),
    pool: i.pool.map((p) => `${p.code} — ${p.summary}`),
  }),
  estimate: { input: 2_500, output: 600 },
});
