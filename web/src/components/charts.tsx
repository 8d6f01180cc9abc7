/** Small inline SVG charts: no chart library, a few hundred bytes each. */

const W = 120;
const H = 32;

/** One metric across rounds: a line, its points, and the latest value. */
export function Sparkline({ label, values, max = 1, digits = 2 }: { label: string; values: number[]; max?: number; digits?: number }) {
  const n = values.length;
  const x = (i: number) => (n <= 1 ? W / 2 : 4 + (i * (W - 8)) / (n - 1));
  const y = (v: number) => H - 3 - (Math.max(0, Math.min(max, v)) / max) * (H - 6);
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const last = values.at(-1);
  return (
    <figure class="spark" data-metric={label}>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`${label} by round: ${values.map((v) => v.toFixed(digits)).join(', ')}`}>
        <line class="axis" x1="0" y1={H - 3} x2={W} y2={H - 3} />
        {n > 1 && <polyline points={points} />}
        {values.map((v, i) => (
          <circle cx={x(i)} cy={y(v)} r="2" />
        ))}
      </svg>
      <figcaption>
        {label} <b>{last === undefined ? '—' : last.toFixed(digits)}</b>
      </figcaption>
    </figure>
  );
}

/** Counts per option as horizontal bars (the tally, a straw vote's distribution). */
export function Bars({ counts, highlight }: { counts: Record<string, number>; highlight?: string | null }) {
  const entries = Object.entries(counts).sort(([a], [b]) => a.localeCompare(b));
  const top = Math.max(1, ...entries.map(([, n]) => n));
  return (
    <div class="bars">
      {entries.map(([id, n]) => (
        <div class={`bar${id === highlight ? ' win' : ''}`} key={id}>
          <span class="bar-label">{id}</span>
          <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
            <rect width={(100 * n) / top} height="10" />
          </svg>
          <span class="bar-n">{n}</span>
        </div>
      ))}
    </div>
  );
}

/** A 0-1 value as a short bar with its number. */
export function Meter({ value, title }: { value: number; title?: string }) {
  return (
    <span class="meter" title={title}>
      <svg viewBox="0 0 40 6" width="40" height="6" aria-hidden="true">
        <rect class="track" width="40" height="6" rx="3" />
        <rect width={40 * Math.max(0, Math.min(1, value))} height="6" rx="3" />
      </svg>
      {value.toFixed(2)}
    </span>
  );
}
