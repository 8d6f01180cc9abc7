import type { CaseMemoryPolicy } from '../app/session-run';
import { applyEvents, emptyCaseMemory, renderCaseMemory, type CaseMemory } from './case-memory';

const isCaseMemory = (v: unknown): v is CaseMemory =>
  !!v && typeof v === 'object' && Array.isArray((v as CaseMemory).entries) && Array.isArray((v as CaseMemory).decisions);

/** The session's case memory follows its committed events; prompts see it rendered under a hard token cap. */
export function caseMemoryPolicy(tokenCap: number): CaseMemoryPolicy {
  const current = (v: unknown) => (isCaseMemory(v) ? v : emptyCaseMemory());
  return {
    reduce: (memory, events) => applyEvents(current(memory), events, events.at(-1)?.ts ?? new Date(0).toISOString()),
    render: (memory) => renderCaseMemory(current(memory), tokenCap),
  };
}
