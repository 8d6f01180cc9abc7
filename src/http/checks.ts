import { withTimeout } from './timeout';

export type Check = () => Promise<void>;
export interface CheckReport {
  status: 'ok' | 'fail';
  /** Each check: `ok`, or `fail: <why>`. */
  checks: Record<string, string>;
}

/**
 * Runs every check at once, each bounded by `timeoutMs` so a hung dependency
 * reads as a failure rather than a hung probe; all must pass for `ok`.
 */
export async function runChecks(checks: Record<string, Check>, timeoutMs = 2000): Promise<CheckReport> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), timeoutMs);
        return [name, 'ok'] as const;
      } catch (err) {
        return [name, `fail: ${(err as Error).message}`] as const;
      }
    }),
  );
  return { status: results.every(([, r]) => r === 'ok') ? 'ok' : 'fail', checks: Object.fromEntries(results) };
}
