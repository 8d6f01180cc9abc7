import { snapshot, waitFor } from './stack';

export interface Checkpoint {
  id: string;
  kind: string;
  prompt: string;
  actions: string[];
  expires_at: string;
  on_expiry: string;
  sub_problem_id: string | null;
  round: number | null;
  proposal: Record<string, any>;
  resolve: string;
}

const ENDED = ['completed', 'failed', 'cancelled'];

/** The next checkpoint the session waits on (other than `after`), or null once it has ended. */
export async function nextCheckpoint(url: string, id: string, after: string | null = null, timeoutMs = 60_000): Promise<Checkpoint | null> {
  return waitFor(
    async () => {
      const s = await snapshot(url, id);
      if (ENDED.includes(s.status)) return { ended: true as const };
      if (s.status === 'awaiting_input' && s.checkpoint && s.checkpoint.id !== after) return { checkpoint: s.checkpoint as Checkpoint };
      return null;
    },
    timeoutMs,
    `session ${id} to wait on a new checkpoint or end`,
  ).then((r) => ('checkpoint' in r ? r.checkpoint : null));
}

export async function resolve(url: string, id: string, checkpointId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/v1/sessions/${id}/checkpoints/${checkpointId}/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}
