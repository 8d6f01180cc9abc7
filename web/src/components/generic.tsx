import type { Envelope } from '../events';
import { Bars } from './charts';

type Value = unknown;

const isRecord = (v: Value): v is Record<string, Value> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCounts = (v: Value): v is Record<string, number> =>
  isRecord(v) && Object.keys(v).length > 0 && Object.values(v).every((x) => typeof x === 'number');
const humanize = (key: string) => key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_.]/g, ' ').toLowerCase();

/**
 * Any event's data, readably, whatever its shape: objects as labelled rows,
 * lists of objects as tables, numbers per option as bars. New event types
 * (a newer engine's) show up this way until the viewer learns them.
 */
export function GenericData({ value, depth = 0 }: { value: Value; depth?: number }) {
  if (value === null || value === undefined) return <span class="muted">—</span>;
  if (typeof value === 'number') return <span>{Number.isInteger(value) ? value : value.toFixed(2)}</span>;
  if (typeof value !== 'object') return <span>{String(value)}</span>;
  if (depth > 3) return <code>{JSON.stringify(value)}</code>;
  if (Array.isArray(value)) {
    if (!value.length) return <span class="muted">none</span>;
    if (value.every(isRecord)) {
      const columns = [...new Set(value.flatMap((row) => Object.keys(row)))].filter((c) => c !== 'subProblemId');
      return (
        <table class="generic">
          <thead>
            <tr>{columns.map((c) => <th key={c}>{humanize(c)}</th>)}</tr>
          </thead>
          <tbody>
            {value.map((row, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c}>
                    <GenericData value={row[c]} depth={depth + 1} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    }
    return <span>{value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ')}</span>;
  }
  if (isCounts(value) && depth > 0) return <Bars counts={value} />;
  const rows = Object.entries(value).filter(([k]) => k !== 'subProblemId');
  return (
    <dl class="generic">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{humanize(k)}</dt>
          <dd>
            <GenericData value={v} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** An event the viewer has no dedicated place for: its type and its data. */
export function GenericEvent({ event, title }: { event: Envelope; title?: string }) {
  return (
    <div class="event generic-event" data-seq={event.seq} data-type={event.type}>
      <h4>{title ?? event.type}</h4>
      <GenericData value={event.data} />
    </div>
  );
}
