import { problemStatementSchema, type ProblemStatement } from '../domain/model';
import { harmCategoryGuide } from '../domain/harm-categories';
import { defineCall, fixed } from './call';

export interface IntakeInput {
  problem: string;
  context: string;
  /** Who will answer clarifying questions: the person (interactive) or nobody (automatic: each becomes its assumption). */
  mode: 'auto' | 'interactive';
  /**
   * Set when the statement is written again after the person answered the
   * clarifying questions: the first statement, the assumptions it stood on
   * (the unanswered questions' ones included) and the answers.
   */
  revise?: { statement: string; assumptions: string[]; answers: { question: string; answer: string }[] };
  /** The intake screen's refusal, when the deployment has the model confirm it (`HARM_SCREEN_FLAG=confirm`). */
  flagged?: { category: string; reason: string };
}

/**
 * The screen's finding, put to the model to confirm. It says how the screen
 * works (wording, not meaning), so the model judges the request rather than
 * deferring to the flag.
 */
const screenNote = (f: NonNullable<IntakeInput['flagged']>) =>
  `An automatic pre-screen, which matches wording rather than meaning, flagged this request as possibly \`${f.category}\`: "${f.reason}" Judge the request yourself, by the rule above: refuse it if it is harmful, allow it if the flag only met its words.\n\n`;

const MODE_NOTE: Record<IntakeInput['mode'], string> = {
  interactive: 'The person will see your clarifying questions and may answer them before the board starts; unanswered ones keep their assumption.',
  auto: 'This session runs automatically: nobody will answer clarifying questions. Each question you ask becomes its stated assumption, so ask only where the assumption itself should be visible to the person.',
};

/**
 * The second pass, after the person's answers: two trials' boards kept
 * working on assumptions the person had corrected, and the statement they
 * confirmed still carried the old figures, because it was written before
 * the answers and nothing wrote it again.
 */
const reviseNote = (r: NonNullable<IntakeInput['revise']>) =>
  [
    'You wrote this statement before the person answered your clarifying questions:',
    r.statement,
    '',
    'The assumptions it stood on:',
    ...r.assumptions.map((a) => `- ${a}`),
    '',
    'The person answered:',
    ...r.answers.map((a) => `- ${a.question} — ${a.answer}`),
    '',
    "Write the statement again with their answers: put their figures and facts in it, keep the assumptions that still hold, correct or drop the ones an answer settles or contradicts, and add none they did not imply. Ask no more questions (`clarifications` empty): they have answered what they will before the board starts.",
  ].join('\n');

/** Intake: the problem statement, clarifying questions with their fallback assumptions, and the model's own safety screen. */
export const problemStatementCall = defineCall<IntakeInput, ProblemStatement>({
  purpose: 'problem_statement',
  role: 'intake',
  phase: 'intake',
  tier: 'smart',
  maxTokens: 1600,
  template: 'problem_statement',
  output: fixed(problemStatementSchema),
  vars: (i) => ({ modeNote: i.revise ? reviseNote(i.revise) : MODE_NOTE[i.mode], harmCategories: harmCategoryGuide(), screenNote: i.flagged ? screenNote(i.flagged) : '' }),
  estimate: { input: 1_500, output: 800 },
});

/**
 * The frame's context line when the problem came without one. A trial's model read "(none given)" beside the
 * person's answers to the clarifying questions and took them for missing: it says where later words are, and
 * that there may be none (at intake there is no case yet; the models of a screen trial looked for one).
 */
export const NO_CONTEXT = '(none given with the question; anything the person said later, such as answers to clarifying questions, is in the case below)';
