/**
 * `node --import ./tests/bench/count-queries.ts …`: counts the statements a
 * process sends to Postgres, by their first words, and prints the tally to
 * stderr when it is told to stop. How many round trips a step costs, measured.
 */
import pg from 'pg';

const tally = new Map<string, number>();
const bytes = new Map<string, number>();
const size = (v: unknown): number => (v == null ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v instanceof Date ? 24 : String(v).length);
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const q = args[0];
  const text = typeof q === 'string' ? q : ((q as { text?: string } | undefined)?.text ?? '');
  const key = text.trim().split(/\s+/).slice(0, 3).join(' ').toLowerCase().replace(/"/g, '');
  tally.set(key, (tally.get(key) ?? 0) + 1);
  const values = (Array.isArray(args[1]) ? args[1] : ((q as { values?: unknown[] } | undefined)?.values ?? [])) as unknown[];
  bytes.set(key, (bytes.get(key) ?? 0) + Buffer.byteLength(text) + values.reduce<number>((n, v) => n + size(v), 0));
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

process.once('SIGTERM', () => {
  const rows = [...tally].sort((a, b) => b[1] - a[1]);
  process.stderr.write(`\nstatements sent (${rows.reduce((n, [, c]) => n + c, 0)}):\n${rows.map(([k, c]) => `  ${String(c).padStart(7)}  ${String(Math.round((bytes.get(k) ?? 0) / 1024)).padStart(8)} KB  ${k}`).join('\n')}\n`);
});
