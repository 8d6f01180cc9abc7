import { problemStatementSchema, type ProblemStatement } from '../domain/model';
import { defineCall, fixed } from './call';

export interface IntakeInput {
  problem: string;
  context: string;
  /** Who will answer clarifying questions: the person (interactive) or nobody (automatic: each becomes its assumption). */
  mode: 'auto' | 'interactive';
}

const MODE_NOTE: Record<IntakeInput['mode'], string> = {
  interactive: 'The person will see your clarifying questions and may answer them before the board starts; unanswered ones keep their assumption.',
  auto: 'This session runs automatically: nobody will answer clarifying questions. Each question you ask becomes its stated assumption, so ask only where the assumption itself should be visible to the person.',
};

/** Intake: the problem statement, clarifying questions with their fallback assumptions, and the model's own safety screen. */
export const problemStatementCall = defineCall<IntakeInput, ProblemStatement>({
  purpose: 'problem_statement',
  role: 'intake',
  phase: 'intake',
  tier: 'smart',
  maxTokens: 1600,
  template: 'problem_statement',
  output: fixed(problemStatementSchema),
  vars: (i) => ({ modeNote: MODE_NOTE[i.mode] }),
  estimate: { input: 1_500, output: 800 },
});
