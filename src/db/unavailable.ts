/** Node socket errors that mean the database cannot be reached right now. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATEs of a server that is shutting down, starting up or full: 57P01-57P03, 53300. */
const SERVER_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What node-postgres says when a connection dies or the pool cannot get one (these errors carry no code). */
const POOL_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** An error and the errors of its `cause` chain (drizzle wraps the driver's), nearest first, at most five deep. */
export function* causeChain(err: unknown): Generator<Error> {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) yield e;
}

/**
 * Whether an error (or any error in its `cause` chain: drizzle wraps the
 * driver's) means Postgres is down or unreachable, as opposed to a bug or a
 * bad query: the former is a 503 a client retries, the latter a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_STATES.has(code) || code.startsWith('08'))) return true;
    if (POOL_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
