export const testDatabaseUrl = (): string =>
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const testRedisUrl = (): string => process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A second database beside the test database, named `<test database>_<suffix>`:
 * engineers sharing one server each get their own, derived from TEST_DATABASE_URL.
 */
export function siblingDatabaseUrl(suffix: string): string {
  const url = new URL(testDatabaseUrl());
  const name = decodeURIComponent(url.pathname.slice(1)) || 'test';
  url.pathname = `/${encodeURIComponent(`${name}_${suffix}`)}`;
  return url.toString();
}
