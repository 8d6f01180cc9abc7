import { readFileSync } from 'node:fs';

export interface Scenario {
  id: string;
  problem: string;
  context: string;
}

/**
 * The shared problem scenarios, copied into the repository (tests/fixtures) so a
 * fresh clone runs its tests without anything beside it.
 */
export const SCENARIOS_FILE = new URL('../fixtures/scenarios.json', import.meta.url);

export function loadScenarios(): Scenario[] {
  return JSON.parse(readFileSync(SCENARIOS_FILE, 'utf8')) as Scenario[];
}
