import { ALLOWED_ACTIONS, type CheckpointKind, type PendingCheckpoint, type Proposal, type Resolution } from '../../domain/checkpoints';
import { event } from '../../domain/events';
import type { Engine } from './context';

const PROCEED: Resolution = { action: 'continue', by: 'client' };

interface Ask {
  prompt: string;
  proposal: Proposal;
  subProblemId?: string;
  round?: number;
}

/**
 * Stops at a checkpoint when the session is interactive and this kind is on;
 * otherwise proceeds at once. Ids are derived from where the deliberation is
 * (`board`, `sp2.r3`), so a replay reaches the same checkpoint and reads the
 * stored answer.
 */
export async function ask(e: Engine, kind: CheckpointKind, id: string, build: () => Ask): Promise<Resolution> {
  const settings = e.checkpoints;
  if (!settings?.[kind]) return PROCEED;
  const stepKey = `checkpoint/${id}`;
  return e.run.checkpoint<Resolution>(stepKey, (now) => {
    const a = build();
    const checkpoint: PendingCheckpoint = {
      id,
      stepKey,
      kind,
      prompt: a.prompt,
      actions: ALLOWED_ACTIONS[kind],
      requestedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + settings.expires_in_seconds * 1000).toISOString(),
      onExpiry: settings.on_expiry,
      ...(a.subProblemId && { subProblemId: a.subProblemId }),
      ...(a.round && { round: a.round }),
      proposal: a.proposal,
    };
    const { stepKey: _internal, requestedAt: _at, id: checkpointId, proposal, ...shown } = checkpoint;
    return { checkpoint, events: [event('checkpoint.requested', { checkpointId, ...shown, proposal: { ...proposal } })] };
  });
}
