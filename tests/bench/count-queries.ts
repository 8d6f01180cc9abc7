/**
 * `node --import ./tests/bench/count-queries.ts …`: counts the statements a
 * process sends to Postgres, by their first words, and prints the tally to
 * stderr when it is told to stop. How many round trips a step costs, measured.
 */
import pg from 'pg';

const tally = new Map<string, number>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const q = args[0];
  const text = typeof q === 'string' ? q : ((q as { text?: string } | undefined)?.text ?? '');
  const key = text.trim().split(/\s+/).slice(0, 3).join(' ').toLowerCase().replace(/"/g, '');
  tally.set(key, (tally.get(key) ?? 0) + 1);
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

process.once('SIGTERM', () => {
  const rows = [...tally].sort((a, b) => b[1] - a[1]);
  process.stderr.write(`\nstatements sent (${rows.reduce((n, [, c]) => n + c, 0)}):\n${rows.map(([k, c]) => `  ${String(c).padStart(7)}  ${k}`).join('\n')}\n`);
});
