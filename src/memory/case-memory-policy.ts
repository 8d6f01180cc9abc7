import type { CaseMemoryPolicy } from '../app/session-run';
import { applyEvents, normaliseCaseMemory } from './case-memory';
import { boardView, renderCaseMemory } from './case-memory-render';

/** The session's case memory follows its committed events; prompts see it rendered under a hard token cap. */
export function caseMemoryPolicy(tokenCap: number): CaseMemoryPolicy {
  return {
    // Normalised, so a memory stored in an older shape (or none: '{}') keeps working.
    reduce: (memory, events) => applyEvents(normaliseCaseMemory(memory), events, events.at(-1)?.ts ?? new Date(0).toISOString()),
    render: (memory) => renderCaseMemory(normaliseCaseMemory(memory), tokenCap),
    board: (memory) => boardView(normaliseCaseMemory(memory)),
  };
}
