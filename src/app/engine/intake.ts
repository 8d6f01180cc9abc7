import { event } from '../../domain/events';
import { screenRequest } from '../../domain/guardrails';
import { problemStatementSchema, type ProblemStatement } from '../../domain/model';
import { RefusedError, type Engine } from './context';

/**
 * Intake: a deterministic screen before any model call, then the problem
 * statement. In automatic mode nobody answers clarifying questions, so each
 * becomes a recorded assumption, visible in the results.
 */
export async function intake(e: Engine): Promise<ProblemStatement> {
  const screen = await e.run.step('screen', () => ({ result: screenRequest(`${e.problem}\n${e.context}`) }));
  if (!screen.allowed) throw new RefusedError(screen.category, screen.reason, 'screen');

  const statement = await e.run.step('intake', async (s) => {
    const out = await s.llm({
      tier: 'smart',
      phase: 'intake',
      purpose: 'problem_statement',
      prompt: e.prompt('problem_statement', {}),
      schema: problemStatementSchema,
      maxTokens: 1200,
      hints: { problem: e.problem, context: e.context },
    });
    if (!out.safety.allowed) return { result: out };
    const questions = out.clarifications.map((c, i) => ({ id: `q${i + 1}`, question: c.question, why: c.why }));
    // Unanswered questions become explicit assumptions, listed first.
    const assumptions = [...out.clarifications.map((c) => c.assumption), ...out.assumptions];
    const stated = { ...out, assumptions };
    return {
      result: stated,
      events: [
        ...(questions.length ? [event('clarification.requested', { questions, mode: 'auto' })] : []),
        event('problem.stated', stated),
      ],
      patch: { phase: 'intake', progress: { phase: 'intake', percent: 5 } },
    };
  });
  if (!statement.safety.allowed) throw new RefusedError('model_screen', statement.safety.reason, 'model');
  return statement;
}
