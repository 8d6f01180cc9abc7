import { LlmError } from '../ports/llm';
import { StepFailedError } from './session-run';

/** How a run's failure ends the session: what kind, where, in plain words, and whether another attempt could go differently. */
export interface Failure {
  kind: string;
  step: string | null;
  /** For the person: what happened, in a sentence. */
  message: string;
  /** The error as raised, for operators. */
  detail: string;
  retryable: boolean;
}

const PLAIN: Partial<Record<string, string>> = {
  invalid_output: "the model's answer did not match what was asked, even after one repair",
  truncated: "the model's answer was cut off, even with twice the room",
  refused: 'the model declined to answer',
  bad_request: 'the model provider rejected the request',
  auth: 'the model provider refused the credentials',
  spend_limit: 'the model provider reports the spending limit is reached',
  rate_limited: 'the model provider kept rate-limiting the request',
  overloaded: 'the model provider stayed overloaded',
  server: 'the model provider kept failing',
  network: 'the model provider could not be reached',
  aborted: 'the run was stopped',
};

/**
 * Failures that replay identically: a malformed event, a schema rejection, a
 * JavaScript defect. Anything else unknown (a dropped Postgres connection, a
 * closed pool at shutdown, a socket error) may well work next time.
 */
const DETERMINISTIC = new Set(['MalformedEventError', 'ZodError', 'TypeError', 'RangeError', 'ReferenceError', 'SyntaxError']);
const isDeterministic = (err: unknown) => err instanceof Error && DETERMINISTIC.has(err.name);

/**
 * Classifies a failed run. A step's result is memoized, so a deterministic
 * failure — an answer that stays invalid after its repair, a defect in the
 * engine, a malformed event — would replay the same data on every retry: it
 * ends the session at once. Transient provider errors and everything that
 * looks like infrastructure are worth another attempt.
 */
export function classifyFailure(err: unknown, aborted: boolean): Failure {
  const cause = err instanceof StepFailedError ? err.cause : err;
  const step = err instanceof StepFailedError ? err.key : null;
  const detail = cause instanceof Error ? cause.message : String(cause);
  const where = step ? ` at step ${step}` : '';
  if (cause instanceof LlmError) {
    const what = PLAIN[cause.kind] ?? `the model call failed (${cause.kind})`;
    return { kind: cause.kind, step, message: `The session stopped${where}: ${what}.`, detail, retryable: !aborted && cause.retryable };
  }
  const infrastructure = !isDeterministic(cause);
  return {
    kind: 'internal',
    step,
    message: infrastructure
      ? `The session stopped${where}: a storage or network error outlasted its retries.`
      : `The session stopped${where} on an internal error; what it produced before is kept.`,
    detail,
    retryable: !aborted && infrastructure,
  };
}
