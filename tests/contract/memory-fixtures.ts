import { randomUUID } from 'node:crypto';
import { event } from '../../src/domain/events';
import type { SessionStorePort } from '../../src/ports/session-store';

/** Shared by the memory-side conformance suites (memories, lessons): two opposite 8-d embeddings, a fresh tenant, a session to hang rows off. */
export const PAID: number[] = [1, 1, 1, 1, -1, -1, -1, -1];
export const HIRING: number[] = [-1, -1, -1, -1, 1, 1, 1, 1];

export const newTenant = (): string => `t-${randomUUID()}`;

/** A session of `tenantId` in the adapter's own session store, so ownership checks and shared commits see it. */
export async function newSession(sessions: SessionStorePort, tenantId: string): Promise<string> {
  const id = randomUUID();
  const created = event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' });
  await sessions.create({ id, tenantId, problem: 'p', context: '', options: {}, provider: 'simulated', seed: 's' }, created);
  return id;
}
