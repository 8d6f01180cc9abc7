import { applyIn } from '../db/in-memory-tx';
import type { SessionStorePort, Tx } from '../ports/session-store';
import type { NewUtterance, Utterance, UtteranceStorePort } from '../ports/utterance-store';
import { tenancyError } from './hybrid';

/**
 * Novelty history in process memory: the Postgres store's twin for unit
 * tests. Ids count up like the table's serial, so history reads in insertion
 * order; writes given a twin transaction land on its commit (and take their
 * ids then, as a rolled-back Postgres insert leaves no row).
 */
export class InMemoryUtteranceStore implements UtteranceStorePort {
  private readonly rows: (Utterance & { tenantId: string })[] = [];
  private nextId = 1;

  constructor(private readonly sessions: Pick<SessionStorePort, 'get'>) {}

  async insertUtterances(tenantId: string, list: NewUtterance[], tx?: Tx): Promise<number> {
    for (const sessionId of new Set(list.map((u) => u.sessionId))) {
      if (!(await this.sessions.get(sessionId, tenantId))) throw tenancyError();
    }
    const copies = structuredClone(list);
    applyIn(tx, () => {
      for (const { createdAt, ...u } of copies) {
        this.rows.push({ ...u, tenantId, id: this.nextId++, createdAt: (createdAt ?? new Date()).toISOString() });
      }
    });
    return list.length;
  }

  async utteranceHistory(tenantId: string, sessionId: string, subProblemId: string): Promise<Utterance[]> {
    return this.rows
      .filter((u) => u.tenantId === tenantId && u.sessionId === sessionId && u.subProblemId === subProblemId)
      .map(({ tenantId: _t, ...u }) => structuredClone(u));
  }

  async purgeUtterances(olderThan: Date): Promise<number> {
    const cutoff = olderThan.toISOString();
    const before = this.rows.length;
    const kept = this.rows.filter((u) => u.createdAt >= cutoff);
    this.rows.splice(0, before, ...kept);
    return before - kept.length;
  }
}
