/**
 * The one error type use-cases and stores throw for a failure the caller can
 * act on. The code says what happened; src/http/problem.ts maps each code to
 * its HTTP status, title and problem type in one table (codes are the
 * problem slugs, `urn:bo1:problem:<code>`). A code the table marks internal
 * (a lost lease, a tenancy breach) is a bug or a race the app handles: if it
 * ever reaches HTTP it is an opaque 500.
 */
export type AppErrorCode =
  /** The session, memory or checkpoint does not exist (for this tenant). */
  | 'not-found'
  /** A request is invalid; `errors` names each field. */
  | 'validation-error'
  /** A cursor this API did not issue; the caller names the field it came in. */
  | 'invalid-cursor'
  /** The tenant already has its cap of active sessions. */
  | 'too-many-sessions'
  /** The budget cannot cover even the cheapest session. */
  | 'budget-too-small'
  /** The session names models this deployment cannot reach or price. */
  | 'unusable-models'
  /** The session has already ended (cancelling it again). */
  | 'already-ended'
  /** The checkpoint is not the one the session waits on (answered, expired, ended). */
  | 'checkpoint-not-pending'
  /** The checkpoint expired before the answer came; its policy has been applied. */
  | 'checkpoint-expired'
  /** The answer does not fit the checkpoint; `errors` names the field. */
  | 'checkpoint-action-invalid'
  /** The Idempotency-Key was used with a different request. */
  | 'idempotency-key-reused'
  /** A request with the same Idempotency-Key is still running. */
  | 'idempotency-in-progress'
  /** The deployment runs without expert memory. */
  | 'memory-unavailable'
  /** Internal: a commit's lease was superseded, or the session ended under it. */
  | 'lease-lost'
  /** Internal: a row would hang one tenant's data off another tenant's session. */
  | 'tenancy';

export interface FieldError {
  /** The input's path: `body.budget_usd`, `query.cursor`, `headers.idempotency-key`. */
  field: string;
  message: string;
}

export class AppError extends Error {
  override name = 'AppError';
  /** Every invalid input this error names (validation problems). */
  readonly errors?: FieldError[];
  /** Machine-readable specifics (e.g. the cap that was hit). */
  readonly details?: Record<string, unknown>;

  constructor(
    readonly code: AppErrorCode,
    message: string,
    opts: { errors?: FieldError[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    if (opts.errors) this.errors = opts.errors;
    if (opts.details) this.details = opts.details;
  }

  /** The first field the error names, if any. */
  get field(): string | undefined {
    return this.errors?.[0]?.field;
  }
}

/** Whether `err` is an AppError, of `code` when given. */
export const isAppError = (err: unknown, code?: AppErrorCode): err is AppError =>
  err instanceof AppError && (code === undefined || err.code === code);

/** A 400 naming one field: detail `<field>: <message>`, as every single-field validation problem reads. */
export const fieldError = (field: string, message: string): AppError =>
  new AppError('validation-error', `${field}: ${message}`, { errors: [{ field, message }] });

export const notFoundError = (what: string): AppError => new AppError('not-found', `${what} does not exist`);
