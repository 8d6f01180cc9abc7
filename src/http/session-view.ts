import type { Usage } from '../domain/events';
import type { SessionRow } from '../db/session-store';

export const linksFor = (id: string) => ({
  self: `/v1/sessions/${id}`,
  stream: `/v1/sessions/${id}/stream`,
  events: `/v1/sessions/${id}/events`,
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function summaryView(row: SessionRow) {
  return {
    id: row.id,
    status: row.status,
    phase: row.phase,
    provider: row.provider,
    problem: row.problem,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    links: linksFor(row.id),
  };
}

/** The snapshot a client polls: state, progress, spend so far and whatever results exist yet. */
export function snapshotView(row: SessionRow, usage: Usage) {
  const options = row.options as { mode?: string };
  return {
    ...summaryView(row),
    simulated: row.provider === 'simulated',
    mode: options.mode ?? 'auto',
    context: row.context,
    progress: row.progress as Record<string, unknown>,
    usage,
    results: (row.results as Record<string, unknown> | null) ?? null,
    error: (row.error as Record<string, unknown> | null) ?? null,
    last_seq: row.lastSeq,
    started_at: iso(row.startedAt),
    ended_at: iso(row.endedAt),
  };
}
