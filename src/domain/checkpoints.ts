import { z } from 'zod';
import { AppError } from './errors';
import type { Persona, SubProblem } from './model';
import { distinctiveness, relevance, wantWords } from './personas';

/**
 * Interactive checkpoints (spec 6, 12, 14.5): the moments a person steers
 * the deliberation. Pure: what each kind allows, how an answer is checked
 * against the pending checkpoint, and how an edit applies, so the API (which
 * refuses bad answers) and the engine (which applies good ones) agree.
 */

export const CHECKPOINT_KINDS = ['clarification', 'statement', 'sub_problems', 'board', 'round_end', 'next_sub_problem'] as const;
export type CheckpointKind = (typeof CHECKPOINT_KINDS)[number];

export const CHECKPOINT_ACTIONS = ['continue', 'answer', 'edit', 'skip_to_vote', 'intervene', 'skip_to_final'] as const;
export type CheckpointAction = (typeof CHECKPOINT_ACTIONS)[number];

export const ALLOWED_ACTIONS: Record<CheckpointKind, CheckpointAction[]> = {
  clarification: ['continue', 'answer'],
  statement: ['continue', 'edit'],
  sub_problems: ['continue', 'edit'],
  board: ['continue', 'edit'],
  round_end: ['continue', 'skip_to_vote', 'intervene', 'skip_to_final'],
  next_sub_problem: ['continue', 'skip_to_final'],
};

/** Which checkpoints an interactive session stops at, and what an unanswered one does. */
export const checkpointSettingsSchema = z.strictObject({
  clarification: z.boolean().default(true).describe('Answer the clarifying questions (unanswered ones become recorded assumptions)'),
  statement: z.boolean().default(true).describe('Confirm or edit the problem statement'),
  sub_problems: z.boolean().default(true).describe('Review the sub-problems: edit, merge, add, remove'),
  board: z.boolean().default(true).describe('Review the board: swap, remove, ask for a kind of expert'),
  round_end: z.boolean().default(true).describe('After each debate round: continue, skip to the vote, intervene, skip to the final recommendation'),
  next_sub_problem: z.boolean().default(true).describe('Before the next sub-problem: continue or skip to the final recommendation'),
  expires_in_seconds: z
    .number()
    .int()
    .min(5)
    .max(7 * 24 * 3600)
    .default(24 * 3600)
    .describe('How long a checkpoint waits for an answer'),
  on_expiry: z
    .enum(['continue', 'cancel'])
    .default('continue')
    .describe('What an expired checkpoint does: continue with what is proposed (recorded as resolved by expiry), or cancel the session'),
});
export type CheckpointSettings = z.infer<typeof checkpointSettingsSchema>;

export interface Question {
  id: string;
  question: string;
  why: string;
  assumption: string;
}

export interface BoardProposal {
  members: { code: string; name: string; title: string; rationale: string; subProblems: string[] }[];
  panels: Record<string, string[]>;
  /** Each seat's rationale per sub-problem, and who chose it (model, policy). */
  picks?: Record<string, { code: string; rationale: string; by: string }[]>;
  available: { code: string; name: string; title: string }[];
}

/** What the person is shown, per kind. */
export type Proposal =
  | { questions: Question[] }
  | { statement: string; assumptions: string[]; domains: string[] }
  | { subProblems: SubProblem[] }
  | BoardProposal
  | RoundEndProposal
  | { next: { id: string; title: string }; done: number; total: number };

/** After a round: the facilitator's summary, each position, and the questions only the person can answer (when there are any). */
export interface RoundEndProposal {
  subProblemId: string;
  round: number;
  maxRounds: number;
  summary: string;
  positions: { persona: string; name: string; position: string }[];
  questions?: { persona: string; name: string; question: string }[];
}

/** The checkpoint a session waits on (stored on the session row while `awaiting_input`). */
export interface PendingCheckpoint {
  id: string;
  /** The memoized step its resolution is stored under. */
  stepKey: string;
  kind: CheckpointKind;
  prompt: string;
  actions: CheckpointAction[];
  requestedAt: string;
  expiresAt: string;
  onExpiry: 'continue' | 'cancel';
  subProblemId?: string;
  round?: number;
  proposal: Proposal;
}

export interface SubProblemEdit {
  id?: string | undefined;
  title: string;
  goal: string;
  context?: string | undefined;
  complexity?: number | undefined;
  domains?: string[] | undefined;
  depends_on?: string[] | undefined;
  success_criteria?: string[] | undefined;
}

export interface BoardEdit {
  remove?: string[] | undefined;
  add?: string[] | undefined;
  want?: string[] | undefined;
  /** The panels the additions join; every panel when omitted. */
  sub_problems?: string[] | undefined;
}

/** An answer as the client sends it (already schema-valid). */
export interface ResolveRequest {
  action: CheckpointAction;
  answers?: Record<string, string> | undefined;
  statement?: string | undefined;
  sub_problems?: SubProblemEdit[] | undefined;
  board?: BoardEdit | undefined;
  message?: string | undefined;
}

/** What the engine receives: the action and its checked payload; the step result of the checkpoint. */
export interface Resolution {
  action: CheckpointAction;
  by: 'client' | 'expiry';
  answers?: { id: string; question: string; answer: string }[];
  statement?: string;
  subProblems?: SubProblemEdit[];
  board?: ResolvedBoardEdit;
  message?: string;
}

/** An answer that does not fit the checkpoint (422), naming the field: detail `<field>: <message>`. */
const inputError = (field: string, message: string): AppError =>
  new AppError('checkpoint-action-invalid', `${field}: ${message}`, { errors: [{ field, message }] });

/** A board edit as applied: codes only, with what each `want` became so the person sees it. */
export interface ResolvedBoardEdit {
  remove: string[];
  /** Added codes, the wanted ones included; never a code the same edit removes. */
  add: string[];
  /** `close`: the match shares the want's words in its title or expertise; otherwise it is only the nearest the pool has. */
  wanted?: { want: string; code: string; name: string; title: string; close?: boolean }[];
  /** The sub-problems whose panels the additions joined; all of them when absent. */
  subProblems?: string[];
}

/** Checks an answer against the pending checkpoint; throws a checkpoint-action-invalid AppError (422) naming the field. */
export function checkResolution(cp: PendingCheckpoint, req: ResolveRequest, pool: readonly Persona[]): Resolution {
  if (!cp.actions.includes(req.action)) {
    throw inputError('body.action', `"${req.action}" is not allowed at a ${cp.kind} checkpoint; allowed: ${cp.actions.join(', ')}`);
  }
  const base = { action: req.action, by: 'client' as const };
  switch (req.action) {
    case 'continue':
    case 'skip_to_vote':
    case 'skip_to_final':
      return base;
    case 'intervene':
      if (!req.message?.trim()) throw inputError('body.message', 'is required to intervene');
      return { ...base, message: req.message.trim() };
    case 'answer': {
      const questions = (cp.proposal as { questions: Question[] }).questions;
      const given = Object.entries(req.answers ?? {});
      if (!given.length) throw inputError('body.answers', 'give at least one answer, by question id');
      const unknown = given.find(([id]) => !questions.some((q) => q.id === id));
      if (unknown) throw inputError(`body.answers.${unknown[0]}`, `no such question; ids: ${questions.map((q) => q.id).join(', ')}`);
      const answers = questions.flatMap((q) => {
        const a = req.answers?.[q.id]?.trim();
        return a ? [{ id: q.id, question: q.question, answer: a }] : [];
      });
      if (!answers.length) throw inputError('body.answers', 'every answer is empty');
      return { ...base, answers };
    }
    case 'edit':
      return { ...base, ...checkEdit(cp, req, pool) };
  }
}

function checkEdit(cp: PendingCheckpoint, req: ResolveRequest, pool: readonly Persona[]): Partial<Resolution> {
  const only = (field: 'statement' | 'sub_problems' | 'board') => {
    const given = (['statement', 'sub_problems', 'board'] as const).filter((f) => req[f] !== undefined);
    if (!given.includes(field)) throw inputError(`body.${field}`, `is required to edit a ${cp.kind} checkpoint`);
    const extra = given.find((f) => f !== field);
    if (extra) throw inputError(`body.${extra}`, `does not apply to a ${cp.kind} checkpoint`);
  };
  if (cp.kind === 'statement') {
    only('statement');
    return { statement: req.statement!.trim() };
  }
  if (cp.kind === 'sub_problems') {
    only('sub_problems');
    const list = req.sub_problems!;
    const ids = list.map((s, i) => s.id ?? `new${i + 1}`);
    list.forEach((s, i) => {
      for (const d of s.depends_on ?? []) {
        if (!ids.includes(d) || d === ids[i]) throw inputError(`body.sub_problems.${i}.depends_on`, `"${d}" is not another sub-problem in this list`);
      }
    });
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) throw inputError('body.sub_problems', `id "${dup}" appears twice`);
    return { subProblems: list };
  }
  only('board');
  return { board: applyBoardEdit(cp.proposal as BoardProposal, req.board!, pool).edit };
}

/**
 * Applies a board edit to every panel: removals first, then additions
 * (named codes, then the best fit for each wanted kind of expert). A code
 * both removed and added in one edit stays removed (removal is the explicit
 * intent; it is left out of the resolved `add`), and a `want` is matched
 * only among experts neither on the board nor removed by this edit, so it
 * never resolves to the expert the person is taking off. Each panel must
 * keep 2-5 experts. Additions join the panels of `sub_problems` only, when
 * given (a sales lead for the go-to-market question, not for the rewrite). Returns the new panels and the resolved edit (wants
 * turned into codes, and recorded as such) so a replay needs no matching.
 */
export function applyBoardEdit(
  board: { panels: Record<string, string[]> },
  edit: BoardEdit,
  pool: readonly Persona[],
): { panels: Record<string, string[]>; edit: ResolvedBoardEdit } {
  const onBoard = new Set(Object.values(board.panels).flat());
  const scope = edit.sub_problems ? [...new Set(edit.sub_problems)] : undefined;
  scope?.forEach((id, i) => {
    if (!board.panels[id]) throw inputError(`body.board.sub_problems.${i}`, `no sub-problem ${id}; ids: ${Object.keys(board.panels).join(', ')}`);
  });
  const remove = [...new Set(edit.remove ?? [])];
  remove.forEach((code, i) => {
    if (!onBoard.has(code)) throw inputError(`body.board.remove.${i}`, `${code} is not on the board`);
  });
  const named = [...new Set(edit.add ?? [])];
  named.forEach((code, i) => {
    if (!pool.some((p) => p.code === code)) throw inputError(`body.board.add.${i}`, `no persona ${code}; see GET /v1/personas`);
  });
  const add = named.filter((c) => !remove.includes(c));
  const wanted: NonNullable<ResolvedBoardEdit['wanted']> = [];
  (edit.want ?? []).forEach((kind, i) => {
    const taken = new Set([...onBoard, ...add, ...remove]);
    const found = bestFor(kind, pool.filter((p) => !taken.has(p.code)), pool);
    if (!found) throw inputError(`body.board.want.${i}`, `no expert off the board matches "${kind}"`);
    const { persona: match, score } = found;
    add.push(match.code);
    wanted.push({ want: kind, code: match.code, name: match.name, title: match.title, close: score >= CLOSE_MATCH });
  });
  const panels: Record<string, string[]> = {};
  for (const [id, codes] of Object.entries(board.panels)) {
    const next = [...new Set([...codes.filter((c) => !remove.includes(c)), ...(!scope || scope.includes(id) ? add : [])])];
    if (next.length < 2 || next.length > 5) {
      throw inputError('body.board', `the panel of ${id} would have ${next.length} experts; it needs 2-5`);
    }
    panels[id] = next;
  }
  return { panels, edit: { remove, add, ...(wanted.length && { wanted }), ...(scope && { subProblems: scope }) } };
}

/**
 * The relevance (weighted by how distinctive each word is) at which a match
 * is close: a word few experts use, in the expert's title or expertise.
 * Under it the match is only the nearest the pool has, and the person and
 * the expert are told so (a trial's "launched a paid app in the Shopify App
 * Store" found a User Advocate on one common word of her background).
 */
const CLOSE_MATCH = 2;

/** The candidate whose title, expertise, concerns and background best answer the wanted kind (see `relevance`); pool order breaks ties. */
function bestFor(kind: string, candidates: Persona[], pool: readonly Persona[]): { persona: Persona; score: number } | undefined {
  let best: { persona: Persona; score: number } | undefined;
  const words = wantWords(kind);
  const weight = distinctiveness(pool);
  for (const p of candidates) {
    const score = relevance(p, kind, words, weight);
    if (score > (best?.score ?? 0)) best = { persona: p, score };
  }
  return best;
}

/** Turns the person's sub-problem list into proposals for the normaliser, keeping what they did not restate. */
export function subProblemsFromEdit(edits: SubProblemEdit[], proposed: SubProblem[], fallbackDomains: string[]): SubProblem[] {
  const ids = edits.map((s, i) => s.id ?? `new${i + 1}`);
  return edits.map((s, i) => {
    const was = proposed.find((p) => p.id === s.id);
    return {
      id: ids[i]!,
      title: s.title,
      goal: s.goal,
      context: s.context ?? was?.context ?? '',
      successCriteria: s.success_criteria ?? was?.successCriteria ?? [s.goal],
      dependsOn: s.depends_on ?? (was ? was.dependsOn.filter((d) => ids.includes(d)) : []),
      complexity: s.complexity ?? was?.complexity ?? 5,
      domains: (s.domains ?? was?.domains ?? fallbackDomains.slice(0, 4)) as SubProblem['domains'],
    };
  });
}

/** The resolution an expired checkpoint gets under the `continue` policy. */
export const expiryResolution = (): Resolution => ({ action: 'continue', by: 'expiry' });
