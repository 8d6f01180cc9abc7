import type { CheckpointResolution } from './generated/bo1-client';

type Data = Record<string, any>;

/** `checkpoint.requested` data, as the checkpoint API sends it. */
export interface CheckpointRequest {
  checkpointId: string;
  kind: string;
  prompt: string;
  actions: string[];
  expiresAt?: string;
  onExpiry?: string;
  subProblemId?: string;
  round?: number;
  proposal: Data;
}

/** A body for POST …/checkpoints/{id}/resolve, as the API's document types it. */
export type Resolution = CheckpointResolution;

export function asCheckpoint(data: Record<string, unknown>): CheckpointRequest {
  const d = data as Data;
  return {
    ...d,
    checkpointId: String(d.checkpointId),
    kind: String(d.kind),
    prompt: String(d.prompt ?? ''),
    actions: Array.isArray(d.actions) ? d.actions.map(String) : [],
    proposal: (d.proposal ?? {}) as Data,
  };
}

const list = (xs: unknown) => (Array.isArray(xs) ? (xs as Data[]) : []);
const indent = (s: string, by = '   ') => s.split('\n').map((l) => by + l).join('\n');

/** The sub-problems as the console lists them: `1. [sp1] Title — goal (complexity 5; after sp0)`. */
export function formatSubProblems(subProblems: Data[]): string {
  return subProblems
    .map((s, i) => {
      const notes = [s.complexity !== undefined ? `complexity ${s.complexity}` : '', list(s.depends_on).length ? `after ${list(s.depends_on).join(', ')}` : '']
        .filter(Boolean)
        .join('; ');
      return `${i + 1}. ${s.id ? `[${s.id}] ` : '[new] '}${s.title} — ${s.goal}${notes ? ` (${notes})` : ''}`;
    })
    .join('\n');
}

export function formatBoard(members: Data[]): string {
  return members
    .map((m, i) => `${i + 1}. [${m.code}] ${m.name}, ${m.title}${m.rationale ? `\n${indent(String(m.rationale))}` : ''}`)
    .join('\n');
}

export function formatAvailable(available: Data[]): string {
  return available.map((a) => `${a.code} (${a.name}, ${a.title})`).join(', ');
}

export function formatStatement(p: Data): string {
  return [
    String(p.statement ?? ''),
    ...list(p.assumptions).map((a) => `  Assumption: ${String(a)}`),
    ...(list(p.domains).length ? [`  Domains: ${list(p.domains).join(', ')}`] : []),
  ].join('\n');
}

export function formatRoundEnd(p: Data, prompt = ''): string {
  // The server's prompt usually says which round ended already.
  const lines = prompt.includes(`Round ${p.round}/`) ? [] : [`Round ${p.round}/${p.maxRounds} complete.`];
  if (p.summary) lines.push(`Summary: ${p.summary}`);
  const positions = list(p.positions);
  if (positions.length) lines.push('Positions:', ...positions.map((x) => `  ${x.name ?? x.persona}: ${x.position}`));
  const questions = list(p.questions);
  if (questions.length) lines.push('The experts ask you (answer with an intervention):', ...questions.map((x) => `  ${x.name ?? x.persona}: ${x.question}`));
  return lines.join('\n');
}

/** One line for a `checkpoint.resolved` event. */
export function formatResolved(d: Record<string, unknown>, kind: string): string {
  const who = d.by === 'expiry' ? ', on expiry' : '';
  const detail = typeof d.message === 'string' ? `: "${d.message}"` : '';
  return `(checkpoint ${kind}: ${String(d.action ?? 'resolved').replace(/_/g, ' ')}${who}${detail})`;
}
