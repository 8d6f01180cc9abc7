import type { Usage } from '../domain/events';
import type { SessionRow } from '../db/session-store';
import type { PendingCheckpoint } from '../domain/checkpoints';
import { modelPlan, sessionModels, type ModelRouting } from '../domain/models';
import type { Tier } from '../ports/llm';

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

interface SubProblemProgress {
  stage: string;
  round: number;
  maxRounds: number;
  fraction: number;
}

/**
 * Progress as a person reads it: a percentage and a line such as
 * "1 of 3 sub-problems decided · sp2 round 3/7 · sp3 voting". Sub-problems
 * run concurrently, so each reports its own stage and the whole is derived.
 */
export function progressView(stored: Record<string, unknown>, status: string) {
  const p = progressOf(stored, status);
  return status === 'awaiting_input' ? { ...p, label: `waiting for your answer · ${p.label}` } : p;
}

function progressOf(stored: Record<string, unknown>, status: string) {
  const subs = (stored.subProblems ?? {}) as Record<string, SubProblemProgress>;
  const entries = Object.entries(subs).sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }));
  const total = (stored.total as number | undefined) ?? entries.length;
  if (status === 'completed') return { ...stored, percent: 100, label: 'completed' };
  if (!entries.length || !total) return { ...stored, percent: (stored.percent as number | undefined) ?? 0, label: String(stored.phase ?? status) };
  const done = entries.filter(([, p]) => p.stage === 'done').length;
  const fraction = entries.reduce((a, [, p]) => a + p.fraction, 0) / total;
  const active = entries
    .filter(([, p]) => p.stage !== 'done')
    .map(([id, p]) => (p.stage === 'debate' ? `${id} round ${p.round}/${p.maxRounds}` : `${id} ${p.stage}`));
  return {
    ...stored,
    percent: Math.round(15 + 80 * fraction),
    label: [`${done} of ${total} sub-problems decided`, ...active].join(' · '),
  };
}

/** The deployment's models, which a session's own are layered over. */
export interface DeploymentModels {
  routing: ModelRouting | undefined;
  tiers: Record<Tier, string>;
}


/** Which models answer each role and each seat of the board, once the board is known. */
function modelsView(row: SessionRow, deployment: DeploymentModels) {
  const board = ((row.results as { board?: { code: string }[] } | null)?.board ?? []).map((m) => m.code);
  return modelPlan([sessionModels(row.options), deployment.routing], deployment.tiers, board);
}

/** The snapshot a client polls: state, progress, spend so far and whatever results exist yet. */
export function snapshotView(row: SessionRow, usage: Usage, deployment: DeploymentModels) {
  const options = row.options as { mode?: string; settings?: Record<string, unknown> };
  return {
    ...summaryView(row),
    simulated: row.provider === 'simulated',
    mode: options.mode ?? 'auto',
    settings: options.settings ?? {},
    models: modelsView(row, deployment),
    context: row.context,
    progress: progressView(row.progress as Record<string, unknown>, row.status),
    usage,
    results: (row.results as Record<string, unknown> | null) ?? null,
    error: (row.error as Record<string, unknown> | null) ?? null,
    checkpoint: checkpointView(row),
    case_memory: row.caseMemory as Record<string, unknown>,
    last_seq: row.lastSeq,
    started_at: iso(row.startedAt),
    ended_at: iso(row.endedAt),
  };
}

/** The checkpoint a waiting session shows its client: what to answer, how, and by when. */
export function checkpointView(row: SessionRow) {
  const cp = row.status === 'awaiting_input' ? (row.checkpoint as PendingCheckpoint | null) : null;
  if (!cp) return null;
  return {
    id: cp.id,
    kind: cp.kind,
    prompt: cp.prompt,
    actions: cp.actions,
    requested_at: cp.requestedAt,
    expires_at: cp.expiresAt,
    on_expiry: cp.onExpiry,
    sub_problem_id: cp.subProblemId ?? null,
    round: cp.round ?? null,
    proposal: cp.proposal as Record<string, unknown>,
    resolve: `/v1/sessions/${row.id}/checkpoints/${cp.id}/resolve`,
  };
}
