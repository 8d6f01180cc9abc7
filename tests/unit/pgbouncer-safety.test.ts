import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src', import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
const sources = files(SRC)
  .filter((f) => !f.includes('/generated/'))
  .map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }));

/** Where `pattern` occurs, as `file: line`. */
const uses = (pattern: RegExp) =>
  sources.flatMap(({ file, text }) => text.split('\n').flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])));

/**
 * PgBouncer in transaction mode hands each transaction to any server
 * connection, so state that outlives a transaction lands on a connection
 * some other client gets next. The service's queries through DATABASE_URL
 * must keep none: this fails when code starts to (see README, *PgBouncer*).
 */
describe('nothing session-scoped on the pooled connection (PgBouncer transaction mode)', () => {
  it('takes advisory locks per transaction; only the migrations, over DATABASE_DIRECT_URL, hold one per session', () => {
    expect(uses(/pg_(try_)?advisory_lock\(|pg_advisory_unlock\(/).map((u) => u.split(':')[0])).toEqual(['db/client.ts', 'db/client.ts']);
  });

  it('sets settings only for the transaction (SET LOCAL, set_config(…, true)), never for the session', () => {
    expect(uses(/['"`]\s*set\s+(?!local\b|transaction\b)[a-z_.]+\s*(=|to\b)/i)).toEqual([]);
    expect(uses(/set_config\([^)]*,\s*false\s*\)/i)).toEqual([]);
  });

  it('uses no LISTEN/NOTIFY (wake-ups go through Redis) and no named prepared statements', () => {
    expect(uses(/['"`]\s*(listen|unlisten|notify)\s/i)).toEqual([]);
    // node-postgres prepares only unnamed statements unless given a `name`; drizzle names one only through .prepare().
    expect(uses(/\.prepare\(/)).toEqual([]);
  });
});
