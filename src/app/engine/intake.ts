import { event } from '../../domain/events';
import { problemStatementCall } from '../../calls/intake';
import type { ProblemStatement } from '../../domain/model';
import type { Question } from '../../domain/checkpoints';
import { ask } from './checkpoints';
import { modelRefusal } from '../../domain/harm-screen';
import { RefusedError, type Engine } from './context';

/** The model's own screen said no: its category and reason, as `modelRefusal` words them. */
function modelRefused(safety: ProblemStatement['safety']): RefusedError {
  const r = modelRefusal(safety.category, safety.reason);
  return new RefusedError(r.category, r.reason, 'model');
}

/**
 * Intake: the harm screen (rules and semantic layer) before any model call, then the problem
 * statement. Clarifying questions go to the person in interactive mode;
 * whatever stays unanswered (every question in automatic mode) becomes a
 * recorded assumption, listed first. The person may then confirm or rewrite
 * the statement.
 */
export async function intake(e: Engine): Promise<ProblemStatement> {
  // Memoized like every step: a replay reads the recorded verdict, whatever the encoder would say today.
  const screen = await e.run.step('screen', async () => ({ result: await e.screen.screen(`${e.problem}\n${e.context}`) }));
  // With HARM_SCREEN_FLAG=confirm the screen's refusal is the model's to confirm: the screen reads wording, the model meaning.
  const flagged = screen.allowed ? undefined : { category: screen.category, reason: screen.reason };
  if (flagged && e.screen.onFlag !== 'confirm') throw new RefusedError(screen.category, screen.reason, 'screen');

  const proposed = await e.run.step('intake', async (s) => {
    const out = await s.call(problemStatementCall, { problem: e.problem, context: e.context, mode: e.checkpoints?.clarification ? 'interactive' : 'auto', ...(flagged && { flagged }) });
    if (!out.safety.allowed) return { result: out };
    const cleared = flagged ? [event('guardrail.cleared', { ...flagged, modelReason: out.safety.reason })] : [];
    const questions = out.clarifications.map((c, i) => ({ id: `q${i + 1}`, question: c.question, why: c.why }));
    return {
      result: out,
      events: [...cleared, ...(questions.length ? [event('clarification.requested', { questions, mode: e.checkpoints?.clarification ? 'interactive' : 'auto' })] : [])],
      patch: { phase: 'intake', progress: { phase: 'intake', percent: 5 } },
    };
  });
  if (!proposed.safety.allowed) throw modelRefused(proposed.safety);

  const questions: Question[] = proposed.clarifications.map((c, i) => ({ id: `q${i + 1}`, ...c }));
  const clarified = questions.length
    ? await ask(e, 'clarification', 'clarification', () => ({
        prompt: `The board has ${questions.length} clarifying question${questions.length > 1 ? 's' : ''}. Answer what you can; an unanswered question keeps its stated assumption.`,
        proposal: { questions },
      }))
    : null;
  const answers = clarified?.answers ?? [];
  const open = questions.filter((q) => !answers.some((a) => a.id === q.id));
  const assumptions = [...open.map((q) => q.assumption), ...proposed.assumptions];
  // Answers given: the statement is written again with them, so what the board reads first is what the person said.
  const revised = answers.length
    ? await e.run.step('intake/revised', async (s) => ({
        result: await s.call(problemStatementCall, {
          problem: e.problem,
          context: e.context,
          mode: 'interactive',
          revise: { statement: proposed.statement, assumptions, answers: answers.map((a) => ({ question: a.question, answer: a.answer })) },
          ...(flagged && { flagged }),
        }),
      }))
    : null;
  if (revised && !revised.safety.allowed) throw modelRefused(revised.safety);
  const stated = await e.run.step('intake/stated', () => {
    // A question asked again after the answers is kept as the assumption it states: the person answers once, before the board starts.
    const statement = revised
      ? { ...proposed, statement: revised.statement, domains: revised.domains, assumptions: [...revised.clarifications.map((c) => c.assumption), ...revised.assumptions], answers }
      : { ...proposed, assumptions, ...(answers.length && { answers }) };
    return { result: statement, events: [event('problem.stated', statement)] };
  });

  const confirmed = await ask(e, 'statement', 'statement', () => ({
    prompt: 'Confirm the problem statement the board will deliberate, or rewrite it.',
    proposal: { statement: stated.statement, assumptions: stated.assumptions, domains: stated.domains },
  }));
  if (confirmed.action !== 'edit' || !confirmed.statement) return stated;
  return e.run.step('intake/edited', () => {
    const statement = { ...stated, statement: confirmed.statement!, editedBy: 'person' as const };
    return { result: statement, events: [event('problem.stated', statement)] };
  });
}
